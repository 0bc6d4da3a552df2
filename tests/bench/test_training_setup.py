"""benchmarks/training_setup.py: every variant is a valid configuration, the extraction-curve
variants train the default's own transformers for longer, and the greedy loop share of a final
model is the loops report's share (generation replaced by known continuations)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import training_setup  # noqa: E402
from copyscope.config import validate  # noqa: E402


@pytest.fixture(scope="module")
def base():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.mark.parametrize("name", list(training_setup.VARIANTS))
def test_every_variant_is_a_valid_config(base, name):
    cfg = validate(training_setup.variant_config(name, base))
    assert cfg["results"] == f"results-setup/{name}"
    assert cfg["models"]["train"]["checkpoints"] == training_setup.CHECKPOINTS


def test_curve_variants_train_the_default_transformers_longer(base):
    budgets = []
    for name in [v for v in training_setup.VARIANTS if v.startswith("curve-")]:
        cfg = training_setup.variant_config(name, base)
        zoo = cfg["models"]["zoo"]
        assert set(zoo) <= set(training_setup.DEFAULT_GPT2) and "t2x64" in zoo
        assert all(zoo[m] == base["models"]["zoo"][m] for m in zoo)  # the same shapes and lr
        assert cfg["tokenizers"] == base["tokenizers"] and cfg["corpus"] == base["corpus"]
        budgets.append(cfg["models"]["train"]["tokens"])
    assert budgets == sorted(budgets) and budgets[0] > base["models"]["train"]["tokens"]


def test_greedy_loop_share_reads_the_continuations_as_the_loops_report(base, tmp_path,
                                                                       monkeypatch):  # fmt: skip
    import copyscope.sample

    cfg = training_setup.variant_config("curve-2.4M", base)
    P = cfg["sampling"]["prompt_length"]
    looping = [5, 6, 7] + [1, 2] * 40  # ends in a loop of period 2
    fresh = list(range(100, 190))  # no repeat at all
    calls = []

    def fake_generate_file(model_dir, model, decoding, method, prompts, tokenizer, out, **kw):
        calls.append((Path(model_dir).name, decoding, method, kw["prompt_lengths"]))
        rows = [{"prompt_length": P, "ids": ids} for ids in (looping, fresh, fresh, fresh)]
        Path(out).write_text("".join(json.dumps(r) + "\n" for r in rows))
        return len(rows), 0

    monkeypatch.setattr(copyscope.sample, "generate_file", fake_generate_file)
    assert training_setup.greedy_loop_share(tmp_path, cfg, "t2x64") == 0.25
    assert calls == [("t2x64", "greedy", cfg["sampling"]["decodings"]["greedy"], [P])]
    assert (tmp_path / "loops" / "t2x64.jsonl").exists()
