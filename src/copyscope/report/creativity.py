"""The Creativity Index (Lu et al. 2024) of every text set, in Moses words against the training
data (:mod:`copyscope.novelty.creativity` for the definitions).

Per setting (model, decoding) and text at the main prompt length (``sampling.prompt_length``):
its L-uniqueness for L = 5..12 words and its Creativity Index (their sum), from the per-word
longest matches of ``words.parquet`` — against all training text (``L_train``, source ``all``)
and against the natural text only (``L_nat``, source ``natural``: before any planting).
Tables: the mean L-uniqueness per L (``creativity.csv``) and the mean index
(``creativity_index.csv``), each with a percentile bootstrap interval over texts, and each
text's index (``creativity_texts.csv``: the scorecard's "human text is more creative than model
text" regroups whole texts); the figure draws L-uniqueness against L for each model's pure
samples and the human text.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..novelty.creativity import LENGTHS, creativity_index, l_uniqueness
from ..stats import bootstrap_mean_ci
from . import fmt, per_text, require
from .jobs import Input, Output, Params

NAME = "creativity"
HELP = "Creativity Index (Lu et al. 2024): L-uniqueness for L = 5..12 words of every text set"
INPUTS = {
    "words": Input(
        ("MODEL", "DECODING"),
        "words.parquet of a setting (per-word longest matches L_train, L_nat)",
        files=lambda p: (p.settings(), p.analysis_files("words.parquet")),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/creativity.csv",
        "mean L-uniqueness per setting, source and L with bootstrap CIs (.csv)",
        "creativity",
        "related",
    ),
    "index": Output(
        "tables/creativity_index.csv",
        "mean Creativity Index per setting and source with bootstrap CIs (.csv)",
        "creativity",
        "related",
    ),
    "texts": Output(
        "tables/creativity_texts.csv",
        "per setting, source and text: its words and Creativity Index (.csv)",
        "creativity",
        "related",
    ),
    "fig": Output(
        "figures/creativity.png",
        "figure: L-uniqueness against L, pure sampling vs. human text (.png)",
        "creativity",
        "related",
    ),
}
PARAMS = Params(
    "the config blocks sampling (prompt_length) and novelty (bootstrap, seed)",
    of=lambda p: {
        "sampling": {"prompt_length": p.config["sampling"]["prompt_length"]},
        "novelty": {k: p.config["novelty"][k] for k in ("bootstrap", "seed")},
    },
)
SUMMARY_TABLES = ("creativity_index",)  # read by summary_section

SOURCES = {"all": "L_train", "natural": "L_nat"}
"""Column ``source`` of the tables → the per-word longest-match column it is computed from."""
COLUMNS = ["model", "decoding", "source", "L", "uniqueness", "uniqueness_lo", "uniqueness_hi", "texts"]
INDEX_COLUMNS = ["model", "decoding", "source", "index", "index_lo", "index_hi", "texts"]
TEXT_COLUMNS = ["model", "decoding", "source", "text", "words", "index"]


def text_uniqueness(words: pd.DataFrame, column: str) -> np.ndarray:
    """One row per text (in text order) of its L-uniqueness for L in :data:`LENGTHS`, from the
    per-word longest matches ``column`` of a setting's words at one prompt length."""
    texts = per_text(words, column)
    return np.array([l_uniqueness(t) for t in texts]).reshape(len(texts), len(LENGTHS))


def creativity_tables(settings, prompt_length: int, n_boot: int, seed: int):
    """(curve table, index table) of settings ``(model, decoding, words frame)`` at
    ``prompt_length``: per source, the mean over texts with its percentile bootstrap interval
    (:func:`copyscope.stats.bootstrap_mean_ci`: one set of resamples of the texts for every L
    and for the index)."""
    curve, index = [], []
    for model, decoding, words in settings:
        w = words[words["prompt_length"] == prompt_length]
        for source, column in SOURCES.items():
            if column not in w:
                continue
            u = text_uniqueness(w, column)  # every text has words: no NaN row
            if not len(u):
                continue
            label = {"model": model, "decoding": decoding, "source": source, "texts": len(u)}
            per_text_values = np.column_stack([u, creativity_index(u)])
            mean, lo, hi = bootstrap_mean_ci(per_text_values, n_boot=n_boot, seed=seed)
            for i, L in enumerate(LENGTHS):
                row = {"L": L, "uniqueness": mean[i], "uniqueness_lo": lo[i], "uniqueness_hi": hi[i]}
                curve.append({**label, **row})
            index.append({**label, "index": mean[-1], "index_lo": lo[-1], "index_hi": hi[-1]})
    return pd.DataFrame(curve, columns=COLUMNS), pd.DataFrame(index, columns=INDEX_COLUMNS)


