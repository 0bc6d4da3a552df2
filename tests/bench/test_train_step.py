"""benchmarks/train_step.py: without --models it times the trained models of the config's
zoo (a pretrained model has no training step), each spec as the pipeline builds it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import train_step  # noqa: E402

pytestmark = pytest.mark.bench


def test_default_models_are_the_configs_trained_zoo(tmp_path):
    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert train_step.zoo_names(ROOT / "config" / "config.yaml") == list(default["models"]["zoo"])
    default["tokenizers"]["pythia"] = {"kind": "hf:/models/pythia-70m"}
    default["models"]["zoo"]["pythia-70m"] = {
        "kind": "pretrained", "path": "/models/pythia-70m", "tokenizer": "pythia"
    }  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(default, sort_keys=False))
    names = train_step.zoo_names(path)
    assert "pythia-70m" not in names and names == list(default["models"]["zoo"])[:-1]
    specs, vocab, seed = train_step.model_specs(path, names)
    assert vocab == 4096 and seed == 0 and specs["t1x32"]["train"]["lr"] == 0.003
