"""The checkpoint series of pretrained models: the training step of each checkpoint
(``models.zoo.<m>.checkpoints``, each analysed as the model ``<m>@step<k>``) with its mean
non-novel suffix length L_t (Merrill et al. 2024) at the main prompt length, under every
decoding, so that copying can be read against training time (as Pythia's step revisions or
OLMo's stages allow)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..io import write_csv
from .jobs import Input, Output, Params, tables

NAME = "checkpoints"
HELP = "the steps of every checkpoint series and its mean L_t at each step"
INPUTS = {
    "nnsl": Input(
        ("TABLE",),
        "nnsl_samples.csv (mean L_t of every setting and prompt length)",
        files=tables(["nnsl_samples"]),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/checkpoints.csv",
        "per checkpoint of every series and decoding: its step, folder and mean L_t (.csv)",
        "checkpoints",
        "models",
    ),
}
PARAMS = Params(
    "the checkpoint series (model, checkpoint, step, path; Plan.checkpoint_rows) and "
    "sampling.prompt_length",
    of=lambda p: {
        "checkpoints": p.checkpoint_rows(),
        "sampling": {"prompt_length": p.config["sampling"]["prompt_length"]},
    },
)
SHOWN_WITH = "checkpoints"  # in the HTML report only when a model lists checkpoints

COLUMNS = [
    "model",
    "checkpoint",
    "step",
    "path",
    "decoding",
    "mean_nnsl",
    "mean_nnsl_lo",
    "mean_nnsl_hi",
    "tokenizer",
]


def checkpoint_table(
    rows: Sequence[Mapping], nnsl: pd.DataFrame, prompt_length: int
) -> pd.DataFrame:
    """One row per checkpoint (``rows``: :meth:`copyscope.plan.Plan.checkpoint_rows`, in the
    series' order) and decoding of ``nnsl`` (``nnsl_samples.csv``: source ``all`` at
    ``prompt_length``): model, checkpoint, step, path, decoding, mean L_t with its interval
    and the tokenizer of the n-grams; a checkpoint without sampled sets keeps one row with
    empty measures. Columns :data:`COLUMNS`."""
    keep = nnsl
    if "source" in keep:
        keep = keep[keep["source"] == "all"]
    keep = keep[keep["prompt_length"] == prompt_length]
    out = []
    for r in rows:
        sets = keep[keep["model"] == r["checkpoint"]]
        base = {k: r[k] for k in ("model", "checkpoint", "step", "path")}
        if not len(sets):
            out.append(base)
            continue
        for _, s in sets.iterrows():
            out.append(
                {
                    **base,
                    "decoding": s["decoding"],
                    "mean_nnsl": s["mean_nnsl"],
                    "mean_nnsl_lo": s["mean_nnsl_lo"],
                    "mean_nnsl_hi": s["mean_nnsl_hi"],
                    "tokenizer": s.get("tokenizer", ""),
                }
            )
    frame = pd.DataFrame(out, columns=COLUMNS)
    frame["step"] = frame["step"].astype("Int64")
    return frame


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read nnsl_samples.csv and write the table of the checkpoint series."""
    ((_, path),) = inputs["nnsl"]
    table = checkpoint_table(
        params["checkpoints"], pd.read_csv(path), int(params["sampling"]["prompt_length"])
    )
    write_csv(out["table"], table)
