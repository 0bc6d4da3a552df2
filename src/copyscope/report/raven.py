"""RAVEN (McCoy et al. 2023) across settings, in Moses words, at the main prompt length.

Per setting and source (training, context, their union): the truncated pointwise duplication
score with its bootstrap interval, supercopy rates and novelty(1..10) (``raven_summary.csv``,
joined to the evaluator's perplexity of the samples), and the curves novelty(n) = 1 − dup(n)
(``raven_novelty.csv``); see :mod:`copyscope.raven` for the definitions. Figures: the
novelty curves (RAVEN Fig. 1) and the novelty–quality tradeoff (RAVEN Fig. 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import write_csv
from ..raven import dup_curve, raven_tables
from . import family, fmt, per_text, require
from . import figures as fig

NAME = "raven"
HELP = "RAVEN scores, novelty curves and novelty-quality of every setting (Moses words)"
INPUTS = {
    "words": (("MODEL", "DECODING"), "words.parquet of a setting (per-word RAVEN scores)"),
    "quality": (("MODEL", "DECODING"), "quality.csv of a setting (evaluator NLL per text)"),
}
OUTPUTS = {
    "summary": "RAVEN summary per setting and source (.csv)",
    "curves": "RAVEN novelty curves per setting and source (.csv)",
    "fig_novelty": "figure: novelty curves, pure sampling vs. human text (.png)",
    "fig_quality": "figure: duplication score vs. evaluator perplexity (.png)",
}
PARAMS = "the config blocks novelty and sampling"
SUMMARY_TABLES = ("raven_summary",)  # read by summary_section


def build(
    settings: Iterable[tuple[str, str, pd.DataFrame, pd.DataFrame]],
    novelty: Mapping,
    sampling: Mapping,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """RAVEN per setting at ``sampling.prompt_length``: summary rows, novelty curves and the
    evaluator perplexity (exp of the token-weighted mean NLL).

    ``settings``: (model, decoding, per-word frame with ``text``, ``prompt_length``,
    ``s_train``/``s_context``/``s_union``, per-text frame with ``prompt_length``, ``tokens``,
    ``nll_sum``); ``novelty``: the config's ``novelty`` block (bootstrap, seed, n_max).
    """
    plen = sampling["prompt_length"]
    rows, curves, quality = [], [], []
    for model, decoding, w, q in settings:
        w = w[w["prompt_length"] == plen]
        label = {
            "model": model,
            "decoding": decoding,
            "family": family(decoding, sampling["decodings"]),
            "prompt_length": plen,
        }
        scores = {src: per_text(w, f"s_{src}") for src in ("train", "context", "union")}
        rows.append(raven_tables(scores, label, n_boot=novelty["bootstrap"], seed=novelty["seed"]))
        for src, texts in scores.items():
            nov, dup = dup_curve(texts, novelty["n_max"])
            curves.append(
                pd.DataFrame(
                    {
                        **label,
                        "source": src,
                        "n": np.arange(1, len(nov) + 1),
                        "novelty": nov,
                        "dup": dup,
                    }
                )
            )
        q = q[q["prompt_length"] == plen]
        quality.append({**label, "evaluator_nll": q["nll_sum"].sum() / q["tokens"].sum()})
    quality = pd.DataFrame(quality)
    quality["perplexity"] = np.exp(quality["evaluator_nll"])
    summary = pd.concat(rows, ignore_index=True).merge(
        quality[["model", "decoding", "evaluator_nll", "perplexity"]], on=["model", "decoding"]
    )
    return summary, pd.concat(curves, ignore_index=True), quality


def _paired(words, quality):
    """(model, decoding, words frame, quality frame) per setting, in the order of ``words``."""
    q = {(m, d): path for m, d, path in quality}
    for m, d, path in words:
        if (m, d) not in q:
            raise InputError("--quality", f"a quality file for {m} {d} (given words for it)")
        yield m, d, pd.read_parquet(path), pd.read_csv(q[(m, d)])


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each setting's words.parquet and quality.csv, write two tables and two figures."""
    require(inputs["words"], "--words", "setting")
    summary, curves, _ = build(
        _paired(inputs["words"], inputs["quality"]), params["novelty"], params["sampling"]
    )
    write_csv(out["summary"], summary)
    write_csv(out["curves"], curves)
    fig.raven_novelty(curves, out["fig_novelty"])
    fig.novelty_quality(summary, out["fig_quality"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Truncated score, novelty(1), novelty(4) and perplexity (training ∪ context) of pure
    sampling and human text."""
    raven = tables["raven_summary"]
    lines = ["", "## RAVEN (McCoy et al.), Moses words, training ∪ context", ""]
    lines.append("| model | decoding | truncated score | novelty(1) | novelty(4) | perplexity |")
    lines.append("|---|---|---|---|---|---|")
    u = raven[(raven["source"] == "union") & raven["decoding"].isin(["pure", "reference"])]
    for _, r in u.iterrows():
        lines.append(
            f"| {r['model']} | {r['decoding']} | {fmt(r['truncated_score'])} | "
            f"{fmt(r['novelty_1'])} | {fmt(r['novelty_4'])} | {fmt(r['perplexity'])} |"
        )
    return lines
