"""Report tables and figures of the syntactic analyses, from hand-built parses and tagged texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope.errors import InputError
from copyscope.report.syntax_figures import path_novelty, template_coverage, template_measures
from copyscope.report.syntax_novelty import table1_sets
from copyscope.report.syntax_tables import (
    UNIT_LABELS,
    cell,
    path_curves,
    raven_table1,
    template_listing,
    template_table,
)
from copyscope.syntax.syntactic_novelty import syntactic_novelty
from copyscope.syntax.templates import template_summary
from copyscope.syntax.types import Passage, Sentence, Word
from support.figures import pixels


def chain(words: str, generated=False) -> Sentence:
    ws = words.split()
    n = len(ws)
    return Sentence(
        tuple(Word(w, "NN", i + 2 if i + 1 < n else 0, "dep", generated) for i, w in enumerate(ws))
    )


def novelty_frame():
    gen = [
        Passage("g", i, (chain("q", True), chain("a b c", True), chain("z", True)))
        for i in range(3)
    ]
    human = [
        Passage("h", i, (chain("q", True), chain("x y", True), chain("z", True))) for i in range(3)
    ]
    train = [Passage("train", 0, (chain("x y z"),))]
    return syntactic_novelty(
        {"m/pure": gen, "human": human}, iter(train), max_path_words=3, n_boot=50
    )


def test_cell():
    assert cell(0.5, 0.25, 0.75) == "0.500 [0.250, 0.750]"
    assert cell(float("nan"), 0.1, 0.2) == "n/a"
    assert cell(0.5, float("nan"), float("nan"), digits=2) == "0.50"


def test_table1_rows_are_units_with_occurrences_and_columns_are_sets():
    t = raven_table1(novelty_frame(), ["m/pure", "human"])
    assert list(t.columns) == ["m/pure", "human"]
    assert UNIT_LABELS["constituency_structure"] not in t.index  # no trees in these parses
    assert UNIT_LABELS["cfg_rule"] not in t.index
    assert t.loc[UNIT_LABELS["unlabeled_arc"], "m/pure"].startswith("1.000")
    assert t.loc[UNIT_LABELS["unlabeled_arc"], "human"].startswith("0.500")
    with pytest.raises(InputError, match="lstm/pure"):
        raven_table1(novelty_frame(), ["lstm/pure"])


def test_path_curves_and_figure(tmp_path):
    curves = path_curves(novelty_frame())
    assert set(curves["family"]) == {"labeled_path", "unlabeled_path"}
    assert list(
        curves[(curves["set"] == "human") & (curves["family"] == "unlabeled_path")]["k"]
    ) == [1, 2, 3]
    assert (curves["total"] > 0).all()
    path_novelty(curves, tmp_path / "paths.png", human="human")
    changed = curves.assign(novelty=np.where(curves["set"] == "human", 0, curves["novelty"]))
    path_novelty(changed, tmp_path / "changed.png", human="human")
    assert not np.array_equal(pixels(tmp_path / "paths.png"), pixels(tmp_path / "changed.png"))


def test_table1_and_fig5_sets_are_top40_then_pure_then_human():
    """RAVEN Table 1 and Fig. 5 are top-40 sampling (findings.raven_decoding); pure sampling
    follows as the extra, then the human continuations; other decodings stay out."""
    settings = [("human", "reference"), ("human", "contaminated"), ("a", "pure"),
                ("a", "top_k_40"), ("a", "greedy"), ("b", "top_k_40"), ("b", "pure")]  # fmt: skip
    figs = {"raven_decoding": "top_k_40", "pure_decoding": "pure"}
    assert table1_sets(settings, figs) == ["a/top_k_40", "b/top_k_40", "a/pure", "b/pure",
                                           "human/reference"]  # fmt: skip
    same = {"raven_decoding": "pure", "pure_decoding": "pure"}
    assert table1_sets(settings[:3], same) == ["a/pure", "human/reference"]


def test_fig5_draws_pure_dashed_beside_top40(tmp_path):
    import matplotlib.pyplot as plt

    from copyscope import plotting

    curves = path_curves(novelty_frame())
    top = curves.assign(set=curves["set"].replace({"m/pure": "m/top_k_40"}))
    both = pd.concat([top, curves[curves["set"] == "m/pure"]])
    saved = []
    keep = plotting.save
    plotting.save = lambda fig, path: (saved.append(fig), keep(fig, path))  # noqa: E731
    try:
        path_novelty(both, tmp_path / "p.png", human="human", dashed=["m/pure"])
    finally:
        plotting.save = keep
    styles = {ln.get_label(): ln.get_linestyle() for ln in saved[0].axes[0].get_lines()}
    assert styles == {"m/top_k_40": "-", "m/pure": "--", "human": "-"}
    plt.close("all")


TEXTS = [
    [[("the", "DT"), ("big", "JJ"), ("dog", "NN"), ("ran", "VBD")]],
    [
        [("a", "DT"), ("red", "JJ"), ("car", "NN"), ("stopped", "VBD")],
        [("it", "PRP"), ("rained", "VBD")],
    ],
]


def test_template_tables_and_figures(tmp_path):
    s = template_summary(TEXTS, 3, 2)
    table = template_table([("m/pure", s), ("human", template_summary(TEXTS[:1], 3, 2))])
    assert list(table["set"]) == ["m/pure", "human"]
    assert (
        table.loc[0, "template_rate"] == 1.0
        and table.loc[0, "templates"] == 2
        and table.loc[0, "words"] == 10
    )
    listing = template_listing(s, examples=1)
    assert list(listing["template"]) == ["DT JJ NN", "JJ NN VBD"]
    assert listing.loc[0, "spans"] == 2 and listing.loc[0, "examples"] == "a red car"
    template_measures(table, 3, tmp_path / "measures.png")
    coverage = table[["set"]].assign(
        coverage_templates=[0.8, 0.7], coverage_non_templates=[0.3, 0.4], cut=100
    )
    template_coverage(coverage, tmp_path / "coverage.png")
    # each figure draws its table: other values, other pixels
    template_measures(table.assign(template_rate=[0.2, 0.6]), 3, tmp_path / "measures2.png")
    template_coverage(coverage.assign(coverage_templates=[0.1, 0.2]), tmp_path / "coverage2.png")
    for name in ("measures", "coverage"):
        assert not np.array_equal(
            pixels(tmp_path / f"{name}.png"), pixels(tmp_path / f"{name}2.png")
        )


# --------------------------------------------------------------------------- the report commands
SYNTAX_PARAMS = {
    "syntax": {"backend": "spacy"},
    "analysis": {
        "syntax": {
            "max_path_words": 3,
            "bootstrap": 20,
            "seed": 0,
            "template_n": [2, 3],
            "template_headline_n": 2,
            "top_k": 2,
        }
    },
    "sampling": {"decodings": {"pure": {"kind": "sample", "temperature": 1.0}}},
    "figures": {"raven_decoding": "top_k_40", "pure_decoding": "pure"},  # no top-40 set here
}


def tagged(spec: str, generated: bool) -> Sentence:
    """A chain sentence from ``word/TAG`` items."""
    items = [x.split("/") for x in spec.split()]
    n = len(items)
    return Sentence(
        tuple(
            Word(w, t, i + 2 if i + 1 < n else 0, "dep", generated)
            for i, (w, t) in enumerate(items)
        )
    )


def write_sets(tmp_path):
    """Parse files of human/reference and m/pure (prompt + 3 generated sentences each) and of
    the training split, and the training split's tag documents."""
    import json

    from copyscope.syntax.io import write_parses
    from copyscope.syntax.texts import tag_documents

    def passages(name, words):
        return [
            Passage(
                name,
                i,
                (
                    tagged("the/DT start/NN", False),
                    tagged("go/VB", True),
                    tagged(words, True),
                    tagged("end/NN", True),
                ),
            )
            for i in range(3)
        ]

    sets = {
        ("human", "reference"): passages("human/reference", "a/DT red/JJ cat/NN sat/VBD"),
        ("m", "pure"): passages("m/pure", "a/DT cat/NN a/DT cat/NN"),
    }
    paths = {}
    for (model, decoding), ps in sets.items():
        paths[model, decoding] = tmp_path / f"{model}_{decoding}.parquet"
        write_parses(ps, paths[model, decoding])
    train = [Passage("train", 0, (tagged("a/DT cat/NN sat/VBD", False),))]
    write_parses(train, tmp_path / "train.parquet")
    docs = tmp_path / "train-tags.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in tag_documents(train)))
    return paths, tmp_path / "train.parquet", docs


