"""Figures of the syntactic analyses (the style of :mod:`copyscope.plotting`): each function takes
a table of :mod:`copyscope.report.syntax_tables` and an output path, and draws only what the
table holds."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plotting

FAMILIES = (("labeled_path", "labeled paths"), ("unlabeled_path", "unlabeled paths"))


def path_novelty(
    curves: pd.DataFrame, path, human: str | None = None, models: list[str] | None = None
) -> None:
    """RAVEN Fig. 5: novelty of dependency paths by length k (nodes), labeled and unlabeled,
    one line per text set with its bootstrap band; ``human`` (a set name) is drawn in black,
    a model's sets (``model/decoding``) in the colour of its place in ``models`` (the config's
    order, as in the other figures)."""
    from matplotlib.ticker import MaxNLocator

    plotting.setup()
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.8), sharey=True)
    for ax, (family, title) in zip(axes, FAMILIES, strict=True):
        sub = curves[curves["family"] == family]
        for name, g in sub.groupby("set", sort=False):
            model = str(name).split("/")[0]
            kw = {"color": "black"} if name == human else {}
            if name != human and models and model in models:
                kw = {"color": f"C{models.index(model) % 10}"}
            line = ax.plot(g["k"], g["novelty"], marker="o", ms=3, label=name, **kw)[0]
            ax.fill_between(g["k"], g["ci_low"], g["ci_high"], alpha=0.2, color=line.get_color())
        ax.set_title(title)
        ax.set_xlabel("k (path nodes; ROOT counts as one)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("novel share of generated paths")
    axes[1].legend(fontsize=8, loc="lower right")
    plotting.save(fig, path)


MEASURES = (
    ("template_rate", "template rate"),
    ("templates_per_token", "templates per token"),
    ("cr_pos", "CR-POS"),
)


def template_measures(table: pd.DataFrame, n: int, path) -> None:
    """Template rate, templates-per-token and CR-POS per text set at one n (Shaib et al.)."""
    plotting.setup()
    sub = table[table["n"] == n]
    fig, axes = plt.subplots(1, len(MEASURES), figsize=(3.4 * len(MEASURES), 3.6))
    x = np.arange(len(sub))
    for ax, (col, title) in zip(axes, MEASURES, strict=True):
        ax.bar(x, sub[col].to_numpy(), color="0.55")
        ax.set_xticks(x, sub["set"], rotation=45, ha="right", fontsize=8)
        ax.set_title(f"{title} (n = {n})")
    plotting.save(fig, path)


def template_coverage(frame: pd.DataFrame, path) -> None:
    """Share of templates vs random non-template POS n-grams among the most frequent training
    n-grams, per text set (``set``, ``coverage_templates``, ``coverage_non_templates``, ``cut``)."""
    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    x = np.arange(len(frame))
    ax.bar(x - 0.2, frame["coverage_templates"], 0.4, label="templates")
    ax.bar(x + 0.2, frame["coverage_non_templates"], 0.4, label="random non-template n-grams")
    ax.set_xticks(x, frame["set"], rotation=45, ha="right", fontsize=8)
    ax.set_ylim(0, 1.02)
    cuts = sorted(set(frame["cut"]))
    ax.set_ylabel(f"share in training's top {', '.join(map(str, cuts))} POS n-grams")
    ax.legend(fontsize=8)
    plotting.save(fig, path)


STYLE_ROWS = (
    ("exact_rate", "pos_rate", "passages reproduced\n(whole continuation)"),
    ("word_match", "pos_match", "positions matched\n(share of the target's)"),
)
STYLE_SOURCES = (("ladder", "planted passages (ladder)"), ("training", "training n-grams (index)"))


def style_memorization(table: pd.DataFrame, path) -> None:
    """Shaib et al. §8: exact memorization (words, dashed) vs POS memorization (tags, solid)
    by the number of training copies, one colour per model, 95% bootstrap bars; columns = the
    two sources (ladder passages, repeated training n-grams), rows = whole-continuation rates
    and positional match shares (controls, 0 copies, first on the ladder's axis)."""
    plotting.setup()
    fig, axes = plt.subplots(2, 2, figsize=(9.6, 7.0), sharey="row", squeeze=False)
    fig.suptitle("POS memorization (solid) vs exact memorization (dashed)")
    models = list(dict.fromkeys(table["model"]))
    colors = {m: f"C{i % 10}" for i, m in enumerate(models)}
    for col, (source, title) in enumerate(STYLE_SOURCES):
        sub = table[table["source"] == source]
        strata = list(dict.fromkeys(sub["stratum"]))
        for row, (exact, pos, ylabel) in enumerate(STYLE_ROWS):
            ax = axes[row][col]
            for k, (model, g) in enumerate(sub.groupby("model", sort=False)):
                x = np.array([strata.index(s) for s in g["stratum"]]) + 0.06 * (k - len(models) / 2)
                for name, style, label in ((pos, "-", "POS"), (exact, "--", "words")):
                    err = np.vstack(
                        [g[name] - g[f"{name}_ci_low"], g[f"{name}_ci_high"] - g[name]]
                    ).clip(min=0)
                    ax.errorbar(
                        x, g[name], yerr=err, ls=style, marker="o", ms=3, capsize=2,
                        color=colors[model], label=f"{model}: {label}",
                    )  # fmt: skip
            ax.set_xticks(range(len(strata)), strata)
            ax.set_ylim(-0.03, 1.03)
            if row == 0:
                ax.set_title(title)
            else:
                ax.set_xlabel("copies in training")
            if col == 0:
                ax.set_ylabel(ylabel)
            if not len(sub):
                ax.text(0.5, 0.5, "no passages", ha="center", transform=ax.transAxes)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if not handles:
        handles, labels = axes[0][1].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=min(4, len(labels)))
        fig.subplots_adjust(bottom=0.18)
    plotting.save(fig, path)
