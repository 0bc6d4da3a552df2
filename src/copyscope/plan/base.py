"""The run plan's shared pieces: the module-level constants and helpers of
:mod:`copyscope.plan` (argument-list and JSON helpers, checkpoint names, index links),
which the plan's parts import."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence

# the files of ``analyze setting`` per sample set, in the order of its --out-* flags
ANALYSIS_OUTPUTS = (
    "tokens.parquet",
    "words.parquet",
    "quality.csv",
    "supercopies.csv",
    "planted.csv",
)
# the files of a setting the explorer shows: its samples and three analysis files
EXPLORER_FILES = ("samples", "tokens", "words", "supercopies")
# the keys of analysis.membership a book job reads (with in_training per book)
BOOK_KEYS = (
    "cloze_per_play",
    "cloze_distractors",
    "ner_model",
    "prompt_tokens",
    "new_tokens",
    "batch_size",
    "seed",
)
# the keys of analysis.membership an own-benchmark job reads
OWN_BENCHMARK_KEYS = ("li_words", "seed", "batch_size", "baseline_passages")


def as_json(obj) -> str:
    """``obj`` as the JSON of a ``--params-json`` flag (keys sorted, so a job's parameters,
    and Snakemake's rerun decisions, do not depend on the config's key order)."""
    return json.dumps(obj, sort_keys=True)


def shell_words(args: Sequence) -> str:
    """An argument list as one shell-quoted string for a ``shell:`` line (``shlex.join``;
    plain names and paths stay as they are, a JSON block is single-quoted)."""
    return shlex.join(str(a) for a in args)


def checkpoint_name(model: str, step: int) -> str:
    """The model name of ``model``'s checkpoint at training step ``step``: ``<model>@step<k>``
    (every per-model job and table names it so)."""
    return f"{model}@step{step}"


def with_checkpoints(zoo: Mapping) -> dict:
    """``models.zoo`` with every checkpoint of a pretrained model's ``checkpoints`` series as a
    model of its own (:func:`checkpoint_name`), listed before the model itself, in the order
    of the series: the model's spec with the checkpoint's ``path`` (a local Hugging Face
    folder, never a GGUF file or a fetched one), its ``step``, and ``checkpoint_of`` the model.
    """
    out: dict = {}
    for m, spec in zoo.items():
        for ckpt in spec.get("checkpoints") or []:
            base = {k: v for k, v in spec.items() if k not in CHECKPOINT_OWN}
            out[checkpoint_name(m, ckpt["step"])] = {
                **base,
                "path": ckpt["path"],
                "step": ckpt["step"],
                "checkpoint_of": m,
            }
        out[m] = spec
    return out


CHECKPOINT_OWN = ("checkpoints", "path", "gguf_file", "sha256", "wheel", "step")
"""The keys of a pretrained model that are its own file's, not its checkpoints'."""


def external_index_path(spec) -> str:
    """The folder of ``tokenizers.<name>.index``: the string itself, or its ``path``."""
    return spec if isinstance(spec, str) else spec["path"]


def link_flags(spec) -> str:
    """The ``copyscope index link`` flags of ``tokenizers.<name>.index``: none for a
    copyscope index, ``--format infini-gram`` (and ``--token-dtype``) for an infini-gram one."""
    if isinstance(spec, str) or spec.get("format", "copyscope") == "copyscope":
        return ""
    dtype = f" --token-dtype {spec['token_dtype']}" if spec.get("token_dtype") else ""
    return f"--format infini-gram{dtype}"
