"""Figures of the novelty stage."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import plotting


def novelty_figure(
    curves: pd.DataFrame, path, title: str = "Held-out text vs. training data"
) -> None:
    """novelty(n) on a log x-axis, one panel per tokenizer: the text set with its bootstrap 95%
    CI band, and Merrill et al.'s no-duplication lower bound (dashed) for the real corpus size.
    """
    plotting.setup()
    toks = list(dict.fromkeys(curves["tokenizer"]))
    fig, axes = plt.subplots(1, len(toks), figsize=(5.2 * len(toks), 4), squeeze=False, sharey=True)
    for ax, tok in zip(axes[0], toks, strict=True):
        sub = curves[curves["tokenizer"] == tok]
        shades = dict(zip(dict.fromkeys(sub["text_set"]), ("black", "0.45", "0.65"), strict=False))
        for set_name, g in sub.groupby("text_set", sort=False):  # human text: black, greys
            color = shades.get(set_name, "0.3")
            line = ax.plot(g["n"], g["novelty"], label=f"{set_name} text", color=color)[0]
            ax.fill_between(g["n"], g["novelty_lo"], g["novelty_hi"], alpha=0.25, color=line.get_color())
        g = sub.drop_duplicates("n")
        corpus = int(g["corpus_tokens"].iloc[0])
        ax.plot(
            g["n"], g["lower_bound"], "--", color="0.3", label=f"lower bound (|C| = {corpus:,})"
        )
        plotting.log_axis(ax)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(f"n (n-gram size, {sub['unit'].iloc[0]})")
        ax.set_title(f"tokenizer: {tok}")
        ax.legend(loc="lower right", fontsize=9)
    axes[0][0].set_ylabel("n-gram novelty (share not in training)")
    fig.suptitle(title)
    plotting.save(fig, path)


def histogram_figure(hist: pd.DataFrame, path) -> None:
    """Share of tokens by non-novel suffix length L_t (log-scaled counts), per tokenizer."""
    plotting.setup()
    toks = list(dict.fromkeys(hist["tokenizer"]))
    fig, axes = plt.subplots(1, len(toks), figsize=(5.2 * len(toks), 3.6), squeeze=False)
    for ax, tok in zip(axes[0], toks, strict=True):
        sub = hist[hist["tokenizer"] == tok]
        ax.bar(sub["L"], sub["tokens"] / sub["tokens"].sum(), width=1.0, color="0.35")
        plotting.log_axis(ax, "y")
        ax.set_xlabel(f"non-novel suffix length L_t ({sub['unit'].iloc[0]})")
        ax.set_title(f"tokenizer: {tok}")
    axes[0][0].set_ylabel("share of tokens")
    plotting.save(fig, path)


def plot_novelty(
    curve_csvs, hist_csvs, summary_csvs, out_fig, out_hist_fig, out_table, out_summary
) -> None:
    """The novelty figure and the L_t histogram figure of every tokenizer's tables, and the
    concatenated curve and summary tables (csv files in, in the order given)."""
    from ..io import write_csv

    curves, hists, summaries = (
        pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
        for files in (curve_csvs, hist_csvs, summary_csvs)
    )
    novelty_figure(curves, out_fig)
    histogram_figure(hists, out_hist_fig)
    write_csv(out_table, curves)
    write_csv(out_summary, summaries)
