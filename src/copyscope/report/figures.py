"""Figures of the model analyses (one consistent style, see :mod:`copyscope.plotting`).

One function per figure: it takes the analysis' table(s) and the output path, and draws only
what those tables hold (every number shown is in a table of the run)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import EngFormatter, MaxNLocator

from .. import plotting
from ..corpus.timing import SET_PREFIX

HUMAN = "human text"


def _curve(ax, g: pd.DataFrame, label: str, **kw):
    g = g.dropna(subset=["novelty"])
    line = ax.plot(g["n"], g["novelty"], label=label, **kw)[0]
    if "novelty_lo" in g:
        ax.fill_between(g["n"], g["novelty_lo"], g["novelty_hi"], alpha=0.2, color=line.get_color())
    return line


def _novelty_axes(ax, unit="tokens"):
    plotting.log_axis(ax)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(f"n (n-gram size, {unit})")
    ax.set_ylabel("n-gram novelty")


def _human(curves, plen, decoding: str = "reference"):
    """The rows of human set ``decoding`` (the clean reference unless said) at prompt ``plen``."""
    return curves[
        (curves["model"] == "human")
        & (curves["decoding"] == decoding)
        & (curves["prompt_length"] == plen)
    ]


def _source(curves: pd.DataFrame, source: str) -> pd.DataFrame:
    """The curves of one ``source`` (tables without the column: ``all`` only)."""
    if "source" not in curves:
        return curves if source == "all" else curves.iloc[:0]
    return curves[curves["source"] == source]


def novelty_by_model(curves: pd.DataFrame, plen: int, path) -> None:
    """Merrill et al. Fig. 1 (left): novelty(n) of pure samples per model, human text, bound;
    solid against all training text, dashed (same colour, no band) against the natural text
    only (column ``source``)."""
    from matplotlib.lines import Line2D

    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    every, natural = _source(curves, "all"), _source(curves, "natural")
    sub = every[(every["prompt_length"] == plen) & (every["decoding"] == "pure")]
    nat = natural[(natural["prompt_length"] == plen) & (natural["decoding"] == "pure")]
    colors = plotting.model_colors(sub["model"])
    for model in plotting.model_order(sub["model"]):
        _curve(ax, sub[sub["model"] == model], model, color=colors[model])
        n = nat[nat["model"] == model].dropna(subset=["novelty"])
        ax.plot(n["n"], n["novelty"], "--", color=colors[model], lw=1.2)
    h = _human(every, plen)
    _curve(ax, h, HUMAN, color=plotting.HUMAN)
    hn = _human(natural, plen).dropna(subset=["novelty"])
    ax.plot(hn["n"], hn["novelty"], "--", color=plotting.HUMAN, lw=1.2)
    c = _human(every, plen, "contaminated")
    if len(c):  # corpus.inject.excerpts: held-out plays with excerpts in training
        _curve(ax, c, f"{HUMAN} (excerpt plays)", color=plotting.HUMAN_OTHER, ls="-.")
    ax.plot(h["n"], h["lower_bound"], ":", color="0.45", label="lower bound (no duplication)")
    _novelty_axes(ax)
    ax.set_title(f"Pure sampling vs. held-out human text (prompt {plen} tokens)")
    handles, _ = ax.get_legend_handles_labels()
    if len(nat):
        handles += [
            Line2D([], [], color="0.3", ls="-", label="all training text"),
            Line2D([], [], color="0.3", ls="--", label="natural text only"),
        ]
    ax.legend(handles=handles, fontsize=8, loc="lower right")
    plotting.save(fig, path)


def completion_loss(loss: pd.DataFrame, path, min_tokens: int = 20) -> None:
    """Merrill et al. Fig. 1 (right): mean loss of a token by the size n of the n-gram it
    completes (``in training``, solid) or would complete (``not in training``, dashed), one
    colour per model; points with fewer than ``min_tokens`` tokens are hidden. The table's
    ``extended match`` variant is not drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    plotting.setup()
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    sub = loss[loss["tokens"] >= min_tokens]
    styles = {"in training": "-", "not in training": "--"}
    models, colors = plotting.model_order(loss["model"]), plotting.model_colors(loss["model"])
    for model in models:
        g = sub[sub["model"] == model]
        for curve, style in styles.items():
            c = g[g["curve"] == curve].sort_values("x")
            ax.plot(c["x"], c["loss"], style, marker="o", ms=3.5, lw=1.6, color=colors[model])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("n (size of the n-gram the token completes)")
    ax.set_ylabel("mean loss of the token (nats)")
    ax.set_title("Completion loss on held-out text")
    colours = [Line2D([], [], color=colors[m], lw=2, label=m) for m in models]
    kinds = [
        Line2D([], [], color="0.3", ls=style, marker="o", ms=3.5, label=f"n-gram {curve}")
        for curve, style in styles.items()
    ]
    ax.legend(
        handles=[*colours, *kinds],
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.02, 1),
        borderaxespad=0,
    )
    plotting.save(fig, path)


