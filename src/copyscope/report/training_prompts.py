"""n-gram novelty of beam search after prompts taken from the training data (Merrill et al.
2024, Fig. 3).

The paper continues prompts of 1, 10 and 100 tokens cut from the Pile's training set with beam
search and draws novelty(n) per prompt length. copyscope's analog (``sampling.training_prompts``)
cuts the prompts from the natural training text (the training split before anything is planted;
:func:`copyscope.sample.write_training_prompts`), continues them under the block's greedy and
beam decodings (greedy: one beam), and queries only the generated tokens against the training
index (``tokens.parquet``, :func:`copyscope.analyze.token_files`). novelty(n) is Merrill et al.'s
(:func:`copyscope.novelty.novelty_tables`: the share of positions t >= n whose L_t < n, pooled
over the texts, with bootstrap intervals over texts); the baseline is the held-out human
continuation of the held-out prompts at ``sampling.prompt_length`` (the same curve at every
prompt length: all prompt lengths share each window's continuation).

Outputs: ``novelty_training_prompts.csv`` (per source, model, beam size and prompt length the
novelty curve; the human rows: prompts ``held-out``) and the figure, one panel per (model,
prompt length), one line per beam size, the held-out human text in black.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from . import corpus_sizes, fmt
from .jobs import Input, Output, Params
from .novelty import SOURCES, build

fig = lazy_module("copyscope.report.figures")

NAME = "training-prompts"
HELP = "n-gram novelty of greedy and beam text after training-data prompts (Merrill Fig. 3)"
INPUTS = {
    "tokens": Input(
        ("MODEL", "DECODING"),
        "tokens.parquet of a training-prompt set (sampling.training_prompts)",
        files=lambda p: (p.training_settings(), p.training_token_files()),
    ),
    "human": Input(
        ("MODEL", "DECODING"),
        "tokens.parquet of the held-out human reference (the baseline)",
        files=lambda p: (
            [("human", "reference")], [f"{p.results}/analysis/human/reference/tokens.parquet"]
        ),
    ),
    "index_manifest": Input(
        ("MODEL",),
        "index.json of the index MODEL's tokens were matched against (its corpus size)",
        files=lambda p: (
            [*p.training_models, "human"],
            [p.index_file(p.model_tokenizer(m)) for m in [*p.training_models, "human"]],
        ),
    ),
    "natural_index_manifest": Input(
        ("MODEL",),
        "index.json of the natural text's index of MODEL's tokens (its size)",
        files=lambda p: (
            [*p.training_models, "human"],
            [
                p.index_file(p.natural_index(p.model_tokenizer(m)))
                for m in [*p.training_models, "human"]
            ],
        ),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/novelty_training_prompts.csv",
        "novelty curves of every training-prompt set by beam size and prompt length, and of "
        "the held-out human text (.csv)",
        "novelty_training_prompts_table",
        "merrill",
    ),
    "fig": Output(
        "figures/novelty_training_prompts.png",
        "figure: novelty by beam size, one panel per prompt length from the training data, "
        "Merrill et al. Fig. 3 (.png)",
        "novelty_training_prompts",
        "merrill",
    ),
}
PARAMS = Params(
    "the config block novelty and of sampling: prompt_length, decodings, training_prompts",
    of=lambda p: {
        "novelty": p.config["novelty"],
        "sampling": {
            k: p.config["sampling"].get(k)
            for k in ("prompt_length", "decodings", "training_prompts")
        },
    },
)
SHOWN_WITH = "training_prompts"  # without the block: a plain table and a "not measured" figure
SUMMARY_TABLES = ("novelty_training_prompts",)  # read by summary_section
HEADLINE_N = 10
"""The n of the summary: Merrill et al. quote decoding's effect at n = 10 (beam 8: 3% novel)."""

COLUMNS = ("source", "prompts", "model", "decoding", "beams", "prompt_length")
"""The label columns of the table, first, before the novelty curve's columns."""


def beam_size(method: Mapping) -> int:
    """The beams of a greedy or beam decoding (``sampling.decodings`` entry): greedy is one."""
    return 1 if method["kind"] == "greedy" else int(method["num_beams"])


