"""The figure style (:mod:`copyscope.plotting`): each figure rendered from a small synthetic
table, its drawn artists read back. A model keeps one colour in every figure whatever order a
table lists it in, human text is black, decodings and detectors never take a model's colour,
labels do not overlap and every bar has its interval where the table has one."""

from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest

from copyscope import plotting
from copyscope.report import figures
from copyscope.report.syntax_figures import (
    style_memorization,
    template_coverage,
    template_measures,
    template_rate_by_n,
)

MODELS = ["gpt2-medium", "gpt2-small"]  # tables list them in this (non-canonical) order


@pytest.fixture
def drawn(monkeypatch):
    """The figures saved by a call: ``drawn[i]`` is the i-th figure (still open for reading)."""
    figs = []
    save = plotting.save

    def keep(fig, path, dpi=150):
        fig.canvas.draw()
        figs.append(fig)
        save(fig, path, dpi=60)

    monkeypatch.setattr(plotting, "save", keep)
    return figs


def rgb(c):
    return tuple(np.round(mcolors.to_rgb(c), 3))


def _color(handle):
    if hasattr(handle, "get_color") and not hasattr(handle, "get_facecolor"):
        return handle.get_color()
    if isinstance(handle, tuple) or hasattr(handle, "lines"):  # an errorbar's container
        return handle[0].get_color()
    return np.atleast_2d(handle.get_facecolor())[0]


def line_colors(fig) -> dict[str, tuple]:
    """Legend label → colour of every labelled artist (lines, errorbars, points) of the figure."""
    out = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            out.setdefault(label, rgb(_color(handle)))
    return out


def bars_with_errors(ax):
    """The axes' bar containers that carry error bars."""
    from matplotlib.container import BarContainer

    return [c for c in ax.containers if isinstance(c, BarContainer) and c.errorbar is not None]


def test_model_order_and_colours_are_canonical():
    assert plotting.model_order(["gpt2-medium", "lstm", "gpt2-small", "pythia-1b", "pythia-70m"]) == [
        "gpt2-small",
        "gpt2-medium",
        "lstm",
        "pythia-70m",
        "pythia-1b",
    ]
    a, b = plotting.model_colors(MODELS), plotting.model_colors(MODELS[::-1])
    assert a == b and a["gpt2-small"] != a["gpt2-medium"]
    assert plotting.model_colors(["human", *MODELS])["human"] == plotting.HUMAN
    assert plotting.detector_colors(["min_k_20"])["min_k_20"] == plotting.DETECTORS["min_k"]


def training_table():
    return pd.DataFrame(
        [
            {"model": m, "tokens": t, "valid_loss": 5 - t / 1000 - k}
            for k, m in enumerate(MODELS)
            for t in (1000, 2000)
        ]
    )


def planted_table():
    rows = []
    for m in [*MODELS, "human"]:
        for copies in (0, 3, 15):
            rows.append({"model": m, "id": f"p{copies}", "copies": copies, "longest_copy": 3,
                         "reproduced": copies > 3 and m != "human"})  # fmt: skip
    return pd.DataFrame(rows)


def ladder_table(control_hi: float):
    rows = []
    for m in MODELS:
        for copies, rate in ((0, 0.0), (4, 0.0), (64, 0.5)):
            hi = control_hi if copies == 0 else min(1, rate + 0.3)
            rows.append({"model": m, "copies": copies, "extraction_rate": rate,
                         "extraction_rate_lo": 0.0, "extraction_rate_hi": hi, "n": 8})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_model_has_one_colour_and_human_is_black_in_every_figure(drawn, tmp_path):
    figures.training(training_table(), tmp_path / "training.png")
    figures.planted(planted_table(), tmp_path / "planted.png")
    figures.memorization(ladder_table(0.3), tmp_path / "ladder.png", suffix_tokens=32)
    expected = plotting.model_colors(MODELS)
    for fig in drawn:
        colors = line_colors(fig)
        for model in MODELS:
            label = next(k for k in colors if k.startswith(model))  # training: "m (final …)"
            assert colors[label] == rgb(expected[model]), (fig, model)
    planted = line_colors(drawn[1])
    assert planted[figures.HUMAN] == rgb(plotting.HUMAN)
    # the same model, listed first or last, keeps its colour
    t = training_table()
    figures.training(pd.concat([t[t["model"] == m] for m in MODELS[::-1]]), tmp_path / "rev.png")
    assert line_colors(drawn[-1]) == line_colors(drawn[0])