def completion_loss_frequency(freq: pd.DataFrame, path, min_tokens: int = 10) -> None:
    """Merrill et al.'s completion loss vs frequency: one panel per model, one line per n-gram
    size n, mean loss (with its bootstrap interval) by the training count bucket
    round(log10 C_t); buckets with fewer than ``min_tokens`` tokens are hidden."""
    plotting.setup()
    models = plotting.model_order(freq["model"]) or ["(no model)"]
    fig, axes = plt.subplots(
        1, len(models), figsize=(4.4 * len(models) + 0.6, 3.9), squeeze=False, sharey=True
    )
    sub = freq[freq["tokens"] >= min_tokens]
    colour = plotting.ordinal_colors(freq["n"])
    buckets = sorted(set(sub["log10_count"]))
    for ax, model in zip(axes[0], models, strict=True):
        g = sub[sub["model"] == model]
        for n, c in g.groupby("n", sort=True):
            c = c.sort_values("log10_count")
            ax.errorbar(
                c["log10_count"],
                c["loss"],
                yerr=[
                    (c["loss"] - c["loss_lo"]).clip(lower=0).fillna(0),
                    (c["loss_hi"] - c["loss"]).clip(lower=0).fillna(0),
                ],
                marker="o",
                ms=4,
                capsize=2,
                color=colour[n],
                label=f"n = {n}",
            )
        if buckets:
            ax.set_xticks(buckets, [f"{10**b:g}" for b in buckets])
        else:
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, f"no bucket with ≥ {min_tokens} tokens", ha="center",
                    transform=ax.transAxes)  # fmt: skip
        ax.set_xlabel("training count of the n-gram (rounded)")
        ax.set_title(model)
        if len(g):
            ax.legend(fontsize=8, title="L_t = n", title_fontsize=8)
    axes[0][0].set_ylabel("mean loss of the token (nats)")
    fig.suptitle("Completion loss vs. n-gram frequency (held-out text)", y=1.03)
    plotting.save(fig, path)


def novelty_by_decoding(curves: pd.DataFrame, model: str, plen: int, path) -> None:
    """Merrill et al. Fig. 2: novelty(n) by decoding family for one model."""
    plotting.setup()
    sub = curves[(curves["model"] == model) & (curves["prompt_length"] == plen)]
    families = [f for f in ("top-k", "top-p", "temperature", "beam") if f in set(sub["family"])]
    families = families or ["all decodings"]  # only pure sampling / greedy configured
    fig, axes = plt.subplots(
        1, len(families), figsize=(4.2 * len(families), 3.8), squeeze=False, sharey=True
    )
    pure = sub[sub["decoding"] == "pure"]
    for ax, fam in zip(axes[0], families, strict=True):
        if fam == "all decodings":
            fam_rows = sub[sub["decoding"] != "pure"]
        else:
            fam_rows = sub[sub["family"].isin([fam, "greedy"] if fam == "beam" else [fam])]
        colors = plotting.decoding_colors(fam_rows["decoding"])
        for dec, g in fam_rows.groupby("decoding", sort=False):
            _curve(ax, g, dec, color=colors[dec])
        _curve(ax, pure, "pure sampling", color="0.5", ls="--")
        _curve(ax, _human(curves, plen), HUMAN, color=plotting.HUMAN)
        _novelty_axes(ax)
        ax.set_title(fam)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"Decoding and novelty ({model}, prompt {plen} tokens)", y=1.03)
    plotting.save(fig, path)


def novelty_by_prompt_length(curves: pd.DataFrame, model: str, decodings: list[str], path) -> None:
    """Merrill et al. Fig. 3: novelty(n) by prompt length (beam search and others); without
    ``decodings`` (no prompt-length study configured) the figure says so."""
    if not decodings:
        not_measured(path, "no prompt-length study (sampling.prompt_length_decodings is empty)")
        return
    plotting.setup()
    fig, axes = plt.subplots(
        1, len(decodings), figsize=(4.6 * len(decodings), 3.8), squeeze=False, sharey=True
    )
    for ax, dec in zip(axes[0], decodings, strict=True):
        sub = curves[(curves["model"] == model) & (curves["decoding"] == dec)]
        colors = plotting.ordinal_colors(sub["prompt_length"])
        for plen, g in sub.groupby("prompt_length"):
            _curve(ax, g, f"prompt {plen}", color=colors[plen])
        _novelty_axes(ax)
        ax.set_title(f"{model}, {dec}")
        ax.legend(fontsize=7, loc="lower right")
    plotting.save(fig, path)


