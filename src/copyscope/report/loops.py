"""Loops: the share of each sample set's continuations that end in a loop.

A continuation *ends in a loop* when its last ``analysis.loop_length`` (L) tokens repeat one
span of at most L tokens (:mod:`copyscope.sample.loops` for the definition; a continuation of
at most L tokens cannot loop). Greedy and beam decoding of a small model often end so, and
Merrill et al.'s novelty counts every n-gram of a loop that is not in training as novel,
however often it repeats: the loop share says how much of a set's novelty may be such text.

Per sample set, the continuations (``ids`` of the samples, in the set's own tokenizer) at the
main prompt length (``sampling.prompt_length``): every setting of the run (each model's
decodings, the human continuations as the floor, the imported generations) and, with
``sampling.training_prompts``, every training-prompt set at each of its prompt lengths
(``prompts``: ``held-out`` or ``training``). Table ``loops.csv``: texts, looping texts, their
share with its Wilson 95% interval, and the median period of the loops; the figure draws the
greedy share of each model (decoding family ``greedy``) after the held-out prompts, against
the human continuations. Category ``models``: the loop share describes how each model
decodes, as the models' pages do; it is the analog of no paper's figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..io import read_jsonl, write_csv
from ..sample.loops import loop_period
from ..stats import wilson
from . import family, fmt, require
from .jobs import Input, Output, Params

NAME = "loops"
HELP = "share of continuations ending in a loop (last L tokens repeating one span) per set"


def _samples(settings, results: str, under: str = "") -> list[str]:
    return [f"{results}/{under}samples/{m}/{d}.jsonl" for m, d in settings]


INPUTS = {
    "samples": Input(
        ("MODEL", "DECODING"),
        "samples (.jsonl) of a setting after held-out prompts",
        files=lambda p: (p.settings(), _samples(p.settings(), p.results)),
    ),
    "training": Input(
        ("MODEL", "DECODING"),
        "samples (.jsonl) of a training-prompt set (sampling.training_prompts)",
        files=lambda p: (
            p.training_settings(),
            _samples(p.training_settings(), p.results, "training_prompts/"),
        ),
        optional=True,
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/loops.csv",
        "per set: texts, texts ending in a loop, their share (Wilson CI) and median period (.csv)",
        "loops_table",
        "models",
    ),
    "fig": Output(
        "figures/loops.png",
        "figure: share of greedy continuations ending in a loop per model (.png)",
        "loops",
        "models",
    ),
}
PARAMS = Params(
    "the loop length (analysis.loop_length), the main prompt length (sampling.prompt_length), "
    "the new tokens (sampling.new_tokens) and the decodings' methods (sampling.decodings)",
    of=lambda p: {
        "loop_length": p.config["analysis"]["loop_length"],
        "prompt_length": p.config["sampling"]["prompt_length"],
        "new_tokens": p.config["sampling"]["new_tokens"],
        "decodings": p.config["sampling"]["decodings"],
    },
)
SUMMARY_TABLES = ("loops",)  # read by summary_section

COLUMNS = ["prompts", "model", "decoding", "family", "prompt_length", "texts", "looping",
           "loop_share", "loop_share_lo", "loop_share_hi", "median_period"]  # fmt: skip


def set_rows(label: Mapping, records, length: int, prompt_length: int | None = None) -> list[dict]:
    """The rows of one sample set (``label``: its prompts, model, decoding and family) from its
    records (``ids`` and ``prompt_length`` each), one per prompt length (only
    ``prompt_length``'s when given; ascending): texts, texts ending in a loop of ``length``
    tokens (:func:`copyscope.sample.loops.loop_period`), their share with its Wilson 95%
    interval (NaN without texts) and the median period of the looping texts (NaN without)."""
    periods: dict[int, list[int]] = {}
    for r in records:
        P = int(r["prompt_length"])
        if prompt_length is None or P == prompt_length:
            periods.setdefault(P, []).append(loop_period(r["ids"], length))
    rows = []
    for P in sorted(periods):
        per = np.asarray(periods[P])
        k, n = int((per > 0).sum()), len(per)
        share, lo, hi = wilson(k, n)
        median = float(np.median(per[per > 0])) if k else float("nan")
        rows.append({**label, "prompt_length": P, "texts": n, "looping": k, "loop_share": share,
                     "loop_share_lo": lo, "loop_share_hi": hi, "median_period": median})  # fmt: skip
    return rows


def loop_table(
    held_out: Sequence[tuple[str, str, object]],
    training: Sequence[tuple[str, str, object]],
    params: Mapping,
) -> pd.DataFrame:
    """The table of every set: ``held_out`` settings ``(model, decoding, records)`` at the main
    prompt length, then the ``training``-prompt sets at each of their prompt lengths."""
    rows = []
    for prompts, sets, at in (("held-out", held_out, params["prompt_length"]),
                              ("training", training, None)):  # fmt: skip
        for model, decoding, records in sets:
            label = {"prompts": prompts, "model": model, "decoding": decoding,
                     "family": family(decoding, params["decodings"])}  # fmt: skip
            rows += set_rows(label, records, params["loop_length"], at)
    return pd.DataFrame(rows, columns=COLUMNS)


def greedy_rows(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(each model's greedy sets, the human reference) after the held-out prompts."""
    held = table[table["prompts"] == "held-out"]
    greedy = held[(held["family"] == "greedy") & (held["model"] != "human")]
    human = held[(held["model"] == "human") & (held["decoding"] == "reference")]
    return greedy, human


def figure(table: pd.DataFrame, path) -> None:
    """The share of greedy continuations ending in a loop, one point per model (the models'
    fixed order and colours, a model with several greedy decodings once per decoding) with its
    Wilson 95% interval, and the human continuations' share (black line, its interval shaded)."""
    import matplotlib.pyplot as plt

    from .. import plotting

    plotting.setup()
    greedy, human = greedy_rows(table)
    order = plotting.model_order(greedy["model"])
    colors = plotting.model_colors(greedy["model"])
    several = greedy["model"].duplicated(keep=False)
    greedy = greedy.assign(
        key=greedy["model"].map(order.index),
        name=np.where(several, greedy["model"] + "\n" + greedy["decoding"], greedy["model"]),
    ).sort_values(["key", "decoding"], kind="stable")
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(greedy) + 2.0), 3.8))
    x = np.arange(len(greedy))
    for i, (_, r) in enumerate(greedy.iterrows()):
        err = [[r["loop_share"] - r["loop_share_lo"]], [r["loop_share_hi"] - r["loop_share"]]]
        ax.errorbar(i, r["loop_share"], yerr=err, fmt="o", ms=7, capsize=4,
                    color=colors[r["model"]])  # fmt: skip
    if len(human):
        h = human.iloc[0]
        ax.axhline(h["loop_share"], color=plotting.HUMAN, ls="--", lw=1.2,
                   label="human continuations")  # fmt: skip
        ax.axhspan(h["loop_share_lo"], h["loop_share_hi"], color=plotting.HUMAN, alpha=0.1)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_xticks(x, greedy["name"])
    ax.set_xlim(-0.6, max(len(greedy), 1) - 0.4)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("model (greedy decoding)")
    ax.set_ylabel("share of continuations\nending in a loop")
    ax.set_title("Greedy continuations ending in a loop")
    if greedy.empty:
        ax.text(0.5, 0.5, "no greedy samples", ha="center", transform=ax.transAxes)
    plotting.save(fig, path)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read every sample set, find the continuations that end in a loop, write the table and
    the figure."""
    require(inputs["samples"], "--samples", "sample set")
    held = [(m, d, read_jsonl(p)) for m, d, p in inputs["samples"]]
    train = [(m, d, read_jsonl(p)) for m, d, p in inputs.get("training", [])]
    table = loop_table(held, train, params)
    write_csv(out["table"], table)
    figure(table, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The loop share of each model's greedy continuations after the held-out prompts, and of
    the human continuations (nothing without greedy samples)."""
    greedy, human = greedy_rows(tables["loops"])
    if not len(greedy):
        return []
    several = greedy["model"].duplicated(keep=False)
    length, new = params["analysis"]["loop_length"], params["sampling"]["new_tokens"]
    parts = [
        f"{r['model']}{'/' + r['decoding'] if many else ''} {fmt(r['loop_share'], 2)} "
        f"[{fmt(r['loop_share_lo'], 2)}, {fmt(r['loop_share_hi'], 2)}]"
        for many, (_, r) in zip(several, greedy.iterrows(), strict=True)
    ]
    parts += [
        f"human {fmt(r['loop_share'], 2)} [{fmt(r['loop_share_lo'], 2)}, "
        f"{fmt(r['loop_share_hi'], 2)}]"
        for _, r in human.iterrows()
    ]
    short = (
        f" None can loop: a continuation has at most {new} tokens (sampling.new_tokens)."
        if new <= length
        else ""
    )
    return [
        "",
        "## Loops",
        "",
        f"Greedy continuations ending in a loop (their last {length} tokens repeat one span, "
        f"analysis.loop_length; share, Wilson 95% interval): " + "; ".join(parts) + "." + short,
    ]