def test_the_controls_band_is_listed_only_where_it_has_a_width(drawn, tmp_path):
    figures.memorization(ladder_table(0.3), tmp_path / "wide.png", suffix_tokens=32)
    figures.memorization(ladder_table(0.0), tmp_path / "flat.png", suffix_tokens=32)
    labels = [[t.get_text() for t in fig.axes[0].get_legend().get_texts()] for fig in drawn]
    band = "controls: 95% CIs, all models"
    assert band in labels[0] and band not in labels[1]


def curves_table():
    rows = []
    for m, decodings in (("gpt2-small", ["pure", "top_k_10", "top_k_40"]), ("human", ["reference"])):
        for d in decodings:
            for n in (1, 2, 4):
                rows.append({"model": m, "decoding": d, "prompt_length": 32, "n": n,
                             "family": "top-k" if d.startswith("top_k") else d,
                             "novelty": n / 5, "novelty_lo": n / 5 - 0.05, "novelty_hi": n / 5 + 0.05,
                             "lower_bound": 0.1})  # fmt: skip
    return pd.DataFrame(rows)


def test_decodings_never_take_a_model_colour(drawn, tmp_path):
    figures.novelty_by_decoding(curves_table(), "gpt2-small", 32, tmp_path / "dec.png")
    colors = line_colors(drawn[0])
    models = {rgb(c) for c in plotting.model_colors(["gpt2-small", "gpt2-medium", "lstm"]).values()}
    assert {"top_k_10", "top_k_40"} <= set(colors)
    assert colors["top_k_10"] != colors["top_k_40"]
    assert not {colors["top_k_10"], colors["top_k_40"]} & models
    assert colors[figures.HUMAN] == rgb(plotting.HUMAN)


def test_raven_figure_has_no_inset_and_human_is_black(drawn, tmp_path):
    rows = [
        {"model": m, "decoding": d, "source": "union", "n": n, "novelty": n / 10}
        for m, d in (("gpt2-small", "pure"), ("human", "reference"))
        for n in (1, 2, 5, 10)
    ]
    figures.raven_novelty(pd.DataFrame(rows), tmp_path / "raven.png")
    assert len(drawn[0].axes) == 1 and not drawn[0].axes[0].child_axes  # no inset
    assert line_colors(drawn[0])[figures.HUMAN] == rgb(plotting.HUMAN)


def test_detectors_have_their_own_fixed_colours(drawn, tmp_path):
    rng = np.random.default_rng(0)
    texts = pd.DataFrame(
        {
            "model": "gpt2-small",
            "member": [1] * 20 + [0] * 20,
            "loss": rng.normal(size=40),
            "min_k_20": rng.normal(size=40),
            "zlib_carlini": rng.normal(size=40),
        }
    )

    def split(rows):
        return {"planted": (rows, rows["member"].to_numpy())}

    figures.membership_roc(texts, "planted", split, tmp_path / "roc.png")
    colors = line_colors(drawn[0])
    for det in ("loss", "min_k_20", "zlib_carlini"):
        assert colors[det] == rgb(plotting.detector_colors([det])[det])
    assert not set(colors.values()) & {rgb(c) for c in plotting.model_colors(MODELS).values()}