def novelty_training_prompts(table: pd.DataFrame, path) -> None:
    """Merrill et al. Fig. 3: novelty(n) after prompts taken from the training data, one panel
    per (model, prompt length), one line per beam size (greedy = 1 beam), with the held-out
    human text (black) in every panel. ``table``: one source of
    ``novelty_training_prompts.csv``."""
    plotting.setup()
    ours = table[table["prompts"] == "training"]
    human = table[table["prompts"] == "held-out"]
    models = plotting.model_order(set(ours["model"]))
    lengths = sorted(set(ours["prompt_length"]))
    fig, axes = plt.subplots(
        len(models), len(lengths), figsize=(4.2 * len(lengths), 3.6 * len(models)),
        squeeze=False, sharex=True, sharey=True,
    )  # fmt: skip
    colors = plotting.ordinal_colors(ours["beams"].astype(int))
    for row, model in zip(axes, models, strict=True):
        for ax, plen in zip(row, lengths, strict=True):
            sub = ours[(ours["model"] == model) & (ours["prompt_length"] == plen)]
            for beams, g in sub.groupby("beams", sort=True):
                label = "greedy (1 beam)" if beams == 1 else f"{beams} beams"
                _curve(ax, g, label, color=colors[int(beams)])
            _curve(ax, human, f"{HUMAN} (held-out)", color=plotting.HUMAN, ls="--")
            _novelty_axes(ax)
            unit = "token" if plen == 1 else "tokens"
            ax.set_title(f"{model}, training prompt of {plen} {unit}", fontsize=10)
            ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("Beam search after prompts from the training data (Merrill et al. Fig. 3)", y=1.02)
    plotting.save(fig, path)


INSET_N = 4
"""RAVEN Fig. 1's inset: n = 1..INSET_N on a linear axis."""


def _texts_of(g: pd.DataFrame) -> str:
    """"k texts" of a set's rows (their ``texts`` column), or "" without one."""
    if "texts" not in g or not len(g):
        return ""
    k = sorted(set(int(t) for t in g["texts"]))
    return f"{'–'.join(map(str, (k[0], k[-1]) if len(k) > 1 else k))} texts"


