"""End-to-end: the tiny configuration through Snakemake, the report, and config errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from conftest import ROOT, snakemake

FIGURES = [
    "novelty_valid.png",
    "nnsl_hist_valid.png",
    "novelty_by_model.png",
    "completion_loss.png",
    "novelty_by_decoding.png",
    "novelty_by_prompt_length.png",
    "raven_novelty.png",
    "novelty_quality.png",
    "planted.png",
    "training.png",
]


@pytest.mark.e2e
def test_tiny_run_outputs(tiny_run):
    out = tiny_run
    for f in (
        "figures/novelty_valid.png",
        "figures/nnsl_hist_valid.png",
        "tables/novelty_valid.csv",
        "tables/nnsl_valid.csv",
        "corpus/manifest.json",
        "index/bpe/index.json",
        "index/words/index.json",
    ):
        assert (out / f).stat().st_size > 0, f
    curve = pd.read_csv(out / "tables/novelty_valid.csv")
    assert set(curve["tokenizer"]) == {"bpe", "words"}
    for _, g in curve.groupby("tokenizer"):
        g = g.dropna(subset=["novelty"])
        assert g["novelty"].between(0, 1).all()
        assert g["novelty"].is_monotonic_increasing  # longer n-grams are never less novel
        assert g["novelty"].iloc[-1] > 0.9  # held-out Shakespeare is novel at long n
        assert (g["ci_low"] <= g["novelty"] + 1e-9).all() and (
            g["novelty"] <= g["ci_high"] + 1e-9
        ).all()
    summary = pd.read_csv(out / "tables/nnsl_valid.csv")
    assert (summary["mean_nnsl"] > 1).all() and (summary["mean_nnsl"] < 10).all()
    # the model analyses: every figure and table of the models issue
    for f in FIGURES:
        assert (out / "figures" / f).stat().st_size > 10_000, f
    for f in (
        "novelty_samples.csv",
        "nnsl_samples.csv",
        "completion_loss.csv",
        "raven_summary.csv",
        "raven_novelty.csv",
        "supercopies.csv",
        "planted.csv",
        "runtime.csv",
    ):
        assert (out / "tables" / f).exists(), f
    nnsl = pd.read_csv(out / "tables/nnsl_samples.csv")
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    models = set(cfg["models"]["zoo"])
    assert set(nnsl["model"]) == models | {"human"}
    grid = nnsl[nnsl["model"] != "human"]
    assert len(grid.groupby(["model", "decoding"])) == len(models) * len(
        cfg["sampling"]["decodings"]
    )
    beam = nnsl[(nnsl["decoding"] == "beam_2")]
    assert set(beam["prompt_length"]) == {0, 8, 16}
    raven = pd.read_csv(out / "tables/raven_summary.csv")
    assert set(raven["source"]) == {"train", "context", "union"}
    union = raven[raven["source"] == "union"].set_index(["model", "decoding"])
    train = raven[raven["source"] == "train"].set_index(["model", "decoding"])
    # the union of sources can only find more: never a lower duplication score
    assert (union["truncated_score"] >= train["truncated_score"] - 1e-12).all()
    assert (raven["perplexity"] > 1).all()
    loss = pd.read_csv(out / "tables/completion_loss.csv")
    assert set(loss["curve"]) == {"in training", "not in training"}
    planted = pd.read_csv(out / "tables/planted.csv")
    assert set(planted["copies"]) == {1, 6}
    summary = (out / "summary.md").read_text()
    assert "## RAVEN" in summary and "Planted duplicates" in summary
    # several index shards were built as separate jobs (tiny shard size)
    assert len(list((out / "index/bpe").glob("shard-*"))) > 1
    assert len(list((out / "benchmarks").rglob("*.tsv"))) >= 10


@pytest.mark.e2e
def test_tiny_run_cli_on_built_index(tiny_run):
    env = dict(os.environ)
    idx = tiny_run / "index" / "bpe"
    q = subprocess.run(
        [
            sys.executable,
            "-m",
            "copyscope",
            "query",
            str(idx),
            "--json",
            "--text",
            "Is this a dagger which I see before me",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert q.returncode == 0, q.stderr
    rows = pd.read_json(__import__("io").StringIO(q.stdout))
    assert rows["L"].iloc[-1] >= 5  # Macbeth is in the tiny training split
    t = subprocess.run(
        [
            sys.executable,
            "-m",
            "copyscope",
            "trace",
            str(idx),
            "--plain",
            "--min-len",
            "5",
            "--text",
            "Is this a dagger which I see before me",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert t.returncode == 0, t.stderr
    assert "macbeth@" in t.stdout


@pytest.mark.e2e
def test_report_contains_figures(tiny_run, tmp_path):
    report = tmp_path / "report.html"
    proc = snakemake(
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={tiny_run}",
        "--report",
        str(report),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = report.read_text(errors="replace")
    for f in FIGURES:
        assert f in html, f


def _write_config(tmp_path, mutate):
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    mutate(cfg)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c["index"].update(shard_tokns=5), "shard_tokns"),
        (lambda c: c["index"].update(shard_tokens="many"), "many"),
        (lambda c: c["corpus"].update(source="web"), "web"),
        (lambda c: c["novelty"].update(tokenizers=["nope"]), "novelty.tokenizers"),
    ],
)
def test_bad_config_is_reported(tmp_path, mutate, message):
    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, mutate)))
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr


def test_pretrained_model_is_paired_with_its_own_index(tmp_path):
    """A local Hugging Face model brings its tokenizer; the DAG indexes the corpus with it."""
    from copyscope.lm import build_model
    from copyscope.tokenize import from_spec

    path = tmp_path / "my-lm"
    from_spec({"kind": "bpe", "vocab_size": 300}).fit(["to be or not to be"] * 50, path)
    build_model(
        {"kind": "gpt2", "n_layer": 1, "n_embd": 16, "n_head": 2, "n_ctx": 64}, 300, 0
    ).save_pretrained(path)

    def mutate(c):
        c["tokenizers"]["mine"] = {"kind": f"hf:{path}"}
        c["models"]["zoo"]["mine"] = {"kind": "pretrained", "path": str(path), "tokenizer": "mine"}

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, mutate)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "index/mine/index.json" in out and "samples/mine/pure.jsonl" in out
    assert "models/mine" not in out.replace(str(path), "")  # never trained

    def bad(c):
        mutate(c)
        c["models"]["zoo"]["mine"]["tokenizer"] = "bpe"

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, bad)))
    assert proc.returncode != 0
    assert "models.zoo.mine.tokenizer" in proc.stdout + proc.stderr