def text_table(settings, prompt_length: int) -> pd.DataFrame:
    """One row per setting ``(model, decoding, words frame)``, source and text at
    ``prompt_length`` (texts in text order): its number of words and its Creativity Index
    (:func:`text_uniqueness` summed over L)."""
    frames = []
    for model, decoding, words in settings:
        w = words[words["prompt_length"] == prompt_length]
        if not len(w):
            continue
        texts = np.unique(w["text"].to_numpy())
        sizes = w.groupby("text", sort=True).size().to_numpy()
        for source, column in SOURCES.items():
            if column not in w:
                continue
            index = creativity_index(text_uniqueness(w, column))
            frames.append(pd.DataFrame({"model": model, "decoding": decoding, "source": source,
                                        "text": texts, "words": sizes, "index": index}))  # fmt: skip
    if not frames:
        return pd.DataFrame(columns=TEXT_COLUMNS)
    return pd.concat(frames, ignore_index=True)[TEXT_COLUMNS]


def figure(curve: pd.DataFrame, path) -> None:
    """L-uniqueness against L (words) of each model's pure samples and the human reference
    (and the excerpt plays' continuations, partly in training, where the run has them), against
    all training text, with 95% bootstrap bands."""
    import matplotlib.pyplot as plt

    from .. import plotting

    plotting.setup()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    every = curve[curve["source"] == "all"]
    pure = every[every["decoding"] == "pure"]
    colors = plotting.model_colors(pure["model"])
    lines = [(m, pure[pure["model"] == m], colors[m]) for m in plotting.model_order(pure["model"])]
    human = every[(every["model"] == "human") & (every["decoding"] == "reference")]
    lines.append(("human", human, plotting.HUMAN))
    # corpus.inject.excerpts: held-out plays with excerpts in training (a known lower index)
    excerpt = every[(every["model"] == "human") & (every["decoding"] == "contaminated")]
    if len(excerpt):
        lines.append(("human (excerpt plays)", excerpt, plotting.HUMAN_OTHER))
    for label, g, color in lines:
        style = "-." if label.endswith("(excerpt plays)") else "-"
        ax.plot(g["L"], g["uniqueness"], style, marker="o", ms=3.5, color=color, label=label)
        ax.fill_between(g["L"], g["uniqueness_lo"], g["uniqueness_hi"], alpha=0.2, color=color)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("L (shortest span counted, words)")
    ax.set_ylabel("L-uniqueness (share of words in no\nspan of ≥ L words found in training)")
    ax.set_title("Creativity: pure sampling vs. held-out human text")
    if pure.empty and human.empty:
        ax.text(0.5, 0.5, "no pure samples or human text", ha="center", transform=ax.transAxes)
    ax.legend(fontsize=8, loc="lower right")
    plotting.save(fig, path)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each setting's words.parquet; write the three tables and the figure."""
    require(inputs["words"], "--words", "setting")
    settings = [(m, d, pd.read_parquet(p)) for m, d, p in inputs["words"]]
    novelty = params["novelty"]
    curve, index = creativity_tables(
        settings, params["sampling"]["prompt_length"], novelty["bootstrap"], novelty["seed"]
    )
    write_csv(out["table"], curve)
    write_csv(out["index"], index)
    write_csv(out["texts"], text_table(settings, params["sampling"]["prompt_length"]))
    figure(curve, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The mean Creativity Index of the human text and of each model's pure samples, against
    all training text (nothing without them)."""
    index = tables["creativity_index"]
    rows = index[(index["source"] == "all") & index["decoding"].isin(["reference", "pure"])]
    rows = rows[(rows["model"] != "human") | (rows["decoding"] == "reference")]
    if not len(rows):
        return []
    parts = [
        f"{r['model']} {fmt(r['index'])} [{fmt(r['index_lo'])}, {fmt(r['index_hi'])}]"
        for _, r in rows.iterrows()
    ]
    return [
        "",
        "## Creativity Index (Lu et al. 2024)",
        "",
        f"Sum of L-uniqueness over L = {LENGTHS[0]}..{LENGTHS[-1]} words (maximum "
        f"{len(LENGTHS)}), pure sampling and human text, against all training text: "
        + "; ".join(parts)
        + ".",
    ]