def raven_novelty(curves: pd.DataFrame, decodings: list[str], path) -> None:
    """RAVEN Fig. 1: novelty(n) = 1 − dup(n) w.r.t. training ∪ context, one panel per decoding
    of ``decodings`` (the paper's main panel first: top-40 sampling, then pure sampling), each
    model in its colour against the human continuations (black), with the 95% bootstrap band
    over texts; an inset enlarges n = 1..:data:`INSET_N` (as the paper's), with the
    intervals as bars. ``curves``: the rows :func:`copyscope.report.raven.figure_curves`
    selects (columns model, decoding, n, novelty, and novelty_lo, novelty_hi, texts, prompt_length
    where present)."""
    plotting.setup()
    panels = list(decodings) or [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), sharey=True,
                             squeeze=False)  # fmt: skip
    colors = plotting.model_colors(curves["model"])
    human = curves[curves["model"] == "human"]
    models = plotting.model_order(set(curves["model"]) - {"human"})
    for ax, decoding in zip(axes[0], panels, strict=True):
        inset = ax.inset_axes([0.52, 0.08, 0.45, 0.42])
        for model in [*models, "human"]:
            g = human if model == "human" else curves[
                (curves["model"] == model) & (curves["decoding"] == decoding)]  # fmt: skip
            if not len(g):
                continue
            g = g.sort_values("n")
            label = HUMAN if model == "human" else model
            _curve(ax, g, label, marker="o", ms=2.5, color=colors[model])
            small = g[g["n"] <= INSET_N].dropna(subset=["novelty"])
            err = None
            if "novelty_lo" in small:
                err = np.vstack([small["novelty"] - small["novelty_lo"],
                                 small["novelty_hi"] - small["novelty"]]).clip(min=0)  # fmt: skip
            inset.errorbar(small["n"], small["novelty"], yerr=err, marker="o", ms=2.5, lw=1,
                           capsize=2, color=colors[model])  # fmt: skip
        plotting.log_axis(ax)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("n (n-gram size, Moses words)")
        inset.set_xticks(range(1, INSET_N + 1))
        inset.tick_params(labelsize=7)
        inset.set_title(f"n = 1..{INSET_N}", fontsize=8)
        what = f"{decoding} sampling" if decoding else "no model samples"
        texts = _texts_of(curves[curves["decoding"] == decoding])
        plen = ""
        if "prompt_length" in curves and len(curves):
            plen = f"prompt {int(curves['prompt_length'].iloc[0])} tokens"
        ax.set_title("\n".join(x for x in (what, ", ".join(y for y in (plen, texts) if y)) if x),
                     fontsize=10)  # fmt: skip
    axes[0][0].set_ylabel("novelty (not in training ∪ context)\n95% bootstrap band over texts")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=min(len(labels), 6),
               frameon=False, bbox_to_anchor=(0.5, -0.02))  # fmt: skip
    fig.suptitle("RAVEN Fig. 1: n-gram novelty of model text vs. human text", fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    plotting.save(fig, path)


def raven_by_size(table: pd.DataFrame, path) -> None:
    """RAVEN Fig. 3: novelty(n) (training ∪ context) against the model's parameter count, the
    models in size order on x (ordinal, labelled with their size), one line per n (ordinal
    colours), a panel per decoding (``raven_by_size.csv``, top-40 first); the human
    continuations' value of each n at the right, past a dotted line, as black-edged points;
    bars: 95% bootstrap intervals over texts."""
    plotting.setup()
    decodings = list(dict.fromkeys(table["decoding"])) or [None]
    fig, axes = plt.subplots(1, len(decodings), figsize=(4.6 * len(decodings) + 1.2, 4.2),
                             sharey=True, squeeze=False)  # fmt: skip
    ns = sorted(set(table["n"]))
    colors = plotting.ordinal_colors(ns)
    fmt = EngFormatter(places=1, sep="")
    for ax, decoding in zip(axes[0], decodings, strict=True):
        sub = table[table["decoding"] == decoding]
        models = list(dict.fromkeys(sub.loc[sub["model"] != "human", "model"]))
        x_of = {m: i for i, m in enumerate(models)}
        hx = len(models) + 0.5
        for n in ns:
            g = sub[(sub["n"] == n) & (sub["model"] != "human")]
            x = [x_of[m] for m in g["model"]]
            err = np.vstack([g["novelty"] - g["novelty_lo"], g["novelty_hi"] - g["novelty"]]).clip(min=0)
            ax.errorbar(x, g["novelty"], yerr=err, marker="o", ms=4, capsize=2,
                        color=colors[n], label=f"n = {n}")  # fmt: skip
            h = sub[(sub["n"] == n) & (sub["model"] == "human")]
            if len(h):
                herr = np.vstack([h["novelty"] - h["novelty_lo"],
                                  h["novelty_hi"] - h["novelty"]]).clip(min=0)  # fmt: skip
                ax.errorbar([hx] * len(h), h["novelty"], yerr=herr, marker="o", ms=5,
                            capsize=2, ls="none", color=colors[n], mec=plotting.HUMAN)  # fmt: skip
        labels = [f"{m}\n({fmt(p)})" for m, p in
                  sub[sub["model"] != "human"].drop_duplicates("model")[["model", "params"]]
                  .itertuples(index=False)]  # fmt: skip
        ticks = list(range(len(models)))
        if (sub["model"] == "human").any():
            ax.axvline(len(models) - 0.25, color="0.6", ls=":", lw=1)
            ticks, labels = [*ticks, hx], [*labels, HUMAN]
        ax.set_xticks(ticks, labels, fontsize=8)
        ax.set_xlim(-0.5, max(ticks, default=0) + 0.5)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{decoding} sampling" if decoding else "no trained model", fontsize=10)
        ax.set_xlabel("model (parameters), smallest first")
    axes[0][0].set_ylabel("novelty (not in training ∪ context)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        axes[0][-1].legend(handles, labels, fontsize=8, loc="center left",
                           bbox_to_anchor=(1.01, 0.5), frameon=False)  # fmt: skip
    fig.suptitle("RAVEN Fig. 3: novelty by model size (bars: 95% bootstrap over texts)",
                 fontsize=11)  # fmt: skip
    plotting.save(fig, path)


def _score_interval(ax, row, color) -> None:
    """The 95% bootstrap interval of a set's truncated score (``truncated_score_lo`` / ``_hi``
    of ``raven_summary.csv``) as a vertical bar at its point, where the table has one."""
    lo, hi = row.get("truncated_score_lo"), row.get("truncated_score_hi")
    if lo is None or hi is None or not np.isfinite([lo, hi]).all():
        return
    ax.plot([row["perplexity"]] * 2, [lo, hi], color=color, lw=1, alpha=0.7)


def novelty_quality(raven: pd.DataFrame, path) -> None:
    """RAVEN Fig. 2: truncated pointwise duplication score (with its 95% bootstrap interval over
    texts) vs. evaluator perplexity, one point per decoding method, human text as reference."""
    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    sub = raven[(raven["source"] == "union") & raven["perplexity"].notna()]  # scored sets
    markers = dict(zip(sorted(set(sub["family"])), "osD^vPX<", strict=False))
    models = sub[sub["model"] != "human"]["model"]
    colors = plotting.model_colors(models)
    for model in plotting.model_order(models):
        for _, r in sub[sub["model"] == model].iterrows():
            ax.scatter(
                r["perplexity"],
                r["truncated_score"],
                color=colors[model],
                marker=markers.get(r["family"], "o"),
                s=28,
            )
            _score_interval(ax, r, colors[model])
            ax.annotate(
                r["decoding"],
                (r["perplexity"], r["truncated_score"]),
                fontsize=6,
                xytext=(3, 2),
                textcoords="offset points",
            )
        ax.scatter([], [], color=colors[model], label=model)
    h = sub[(sub["model"] == "human") & (sub["decoding"] == "reference")]
    ax.scatter(h["perplexity"], h["truncated_score"], color=plotting.HUMAN, marker="*", s=120,
               label=HUMAN)  # fmt: skip
    for _, r in h.iterrows():
        _score_interval(ax, r, plotting.HUMAN)
    c = sub[(sub["model"] == "human") & (sub["decoding"] == "contaminated")]
    if len(c):  # corpus.inject.excerpts
        label = f"{HUMAN} (excerpt plays)"
        ax.scatter(c["perplexity"], c["truncated_score"], color=plotting.HUMAN_OTHER, marker="x",
                   label=label)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("perplexity under the evaluator model")
    ax.set_ylabel("truncated duplication score (mean min(s, 5))\nbars: 95% bootstrap over texts")
    ax.set_title("Novelty–quality tradeoff (training ∪ context, words)")
    ax.legend(fontsize=8)
    plotting.save(fig, path)


def planted(planted: pd.DataFrame, path) -> None:
    """Reproduction of planted passages as a function of their duplication m."""
    plotting.setup()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    if len(planted):
        per = (
            planted.groupby(["model", "id", "copies"])
            .agg(longest=("longest_copy", "max"), reproduced=("reproduced", "max"))
            .reset_index()
        )
        colors = plotting.model_colors(per["model"])
        humans = [m for m in ("human",) if m in set(per["model"])]
        for model in [*plotting.model_order(set(per["model"]) - {"human"}), *humans]:
            g = per[per["model"] == model]
            agg = g.groupby("copies").agg(rate=("reproduced", "mean"), longest=("longest", "mean"))
            kw = {"marker": "o", "color": colors[model], "label": HUMAN if model == "human" else model}
            axes[0].plot(agg.index + 1, agg["rate"], **kw)
            axes[1].plot(agg.index + 1, agg["longest"], **kw)
    occurrences = sorted({int(c) + 1 for c in planted["copies"]}) if len(planted) else []
    for ax in axes:
        plotting.log_axis(ax)
        if occurrences:  # one tick per planted group (a decade tick alone reads nothing)
            ax.set_xticks(occurrences, [str(o) for o in occurrences])
            ax.minorticks_off()
        ax.set_xlabel("occurrences of the passage in training (m + 1)")
    axes[0].set_ylabel("share of passages reproduced")
    axes[0].set_ylim(-0.02, 1.02)
    axes[1].set_ylabel("longest copy (tokens, mean)")
    axes[0].legend(fontsize=8)
    fig.suptitle("Planted duplicates: copying vs. duplication (any decoding)", y=1.02)
    plotting.save(fig, path)


def training(frame: pd.DataFrame, path) -> None:
    """Validation loss during training, per model."""
    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    if len(frame):
        colors = plotting.model_colors(frame["model"])
        for model in plotting.model_order(frame["model"]):
            g = frame[frame["model"] == model].dropna(subset=["valid_loss"])
            last = f" (final {g['valid_loss'].iloc[-1]:.2f})" if len(g) else ""
            ax.plot(g["tokens"], g["valid_loss"], marker="o", ms=3, label=model + last,
                    color=colors[model])  # fmt: skip
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.set_xlabel("training tokens")
    ax.set_ylabel("validation loss (nats/token)")
    ax.legend(fontsize=8)
    ax.set_title("Training")
    plotting.save(fig, path)


def dodge_factors(n: int, width: float = 0.25) -> list[float]:
    """Factors that dodge ``n`` series sideways on a log x axis: ``exp(width * (k / (n - 1) -
    1/2))`` for series ``k`` (``[1.0]`` for one), so that the series spread evenly over a span of
    ``width`` in natural-log units (about 28% of the step for the default), centred on the true
    x; series with equal values then sit side by side."""
    import math

    if n <= 1:
        return [1.0] * n
    return [math.exp(width * (k / (n - 1) - 0.5)) for k in range(n)]


def dynamics(part: pd.DataFrame, label: str, path) -> None:
    """One quantity of the training dynamics: one panel per model, one line per set (its colour
    the same in every panel, never a model's), the value at each checkpoint step (log x) with
    its 95% interval as a band. The timing groups of the planted text (sets ``timing …``) get
    a row of their own below the other sets (splits, rungs, decodings), so that neither row's
    lines hide the other's; a legend of each row's sets beside it. Within a row the sets are
    dodged sideways (:func:`dodge_factors`: each set's steps times its own small factor, the
    ticks at the true steps), so that sets with the same values (all at 0) stay visible side
    by side instead of the last one drawn hiding the others."""
    import numpy as np
    from matplotlib.lines import Line2D

    plotting.setup()
    models = plotting.model_order(part["model"])
    names = list(dict.fromkeys(part["set"]))
    rows = [[n for n in names if not n.startswith(SET_PREFIX)],
            [n for n in names if n.startswith(SET_PREFIX)]]  # fmt: skip
    rows = [r for r in rows if r]
    fig, axes = plt.subplots(len(rows), len(models), figsize=(4.2 * len(models), 3.3 * len(rows)),
                             squeeze=False, sharey=True, sharex="col")  # fmt: skip
    # a set keeps its colour in every panel, from a palette of its row's own (never a model's:
    # the panels are the models)
    set_color = {}
    for sets, palette in zip(rows, ("Dark2", "Set1"), strict=False):
        set_color |= dict(zip(sets, sns.color_palette(palette, max(len(sets), 1)), strict=False))
    for r, sets in enumerate(rows):
        for ax, model in zip(axes[r], models, strict=True):
            g = part[(part["model"] == model) & part["set"].isin(sets)]
            shift = dict(zip(sets, dodge_factors(len(sets)), strict=True))
            for name, s in g.groupby("set", sort=False):
                s = s.sort_values("step")
                x = s["step"].to_numpy(float) * shift[name]
                (line,) = ax.plot(x, s["value"], marker="o", ms=3, label=name,
                                  color=set_color[name])  # fmt: skip
                lo, hi = s["value_lo"].to_numpy(float), s["value_hi"].to_numpy(float)
                if np.isfinite(lo).any():
                    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
            ax.set_xscale("log")
            steps = sorted(part.loc[part["model"] == model, "step"].unique())
            ax.set_xticks(steps, [str(int(x)) for x in steps])  # the checkpoint steps only
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
            if r == len(rows) - 1:
                ax.set_xlabel("training step (log)")
            if r == 0:
                ax.set_title(model)
        timing = sets[0].startswith(SET_PREFIX)
        axes[r][0].set_ylabel(f"{label}\n(timing of planted text)" if timing else label)
    fig.tight_layout()
    # one legend per row beside it, not over any of the panels' lines or bands
    for r, sets in enumerate(rows):
        box = axes[r][-1].get_position()
        handles = [Line2D([], [], color=set_color[n], marker="o", ms=3, label=n) for n in sets]
        fig.legend(handles=handles, fontsize=8, loc="center left", frameon=False,
                   bbox_to_anchor=(1.0, (box.y0 + box.y1) / 2))  # fmt: skip
    plotting.save(fig, path)


def memorization(table: pd.DataFrame, path, suffix_tokens: int) -> None:
    """The memorization ladder: extraction rate (95% CI bars) against the copies in training
    (log x, one tick per rung), one line per model; the controls' rate (never planted) as the
    floor: a grey line at their mean over models and a band from the lowest CI bound to the
    highest over models (drawn and listed only where it has a width: identical CIs of 0 are the
    dashed line alone)."""
    import numpy as np

    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    planted = table[table["copies"] > 0]
    controls = table[table["copies"] == 0]
    rungs = sorted(planted["copies"].unique())
    models, colors = plotting.model_order(planted["model"]), plotting.model_colors(planted["model"])
    if len(controls):
        low = np.nanmin(controls[["extraction_rate_lo", "extraction_rate"]].to_numpy())
        high = np.nanmax(controls[["extraction_rate_hi", "extraction_rate"]].to_numpy())
        if high - low > 0.004:
            ax.axhspan(low, high, color="0.6", alpha=0.3, lw=0,
                       label="controls: 95% CIs, all models")  # fmt: skip
        floor = controls["extraction_rate"].mean()
        ax.axhline(
            floor,
            color="0.35",
            ls="--",
            lw=1.2,
            label=f"controls, never planted: {floor:.2f} ({int(controls['n'].iloc[0])} passages)",
        )
    for i, model in enumerate(models):
        g = planted[planted["model"] == model]
        # spread the models a little along x so that equal rates stay visible
        shift = 1.06 ** (i - (len(models) - 1) / 2)
        x = g["copies"].to_numpy() * shift
        y = g["extraction_rate"].to_numpy()
        err = np.vstack([y - g["extraction_rate_lo"].to_numpy(), g["extraction_rate_hi"].to_numpy() - y])
        ax.errorbar(
            x,
            y,
            yerr=None if np.isnan(err).all() else np.clip(err, 0, None),
            marker="o",
            ms=5,
            capsize=3,
            color=colors[model],
            label=model,
        )
    ax.set_xscale("log")
    if rungs:
        ax.set_xticks(rungs)
        ax.set_xticklabels([str(r) for r in rungs])
        ax.minorticks_off()
        ax.set_xlim(min(rungs) / 1.5, max(rungs) * 1.5)
    else:
        ax.text(0.5, 0.5, "no memorization ladder configured", ha="center", transform=ax.transAxes)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("copies of the passage in the training data")
    ax.set_ylabel(f"extraction rate (all {suffix_tokens} tokens)")
    ax.set_title("Memorization ladder: greedy extraction vs. duplication")
    if models or len(controls):
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    plotting.save(fig, path)


def membership_placement(table: pd.DataFrame, path) -> None:
    """Li's placement, two panels with one row per model. Left (Li 2023): the mean NLL (95%
    CI) of the clean baseline, the contamination set, its unplanted items, its planted items per copy
    count (``contamination_copies_<c>``) and the memorised baseline on one axis. Right:
    copyscope's normalised position (clean − set) / (clean − memorised) of the contamination sets
    with its 95% CI (0 = clean, 1 = memorised; not Li's)."""
    plotting.setup()
    models = plotting.model_order(table["model"])
    copies = sorted(
        {s for s in table["set"] if s.startswith("contamination_copies_")},
        key=lambda s: int(s.rsplit("_", 1)[1]),
    )
    sets = ["clean", "contamination", "contamination_unplanted", *copies, "memorised"]
    markers = dict(zip(sets, "oDv^<>pPX*hs"[: len(sets) - 1] + "s", strict=True))
    colors = plotting.set_colors(sets)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(9.6, 1.6 + 0.6 * max(len(models), 1)), sharey=True
    )
    n = len(sets)
    for k, name in enumerate(sets):
        g = table[table["set"] == name]
        if not len(g):
            continue
        y = [models.index(m) + 0.5 * (k - (n - 1) / 2) / n for m in g["model"]]
        label = name.replace("contamination_copies_", "planted ×")
        err = [g["mean_nll"] - g["mean_nll_lo"], g["mean_nll_hi"] - g["mean_nll"]]
        style = {"fmt": markers[name], "color": colors[name], "capsize": 3}
        left.errorbar(g["mean_nll"], y, xerr=err, label=label, **style)
        if name.startswith("contamination"):
            # the interval as drawn from its bounds: a ratio's percentile interval need not
            # hold its point estimate (a clean−memorised gap near 0), so no symmetric error bar
            right.hlines(y, g["position_lo"], g["position_hi"], color=colors[name], lw=1.5)
            right.plot(g["position"], y, markers[name], color=colors[name])
    for x in (0, 1):
        right.axvline(x, color="0.6", ls=":", lw=1)
    left.set_yticks(range(len(models)), models)
    left.invert_yaxis()
    left.set_xlabel("mean token NLL of the window (nats; Li 2023)")
    right.set_xlabel(
        "copyscope's normalised position, not Li's:\n"
        "(clean − set) / (clean − memorised); dotted: 0 clean, 1 memorised",
        fontsize=8,
    )
    fig.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    plotting.save(fig, path)