def overlaps(labels) -> bool:
    boxes = [t.get_window_extent() for t in labels if t.get_text()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def template_table():
    sets = ["human/reference", "human/contaminated"] + [
        f"{m}/{d}" for m in MODELS for d in ("pure", "top_k_40", "temp_070", "greedy", "beam_4")
    ]
    k = np.arange(len(sets))
    return pd.DataFrame(
        {"set": sets, "n": 6, "template_rate": 0.2 + 0.05 * k, "templates_per_token": 0.01 * k,
         "cr_pos": 4 + 0.1 * k, "texts": 100}  # fmt: skip
    )


def test_template_figures_read_and_carry_intervals(drawn, tmp_path):
    table = template_table()
    template_measures(table, 6, tmp_path / "measures.png")
    fig = drawn[0]
    assert not overlaps(fig.axes[0].get_yticklabels())
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(table["set"])
    rate = fig.axes[0]
    assert len(rate.patches) == len(table)  # one bar per set …
    assert bars_with_errors(rate)  # … with its interval
    colors = [rgb(p.get_facecolor()) for p in rate.patches]
    assert colors[0] == rgb(plotting.HUMAN)
    small = rgb(plotting.model_colors(MODELS)["gpt2-small"])
    assert colors[len(table) - 1] == small  # gpt2-small/beam_4: the model's colour
    coverage = table.assign(
        coverage_templates=0.5,
        coverage_templates_lo=0.4,
        coverage_templates_hi=0.6,
        coverage_non_templates=0.2,
        cut=100,
    )
    template_coverage(coverage, tmp_path / "coverage.png")
    assert not overlaps(drawn[1].axes[0].get_yticklabels())
    assert bars_with_errors(drawn[1].axes[0])


def test_style_memorization_keeps_equal_lines_visible(drawn, tmp_path):
    rows = []
    for m in MODELS:
        for source, strata in (("ladder", ["control", "4"]), ("training", ["1", "2-3"])):
            for s in strata:
                row = {"model": m, "source": source, "stratum": s}
                for col in ("exact_rate", "pos_rate", "word_match", "pos_match"):
                    row |= {col: 0.5, f"{col}_lo": 0.4, f"{col}_hi": 0.6}
                rows.append(row)
    style_memorization(pd.DataFrame(rows), tmp_path / "style.png")
    ax = drawn[0].axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "")]
    xs = {tuple(np.round(ln.get_xdata(), 3)) for ln in lines}
    assert len(xs) == len(lines) == 4  # equal values, four distinct positions
    assert {ln.get_marker() for ln in lines} == {"o", "s"}


def test_template_rate_by_n_is_shaib_fig5(drawn, tmp_path):
    """Shaib et al. Fig. 5: one line per model's greedy samples (solid, its colour) and the
    human text (dashed black) over n, each with its Wilson band; pure samples not drawn."""
    rows = []
    for s, base in (("gpt2-medium/greedy", 0.9), ("gpt2-small/greedy", 0.8),
                    ("gpt2-small/pure", 0.3), ("human/reference", 0.5)):  # fmt: skip
        for n in (4, 5, 6, 7, 8):
            rows.append({"set": s, "n": n, "template_rate": base - 0.05 * (n - 4), "texts": 50})
    table = pd.DataFrame(rows)
    template_rate_by_n(table, "greedy", tmp_path / "by_n.png")
    ax = drawn[0].axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert list(lines) == ["gpt2-small", "gpt2-medium", "human text"]  # size order, human last
    assert lines["human text"].get_linestyle() == "--" and rgb(lines["human text"].get_color()) == (0, 0, 0)
    assert lines["gpt2-small"].get_linestyle() == "-"
    np.testing.assert_allclose(lines["gpt2-medium"].get_ydata(), [0.9, 0.85, 0.8, 0.75, 0.7])
    assert len(ax.collections) == 3  # one interval band per line
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() < 0.8 - 0.05 and band.max() > 0.8  # the Wilson band around the rates
    assert line_colors(drawn[0])["gpt2-small"] != line_colors(drawn[0])["gpt2-medium"]
    # a run without greedy samples: the human line alone, and the title says so
    template_rate_by_n(table, None, tmp_path / "human.png")
    ax = drawn[1].axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["human text"]
    assert "no greedy samples" in ax.get_title()
