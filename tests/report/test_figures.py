"""The figure style (:mod:`copyscope.plotting`): each figure rendered from a small synthetic
table, its drawn artists read back. A model keeps one colour in every figure whatever order a
table lists it in, human text is black, decodings and detectors never take a model's colour,
labels do not overlap and every bar has its interval where the table has one."""

from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest
from test_raven_report import curves_table as raven_curves

from copyscope import plotting
from copyscope.report import figures
from copyscope.report.raven import figure_curves, size_table
from copyscope.report.syntax_figures import (
    style_memorization,
    template_coverage,
    template_measures,
    template_ranks,
    template_rate_by_n,
    templates_vs_human,
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
    # a stated size (a parameter count) first, by value; then size words, then the rest as text
    assert plotting.model_order(["gpt2-medium", "lstm", "gpt2-small", "pythia-1b", "pythia-70m"]) == [
        "pythia-70m",
        "pythia-1b",
        "gpt2-small",
        "gpt2-medium",
        "lstm",
    ]
    a, b = plotting.model_colors(MODELS), plotting.model_colors(MODELS[::-1])
    assert a == b and a["gpt2-small"] != a["gpt2-medium"]
    assert plotting.model_colors(["human", *MODELS])["human"] == plotting.HUMAN
    assert plotting.detector_colors(["min_k_20"])["min_k_20"] == plotting.DETECTORS["min_k"]


def test_shape_names_are_ordered_by_size_not_by_text():
    """The size ladder's shape names (``t<layers>x<width>``) sort by 12·L·d², the parameters of
    their blocks: as text t12x64 < t2x128 < t4x256 < t6x384, by size t12x64 (0.6M) sits between
    t2x128 (0.4M) and t4x256 (3.1M); an LSTM named by its shape joins the same scale, and a
    checkpoint ``<model>@step<k>`` comes before its model, earlier steps first."""
    names = ["t6x384", "lstm2x512", "t12x64", "t4x256", "t2x128@step100", "t2x128", "t2x128@step20"]
    assert plotting.model_size("t4x256") == 12 * 4 * 256**2
    assert plotting.model_size("t4x256@step100") == plotting.model_size("t4x256")
    assert plotting.model_size("gpt2-small") is None
    assert plotting.model_order(names) == [
        "t2x128@step20", "t2x128@step100", "t2x128", "t12x64", "t4x256", "lstm2x512", "t6x384",
    ]  # fmt: skip
    # colours follow the size order, whatever order the table lists the models in
    palette = plotting.sns.color_palette("colorblind", 10)
    colors = plotting.model_colors(["t6x384", "t2x128", "t4x256", "human"])
    assert [colors[m] for m in ("t2x128", "t4x256", "t6x384")] == palette[:3]
    assert colors["human"] == plotting.HUMAN
    # a size from elsewhere (a training summary's parameter count) places an unshaped name
    assert plotting.model_order(["t6x384", "lstm", "t2x128"]) == ["t2x128", "t6x384", "lstm"]
    sizes = {"lstm": 2e6}
    assert plotting.model_order(["t6x384", "lstm", "t2x128"], sizes) == ["t2x128", "lstm", "t6x384"]
    assert plotting.model_colors(["t6x384", "lstm", "t2x128"], sizes)["lstm"] == palette[1]


def test_a_figure_with_some_of_the_runs_models_keeps_their_colours():
    """With the run's models known (``--run-models``: :func:`plotting.use_run_models`) a model's
    colour is its place among all of them, so a figure of the trained models only, or of one
    model, draws each in the colour it has everywhere; without them a figure's own models are
    numbered from the first colour."""
    palette = plotting.sns.color_palette("colorblind", 10)
    assert plotting.model_colors(["t6x384"])["t6x384"] == palette[0]
    try:
        plotting.use_run_models({"pythia-70m": None, "t2x128": None, "t6x384": None, "lstm": 2e6})
        # by size: t2x128 (0.4M), lstm (2M, from the config), t6x384 (10.6M), pythia-70m
        assert plotting.model_colors(["t6x384"]) == {"t6x384": palette[2]}
        assert plotting.model_colors(["t6x384", "t2x128", "human"]) == {
            "t2x128": palette[0], "t6x384": palette[2], "human": plotting.HUMAN,
        }  # fmt: skip
        assert plotting.model_colors(["lstm"])["lstm"] == palette[1]
        assert plotting.model_colors(["pythia-70m"])["pythia-70m"] == palette[3]
    finally:
        plotting.use_run_models({})
    assert plotting.RUN_MODELS == {}


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


def test_fig1_has_a_panel_per_decoding_each_with_an_inset(drawn, tmp_path):
    sub = figure_curves(raven_curves(), ["top_k_40", "pure"])
    figures.raven_novelty(sub, ["top_k_40", "pure"], tmp_path / "raven.png")
    panels = [ax for ax in drawn[0].axes if ax.get_xlabel().startswith("n (")]
    assert len(panels) == 2
    assert [ax.get_title().split("\n")[0] for ax in panels] == ["top_k_40 sampling",
                                                               "pure sampling"]  # fmt: skip
    assert "100 texts" in panels[0].get_title() and "prompt 32" in panels[0].get_title()
    for ax in panels:
        (inset,) = ax.child_axes
        assert inset.get_xlim()[1] < 5  # n = 1..4 only
        assert len(ax.collections) >= 3  # one band per set
    colors = line_colors(drawn[0])
    assert colors[figures.HUMAN] == rgb(plotting.HUMAN)
    assert colors["gpt2-small"] == rgb(plotting.model_colors(["gpt2-small", "gpt2-medium"])[
        "gpt2-small"])  # fmt: skip
    # the top-40 panel draws the top-40 values (novelty(2) = 0.5), the pure panel pure (2/3)
    top, pure = ([ln for ln in ax.get_lines() if ln.get_label() == "gpt2-small"][0]
                 for ax in panels)  # fmt: skip
    assert top.get_ydata()[1] == pytest.approx(0.5) and pure.get_ydata()[1] == pytest.approx(2 / 3)


def test_fig3_puts_models_in_size_order_and_human_last(drawn, tmp_path):
    t = size_table(raven_curves(), {"gpt2-medium": 5_000_000, "gpt2-small": 800_000},
                   ["top_k_40", "pure"])  # fmt: skip
    figures.raven_by_size(t, tmp_path / "size.png")
    axes = [ax for ax in drawn[0].axes if ax.get_xticklabels()]
    labels = [x.get_text() for x in axes[0].get_xticklabels()]
    assert labels == ["gpt2-small\n(800.0k)", "gpt2-medium\n(5.0M)", figures.HUMAN]
    assert [ax.get_title() for ax in axes] == ["top_k_40 sampling", "pure sampling"]
    assert set(line_colors(drawn[0])) == {f"n = {n}" for n in (1, 2, 3, 5, 10)}


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


def _acc(model, value, half=0.05, **kw):
    return {"model": model, "acc_insensitive": value, "acc_insensitive_lo": value - half,
            "acc_insensitive_hi": value + half, **kw}  # fmt: skip


def test_cloze_models_is_zhang_table1(drawn, tmp_path):
    """Zhang et al. Table 1: per model (canonical order on x) its every-play square and one
    marker per split (training filled, held-out open), intervals, the chance line."""
    from copyscope.report.cloze_figures import cloze_models

    models = pd.DataFrame([_acc(m, v, chance=0.1) for m, v in zip(MODELS, (0.4, 0.3), strict=True)])
    summary = pd.DataFrame([_acc(m, v, split=s) for m in MODELS
                            for s, v in (("train", 0.5), ("valid", 0.1))])  # fmt: skip
    cloze_models(models, summary, tmp_path / "m.png")
    ax = drawn[0].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["gpt2-small", "gpt2-medium"]
    points = [c for c in ax.containers if hasattr(c, "lines")]
    assert len(points) == 6  # 2 models × (every play, training, held-out)
    squares = [c for c in points if c.lines[0].get_marker() == "s"]
    assert [float(c.lines[0].get_ydata()[0]) for c in squares] == [0.3, 0.4]  # small, medium
    colours = plotting.model_colors(MODELS)
    assert rgb(squares[0].lines[0].get_color()) == rgb(colours["gpt2-small"])
    held = [c for c in points if c.lines[0].get_markerfacecolor() == "white"]
    assert len(held) == 2 and all(float(c.lines[0].get_ydata()[0]) == 0.1 for c in held)
    chance = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0.1, 0.1]]
    assert len(chance) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["every play", "training plays"]


