"""Figures of the name cloze (Chang et al. 2023; Zhang et al. 2024) beside the per-play figure
:func:`copyscope.report.figures.membership_cloze`, in the style of :mod:`copyscope.plotting`:
each function takes tables of :mod:`copyscope.report.name_cloze` and an output path and draws
only what they hold. The plays' groups keep one marker in every figure (:data:`SPLITS`): the
training plays filled circles, the clean held-out plays open circles, the excerpt plays
(held out, excerpts planted) diamonds; a model keeps its colour."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plotting

SPLITS = {
    "train": ("training plays", "o", True),
    "valid": ("held-out plays", "o", False),
    "excerpt": ("excerpt plays", "D", True),
}
"""Split of the plays → (label, marker, filled)."""

GENRE_ORDER = ("comedy", "history", "tragedy", "outside the Folio", "unknown")
"""The order of the genres on an axis (First Folio genres first; any other genre after them,
alphabetically)."""


def _errors(g: pd.DataFrame, col: str = "acc_insensitive") -> np.ndarray:
    """The (below, above) error-bar lengths of ``col`` from ``col_lo`` and ``col_hi``."""
    v = g[col].to_numpy(float)
    return np.vstack([v - g[f"{col}_lo"].to_numpy(float), g[f"{col}_hi"].to_numpy(float) - v]).clip(
        min=0
    )


def _point(ax, x, g, color, split, label=None, col="acc_insensitive", ms=6):
    """One group's accuracies with their intervals, in the split's marker (:data:`SPLITS`)."""
    _, marker, filled = SPLITS.get(split, (split, "s", True))
    return ax.errorbar(
        x, g[col], yerr=_errors(g, col), fmt=marker, ms=ms, capsize=2, color=color,
        mfc=color if filled else "white", mec=color, label=label,
    )  # fmt: skip


def _split_handles(splits) -> list:
    """Legend handles of the plays' markers in grey (the colours are the models') and of the
    chance tick."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], ls="none", marker=SPLITS[s][1], color="0.35",
               mfc="0.35" if SPLITS[s][2] else "white", label=SPLITS[s][0])
        for s in SPLITS if s in set(splits)
    ]  # fmt: skip
    handles.append(Line2D([], [], ls="none", marker="_", ms=14, color="0.5", label="chance"))
    return handles


def _outside_legend(ax, handles) -> None:
    """One legend right of the axes (one only: a second legend added as an artist is left out
    of the saved figure's tight bounding box)."""
    ax.legend(handles=handles, fontsize=7, frameon=False, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))  # fmt: skip


def _y_limit(*his) -> float:
    """An upper y limit a little above every interval (at most 1.02)."""
    top = max([float(np.nanmax(h)) for h in his if len(h) and np.isfinite(h).any()] or [1.0])
    return min(1.02, max(0.1, top * 1.12))


def cloze_models(models: pd.DataFrame, summary: pd.DataFrame, path) -> None:
    """Zhang et al.'s Table 1 drawn: per model (x, :func:`plotting.model_order`), its name
    cloze accuracy over every play (a square, ``membership_cloze_models``) and per split of
    the plays (``membership_cloze_summary``: :data:`SPLITS`' markers), case-insensitive, with
    the 95% intervals over plays; the chance level (1 / candidates) as a grey tick."""
    plotting.setup()
    order = plotting.model_order(models["model"])
    colors = plotting.model_colors(order)
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * max(len(order), 1), 3.8))
    groups = ["all", *(s for s in SPLITS if s in set(summary.get("split", [])))]
    width = 0.14
    for i, model in enumerate(order):
        for k, group in enumerate(groups):
            x = i + width * (k - (len(groups) - 1) / 2)
            if group == "all":
                g = models[models["model"] == model]
                ax.errorbar(x, g["acc_insensitive"], yerr=_errors(g), fmt="s", ms=7, capsize=2,
                            color=colors[model], mec="black")  # fmt: skip
            else:
                g = summary[(summary["model"] == model) & (summary["split"] == group)]
                if len(g):
                    _point(ax, [x], g, colors[model], group)
        chance = models.loc[models["model"] == model, "chance"]
        ax.plot([i - 0.35, i + 0.35], [chance.mean()] * 2, color="0.5", lw=1.5, zorder=1)
    ax.set_xticks(range(len(order)), order)
    ax.set_xlim(-0.6, len(order) - 0.4)
    ax.set_ylim(-0.02, _y_limit(models["acc_insensitive_hi"], summary.get("acc_insensitive_hi", [])))
    ax.set_ylabel("name cloze accuracy\n(top-1, case-insensitive; 95% CI over plays)")
    from matplotlib.lines import Line2D

    every = Line2D([], [], ls="none", marker="s", color="0.35", mec="black", label="every play")
    _outside_legend(ax, [every, *_split_handles(groups)])
    plotting.save(fig, path)