def report_command(name, paths, extra, outputs, tmp_path):
    import json

    from copyscope.cli import main

    argv = ["report", name]
    for (model, decoding), path in paths.items():
        argv += ["--parses", model, decoding, str(path)]
    argv += [*extra, "--params-json", json.dumps(SYNTAX_PARAMS)]
    out = {o: tmp_path / f"{name}-{o}.{'png' if o.startswith('fig') else 'csv'}" for o in outputs}
    for o, path in out.items():
        argv += [f"--out-{o.replace('_', '-')}", str(path)]
    assert main(argv) == 0
    return out


def test_syntax_novelty_command(tmp_path):
    import pandas as pd

    paths, train, _ = write_sets(tmp_path)
    out = report_command(
        "syntax-novelty", paths, ["--training", "train", str(train)],
        ["table", "table1", "fig"], tmp_path,
    )  # fmt: skip
    t = pd.read_csv(out["table"])
    assert list(t[["model", "decoding", "decoding_family"]].drop_duplicates().itertuples(
        index=False, name=None)) == [("human", "reference", "human"), ("m", "pure", "pure")]  # fmt: skip
    arc = t[t["unit"] == "unlabeled_arc"].set_index("set")
    # only the middle generated sentence counts (glued first, dropped last); training has
    # a→cat, cat→sat, sat→ROOT: m's arcs a→cat, cat→a, a→cat, cat→ROOT hold 2 novel types
    # of 4 occurrences per passage, human's a→red, red→cat, cat→sat, sat→ROOT too
    assert arc.loc["m/pure", "total"] == 12 and arc.loc["m/pure", "novel"] == 6
    assert arc.loc["human/reference", "total"] == 12 and arc.loc["human/reference", "novel"] == 6
    table1 = pd.read_csv(out["table1"])
    assert list(table1.columns) == ["unit", "m/pure", "human/reference"]
    assert out["fig"].stat().st_size > 10_000