def membership_roc(texts: pd.DataFrame, label_set: str, split, path) -> None:
    """ROC curves of the headline detectors (:data:`copyscope.membership.scores.HEADLINE`:
    loss, Min-K% and Min-K%++ at 20%, DC-PDD, zlib (Carlini), reference and lowercase ratios)
    and, dashed, the blind baselines (when ``texts`` has their columns) on one label
    set, one panel per model, on log–log axes (Carlini et al. 2022): the low-FPR end is where a
    detector earns its keep. ``split(rows)`` gives the label sets. With n non-members no FPR
    between 0 and 1/n is measured: the shaded band; points at FPR 0 (or TPR 0) are drawn at
    its edge, 1/(2n)."""
    from sklearn.metrics import roc_curve

    from ..membership.blind import BLIND
    from ..membership.scores import HEADLINE, MEMBER_SIGN

    sign = {**MEMBER_SIGN, **{b: 1 for b in BLIND}}
    plotting.setup()
    models = plotting.model_order(texts["model"])
    fig, axes = plt.subplots(
        1, len(models), figsize=(3.2 * len(models), 3.4), squeeze=False, sharey=True
    )
    detectors = (*HEADLINE, *BLIND)
    colors = plotting.detector_colors(detectors)
    for ax, model in zip(axes[0], models, strict=True):
        rows, y = split(texts[texts["model"] == model])[label_set]
        y = np.asarray(y)
        if len(set(y)) < 2:
            ax.set_title(model)
            continue
        fx, fy = 0.5 / (y == 0).sum(), 0.5 / (y == 1).sum()
        for det in detectors:
            if det not in rows or rows[det].isna().any():
                continue
            s = np.nan_to_num(sign[det] * rows[det].to_numpy(float), posinf=1e300, neginf=-1e300)
            f, t, _ = roc_curve(y, s)
            style = {"color": colors[det]} | ({"ls": "--", "lw": 1} if det in BLIND else {})
            ax.plot(np.maximum(f, fx), np.maximum(t, fy), label=det, **style)
        lo = min(1e-3, fx)
        ax.axvspan(lo, 2 * fx, color="0.92", zorder=0)
        ax.plot([lo, 1], [lo, 1], color="0.6", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, 1)
        ax.set_ylim(min(1e-3, fy), 1.05)
        ax.set_title(f"{model} ({(y == 1).sum()} vs {(y == 0).sum()})", fontsize=9)
        ax.set_xlabel("false-positive rate (log)")
        ax.legend(fontsize=6)
    axes[0][0].set_ylabel("true-positive rate (log)")
    plotting.save(fig, path)