def _genre_key(genre: str) -> tuple:
    return (GENRE_ORDER.index(genre), "") if genre in GENRE_ORDER else (len(GENRE_ORDER), genre)


def cloze_genre(table: pd.DataFrame, path) -> None:
    """The genre table drawn (``membership_cloze_genre``): per genre of the plays (x) the
    name cloze accuracy of each model (its colour, side by side) per split of the plays
    (:data:`SPLITS`' markers), with the 95% intervals over plays; the chance level as a grey
    tick per genre; under each genre its plays per split."""
    plotting.setup()
    order = plotting.model_order(table["model"])
    colors = plotting.model_colors(order)
    genres = sorted(dict.fromkeys(table["genre"]), key=_genre_key)
    splits = [s for s in SPLITS if s in set(table["split"])]
    fig, ax = plt.subplots(figsize=(2.0 + 1.9 * max(len(genres), 1), 4.0))
    slots = [(m, s) for m in order for s in splits]
    width = min(0.8 / max(len(slots), 1), 0.16)
    for k, (model, split) in enumerate(slots):
        g = table[(table["model"] == model) & (table["split"] == split)]
        x = [genres.index(v) + width * (k - (len(slots) - 1) / 2) for v in g["genre"]]
        _point(ax, x, g, colors[model], split, ms=5)
    first = table[table["model"] == order[0]] if order else table
    labels = []
    for v in genres:
        rows = first[first["genre"] == v].set_index("split")["plays"]
        labels.append("\n".join([v, *(f"{int(rows[s])} {SPLITS[s][0].split()[0]}"
                                       for s in splits if s in rows.index)]))  # fmt: skip
        chance = table.loc[table["genre"] == v, "chance"].mean()
        i = genres.index(v)
        ax.plot([i - 0.42, i + 0.42], [chance] * 2, color="0.5", lw=1.5, zorder=1)
    ax.set_xticks(range(len(genres)), labels, fontsize=8)
    ax.set_xlim(-0.6, len(genres) - 0.4)
    ax.set_ylim(-0.02, _y_limit(table["acc_insensitive_hi"]))
    ax.set_ylabel("name cloze accuracy\n(top-1, case-insensitive; 95% CI over plays)")
    from matplotlib.patches import Patch

    models = [Patch(color=colors[m], label=m) for m in order]
    _outside_legend(ax, [*models, *_split_handles(splits)])
    plotting.save(fig, path)


def exposure_groups(excerpts: pd.DataFrame) -> list[tuple[str, float]]:
    """The plays' exposure groups of ``membership_cloze_excerpts`` on the popularity axis, in
    order of exposure: ``held-out`` (no copy), ``excerpt`` per copy count, ``train`` (the full
    text), as (group, copies) pairs (copies NaN but for the excerpt groups)."""
    copies = sorted(excerpts.loc[excerpts["group"] == "excerpt", "copies"].dropna().unique())
    groups = [("held-out", np.nan), *(("excerpt", float(c)) for c in copies), ("train", np.nan)]
    present = set(excerpts["group"])
    return [(g, c) for g, c in groups if g in present]


def _exposure_label(group: str, copies: float, plays: int) -> str:
    name = {"held-out": "held out\n(no copy)", "train": "full text\n(training)"}.get(group)
    return f"{name or f'excerpts ×{copies:g}'}\n{plays} plays"