def test_cloze_genre_orders_folio_genres_and_counts_plays(drawn, tmp_path):
    from copyscope.report.cloze_figures import cloze_genre

    rows = [_acc(m, v, genre=g, split=s, plays=p, chance=0.05)
            for m in MODELS for g, s, v, p in (("tragedy", "train", 0.6, 4), ("comedy", "train", 0.5, 6),
                                              ("comedy", "valid", 0.1, 5))]  # fmt: skip
    cloze_genre(pd.DataFrame(rows), tmp_path / "g.png")
    ax = drawn[0].axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["comedy\n6 training\n5 held-out", "tragedy\n4 training"]
    points = [c for c in ax.containers if hasattr(c, "lines")]
    assert len(points) == 4  # per model: training (2 genres in one call), held-out
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:2] == ["gpt2-small", "gpt2-medium"] and "held-out plays" in texts


def test_cloze_popularity_orders_groups_by_exposure(drawn, tmp_path):
    """x: held out (no copy), excerpts ×1, ×4, full text; the legend carries each model's ρ."""
    from copyscope.report.cloze_figures import cloze_popularity

    groups = (("train", np.nan, 0.5, 18), ("held-out", np.nan, 0.1, 10),
              ("excerpt", 4.0, 0.3, 3), ("excerpt", 1.0, 0.2, 3), ("excerpt-pooled", np.nan, 0.25, 6))
    rows = [_acc(m, v, group=g, copies=c, plays=p) for m in MODELS for g, c, v, p in groups]
    trend = pd.DataFrame({"model": MODELS, "rho": [0.2, np.nan], "rho_lo": [0.1, np.nan],
                          "rho_hi": [0.3, np.nan]})  # fmt: skip
    cloze_popularity(pd.DataFrame(rows), trend, tmp_path / "p.png")
    ax = drawn[0].axes[0]
    labels = [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
    assert labels == ["held out", "excerpts ×1", "excerpts ×4", "full text"]
    lines = dict(zip(*ax.get_legend_handles_labels()[::-1], strict=True))
    assert list(lines) == ["gpt2-small", "gpt2-medium: ρ with copies 0.20 [0.10, 0.30]"]
    np.testing.assert_allclose(np.asarray(lines["gpt2-small"][0].get_ydata(), float), [0.1, 0.2, 0.3, 0.5])


def test_cloze_overlap_is_zhang_fig8(drawn, tmp_path):
    """One panel per model, one point per play, r over the training plays in the title."""
    from copyscope.report.cloze_figures import cloze_overlap

    plays = pd.DataFrame({"model": ["gpt2-small"] * 3, "play": ["a", "b", "c"],
                          "split": ["train", "train", "valid"], "acc_insensitive": [0.2, 0.6, 0.0],
                          "match_fraction": [0.1, 0.3, 0.05]})  # fmt: skip
    summary = pd.DataFrame({"model": ["gpt2-small"] * 2, "split": ["train", "valid"],
                            "r_overlap": [0.77, 0.77], "r_overlap_lo": [-0.74, -0.74], "r_overlap_hi": [0.99, 0.99],
                            "r_plays": [2, 2]})  # fmt: skip
    cloze_overlap(plays, summary, tmp_path / "o.png")
    ax = drawn[0].axes[0]
    assert "r = 0.77 [-0.74, 0.99], 2 training plays" in ax.get_title()
    train, valid = ax.collections[:2]
    np.testing.assert_allclose(train.get_offsets(), [[0.2, 0.1], [0.6, 0.3]])
    assert rgb(valid.get_facecolor()[0]) == (1.0, 1.0, 1.0)  # held-out plays open


def test_templates_vs_human_is_shaib_table3(drawn, tmp_path):
    """Per model (canonical order) its greedy point filled and pure point open with intervals,
    the human references last in black with a dashed line across each panel."""
    rows = []
    for m, g, p in (("gpt2-medium", 0.9, 0.6), ("gpt2-small", 0.8, 0.5)):
        rows.append({"model": m, "decoding": "greedy", "n": 6, "template_rate": g,
                     "template_rate_lo": g - 0.1, "template_rate_hi": g + 0.05,
                     "templates_per_token": g / 10, "templates_per_token_lo": g / 10 - 0.01,
                     "templates_per_token_hi": g / 10 + 0.01, "pure_decoding": "pure",
                     "pure_template_rate": p, "pure_template_rate_lo": p - 0.1,
                     "pure_template_rate_hi": p + 0.1, "pure_templates_per_token": p / 10,
                     "pure_templates_per_token_lo": p / 10 - 0.01,
                     "pure_templates_per_token_hi": p / 10 + 0.01})  # fmt: skip
    rows.append({"model": "human", "decoding": "reference", "n": 6, "template_rate": 0.4,
                 "template_rate_lo": 0.3, "template_rate_hi": 0.5, "templates_per_token": 0.02,
                 "templates_per_token_lo": 0.01, "templates_per_token_hi": 0.03,
                 "pure_decoding": ""})  # fmt: skip
    templates_vs_human(pd.DataFrame(rows), tmp_path / "t3.png")
    ax = drawn[0].axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["gpt2-small", "gpt2-medium", "human text"]
    points = [c for c in ax.containers if hasattr(c, "lines")]
    assert len(points) == 5  # 2 models × (greedy, pure) + human
    small = [c for c in points if float(c.lines[0].get_ydata()[0]) in (-0.12, 0.12)]
    greedy, pure = sorted(small, key=lambda c: float(c.lines[0].get_ydata()[0]))
    assert float(greedy.lines[0].get_xdata()[0]) == 0.8 and pure.lines[0].get_markerfacecolor() == "white"
    assert rgb(greedy.lines[0].get_color()) == rgb(plotting.model_colors(MODELS)["gpt2-small"])
    human = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(human) == 1 and list(human[0].get_xdata()) == [0.4, 0.4]
    assert rgb(human[0].get_color()) == (0, 0, 0)
    labels = [t.get_text() for t in drawn[0].axes[1].get_legend().get_texts()]
    assert labels == ["greedy samples", "pure samples", "human references"]


def test_template_ranks_is_shaib_fig4(drawn, tmp_path):
    """One ECDF of training ranks per greedy set (solid) and the human set (dashed black); a
    template absent from training leaves its curve below 1; pure samples are not drawn."""
    per = pd.DataFrame({
        "model": ["gpt2-small"] * 4 + ["gpt2-small"] + ["human"] * 2,
        "decoding": ["greedy"] * 4 + ["pure"] + ["reference"] * 2,
        "training_rank": [1, 10, 100, np.nan, 5, 1000, np.nan],
    })  # fmt: skip
    cov = pd.DataFrame({"set": ["gpt2-small/greedy", "gpt2-small/pure", "human/reference"],
                        "n": 6, "cut": 50, "median_rank_templates": [55.0, 5.0, 5000.5]})  # fmt: skip
    template_ranks(per, cov, "greedy", 10_000, tmp_path / "r.png")
    ax = drawn[0].axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    assert list(lines) == ["gpt2-small (median rank 55, 4 templates)",
                           "human text (median rank 5000.5, 2 templates)"]  # fmt: skip
    small, human = lines.values()
    np.testing.assert_allclose(small.get_ydata(), [0, 0.25, 0.5, 0.75, 0.75])
    np.testing.assert_allclose(small.get_xdata(), [1, 1, 10, 100, 10_000])
    assert human.get_linestyle() == "--" and rgb(human.get_color()) == (0, 0, 0)
    assert ax.get_xscale() == "log"


def test_the_novelty_quality_tradeoff_draws_each_scores_interval(drawn, tmp_path):
    """RAVEN Fig. 2: each scored set's point with its truncated score's 95% interval as a bar in
    its model's colour, the human reference's in black; a set without an interval has none."""
    rows = [
        {"model": m, "decoding": d, "family": f, "source": "union", "perplexity": p,
         "truncated_score": s, "truncated_score_lo": s - 0.1, "truncated_score_hi": s + 0.2}
        for m, d, f, p, s in (("gpt2-small", "pure", "pure", 40.0, 1.5),
                              ("gpt2-medium", "greedy", "greedy", 5.0, 3.0),
                              ("human", "reference", "human", 30.0, 1.2))
    ]  # fmt: skip
    rows.append({**rows[0], "decoding": "top_k_40", "family": "top-k", "perplexity": 20.0,
                 "truncated_score_lo": np.nan, "truncated_score_hi": np.nan})  # fmt: skip
    figures.novelty_quality(pd.DataFrame(rows), tmp_path / "q.png")
    ax = drawn[0].axes[0]
    bars = {
        (ln.get_xdata()[0], tuple(np.round(ln.get_ydata(), 6))): rgb(ln.get_color())
        for ln in ax.lines
    }
    colors = plotting.model_colors(MODELS)
    assert bars == {
        (40.0, (1.4, 1.7)): rgb(colors["gpt2-small"]),
        (5.0, (2.9, 3.2)): rgb(colors["gpt2-medium"]),
        (30.0, (1.1, 1.4)): rgb(plotting.HUMAN),
    }


def test_dodge_factors_by_hand():
    """Three series over a span of 0.2 (log units): e^-0.1, 1, e^0.1; one series is not
    moved; none for none."""
    import math

    assert figures.dodge_factors(3, 0.2) == pytest.approx([math.exp(-0.1), 1.0, math.exp(0.1)])
    assert figures.dodge_factors(1) == [1.0] and figures.dodge_factors(0) == []


def test_the_dynamics_sets_with_equal_values_sit_side_by_side(drawn, tmp_path):
    """Every set at 0 at every step (no model extracts anything yet): each set's markers at
    its own x, in the set's order, around the true step, so that none hides the others."""
    rows = [
        {"model": m, "step": step, "set": name, "value": 0.0, "value_lo": 0.0, "value_hi": 0.0}
        for m in MODELS for name in ("copies 1", "copies 4", "controls") for step in (10, 100)
    ]  # fmt: skip
    figures.dynamics(pd.DataFrame(rows), "exact extraction rate", tmp_path / "d.png")
    for ax in drawn[0].axes:
        firsts = [ln.get_xdata()[0] for ln in ax.lines]
        assert len(firsts) == 3 and firsts == sorted(firsts) and len(set(firsts)) == 3
        assert firsts[0] < 10 < firsts[2] and firsts[1] == pytest.approx(10)


def test_the_dynamics_sets_keep_one_colour_that_is_no_models(drawn, tmp_path):
    """Training dynamics, one panel per model: a set (a rung, a timing group, a decoding) has
    the same colour in every panel, and none of them is a model's colour."""
    rows = [
        {"model": m, "step": step, "set": name, "value": v, "value_lo": v - 0.1,
         "value_hi": v + 0.1}
        for m in MODELS for name in ("greedy", "pure", "timing early")
        for step, v in ((10, 0.2), (100, 0.5))
    ]  # fmt: skip
    figures.dynamics(pd.DataFrame(rows), "novelty", tmp_path / "d.png")
    per_panel = [
        {label: rgb(_color(h)) for h, label in zip(*ax.get_legend_handles_labels(), strict=True)}
        for ax in drawn[0].axes
    ]
    n = len(MODELS)  # the timing group in a second row of panels
    per_panel = [{**per_panel[i], **per_panel[i + n]} for i in range(n)]
    assert len(per_panel) == 2 and per_panel[0] == per_panel[1]
    sets = set(per_panel[0].values())
    assert len(sets) == 3
    assert not sets & {rgb(c) for c in plotting.model_colors(MODELS).values()}


def test_the_dynamics_timing_groups_have_a_row_and_a_legend_of_their_own(drawn, tmp_path):
    """The splits in one row of panels, the timing groups of the planted text in a second row
    below, a legend beside each row listing its sets once, none inside a panel; one row where
    there is no timing group."""
    rows = [
        {"model": m, "step": step, "set": name, "value": v, "value_lo": v - 0.1,
         "value_hi": v + 0.1}
        for m in MODELS for name in ("train", "timing late", "valid", "timing early")
        for step, v in ((10, 0.2), (100, 0.5))
    ]  # fmt: skip
    figures.dynamics(pd.DataFrame(rows), "name cloze accuracy", tmp_path / "d.png")
    fig = drawn[0]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert len(fig.axes) == 2 * len(MODELS)
    top, bottom = fig.axes[: len(MODELS)], fig.axes[len(MODELS) :]
    assert {t for ax in top for t in ax.get_legend_handles_labels()[1]} == {"train", "valid"}
    assert {t for ax in bottom for t in ax.get_legend_handles_labels()[1]} == {
        "timing late", "timing early"}  # fmt: skip
    assert [[t.get_text() for t in g.get_texts()] for g in fig.legends] == [
        ["train", "valid"], ["timing late", "timing early"]]  # fmt: skip
    # each legend at the height of its row
    heights = [g.get_bbox_to_anchor().transformed(fig.transFigure.inverted()).y0
               for g in fig.legends]  # fmt: skip
    assert heights[0] > top[0].get_position().y0 and heights[1] < bottom[0].get_position().y1
    figures.dynamics(pd.DataFrame([r for r in rows if not r["set"].startswith("timing")]),
                     "name cloze accuracy", tmp_path / "e.png")  # fmt: skip
    assert len(drawn[1].axes) == len(MODELS) and len(drawn[1].legends) == 1