def membership_cloze(plays: pd.DataFrame, path) -> None:
    """Name cloze accuracy (case-insensitive, 95% CI) per play and model, training plays
    filled, held-out plays open; the chance level as a grey tick per play."""
    plotting.setup()
    fig, ax = plt.subplots(figsize=(8.4, 4.2))
    names = list(plays["play"].drop_duplicates()) if len(plays) else []
    models = plotting.model_order(plays["model"]) if len(plays) else []
    colors = plotting.model_colors(models)
    for i, model in enumerate(models):
        g = plays[plays["model"] == model]
        x = [names.index(p) + 0.15 * (i - (len(models) - 1) / 2) for p in g["play"]]
        err = [
            g["acc_insensitive"] - g["acc_insensitive_lo"],
            g["acc_insensitive_hi"] - g["acc_insensitive"],
        ]
        line = ax.errorbar(x, g["acc_insensitive"], yerr=err, fmt="o", capsize=2, label=model,
                           color=colors[model])  # fmt: skip
        held = (g["split"] == "valid").to_numpy()
        ax.scatter(
            [v for v, h in zip(x, held, strict=True) if h],
            g["acc_insensitive"][held],
            s=60,
            facecolors="white",
            edgecolors=line[0].get_color(),
            zorder=3,
        )
    if len(plays):
        chance = plays.groupby("play", sort=False)["chance"].mean()
        ax.scatter(
            [names.index(p) for p in chance.index],
            chance,
            marker="_",
            s=200,
            color="0.5",
            label="chance",
        )
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("name cloze accuracy (top-1, case-insensitive)")
    ax.set_ylim(-0.02, 1.02)
    # outside the axes: the plays' intervals fill the whole height
    ax.legend(fontsize=7, title="open marker: held-out play", title_fontsize=7,
              loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # fmt: skip
    plotting.save(fig, path)


def power(summary: pd.DataFrame, target: float, path) -> None:
    """Power of each rule on each of its known positives at the run's own sample size (one
    row each, :func:`copyscope.report.power.power_summary`): the share of resamples with the
    right verdict and its 95% interval, filled where it reaches ``target`` (a dotted line),
    and on the right the sample size per group it was drawn at and the smallest size that
    reaches the target (projected beyond the run's own sample, or none of the sizes drawn)."""
    import numpy as np

    plotting.setup()
    n = len(summary)
    fig, ax = plt.subplots(figsize=(7.2, 1.4 + 0.26 * max(n, 1)))
    if not n:
        ax.text(0.5, 0.5, "no known positive in this run", ha="center", va="center")
        ax.set_axis_off()
        plotting.save(fig, path)
        return
    y = np.arange(n)
    power = summary["power"].to_numpy(float)
    err = [power - summary["power_lo"].to_numpy(float), summary["power_hi"].to_numpy(float) - power]
    ok = power >= target
    ax.errorbar(power, y, xerr=err, fmt="none", ecolor="0.55", elinewidth=1.2, capsize=2)
    ax.scatter(power[ok], y[ok], s=36, color="0.1", zorder=3)
    ax.scatter(power[~ok], y[~ok], s=36, facecolors="white", edgecolors="0.1", zorder=3)
    ax.axvline(target, ls=":", color="0.4")
    labels = [f"{c}: {p}" for c, p in zip(summary["claim"], summary["positive"], strict=True)]
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(n - 0.5, -0.5)
    for k, r in enumerate(summary.itertuples(index=False)):
        if np.isnan(r.size_for_power):
            need = f"not reached up to {r.largest}"
        else:
            need = f"at {r.size_for_power:g}" + (" (projected)" if r.projected else "")
        ax.text(1.04, k, f"n = {r.size}; {target:g} {need}", fontsize=7, va="center",
                transform=ax.get_yaxis_transform())  # fmt: skip
    ax.set_xlabel("power: share of resamples with the right verdict (95% interval)")
    ax.set_title(f"Power of each rule at the run's own sample size n per group (filled: "
                 f"reaches {target:g}),\nand the smallest size drawn that reaches {target:g}",
                 fontsize=10)  # fmt: skip
    plotting.save(fig, path)


def not_measured(path, why: str) -> None:
    """A figure of an analysis the configuration does not run: its reason as text (wrapped
    at 72 characters)."""
    import textwrap

    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 1.6))
    ax.axis("off")
    ax.text(0.5, 0.5, textwrap.fill(f"not measured: {why}", 72), ha="center", va="center")
    plotting.save(fig, path)


def supercopies(counts: pd.DataFrame, path) -> None:
    """Supercopies per setting (horizontal bars): against all training text and against the
    natural text only (column ``source`` of ``supercopies_by_source.csv``)."""
    import numpy as np

    plotting.setup()
    every = counts[counts["source"] == "all"].reset_index(drop=True)
    natural = counts[counts["source"] == "natural"].reset_index(drop=True)
    labels = [f"{m} / {d}" for m, d in zip(every["model"], every["decoding"], strict=True)]
    y = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * max(len(labels), 1)))
    ax.barh(y - 0.2, every["supercopies"], height=0.4, color="0.3", label="all training text")
    if len(natural) == len(every):
        ax.barh(y + 0.2, natural["supercopies"], height=0.4, color="0.7", label="natural text only")
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("supercopies (passages)")
    ax.set_title("Supercopies per setting: all vs. natural training text")
    if not counts["supercopies"].any():
        ax.set_xlim(0, 1)
        ax.text(0.5, 0.5, "no supercopies", transform=ax.transAxes, ha="center", color="0.4")
    ax.legend(fontsize=8, loc="lower right")
    plotting.save(fig, path)