def cloze_popularity(excerpts: pd.DataFrame, trend: pd.DataFrame, path) -> None:
    """Name cloze accuracy against a play's measured exposure in training
    (``membership_cloze_excerpts``): the clean held-out plays (no copy), the excerpt plays per
    planted copy count (a share of their speeches copied c times into training: the run's
    popularity, set by ``corpus.inject.excerpts``) and the training plays (the full text), one
    line per model with the 95% intervals over plays; the legend gives each model's
    Spearman ρ of correctness with the copy count over the held-out plays' items
    (``membership_cloze_trend``) and its interval."""
    plotting.setup()
    order = plotting.model_order(excerpts["model"])
    colors = plotting.model_colors(order)
    groups = exposure_groups(excerpts)
    fig, ax = plt.subplots(figsize=(2.4 + 1.3 * max(len(groups), 1), 3.8))
    for i, model in enumerate(order):
        g = excerpts[excerpts["model"] == model]
        rows = [g[(g["group"] == n) & ((g["copies"] == c) if n == "excerpt" else True)]
                for n, c in groups]  # fmt: skip
        sub = pd.concat(rows)
        x = np.arange(len(sub)) + 0.08 * (i - (len(order) - 1) / 2)
        label = model
        t = trend[trend["model"] == model] if len(trend) else trend
        if len(t) and np.isfinite(t["rho"].iloc[0]):
            r = t.iloc[0]
            label += f": ρ with copies {r['rho']:.2f} [{r['rho_lo']:.2f}, {r['rho_hi']:.2f}]"
        ax.errorbar(x, sub["acc_insensitive"], yerr=_errors(sub), marker="o", ms=5, capsize=2,
                    color=colors[model], label=label)  # fmt: skip
    first = excerpts[excerpts["model"] == order[0]] if order else excerpts
    labels = [
        _exposure_label(n, c, int(first[(first["group"] == n) & (
            (first["copies"] == c) if n == "excerpt" else True)]["plays"].sum()))
        for n, c in groups
    ]  # fmt: skip
    ax.set_xticks(range(len(groups)), labels, fontsize=8)
    ax.set_xlabel("exposure of the play in training")
    ax.set_ylim(-0.02, _y_limit(excerpts["acc_insensitive_hi"]))
    ax.set_ylabel("name cloze accuracy\n(top-1, case-insensitive; 95% CI over plays)")
    ax.legend(fontsize=7, frameon=False, loc="upper left")
    plotting.save(fig, path)


def cloze_overlap(plays: pd.DataFrame, summary: pd.DataFrame, path) -> None:
    """Zhang et al.'s Fig. 8 as a scatter, one panel per model: one point per play, its name
    cloze accuracy (x) against its continuation test score (y: the mean positional match
    fraction of the greedy continuations, ``membership_cloze``), in :data:`SPLITS`' markers;
    the panel's title gives Pearson's r across the training plays with its 95% interval
    (``membership_cloze_summary``: r over training and held-out plays together would be
    positive by membership alone)."""
    plotting.setup()
    order = plotting.model_order(plays["model"])
    colors = plotting.model_colors(order)
    fig, axes = plt.subplots(1, max(len(order), 1), figsize=(0.6 + 3.6 * max(len(order), 1), 3.8),
                             sharex=True, sharey=True, squeeze=False)  # fmt: skip
    top = max(0.05, float(plays["match_fraction"].max()) * 1.1) if len(plays) else 1.0
    for ax, model in zip(axes[0], order, strict=False):
        g = plays[plays["model"] == model]
        for split in SPLITS:
            h = g[g["split"] == split]
            if len(h):
                _, marker, filled = SPLITS[split]
                ax.scatter(h["acc_insensitive"], h["match_fraction"], marker=marker, s=30,
                           color=colors[model] if filled else "white", edgecolors=colors[model],
                           label=SPLITS[split][0])  # fmt: skip
        s = summary[(summary["model"] == model) & (summary["split"] == "train")]
        title = model
        if len(s) and np.isfinite(s["r_overlap"].iloc[0]):
            r = s.iloc[0]
            title += (f"\nr = {r['r_overlap']:.2f} [{r['r_overlap_lo']:.2f}, {r['r_overlap_hi']:.2f}], "
                      f"{int(r['r_plays'])} training plays")  # fmt: skip
        elif len(s):
            title += "\nr not computed (training plays)"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("name cloze accuracy (per play)")
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.01, top)
    axes[0][0].set_ylabel("continuation match fraction\n(greedy, per play)")
    present = plays["split"].unique() if len(plays) else []
    _outside_legend(axes[0][-1], _split_handles(present)[:-1])  # no chance level here
    plotting.save(fig, path)
