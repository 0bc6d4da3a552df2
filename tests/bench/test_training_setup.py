"""benchmarks/training_setup.py: every variant is a valid configuration, the extraction-curve
variants train the default's own transformers for longer, and the greedy loop share of a final
model is the loops report's share (generation replaced by known continuations)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
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
    for name in [v for v in training_setup.VARIANTS if v.startswith("curve-") and v[6].isdigit()]:
        cfg = training_setup.variant_config(name, base)
        zoo = cfg["models"]["zoo"]
        assert set(zoo) <= set(training_setup.CURVE_GPT2) and "t2x64" in zoo
        for m in zoo:  # the same shapes and lr as the default zoo's, or the ladder's shape
            assert zoo[m] == base["models"]["zoo"].get(m, training_setup.LADDER.get(m))
        assert cfg["tokenizers"] == base["tokenizers"] and cfg["corpus"] == base["corpus"]
        budgets.append(cfg["models"]["train"]["tokens"])
    assert budgets == sorted(budgets) and budgets[0] > base["models"]["train"]["tokens"]


def test_curve_target_gives_each_transformer_its_own_budget_and_seed_varies_the_models(base):
    cfg = training_setup.variant_config("curve-target", base, seed=2)
    assert cfg["results"] == "results-setup/curve-target-seed2" and cfg["models"]["seed"] == 2
    zoo = cfg["models"]["zoo"]
    budgets = {m: zoo[m]["train"]["tokens"] for m in zoo}
    assert budgets == {"t2x64": 6_400_000, "t2x128": 4_800_000, "t4x256": 3_200_000}
    for m in zoo:  # only the budget differs from the default zoo's (or the ladder's) model
        default = base["models"]["zoo"].get(m) or training_setup.LADDER[m]
        assert {k: v for k, v in zoo[m].items() if k != "train"} == {
            k: v for k, v in default.items() if k != "train"
        }
        assert {**zoo[m]["train"], "tokens": None} == {**default.get("train", {}), "tokens": None}
    assert base["models"]["zoo"]["t2x64"].get("train", {}).get("tokens") is None  # not mutated
    validated = validate(cfg)
    assert validated["models"]["zoo"]["t4x256"]["train"]["tokens"] == 3_200_000
    assert training_setup.variant_config("curve-target", base)["results"] == (
        "results-setup/curve-target"
    )


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


def _extraction(rates: dict[int, int], per: int = 12) -> pd.DataFrame:
    """Per-passage rows as copyscope.memorize.extract writes them: ``rates[copies]`` of the
    ``per`` passages of each rung (copies 0: the controls) extracted exactly."""
    rows = [
        {"model": "m", "copies": c, "exact": int(i < k), "match_fraction": float(i < k),
         "lcp": 32.0 * (i < k)}
        for c, k in rates.items() for i in range(per)
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "rates, verdict",
    [
        ({0: 0, 1: 0, 4: 0, 16: 1, 64: 4, 128: 6}, "holds"),  # the curve's 6 of 12 at 128
        ({0: 6, 1: 5, 4: 3, 16: 1, 64: 0, 128: 0}, "does not hold"),
        ({0: 0, 1: 0, 4: 0, 16: 0, 64: 0, 128: 0}, "inconclusive"),  # the floor of 1.6M tokens
        ({0: 0, 1: 0, 4: 0, 16: 0, 64: 0, 128: 1}, "inconclusive"),
    ],
)
def test_duplication_trend_is_the_scorecards_rule_on_one_models_extraction(base, rates, verdict):
    cfg = training_setup.variant_config("curve-target", base)
    assert training_setup.duplication_trend(_extraction(rates), cfg) == verdict
