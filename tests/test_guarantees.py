"""Operational guarantees: resume after SIGKILL, determinism, clear errors end to end."""

from __future__ import annotations

import filecmp
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import ROOT, snakemake


def _tables(results):
    return sorted(p.name for p in (results / "tables").glob("*.csv") if p.name != "runtime.csv")


@pytest.mark.e2e
def test_sigkill_during_training_then_resume_is_deterministic(tiny_run, tmp_path):
    """Kill the whole run with SIGKILL while a model trains; the rerun completes, and its
    tables are byte-identical to an uninterrupted run (determinism)."""
    out = tmp_path / "results"
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--cores",
        "2",
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={out}",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 300
    logs = out / "logs" / "train_model"
    while time.time() < deadline and not (logs.exists() and any(logs.iterdir())):
        time.sleep(0.2)
    assert logs.exists(), "training never started"
    time.sleep(1.0)  # inside the training loop
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # nothing half-written: a model directory exists only when complete
    for model in (out / "models").glob("*"):
        if not model.name.startswith("."):
            assert (model / "config.json").exists() and (model / "train_summary.json").exists()
    assert (
        snakemake(
            "--unlock", "--configfile", "config/tiny.yaml", "--config", f"results={out}"
        ).returncode
        == 0
    )
    rerun = snakemake(
        "--cores",
        "2",
        "--rerun-incomplete",
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={out}",
    )
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    names = _tables(tiny_run)
    assert names == _tables(out) and len(names) >= 9
    _, mismatch, errors = filecmp.cmpfiles(
        tiny_run / "tables", out / "tables", names, shallow=False
    )
    assert not mismatch and not errors, f"tables differ between two runs: {mismatch}"
    assert (tiny_run / "summary.md").read_bytes() == (out / "summary.md").read_bytes()


@pytest.mark.e2e
def test_cuda_requested_without_gpu_falls_back_with_warning(tiny_run, tmp_path):
    out = tmp_path / "s.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "copyscope",
            "sample",
            "generate",
            "--model",
            str(tiny_run / "models" / "gpt2-a"),
            "--model-name",
            "gpt2-a",
            "--decoding",
            "greedy",
            "--params-json",
            '{"kind": "greedy"}',
            "--prompts",
            str(tiny_run / "prompts" / "prompts.jsonl"),
            "--prompt-tokenizer",
            str(tiny_run / "tokenizers" / "bpe"),
            "--prompt-lengths",
            "8",
            "--new-tokens",
            "4",
            "--device",
            "cuda",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "cuda" in proc.stderr.lower() and "cpu" in proc.stderr.lower()
    assert out.exists()


def _jsonl_config(tmp_path, data) -> str:
    """The tiny config reading the corpus from the .jsonl file ``data``."""
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["corpus"].update(source="jsonl", path=str(data))
    cfg["corpus"].pop("subset")
    cfg["corpus"]["split"]["valid_ids"] = []
    cfg["corpus"]["inject"] = {}
    cfg["results"] = str(tmp_path / "results")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    return str(tmp_path / "c.yaml")


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "nowhere.jsonl"),  # the file does not exist
        ('{"id": "a", "text": "one two"}\n{"id": "b", "text": broken}\n', "nowhere.jsonl:2"),
    ],
)
def test_bad_corpus_file_fails_cleanly(tmp_path, content, message):
    data = tmp_path / "nowhere.jsonl"
    if content is not None:
        data.write_text(content)
    proc = snakemake(
        "--cores", "1", "--configfile", _jsonl_config(tmp_path, data), "--show-failed-logs"
    )
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr
    assert not (tmp_path / "results" / "corpus" / "train.jsonl").exists()


@pytest.mark.e2e
def test_many_shards_equal_one_shard(tiny_run, tmp_path):
    """The tiny config indexes in several shards; one big shard gives byte-identical tables."""
    assert len(list((tiny_run / "index" / "bpe").glob("shard-*"))) > 2
    out = tmp_path / "one"
    targets = [f"{out}/tables/novelty_valid.csv", f"{out}/tables/nnsl_valid.csv"]
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["index"]["shard_tokens"] = 10**9
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(cfg))
    # targets first: --config takes every argument after it
    proc = snakemake(
        *targets,
        "--cores",
        "2",
        "--configfile",
        str(tmp_path / "one.yaml"),
        "--config",
        f"results={out}",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(list((out / "index" / "bpe").glob("shard-*"))) == 1
    for name in ("novelty_valid.csv", "nnsl_valid.csv"):
        assert (out / "tables" / name).read_bytes() == (tiny_run / "tables" / name).read_bytes()
    a = (out / "novelty" / "bpe" / "valid_matches.parquet").read_bytes()
    assert a == (tiny_run / "novelty" / "bpe" / "valid_matches.parquet").read_bytes()
