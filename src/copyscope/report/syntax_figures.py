"""Figures of the syntactic analyses (the style of :mod:`copyscope.plotting`): each function takes
a table of :mod:`copyscope.report.syntax_tables` and an output path, and draws only what the
table holds."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plotting
from ..stats import wilson

FAMILIES = (("labeled_path", "labeled paths"), ("unlabeled_path", "unlabeled paths"))


def path_novelty(
    curves: pd.DataFrame,
    path,
    human: str | None = None,
    models: list[str] | None = None,
    dashed=(),
    title: str | None = None,
) -> None:
    """RAVEN Fig. 5: novelty of dependency paths by length k (nodes), labeled and unlabeled,
    one line per text set with its bootstrap band; ``human`` (a set name) is drawn in black,
    a model's sets (``model/decoding``) in the model's colour (:func:`plotting.model_colors`
    over ``models``, or over the sets' models when not given), the sets of ``dashed`` (pure
    sampling beside the paper's top-40) dashed with open markers; legend: solid sets, dashed
    sets, the human set, each group in the models' order; ``title`` above both panels."""
    from matplotlib.ticker import MaxNLocator

    plotting.setup()
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.8), sharey=True)
    colors = plotting.model_colors(models or [_model(s) for s in curves["set"] if s != human])
    for ax, (family, panel) in zip(axes, FAMILIES, strict=True):
        sub = curves[curves["family"] == family]
        groups = dict(list(sub.groupby("set", sort=False)))
        ranked = plotting.model_order(_model(x) for x in groups if x != human)
        order = sorted(
            groups,
            key=lambda x: (x == human, x in set(dashed), ranked.index(_model(x)) if x != human else 0),
        )
        for name, g in ((x, groups[x]) for x in order):
            kw = {"color": plotting.HUMAN} if name == human else {}
            if name != human and _model(name) in colors:
                kw = {"color": colors[_model(name)]}
            if name in set(dashed):
                kw |= {"ls": "--", "mfc": "white"}
            line = ax.plot(g["k"], g["novelty"], marker="o", ms=3, label=name, **kw)[0]
            alpha = 0.08 if name in set(dashed) else 0.2
            ax.fill_between(g["k"], g["novelty_lo"], g["novelty_hi"], alpha=alpha, color=line.get_color())
        ax.set_title(panel)
        ax.set_xlabel("k (path nodes; ROOT counts as one)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("novel share of generated paths")
    axes[1].legend(fontsize=8, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
    plotting.save(fig, path)


def _model(set_name) -> str:
    """The model of a text set ``model/decoding``."""
    return str(set_name).split("/")[0]


def _set_colors(sets) -> dict:
    """Text set → its model's colour; human sets black (``human/reference``), other human
    sets grey."""
    models = [_model(s) for s in sets if _model(s) != "human"]
    colors = plotting.model_colors(models)
    return {
        s: (plotting.HUMAN if s == "human/reference" else plotting.HUMAN_OTHER)
        if _model(s) == "human"
        else colors[_model(s)]
        for s in sets
    }


MEASURES = (
    ("template_rate", "template rate"),
    ("templates_per_token", "templates per token"),
    ("cr_pos", "CR-POS"),
)


def template_measures(table: pd.DataFrame, n: int, path) -> None:
    """Template rate, templates-per-token and CR-POS per text set at one n (Shaib et al.), one
    row per set (labels on the y-axis), in its model's colour. The template rate is a share of
    texts: a bar with its Wilson 95% interval over the set's texts. Templates per token and
    CR-POS are one value per set in the table (no per-text values to resample): points, and
    the panel says so."""
    plotting.setup()
    sub = table[table["n"] == n].reset_index(drop=True)
    colors = _set_colors(sub["set"])
    fig, axes = plt.subplots(
        1, len(MEASURES), figsize=(3.6 * len(MEASURES) + 1.6, 1.2 + 0.26 * max(len(sub), 1)),
        sharey=True,
    )  # fmt: skip
    y = np.arange(len(sub))
    bar_colors = [colors[s] for s in sub["set"]]
    for ax, (col, title) in zip(axes, MEASURES, strict=True):
        values = sub[col].to_numpy(float)
        if col == "template_rate":
            err = np.zeros((2, len(sub)))
            for i, (rate, texts) in enumerate(zip(values, sub["texts"], strict=True)):
                if texts > 0 and np.isfinite(rate):
                    _, low, high = wilson(round(rate * texts), int(texts))
                    err[:, i] = [rate - low, high - rate]
            ax.barh(y, values, color=bar_colors, xerr=err.clip(min=0), capsize=2,
                    error_kw={"lw": 1})  # fmt: skip
            ax.set_xlim(0, 1.02)
            ax.set_xlabel("share of texts (Wilson 95% CI)", fontsize=8)
        else:
            ax.scatter(values, y, c=bar_colors, s=28, zorder=3)
            ax.set_xlabel("one value per set (no interval)", fontsize=8)
        ax.set_title(f"{title} (n = {n})", fontsize=10)
    axes[0].set_yticks(y, sub["set"], fontsize=8)
    axes[0].invert_yaxis()
    plotting.save(fig, path)


def template_rate_by_n(table: pd.DataFrame, decoding: str | None, path) -> None:
    """Shaib et al. Fig. 5: the template rate (share of texts with a template, Wilson 95%
    interval over the set's texts) against the template length n, one line per model's
    ``decoding`` samples (the greedy ones, as the paper's models; solid, in the model's colour)
    and the human continuations (``human/reference``, dashed black). ``decoding=None`` (a run
    without greedy samples): the human line alone, the title says so."""
    plotting.setup()
    sets = [s for s in dict.fromkeys(table["set"]) if s == "human/reference"
            or (decoding is not None and s.split("/", 1)[-1] == decoding)]  # fmt: skip
    colors = _set_colors(sets)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ranked = plotting.model_order({_model(s) for s in sets} - {"human"})
    lines = sorted((s for s in sets if _model(s) != "human"), key=lambda s: ranked.index(_model(s)))
    for s in [*lines, *(x for x in sets if _model(x) == "human")]:
        g = table[table["set"] == s].sort_values("n")
        rate, texts = g["template_rate"].to_numpy(float), g["texts"].to_numpy(int)
        lo, hi = np.full(len(g), np.nan), np.full(len(g), np.nan)
        for i, (r, t) in enumerate(zip(rate, texts, strict=True)):
            if t > 0 and np.isfinite(r):
                _, lo[i], hi[i] = wilson(round(r * t), int(t))
        human = _model(s) == "human"
        label = "human text" if human else _model(s)
        ax.plot(g["n"], rate, ls="--" if human else "-", marker="o", ms=3, color=colors[s],
                label=label)  # fmt: skip
        ax.fill_between(g["n"], lo, hi, color=colors[s], alpha=0.15, lw=0)
    ax.set_xticks(sorted(table["n"].unique()))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("template length n (POS tags)")
    ax.set_ylabel("template rate (share of texts; Wilson 95% CI)")
    what = f"models' {decoding} samples" if decoding else "no greedy samples in this run"
    ax.set_title(f"Template rate by n: {what} (solid), human (dashed)", fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    plotting.save(fig, path)


VS_HUMAN_PANELS = (
    ("template_rate", "template rate", "share of texts (Wilson 95% CI)"),
    ("templates_per_token", "templates per token", "mean over texts (bootstrap 95% CI)"),
)


def templates_vs_human(table: pd.DataFrame, path) -> None:
    """Shaib et al. Table 3 drawn (``templates_vs_human.csv``): per model (rows, canonical
    order) the template rate and templates per token of its greedy samples (filled, as the
    paper's models decode) and of its pure samples (open), with their intervals, against the
    human references (black, the bottom row, and a dashed line with its interval as a band
    across the panel)."""
    from matplotlib.lines import Line2D

    plotting.setup()
    models = plotting.model_order(table.loc[table["model"] != "human", "model"])
    colors = plotting.model_colors(models)
    human = table[table["model"] == "human"]
    labels = [*models, *(["human text"] if len(human) else [])]
    fig, axes = plt.subplots(1, 2, figsize=(9.2, 1.5 + 0.45 * max(len(labels), 1)), sharey=True)
    n = int(table["n"].iloc[0]) if len(table) else None
    for ax, (col, title, xlabel) in zip(axes, VS_HUMAN_PANELS, strict=True):
        for i, model in enumerate(models):
            r = table[table["model"] == model].iloc[0]
            for prefix, shift, filled in (("", -0.12, True), ("pure_", 0.12, False)):
                v = r[f"{prefix}{col}"]
                if not np.isfinite(v):
                    continue
                err = [[v - r[f"{prefix}{col}_lo"]], [r[f"{prefix}{col}_hi"] - v]]
                ax.errorbar([v], [i + shift], xerr=np.clip(err, 0, None), fmt="o", ms=6,
                            capsize=2, color=colors[model],
                            mfc=colors[model] if filled else "white")  # fmt: skip
        if len(human):
            h = human.iloc[0]
            y = len(models)
            err = [[h[col] - h[f"{col}_lo"]], [h[f"{col}_hi"] - h[col]]]
            ax.errorbar([h[col]], [y], xerr=np.clip(err, 0, None), fmt="o", ms=6, capsize=2,
                        color=plotting.HUMAN)  # fmt: skip
            ax.axvline(h[col], color=plotting.HUMAN, ls="--", lw=1)
            ax.axvspan(h[f"{col}_lo"], h[f"{col}_hi"], color="0.85", zorder=0, lw=0)
        ax.set_title(f"{title} (n = {n})" if n is not None else title, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=8)
        if col == "template_rate":
            ax.set_xlim(-0.02, 1.02)
        else:
            ax.set_xlim(left=-0.02 * ax.get_xlim()[1])
    axes[0].set_yticks(range(len(labels)), labels, fontsize=9)
    axes[0].set_ylim(len(labels) - 0.5, -0.5)
    greedy = table.loc[table["model"] != "human", "decoding"]
    pure = table.loc[table["model"] != "human", "pure_decoding"].replace("", np.nan).dropna()
    handles = [
        Line2D([], [], ls="none", marker="o", color="0.35",
               label=f"{greedy.iloc[0] if len(greedy) else 'greedy'} samples"),
        Line2D([], [], ls="none", marker="o", color="0.35", mfc="white",
               label=f"{pure.iloc[0] if len(pure) else 'pure'} samples"),
        Line2D([], [], ls="--", marker="o", color=plotting.HUMAN, label="human references"),
    ]  # fmt: skip
    axes[1].legend(handles=handles, fontsize=8, frameon=False, loc="upper left",
                   bbox_to_anchor=(1.01, 1.0))  # fmt: skip
    plotting.save(fig, path)


def template_coverage(frame: pd.DataFrame, path) -> None:
    """Share of templates vs random non-template POS n-grams among the most frequent training
    n-grams, per text set (``set``, ``coverage_templates``, ``coverage_non_templates``, ``cut``)."""
    plotting.setup()
    frame = frame.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.8, 1.4 + 0.3 * max(len(frame), 1)))
    y = np.arange(len(frame))
    colors = _set_colors(frame["set"])
    err = None
    if {"coverage_templates_lo", "coverage_templates_hi"} <= set(frame.columns):
        v = frame["coverage_templates"].to_numpy(float)
        err = np.vstack(
            [v - frame["coverage_templates_lo"].to_numpy(float),
             frame["coverage_templates_hi"].to_numpy(float) - v]
        ).clip(min=0)  # fmt: skip
    ax.barh(y - 0.2, frame["coverage_templates"], 0.4, color=[colors[s] for s in frame["set"]],
            xerr=err, capsize=2, error_kw={"lw": 1}, label="templates (95% CI)")  # fmt: skip
    ax.barh(y + 0.2, frame["coverage_non_templates"], 0.4, color="0.8", edgecolor="0.5",
            label="random non-template n-grams")  # fmt: skip
    ax.set_yticks(y, frame["set"], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.02)
    cuts = sorted(set(frame["cut"]))
    ax.set_xlabel(f"share in training's top {', '.join(map(str, cuts))} POS n-grams")
    ax.legend(fontsize=8, loc="lower right")
    plotting.save(fig, path)


def template_ranks(
    per_template: pd.DataFrame, coverage: pd.DataFrame, decoding: str | None, distinct: int, path
) -> None:
    """Shaib et al. Fig. 4's ranks as distributions: for the templates of each model's
    ``decoding`` samples (the greedy ones, solid, in the model's colour) and of the human
    continuations (``human/reference``, dashed black), the empirical distribution of their
    POS n-grams' ranks in the training split's POS n-gram frequency list (``training_rank`` of
    ``template_training.csv``; rank 1 the most frequent), on a log axis: the share of the set's
    templates at rank ≤ r. A template absent from training has no rank, so a curve ends at the
    share found anywhere in training; the dotted line is the coverage cut (``cut`` of
    ``coverage``). The legend gives each set's median rank (absent templates ranked behind the
    ``distinct`` training n-grams, as ``median_rank_templates``) and its number of templates."""
    plotting.setup()
    sets = [s for s in dict.fromkeys(coverage["set"]) if s == "human/reference"
            or (decoding is not None and s.split("/", 1)[-1] == decoding)]  # fmt: skip
    colors = _set_colors(sets)
    ranked = plotting.model_order({_model(s) for s in sets} - {"human"})
    order = sorted((s for s in sets if _model(s) != "human"), key=lambda s: ranked.index(_model(s)))
    order += [s for s in sets if _model(s) == "human"]
    fig, ax = plt.subplots(figsize=(6.8, 4.0))
    top = max(int(distinct), 2)
    for s in order:
        model, dec = s.split("/", 1)
        g = per_template[(per_template["model"] == model) & (per_template["decoding"] == dec)]
        ranks = np.sort(g["training_rank"].dropna().to_numpy(float))
        total = len(g)
        c = coverage[coverage["set"] == s].iloc[0]
        human = model == "human"
        label = (f"{'human text' if human else model} (median rank "
                 f"{c['median_rank_templates']:g}, {total} templates)")  # fmt: skip
        if not total:  # e.g. texts shorter than n: nothing to draw, the legend says so
            label = f"{'human text' if human else model} (no templates)"
        x = np.r_[1.0, ranks, top] if total else []
        y = np.r_[0.0, np.arange(1, len(ranks) + 1) / total, len(ranks) / total] if total else []
        ax.step(x, y, where="post", ls="--" if human else "-", color=colors[s], label=label)
    cuts = sorted(set(coverage["cut"]))
    for cut in cuts:
        ax.axvline(cut, color="0.4", ls=":", lw=1)
        ax.text(cut, 0.02, f" top {int(cut)}", fontsize=8, color="0.4", va="bottom")
    plotting.log_axis(ax)
    ax.set_xlim(1, top)
    ax.set_ylim(0, 1.02)
    n = int(coverage["n"].iloc[0]) if len(coverage) else ""
    ax.set_xlabel(f"rank of the template's POS {n}-gram in training (1 = most frequent; log)")
    ax.set_ylabel("share of the set's templates at rank ≤ r")
    what = f"models' {decoding} samples" if decoding else "no greedy samples in this run"
    ax.set_title(f"Templates' training frequency ranks: {what} (solid), human (dashed)",
                 fontsize=10)  # fmt: skip
    ax.legend(fontsize=7, frameon=False, loc="upper left")
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
    fig.suptitle("POS memorization (solid, filled) vs exact memorization (dashed, open)")
    models = plotting.model_order(table["model"])
    colors = plotting.model_colors(models)
    for col, (source, title) in enumerate(STYLE_SOURCES):
        sub = table[table["source"] == source]
        strata = list(dict.fromkeys(sub["stratum"]))
        for row, (exact, pos, ylabel) in enumerate(STYLE_ROWS):
            ax = axes[row][col]
            for k, model in enumerate(models):
                g = sub[sub["model"] == model]
                if not len(g):
                    continue
                x = np.array([strata.index(s) for s in g["stratum"]], float)
                # POS and words of one model side by side (words drawn last, open squares), so
                # equal values never hide one line under the other
                series = ((pos, "-", "o", "POS", -1), (exact, "--", "s", "words", 1))
                for name, style, marker, label, side in series:
                    err = np.vstack(
                        [g[name] - g[f"{name}_lo"], g[f"{name}_hi"] - g[name]]
                    ).clip(min=0)
                    shift = 0.08 * (k - (len(models) - 1) / 2) + 0.03 * side
                    ax.errorbar(
                        x + shift, g[name], yerr=err, ls=style, marker=marker, ms=4, capsize=2,
                        color=colors[model], mfc="white" if side > 0 else colors[model],
                        label=f"{model}: {label}", zorder=3 if side > 0 else 2,
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
