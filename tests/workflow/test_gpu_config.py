"""config/gpu.yaml is the default design with models of real size for one GPU (issue 36 §6):
the same corpus, planted known answers and analyses as config/config.yaml; only the models,
their training, the models the sampling names, the results folder and the dynamics settings
differ; its ladder spans at least 10x in parameters up to about 100M; and it plans the same
jobs as the default (a dry run)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import yaml

from copyscope.config import validate
from support.workflow import ROOT, snakemake

GPU = ROOT / "config/gpu.yaml"
DEFAULT = ROOT / "config/config.yaml"


def load(path):
    return validate(yaml.safe_load(path.read_text()))


def parameters(spec: dict, vocab: int) -> int:
    from copyscope.lm import build_model

    return sum(p.numel() for p in build_model(spec, vocab, 0).parameters())


def test_only_the_models_differ_from_the_default():
    gpu, default = load(GPU), load(DEFAULT)
    for key in sorted(set(gpu) | set(default)):
        if key in ("models", "sampling", "results", "analysis"):
            continue
        assert gpu.get(key) == default.get(key), key
    for key in ("prompt_length_models", "grid_models"):
        assert set(gpu["sampling"][key]) <= set(gpu["models"]["zoo"])
    same = {k: v for k, v in gpu["sampling"].items() if not k.endswith("models")}
    assert same.pop("training_prompts").keys() == default["sampling"]["training_prompts"].keys()
    assert same == {
        k: v for k, v in default["sampling"].items()
        if not k.endswith("models") and k != "training_prompts"
    }  # fmt: skip
    assert {k: v for k, v in gpu["analysis"].items() if k != "dynamics"} == {
        k: v for k, v in default["analysis"].items() if k != "dynamics"
    }
    assert gpu["analysis"]["dynamics"]["enabled"] and gpu["models"]["train"]["checkpoints"] >= 8
    assert gpu["models"]["device"] == "cuda" and gpu["results"] != default["results"]


def test_the_ladder_is_named_by_shape_and_spans_tenfold_up_to_about_100m():
    gpu = load(GPU)
    vocab = gpu["tokenizers"][gpu["models"]["tokenizer"]]["vocab_size"]
    sizes = {}
    for name, spec in gpu["models"]["zoo"].items():
        if spec["kind"] == "gpt2":
            shape = re.fullmatch(r"t(\d+)x(\d+)", name)
            assert shape, f"{name}: expected a name t<layers>x<width>"
            assert (spec["n_layer"], spec["n_embd"]) == tuple(map(int, shape.groups()))
            sizes[name] = parameters(spec, vocab)
    assert max(sizes.values()) >= 10 * min(sizes.values())
    assert 5e7 <= max(sizes.values()) <= 1.2e8
    assert Counter(s["kind"] for s in gpu["models"]["zoo"].values())["lstm"] == 1
    tokens_default = load(DEFAULT)["models"]["train"]["tokens"]
    assert gpu["models"]["train"]["tokens"] >= 5 * tokens_default  # trained far past the CPU's


@pytest.mark.e2e
def test_it_plans_the_default_jobs(tmp_path):
    def jobs(config):
        run = snakemake("-n", "--configfile", str(config), "--config", f"results={tmp_path}/r")
        assert run.returncode == 0, run.stderr[-2000:]
        table = run.stdout.split("Job stats:", 1)[1].split("total", 1)[0]
        return {line.split()[0] for line in table.splitlines()[3:] if line.strip()}

    assert jobs(GPU) == jobs(DEFAULT)
