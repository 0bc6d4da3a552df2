"""The findings scorecard: every claim's rule on synthetic tables whose verdict is known
(holds, does not hold, inconclusive), the decision helpers, the markdown and the command."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.report import findings as F

FAILS, HOLDS, UNCLEAR = F.FAILS, F.HOLDS, F.UNCLEAR
PARAMS = {
    "findings": {
        "n_large": 5,
        "n_large_max": 6,
        "n_small": 2,
        "alpha": 0.05,
        "rho_min": 0.8,
        "min_tokens": 20,
    },
    "sampling": {
        "prompt_length": 8,
        "prompt_length_decodings": ["pure"],
        "prompt_length_models": ["big"],
        "decodings": {
            "pure": {"kind": "sample", "temperature": 1.0, "top_k": None, "top_p": None},
            "cold": {"kind": "sample", "temperature": 0.5, "top_k": None, "top_p": None},
            "k10": {"kind": "sample", "temperature": 1.0, "top_k": 10, "top_p": None},
            "greedy": {"kind": "greedy"},
        },
    },
    "models": {
        "evaluator": "big",
        "zoo": {
            "big": {"kind": "gpt2", "n_layer": 2, "n_embd": 64},
            "small": {"kind": "gpt2", "n_layer": 1, "n_embd": 32},
            "lstm": {"kind": "lstm", "n_layer": 3, "n_embd": 512},
        },
    },
}
PARAMS["analysis"] = {"syntax": {"template_headline_n": 6}}
FAMILY = {"pure": "pure", "cold": "temperature", "k10": "top-k", "greedy": "greedy"}


def decide(claim: str, **tables) -> F.Finding:
    return F.CLAIMS[claim](tables, PARAMS)


def iv(value: float, half: float = 0.05) -> dict:
    """A value with a symmetric interval."""
    return {"value": value, "ci_low": value - half, "ci_high": value + half}


# --------------------------------------------------------------------------- helpers
def test_compare_intervals():
    assert F.compare((2, 1.5, 2.5), (1, 0.5, 1.4)) == 1
    assert F.compare((1, 0.5, 1.4), (2, 1.5, 2.5)) == -1
    assert F.compare((1, 0.5, 1.5), (2, 1.5, 2.5)) == 0  # touching bounds overlap
    assert F.compare((1, math.nan, 1.5), (2, 1.6, 2.5)) == 0


def test_combine_and_signs():
    assert F.combine([HOLDS, HOLDS]) == HOLDS
    assert F.combine([HOLDS, UNCLEAR]) == UNCLEAR
    assert F.combine([HOLDS, FAILS]) == UNCLEAR
    assert F.combine([FAILS, UNCLEAR]) == FAILS
    assert F.combine([]) == UNCLEAR
    assert F.signs_verdict([0, -1, -1], -1) == HOLDS
    assert F.signs_verdict([1, 0], -1) == FAILS
    assert F.signs_verdict([1, -1], -1) == UNCLEAR
    assert F.signs_verdict([0, 0], -1) == UNCLEAR


def test_rank_test_exact_and_sampled():
    # 4 points in perfect order: 2 of the 24 permutations reach |rho| = 1
    assert F.rank_test([1, 2, 3, 4], [9, 7, 5, 1]) == pytest.approx((-1.0, 2 / 24))
    # ties take average ranks: ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4)
    rho, _ = F.rank_test([1, 2, 2, 3], [1, 2, 3, 4])
    assert rho == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert all(math.isnan(v) for v in F.rank_test([1, 1, 1], [1, 2, 3]))
    assert F.rank_test([1, 2], [2, 1]) == pytest.approx((-1.0, 1.0))
    rho, p = F.rank_test(range(12), range(12))  # 12! permutations: sampled, seeded
    assert rho == pytest.approx(1.0) and p == pytest.approx(1 / 20001)
    assert F.rank_test(range(12), range(12)) == (rho, p)


def test_sign_test():
    assert F.sign_test(6, 6) == pytest.approx(2 / 64)
    assert F.sign_test(0, 6) == pytest.approx(2 / 64)
    assert F.sign_test(3, 6) == 1.0
    assert math.isnan(F.sign_test(0, 0))


# --------------------------------------------------------------------------- claim 1
def curves(model: dict[int, float], human: dict[int, float], half=0.02) -> pd.DataFrame:
    rows = []
    for name, dec, fam, values in (
        ("human", "reference", "human", human),
        ("m", "pure", "pure", model),
    ):
        for n, v in values.items():
            rows.append(
                {"model": name, "decoding": dec, "family": fam, "prompt_length": 8, "n": n}
                | {"novelty": v, "ci_low": v - half, "ci_high": v + half}
            )
    return pd.DataFrame(rows)


HUMAN = {1: 0.01, 2: 0.2, 3: 0.5, 4: 0.8, 5: 0.9, 6: 0.95}


@pytest.mark.parametrize(
    "model, verdict",
    [
        ({5: 0.7, 6: 0.8}, HOLDS),
        ({5: 0.99, 6: 0.99}, FAILS),
        ({5: 0.91, 6: 0.94}, UNCLEAR),  # overlapping intervals
        ({5: 0.7, 6: 1.0}, UNCLEAR),  # below at 5, above at 6
    ],
)
def test_less_novel_large_n(model, verdict):
    f = decide("less-novel-large-n", novelty_samples=curves(model | {1: 0.01, 2: 0.2}, HUMAN))
    assert f.verdict == verdict, f.measured
    assert "novelty(5)" in f.measured and "5..6" in f.rule


def test_other_prompt_lengths_and_decodings_do_not_count():
    table = curves({5: 0.7, 6: 0.8}, HUMAN)
    other = table[table["model"] == "m"].assign(prompt_length=0, novelty=1.0, ci_low=1.0)
    greedy = table[table["model"] == "m"].assign(decoding="greedy", family="greedy", ci_low=1)
    f = decide("less-novel-large-n", novelty_samples=pd.concat([table, other, greedy]))
    assert f.verdict == HOLDS


@pytest.mark.parametrize(
    "model, verdict",
    [({1: 0.1, 2: 0.4}, HOLDS), ({1: 0.001, 2: 0.1}, FAILS), ({1: 0.02, 2: 0.21}, UNCLEAR)],
)
def test_more_novel_small_n(model, verdict):
    f = decide("more-novel-small-n", novelty_samples=curves(model, HUMAN))
    assert f.verdict == verdict, f.measured


def test_a_missing_table_or_no_rows_is_not_measured():
    f = decide("less-novel-large-n")
    assert f.verdict == UNCLEAR
    assert f.measured == "not measured: no novelty_samples table in this run"
    only_model = curves({5: 0.7}, {})
    f = decide("less-novel-large-n", novelty_samples=only_model)
    assert f.verdict == UNCLEAR and f.measured.startswith("not measured: no pure-sampling")


# --------------------------------------------------------------------------- claims 2-4
def nnsl(rows: list[tuple]) -> pd.DataFrame:
    """(model, decoding, prompt length, mean L_t, half-width) → nnsl_samples rows."""
    return pd.DataFrame(
        [
            {"model": m, "decoding": d, "family": FAMILY.get(d, "human"), "prompt_length": p}
            | {"mean_nnsl": v, "ci_low": v - h, "ci_high": v + h}
            for m, d, p, v, h in rows
        ]
    )


@pytest.mark.parametrize(
    "big, small, verdict", [(3.0, 2.0, HOLDS), (2.0, 3.0, FAILS), (2.1, 2.0, UNCLEAR)]
)
def test_larger_less_novel(big, small, verdict):
    # table order is not the size order; the LSTM is not compared by size
    table = nnsl([("big", "pure", 8, big, 0.1), ("lstm", "pure", 8, 9.0, 0.1)])
    table = pd.concat([table, nnsl([("small", "pure", 8, small, 0.1), ("big", "pure", 0, 0, 0)])])
    f = decide("larger-less-novel", nnsl_samples=table)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("mean L_t big ")


def test_model_size_orders_gpt2_models_only():
    assert F.model_size({"kind": "gpt2", "n_layer": 2, "n_embd": 64}) == 12 * 2 * 64**2
    assert F.model_size({"kind": "lstm", "n_layer": 2, "n_embd": 64}) is None
    f = decide("larger-less-novel", nnsl_samples=nnsl([("big", "pure", 8, 3.0, 0.1)]))
    assert f.verdict == UNCLEAR and f.measured.startswith("not measured: fewer than two")


@pytest.mark.parametrize(
    "values, verdict",
    [
        ({"pure": 2.0, "cold": 3.0, "k10": 2.5, "greedy": 4.0}, HOLDS),
        ({"pure": 2.0, "cold": 1.0, "k10": 1.5, "greedy": 1.2}, FAILS),
        ({"pure": 2.0, "cold": 2.05, "k10": 2.02, "greedy": 2.1}, UNCLEAR),
    ],
)
def test_constrained_less_novel(values, verdict):
    rows = [("m", d, 8, v, 0.1) for d, v in values.items()] + [("human", "reference", 8, 9, 1)]
    f = decide("constrained-less-novel", nnsl_samples=nnsl(rows))
    assert f.verdict == verdict, f.measured
    assert "temperature ρ = " in f.measured and "top-k ρ = " in f.measured


def test_constrained_one_family_against_the_rest_is_inconclusive():
    values = {"pure": 2.0, "cold": 3.0, "k10": 1.0, "greedy": 4.0}
    f = decide(
        "constrained-less-novel",
        nnsl_samples=nnsl([("m", d, 8, v, 0.1) for d, v in values.items()]),
    )
    assert f.verdict == UNCLEAR


@pytest.mark.parametrize(
    "values, verdict",
    [((2.0, 2.5, 3.0), HOLDS), ((3.0, 2.5, 2.0), FAILS), ((2.0, 2.05, 2.02), UNCLEAR)],
)
def test_prompt_length(values, verdict):
    rows = [("big", "pure", p, v, 0.1) for p, v in zip((0, 8, 16), values, strict=True)]
    # not in the study: another model, another decoding, the human reference
    rows += [("small", "pure", p, v, 0.1) for p, v in zip((0, 8, 16), (9, 5, 1), strict=True)]
    rows += [("big", "greedy", p, v, 0.1) for p, v in zip((0, 8, 16), (9, 5, 1), strict=True)]
    rows += [("human", "reference", p, 3, 0.1) for p in (0, 8, 16)]
    f = decide("prompt-length", nnsl_samples=nnsl(rows))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("big pure: ρ = ")


# --------------------------------------------------------------------------- claims 5a, 5b
def completion(in_training: list[float], not_in: list[float], tokens=100) -> pd.DataFrame:
    rows = [
        {"model": "m", "curve": curve, "x": x, "loss": v, "tokens": tokens}
        for curve, values in (("in training", in_training), ("not in training", not_in))
        for x, v in enumerate(values, 1)
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "ins, nots, verdict",
    [
        ([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7], HOLDS),
        ([2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6], FAILS),
        ([1, 2, 3, 5, 6, 7], [2, 3, 4, 4, 5, 6], UNCLEAR),  # 3 of 6
    ],
)
def test_completion_loss_in_training(ins, nots, verdict):
    table = completion(ins, nots)
    # a point with too few tokens going the other way is left out
    rare = pd.DataFrame(
        [{"model": "m", "curve": c, "x": 9, "loss": v, "tokens": 3} for c, v in
         (("in training", 9.0), ("not in training", 0.0))]
    )  # fmt: skip
    f = decide("completion-loss-in-training", completion_loss=pd.concat([table, rare]))
    assert f.verdict == verdict, f.measured
    assert "of 6 lengths" in f.measured


@pytest.mark.parametrize(
    "ins, verdict",
    [([6, 5, 4, 3, 2, 1], HOLDS), ([1, 2, 3, 4, 5, 6], FAILS), ([3, 1, 4, 1.5, 5, 2], UNCLEAR)],
)
def test_completion_loss_length(ins, verdict):
    f = decide("completion-loss-length", completion_loss=completion(ins, [9] * 6))
    assert f.verdict == verdict, f.measured
    assert "6 lengths" in f.measured


# --------------------------------------------------------------------------- claim 6
@pytest.mark.parametrize(
    "ppl, verdict",
    [([50, 40, 30, 20, 10], HOLDS), ([10, 20, 30, 40, 50], FAILS), ([30, 10, 50, 20, 40], UNCLEAR)],
)
def test_novelty_quality(ppl, verdict):
    rows = [
        {"model": "m", "decoding": f"d{i}", "source": "union", "prompt_length": 8}
        | {"truncated_score": s, "perplexity": p}
        for i, (s, p) in enumerate(zip([1, 2, 3, 4, 5], ppl, strict=True))
    ]
    # other sources and the human reference are left out
    rows += [r | {"source": "train", "perplexity": -r["perplexity"]} for r in rows]
    rows.append({"model": "human", "decoding": "reference", "source": "union", "prompt_length": 8}
                | {"truncated_score": 99, "perplexity": 99})  # fmt: skip
    f = decide("novelty-quality", raven_summary=pd.DataFrame(rows))
    assert f.verdict == verdict, f.measured
    assert "5 decodings" in f.measured


def test_novelty_quality_grid_models_only():
    """Models sampled only under the shared decodings are not judged (too few decodings)."""
    rows = [
        {"model": m, "decoding": f"d{i}", "source": "union", "prompt_length": 8}
        | {"truncated_score": s, "perplexity": p}
        for m, ppl in (("big", [50, 40, 30, 20, 10]), ("small", [1, 2]))
        for i, (s, p) in enumerate(zip([1, 2, 3, 4, 5][: len(ppl)], ppl, strict=True))
    ]
    params = {**PARAMS, "sampling": {**PARAMS["sampling"], "grid_models": ["big"]}}
    f = F.CLAIMS["novelty-quality"]({"raven_summary": pd.DataFrame(rows)}, params)
    assert f.verdict == HOLDS, f.measured
    assert "small" not in f.measured
    f = decide("novelty-quality", raven_summary=pd.DataFrame(rows))  # no grid: every model
    assert f.verdict == F.UNCLEAR and "small" in f.measured


# --------------------------------------------------------------------------- claim 7
def ladder(rates: dict[int, tuple[float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": "m", "copies": c, "extraction_rate": v, "ci_low": lo, "ci_high": hi}
            | {"match_fraction": v, "lcp": 1.0, "n": 10}
            for c, (v, lo, hi) in rates.items()
        ]
    )


@pytest.mark.parametrize(
    "rates, verdict",
    [
        ({0: (0, 0, 0), 1: (0.1, 0, 0.2), 4: (0.5, 0.3, 0.7), 16: (0.9, 0.8, 1)}, HOLDS),
        ({0: (0.3, 0.2, 0.4), 1: (0.1, 0, 0.2), 16: (0, 0, 0)}, FAILS),  # top below control
        ({0: (0, 0, 0), 1: (0.9, 0.8, 1), 16: (0.1, 0, 0.2)}, FAILS),  # a significant drop
        ({0: (0, 0, 0), 1: (0, 0, 0), 16: (0, 0, 0)}, UNCLEAR),
    ],
)
def test_extraction_duplication(rates, verdict):
    f = decide("extraction-duplication", memorization=ladder(rates))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: control ")


def test_extraction_without_the_memorization_table_is_not_measured():
    f = decide("extraction-duplication")
    assert (f.verdict, f.measured) == (UNCLEAR, "not measured: no memorization table in this run")


# --------------------------------------------------------------------------- claim 8
@pytest.mark.parametrize(
    "loss, verdict",
    [([5, 4, 3, 2, 1], HOLDS), ([1, 2, 3, 4, 5], FAILS), ([3, 1, 5, 2, 4], UNCLEAR)],
)
def test_completion_loss_frequency(loss, verdict):
    rows = [
        {"model": "m", "n": 4, "log10_count": c, "loss": v, "tokens": 100}
        for c, v in zip(range(5), loss, strict=True)
    ]
    rows.append({"model": "m", "n": 4, "log10_count": 9, "loss": 99.0, "tokens": 2})  # too rare
    f = decide("completion-loss-frequency", completion_loss_frequency=pd.DataFrame(rows))
    assert f.verdict == verdict, f.measured
    assert "m L=4: " in f.measured and "5 buckets" in f.measured


# --------------------------------------------------------------------------- syntax claims
def syntax_novelty(model: dict[str, float], human: dict[str, float], half=0.02) -> pd.DataFrame:
    """Syntactic-novelty rows (unit → novelty) of the human reference and of model m's pure
    sampling, each with a ±half interval; a beam decoding of m that the claim must ignore."""
    rows = []
    for name, dec, fam, values in (
        ("human", "reference", "human", human),
        ("m", "pure", "pure", model),
        ("m", "greedy", "greedy", dict.fromkeys(model, 0.0)),
    ):
        for unit, v in values.items():
            rows.append(
                {"model": name, "decoding": dec, "decoding_family": fam, "unit": unit}
                | {"novelty": v, "ci_low": v - half, "ci_high": v + half, "total": 50}
            )
    return pd.DataFrame(rows)


LOCAL = {"labeled_arc": 0.3, "dependency_role": 0.1, "labeled_path_3": 0.4, "labeled_path_5": 0.9}
WHOLE = {"pos_sequence": 0.9, "dependency_structure": 0.95}


@pytest.mark.parametrize(
    "model, verdict",
    [
        # local below human (path of 5 nodes is not local: above does not count), whole equal
        ({"labeled_arc": 0.2, "dependency_role": 0.1, "labeled_path_3": 0.3}
         | {"labeled_path_5": 0.99, "pos_sequence": 0.9, "dependency_structure": 0.97}, HOLDS),
        # local below but whole-sentence structure below too
        ({"labeled_arc": 0.2, "dependency_role": 0.05, "labeled_path_3": 0.3}
         | {"pos_sequence": 0.7, "dependency_structure": 0.95}, FAILS),
        # local above human, whole equal
        ({"labeled_arc": 0.4, "dependency_role": 0.1, "labeled_path_3": 0.4} | WHOLE, FAILS),
        # local all overlapping
        ({"labeled_arc": 0.31, "dependency_role": 0.1, "labeled_path_3": 0.4} | WHOLE, UNCLEAR),
    ],
)  # fmt: skip
def test_syntax_local_less_novel(model, verdict):
    f = decide("syntax-local-less-novel", syntax_novelty=syntax_novelty(model, LOCAL | WHOLE))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: local below human at {")


def test_syntax_units_without_occurrences_are_not_compared():
    """A unit with total 0 (no generated sentence) counts neither way; with no whole-sentence
    unit measured the model is left out and the claim is not measured."""
    table = syntax_novelty({"labeled_arc": 0.1, "pos_sequence": 0.1}, LOCAL | WHOLE)
    table.loc[table["unit"] == "pos_sequence", "total"] = 0
    f = decide("syntax-local-less-novel", syntax_novelty=table)
    assert (f.verdict, f.measured.startswith("not measured")) == (UNCLEAR, True)


def templates(model: dict[str, float], human: dict[str, float]) -> pd.DataFrame:
    """Template measures at n = 6 (and other values at n = 4, ignored) of human and m/pure."""
    rows = []
    for name, dec, fam, values in (
        ("human", "reference", "human", human),
        ("m", "pure", "pure", model),
    ):
        rows.append({"model": name, "decoding": dec, "decoding_family": fam, "n": 6} | values)
        rows.append({"model": name, "decoding": dec, "decoding_family": fam, "n": 4}
                    | dict.fromkeys(values, 0.0 if name == "m" else 1.0))  # fmt: skip
    return pd.DataFrame(rows)


TPL_HUMAN = {"template_rate": 0.5, "templates_per_token": 0.1, "cr_pos": 3.0}


@pytest.mark.parametrize(
    "model, verdict",
    [
        ({"template_rate": 0.9, "templates_per_token": 0.2, "cr_pos": 3.5}, HOLDS),
        ({"template_rate": 0.2, "templates_per_token": 0.05, "cr_pos": 2.5}, FAILS),
        ({"template_rate": 0.9, "templates_per_token": 0.05, "cr_pos": 3.5}, UNCLEAR),
    ],
)
def test_more_templates(model, verdict):
    f = decide("more-templates", templates=templates(model, TPL_HUMAN))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m n=6: template_rate ")


def coverage(cov_t, cov_o, rank_t, rank_o, p) -> pd.DataFrame:
    row = {"cut": 100, "coverage_templates": cov_t, "coverage_non_templates": cov_o}
    row |= {"median_rank_templates": rank_t, "median_rank_non_templates": rank_o, "p_value": p}
    return pd.DataFrame(
        [
            {"model": "m", "decoding": "pure", "decoding_family": "pure"} | row,
            # the human baseline's templates are not part of the claim
            {"model": "human", "decoding": "reference", "decoding_family": "human"}
            | row
            | {"coverage_templates": 0.0, "p_value": 0.0},
        ]
    )


@pytest.mark.parametrize(
    "row, verdict",
    [
        ((0.76, 0.35, 20, 900, 0.001), HOLDS),
        ((0.2, 0.6, 900, 20, 0.001), FAILS),
        ((0.76, 0.35, 20, 900, 0.2), UNCLEAR),  # not significant
        ((0.76, 0.35, 900, 20, 0.001), UNCLEAR),  # coverage and ranks disagree
        ((0.76, math.nan, 20, math.nan, math.nan), UNCLEAR),  # no non-template n-grams
    ],
)
def test_templates_in_training(row, verdict):
    f = decide("templates-in-training", template_coverage=coverage(*row))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: coverage ") and "(top 100)" in f.measured


# --------------------------------------------------------------------------- outputs
def test_markdown_of_a_scorecard():
    card = pd.DataFrame(
        [
            F.Finding("a", "x is y", "P 2024", "1 [0, 2] | 3", "rule a", HOLDS).__dict__,
            F.Finding("b", "z", "Q", "not measured: none", "rule b", UNCLEAR).__dict__,
        ]
    )
    assert F.markdown(card) == (
        "# Findings scorecard\n\n"
        "Each row is a qualitative claim of the papers, decided from this run's tables by the "
        "rule listed under the table (95% bootstrap intervals over texts or passages).\n\n"
        "holds: 1, does not hold: 0, inconclusive: 1.\n\n"
        "| # | claim | paper | verdict | measured |\n"
        "|---|---|---|---|---|\n"
        "| 1 | x is y | P 2024 | **holds** | 1 [0, 2] \\| 3 |\n"
        "| 2 | z | Q | **inconclusive** | not measured: none |\n\n"
        "## Rules\n\n"
        "1. `a`: rule a.\n"
        "2. `b`: rule b.\n"
    )


def test_the_command_writes_one_row_per_claim(tmp_path):
    tables = {
        "novelty_samples": curves({1: 0.1, 2: 0.4, 5: 0.7, 6: 0.8}, HUMAN),
        "completion_loss": completion([6, 5, 4, 3, 2, 1], [7, 6, 5, 4, 3, 2]),
    }
    argv = ["report", "findings"]
    for name, frame in tables.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        argv += ["--table", name, str(tmp_path / f"{name}.csv")]
    out_csv, out_md = tmp_path / "findings.csv", tmp_path / "findings.md"
    argv += ["--params-json", json.dumps(PARAMS), "--out-csv", str(out_csv)]
    assert main([*argv, "--out-md", str(out_md)]) == 0
    card = pd.read_csv(out_csv).set_index("id")
    assert list(card.index) == list(F.CLAIMS)
    assert list(card.columns) == ["claim", "paper", "measured", "rule", "verdict"]
    expected = {
        "less-novel-large-n": HOLDS,
        "more-novel-small-n": HOLDS,
        "completion-loss-in-training": HOLDS,
        "completion-loss-length": HOLDS,
    }
    assert card["verdict"].to_dict() == {c: expected.get(c, UNCLEAR) for c in F.CLAIMS}
    assert out_md.read_text() == F.markdown(card.reset_index())


def test_the_command_rejects_a_table_no_claim_reads(tmp_path):
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": [1]}).to_csv(path, index=False)
    out = {"csv": tmp_path / "f.csv", "md": tmp_path / "f.md"}
    with pytest.raises(InputError, match="planted"):
        F.run({"table": [("planted", str(path))]}, out, PARAMS)


def test_every_claim_is_decided_on_empty_tables():
    """With every table present but empty, each claim is inconclusive, not measured."""
    card = F.scorecard({name: pd.DataFrame(columns=COLUMNS[name]) for name in F.TABLES}, PARAMS)
    assert set(card["verdict"]) == {UNCLEAR}
    assert card["measured"].str.startswith("not measured: ").all(), card["measured"].tolist()


COLUMNS = {
    "novelty_samples": ["model", "decoding", "family", "prompt_length", "n", "novelty"],
    "nnsl_samples": ["model", "decoding", "family", "prompt_length", "mean_nnsl"],
    "raven_summary": ["model", "decoding", "source", "prompt_length", "truncated_score"],
    "completion_loss": ["model", "curve", "x", "loss", "tokens"],
    "memorization": ["model", "copies", "extraction_rate", "ci_low", "ci_high"],
    "completion_loss_frequency": ["model", "n", "log10_count", "loss", "tokens"],
    "syntax_novelty": ["model", "decoding", "decoding_family", "unit", "novelty", "total"],
    "templates": ["model", "decoding", "decoding_family", "n", "template_rate", "cr_pos"],
    "template_coverage": ["model", "decoding", "decoding_family", "coverage_templates"],
    "membership_placement": ["model", "set", "position", "position_lo", "position_hi"],
    "membership_detectors": [
        "model",
        "label_set",
        "detector",
        "auc",
        "delta_auc_vs_loss",
        "delta_auc_lo",
        "delta_auc_hi",
    ],
    "membership_cloze_summary": ["model", "split", "acc_insensitive", "r_overlap"],
    "style_memorization": ["model", "source", "stratum", "n", "pos_minus_exact"],
}


# --------------------------------------------------------------------------- membership claims
def placement(planted, unplanted):
    rows = [("m", "benchmark_planted", *planted), ("m", "benchmark_unplanted", *unplanted)]
    return pd.DataFrame(rows, columns=COLUMNS["membership_placement"])


@pytest.mark.parametrize(
    "planted, unplanted, verdict",
    [
        ((0.9, 0.7, 1.1), (0.1, -0.1, 0.3), HOLDS),
        ((0.1, -0.1, 0.3), (0.9, 0.7, 1.1), FAILS),
        ((0.5, 0.2, 0.8), (0.3, 0.0, 0.6), UNCLEAR),
    ],
)
def test_benchmark_placement(planted, unplanted, verdict):
    tables = {"membership_placement": placement(planted, unplanted)}
    assert decide("benchmark-placement", **tables).verdict == verdict


def detectors(**deltas):
    """Detector rows of model m on planted items: ``det=(auc, delta, lo, hi)``."""
    rows = [("m", "planted", d, *v) for d, v in deltas.items()]
    rows.append(("m", "training", "min_k_20", 0.99, -0.3, -0.4, -0.2))  # another label set
    return {"membership_detectors": pd.DataFrame(rows, columns=COLUMNS["membership_detectors"])}


LOSS = (0.8, 0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    "deltas, verdict",
    [
        # overlapping AUC intervals, yet the paired differences exclude 0: holds
        ({"loss": LOSS, "min_k_20": (0.85, 0.05, 0.01, 0.1), "reference": (0.9, 0.1, 0.02, 0.2)},
         HOLDS),
        ({"loss": LOSS, "min_k_20": (0.85, 0.05, 0.01, 0.1), "reference": (0.8, 0.0, -0.1, 0.1)},
         UNCLEAR),
        ({"loss": LOSS, "min_k_20": (0.7, -0.1, -0.2, -0.02)}, FAILS),
        ({"loss": LOSS, "min_k_20": (0.7, -0.1, -0.2, -0.02), "reference": (0.9, 0.1, 0.02, 0.2)},
         UNCLEAR),
    ],
)  # fmt: skip
def test_min_k_beats_loss(deltas, verdict):
    assert decide("min-k-beats-loss", **detectors(**deltas)).verdict == verdict


def cloze_summary(train, valid, r):
    cols = ["model", "split", "acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi"]
    frame = pd.DataFrame([("m", "train", *train), ("m", "valid", *valid)], columns=cols)
    frame["r_overlap"], frame["r_lo"], frame["r_hi"] = r
    return {"membership_cloze_summary": frame}


def test_cloze_claims():
    t = cloze_summary((0.8, 0.7, 0.9), (0.2, 0.1, 0.3), (0.7, 0.4, 0.9))
    assert decide("cloze-training-plays", **t).verdict == HOLDS
    assert decide("cloze-overlap-correlation", **t).verdict == HOLDS
    t = cloze_summary((0.2, 0.1, 0.3), (0.3, 0.1, 0.5), (0.1, -0.4, 0.6))
    assert decide("cloze-training-plays", **t).verdict == UNCLEAR
    assert decide("cloze-overlap-correlation", **t).verdict == UNCLEAR
    t = cloze_summary((0.1, 0.0, 0.2), (0.8, 0.7, 0.9), (float("nan"),) * 3)
    assert decide("cloze-training-plays", **t).verdict == FAILS
    assert decide("cloze-overlap-correlation", **t).measured.startswith("not measured")