def test_templates_and_coverage_commands(tmp_path):
    import pandas as pd

    paths, _, docs = write_sets(tmp_path)
    outputs = ["table", "listing", "fig", "fig_by_n", "vs_human", "fig_vs_human"]
    out = report_command("templates", paths, [], outputs, tmp_path)
    # Table 3 is greedy: a run whose decodings have no greedy one has the human row alone
    vs = pd.read_csv(out["vs_human"])
    assert vs[["model", "decoding", "texts"]].values.tolist() == [["human", "reference", 3]]
    assert out["fig_vs_human"].stat().st_size > 0
    t = pd.read_csv(out["table"])
    assert list(zip(t["set"], t["n"], strict=True)) == [
        ("human/reference", 2), ("human/reference", 3), ("m/pure", 2), ("m/pure", 3)
    ]  # fmt: skip
    # generated words only (go, 4 words, end): the prompt sentence is not part of the texts
    assert (t["words"] == 3 * 6).all() and (t["texts"] == 3).all()
    listing = pd.read_csv(out["listing"])
    assert (listing["n"] == 2).all()
    assert (listing.groupby(["model", "decoding"]).size() == 2).all()  # top_k
    m = listing[listing["model"] == "m"]
    assert m["template"].iloc[0] == "DT NN" and m["count"].iloc[0] == 6
    out = report_command(
        "template-coverage", paths, ["--training-tags", "train", str(docs)],
        ["table", "training", "fig", "delta", "fig_ranks"], tmp_path,
    )  # fmt: skip
    assert out["fig_ranks"].stat().st_size > 0
    assert list(pd.read_csv(out["table"]).columns[-2:]) == [
        "coverage_templates_lo", "coverage_templates_hi"
    ]  # fmt: skip
    delta = pd.read_csv(out["delta"])
    cov = pd.read_csv(out["table"]).set_index("set")
    assert delta[["model", "decoding"]].values.tolist() == [["m", "pure"]]
    d = delta.iloc[0]
    assert d["coverage_model"] == cov.loc["m/pure", "coverage_templates"]
    assert d["coverage_human"] == cov.loc["human/reference", "coverage_templates"]
    assert d["delta"] == pytest.approx(d["coverage_model"] - d["coverage_human"])
    assert (cov["cut"] == 100).all()
    # m's templates DT NN and NN DT: DT NN is a training bigram (rank 1), NN DT is not
    per = pd.read_csv(out["training"])
    mt = per[per["model"] == "m"].set_index("template")
    assert mt.loc["DT NN", "training_rank"] == 1 and mt.loc["DT NN", "training_count"] == 1
    assert pd.isna(mt.loc["NN DT", "training_rank"]) and mt.loc["NN DT", "training_count"] == 0
    assert cov.loc["m/pure", "coverage_templates"] == 0.5


