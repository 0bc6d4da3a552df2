"""A pretrained model's checkpoint series in the workflow: every checkpoint folder (a tiny
random GPT-2 written with save_pretrained) is sampled, analysed and probed as the model
``<model>@step<k>``, and the run's table of steps is planned; a missing checkpoint folder is a
config error naming its key. Read from dry runs of the tiny configuration."""

from __future__ import annotations

import pytest
import yaml

from support.models import write_pretrained
from support.workflow import ROOT, snakemake

TEXTS = ["to be or not to be, that is the question"] * 50


def series_config(tmp_path, steps=(0, 512)) -> tuple[dict, dict]:
    """The tiny config with a pretrained model ``mine`` (its folder and one per step)."""
    folders = {s: write_pretrained(tmp_path / f"step{s}", TEXTS, seed=s) for s in steps}
    final = write_pretrained(tmp_path / "final", TEXTS, seed=99)
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    cfg["tokenizers"]["mine"] = {"kind": f"hf:{final}"}
    cfg["models"]["zoo"]["mine"] = {
        "kind": "pretrained",
        "path": str(final),
        "tokenizer": "mine",
        "step": 1000,
        "checkpoints": [{"step": s, "path": str(p)} for s, p in folders.items()],
    }
    return cfg, folders


def dry_run(tmp_path, cfg):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return snakemake("-n", "--configfile", str(path), timeout=600)


@pytest.mark.e2e
def test_every_checkpoint_is_a_model_of_the_run(tmp_path):
    cfg, folders = series_config(tmp_path)
    proc = dry_run(tmp_path, cfg)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for name in ("mine@step0", "mine@step512", "mine"):
        for decoding in ("pure", "greedy"):
            assert f"samples/{name}/{decoding}.jsonl" in out
            assert f"analysis/{name}/{decoding}/tokens.parquet" in out
        assert f"logs/probe/{name}.log" in out
    # each checkpoint's sample job loads its own folder
    assert f"input: {folders[512]}" in out or f"{folders[512]}," in out
    assert "tables/checkpoints.csv" in out
    assert "models/mine" not in out.replace(str(tmp_path), "")  # never trained


@pytest.mark.e2e
def test_a_missing_checkpoint_folder_is_a_config_error(tmp_path):
    cfg, _ = series_config(tmp_path, steps=(0,))
    cfg["models"]["zoo"]["mine"]["checkpoints"].append({"step": 7, "path": str(tmp_path / "no")})
    proc = dry_run(tmp_path, cfg)
    assert proc.returncode != 0
    assert "models.zoo.mine.checkpoints[1].path" in proc.stdout + proc.stderr
    assert "expected an existing model directory" in proc.stdout + proc.stderr