def build_table(
    training: Sequence[tuple[str, str, pd.DataFrame]],
    human: pd.DataFrame | None,
    sizes: Mapping[str, int],
    natural_sizes: Mapping[str, int],
    novelty: Mapping,
    sampling: Mapping,
) -> pd.DataFrame:
    """The novelty curves (:func:`copyscope.report.novelty.build`, sources ``all`` and
    ``natural``) of every training-prompt set ``(model, decoding, tokens frame)`` at each of its
    prompt lengths (column ``prompts``: ``training``; ``beams``: :func:`beam_size`), then of the
    held-out human reference ``human`` (a tokens frame; ``prompts``: ``held-out``, ``beams``
    empty) at ``sampling.prompt_length``. ``sizes`` / ``natural_sizes``: model (and
    ``human``) → the corpus size of the index its tokens were matched against."""
    decodings, main = sampling["decodings"], sampling["prompt_length"]
    parts = []
    if training:
        curves, _ = build(training, sizes, novelty, decodings, natural_sizes)
        beams = {d: beam_size(decodings[d]) for d in set(curves["decoding"])}
        parts.append(curves.assign(prompts="training", beams=curves["decoding"].map(beams)))
    if human is not None:
        at_main = human[human["prompt_length"] == main]
        if len(at_main):
            curves, _ = build([("human", "reference", at_main)], sizes, novelty, decodings,
                              natural_sizes)  # fmt: skip
            parts.append(curves.assign(prompts="held-out", beams=pd.NA))
    if not parts:
        return pd.DataFrame(columns=[*COLUMNS, "n", "novelty", "novelty_lo", "novelty_hi"])
    table = pd.concat(parts, ignore_index=True)
    table["beams"] = table["beams"].astype("Int64")
    rest = [c for c in table.columns if c not in COLUMNS]
    rank = table["source"].map({s: i for i, s in enumerate(SOURCES)}) * 2 + table[
        "prompts"
    ].ne("training")  # per source: the training-prompt sets, then the human text
    table = table.iloc[rank.argsort(kind="stable")]
    return table[[*COLUMNS, *rest]].reset_index(drop=True)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read the training-prompt sets' and the human reference's tokens.parquet, write the
    table and the figure (without training-prompt sets: a figure saying so)."""
    training = [(m, d, pd.read_parquet(path)) for m, d, path in inputs["tokens"]]
    human = pd.read_parquet(inputs["human"][0][2]) if inputs.get("human") else None
    table = build_table(
        training,
        human,
        corpus_sizes(inputs["index_manifest"]),
        corpus_sizes(inputs.get("natural_index_manifest", [])),
        params["novelty"],
        params["sampling"],
    )
    write_csv(out["table"], table)
    if not training:
        why = "no training-prompt sets (sampling.training_prompts is off)"
        fig.not_measured(out["fig"], why)
        return
    fig.novelty_training_prompts(table[table["source"] == "all"], out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """novelty(:data:`HEADLINE_N`) against all training text of every training-prompt set, one
    row per (model, beam size), one column per prompt length, and of the held-out human text;
    nothing without training-prompt sets."""
    t = tables["novelty_training_prompts"]
    t = t[(t["source"] == "all") & (t["n"] == HEADLINE_N)]
    ours = t[t["prompts"] == "training"]
    if not len(ours):
        return []
    lengths = sorted(set(ours["prompt_length"]))
    lines = [
        "",
        f"## Beam search after prompts from the training data (Merrill et al. Fig. 3), "
        f"novelty({HEADLINE_N})",
        "",
        "| model | beams | " + " | ".join(f"prompt {p}" for p in lengths) + " |",
        "|---" * (len(lengths) + 2) + "|",
    ]
    for (model, beams), g in ours.groupby(["model", "beams"], sort=False):
        at = g.set_index("prompt_length")["novelty"]
        cells = " | ".join(fmt(at.get(p)) for p in lengths)
        lines.append(f"| {model} | {int(beams)} | {cells} |")
    human = t[t["prompts"] == "held-out"]["novelty"]
    if len(human):
        lines += ["", f"Held-out human text: novelty({HEADLINE_N}) = {fmt(human.iloc[0])}."]
    return lines