def test_template_coverage_delta_on_a_synthetic_table():
    """Model set a/pure: flags [1, 1, 0, 1] → 0.75; human [1, 0] → 0.5; delta 0.25. A set
    without templates (a/greedy) has no coverage and no delta."""
    import pandas as pd

    from copyscope.report.template_coverage import (
        DELTA_COLUMNS,
        coverage_delta,
        coverage_interval,
    )

    cov = pd.DataFrame(
        {
            "model": ["human", "a", "a"],
            "decoding": ["reference", "pure", "greedy"],
            "decoding_family": ["human", "pure", "greedy"],
            "n": 6,
            "cut": 100,
        }
    )
    flags = {
        ("human", "reference"): [True, False],
        ("a", "pure"): [True, True, False, True],
        ("a", "greedy"): [],
    }
    d = coverage_delta(cov, flags, n_boot=0, seed=0)
    assert list(d.columns) == DELTA_COLUMNS
    assert d[["model", "decoding"]].values.tolist() == [["a", "pure"], ["a", "greedy"]]
    r = d.iloc[0]
    assert (r["coverage_model"], r["coverage_human"], r["delta"]) == (0.75, 0.5, 0.25)
    assert np.isnan(d.iloc[1]["coverage_model"]) and np.isnan(d.iloc[1]["delta"])
    boot = coverage_delta(cov, flags, n_boot=400, seed=0)
    assert boot.equals(coverage_delta(cov, flags, n_boot=400, seed=0))
    lo, hi = boot.iloc[0][["delta_lo", "delta_hi"]]
    # each side resampled alone: the model share lies in [0, 1], the human one in {0, .5, 1}
    assert -1 <= lo < 0.25 < hi <= 1
    # the set's own interval: over its templates, bracketing the share
    clo, chi = coverage_interval(flags[("a", "pure")], 400, 0)
    assert 0 <= clo < 0.75 < chi <= 1
    assert all(np.isnan(coverage_interval([], 400, 0)))
    assert coverage_interval([True] * 3, 400, 0) == (1.0, 1.0)
    with pytest.raises(InputError, match="human reference"):
        coverage_delta(cov[cov["model"] != "human"], flags, 10, 0)


def test_table3_is_greedy_against_the_human_references():
    """Shaib et al. Table 3: one row per model with greedy samples (its pure samples as
    extra columns), then the human references. a/greedy texts' templates per token [0, 0.1,
    0.3, 0] → rate 0.5, per token 0.1; a/pure [0.2, 0.2] → 1.0, 0.2; b has no greedy samples
    (no row); the p-values are the templates table's at the headline n."""
    import pandas as pd

    from copyscope.report.templates import VS_HUMAN_COLUMNS, text_measures, vs_human_rows

    per_text = {
        ("human", "reference"): np.array([0.1, 0.0]),
        ("a", "greedy"): np.array([0.0, 0.1, 0.3, 0.0]),
        ("a", "pure"): np.array([0.2, 0.2]),
        ("b", "pure"): np.array([0.5]),
    }
    table = pd.DataFrame({"model": ["a", "a"], "decoding": ["greedy", "greedy"], "n": [6, 5],
                          "p_up": [0.01, 0.5], "p_down": [0.99, 0.5]})  # fmt: skip
    t = vs_human_rows(per_text, table, "greedy", "pure", 6, n_boot=200, seed=0)
    assert list(t.columns) == VS_HUMAN_COLUMNS
    assert t[["model", "decoding"]].values.tolist() == [["a", "greedy"], ["human", "reference"]]
    a, h = t.iloc[0], t.iloc[1]
    assert (a["n"], a["texts"], a["template_rate"]) == (6, 4, 0.5)
    assert a["templates_per_token"] == pytest.approx(0.1)
    assert (a["p_up"], a["p_down"]) == (0.01, 0.99)
    assert a["pure_decoding"] == "pure" and a["pure_template_rate"] == 1.0
    assert a["pure_templates_per_token"] == pytest.approx(0.2)
    assert a["template_rate_lo"] < 0.5 < a["template_rate_hi"]
    assert a["template_rate_lo"] + a["template_rate_hi"] == pytest.approx(1.0)  # Wilson, 2 of 4
    assert 0 <= a["templates_per_token_lo"] < 0.1 < a["templates_per_token_hi"] <= 0.3
    assert (h["texts"], h["template_rate"], h["templates_per_token"]) == (2, 0.5, 0.05)
    assert pd.isna(h["p_up"]) and pd.isna(h["pure_template_rate"])
    empty = text_measures([], 10, 0)
    assert empty["texts"] == 0 and np.isnan(empty["template_rate"])
