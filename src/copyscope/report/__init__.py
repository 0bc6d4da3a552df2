"""Report stage: tables, figures and ``summary.md`` across every analysed (model, decoding).

Each analysis is one module of this package and one job of the workflow; it reads the
per-setting files of :mod:`copyscope.analyze` (or another stage's outputs) and writes its own
tables and figures. The metrics are the ones defined in :mod:`copyscope.novelty` (Merrill et
al.) and :mod:`copyscope.raven` (McCoy et al.).

An analysis module declares everything about itself once (:mod:`copyscope.report.jobs`):

* ``NAME``, ``HELP`` — its command, ``copyscope report NAME``;
* ``INPUTS`` — rule input name → :class:`~copyscope.report.jobs.Input`: the labels of its
  repeatable flag, its help and the plan query of a run's files. With labels
  ``("MODEL", "DECODING")`` the command line carries ``--tokens MODEL DECODING PATH`` once per
  setting, and :func:`run` receives ``inputs["tokens"]`` as a list of ``(model, decoding,
  path)`` tuples in command-line order (which is the order of the rows of its tables);
* ``OUTPUTS`` — output name → :class:`~copyscope.report.jobs.Output`: its path under the
  results root, help, caption and category in the HTML report; one ``--out-<name> PATH`` each;
* ``PARAMS`` — :class:`~copyscope.report.jobs.Params`: what ``--params-json`` holds and the
  plan query that builds it (the config keys it reads), or ``None``;
* ``run(inputs, out, params)`` — the one library function the command calls;
* optionally ``summary_section(tables, params)`` — its lines of ``summary.md``, from tables
  only — and ``SUMMARY_TABLES``, the names of the tables it reads (see
  :mod:`copyscope.report.summary`); ``THREADS``, ``SHOWN_WITH``, ``NO_REPORT_JOB``.

:data:`ANALYSES` is the registry: the command group, the report jobs (one generated rule each
in ``rules/report.smk``) and the summary sections follow it, in this order. Adding an analysis
= a module here (its declaration, ``run`` and a figure function in
:mod:`copyscope.report.figures`), one entry in :data:`ANALYSES` and its test
(``docs/architecture.md``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType

import numpy as np
import pandas as pd

from ..config.schema import HUMAN_DECODINGS
from ..errors import InputError
from ..sample import decoding_family
from ..sample.external import is_reference_decoding

ANALYSES = (
    "novelty",
    "training_prompts",
    "completion_loss",
    "loops",
    "raven",
    "supercopies",
    "creativity",
    "planted",
    "memorization",
    "syntax_novelty",
    "novel_words",
    "templates",
    "template_coverage",
    "style",
    "membership",
    "own_benchmarks",
    "contamination",
    "books",
    "training",
    "checkpoints",
    "dynamics",
    "calibration",
    "power",
    "findings",
    "seeds",
)
"""The analysis modules, in the order of their commands and of their ``summary.md`` sections."""


def analyses() -> list[ModuleType]:
    """The modules named in :data:`ANALYSES`, imported."""
    return [importlib.import_module(f"{__name__}.{name}") for name in ANALYSES]


def family(decoding: str, decodings: Mapping) -> str:
    """The decoding family of a setting: ``human`` for the human sets (the reference text,
    the contaminated one, :data:`copyscope.config.schema.HUMAN_DECODINGS`, and the references of
    generations from outside, :func:`copyscope.sample.external.is_reference_decoding`),
    ``external`` for another decoding not in ``decodings`` (config ``generations``: its
    method is not known), else the family of its configured method
    (:func:`copyscope.sample.decoding_family`)."""
    if decoding in HUMAN_DECODINGS or is_reference_decoding(decoding):
        return "human"
    if decoding not in decodings:
        return "external"
    return decoding_family(decodings[decoding])


def per_text(frame: pd.DataFrame, column: str) -> list[np.ndarray]:
    """``column`` of a per-token frame split into one array per text, in text order (rows of a
    text in frame order: what ``frame.groupby("text", sort=True)`` gives, without its per-group
    cost)."""
    if not len(frame):
        return []
    texts, values = frame["text"].to_numpy(), frame[column].to_numpy()
    order = np.argsort(texts, kind="stable")
    texts, values = texts[order], values[order]
    return np.split(values, np.flatnonzero(texts[1:] != texts[:-1]) + 1)


def require(inputs: Sequence, flag: str, what: str) -> None:
    """At least one labelled input was given for ``flag``."""
    if not inputs:
        raise InputError(flag, f"at least one {what}")


def collect(settings: Sequence[tuple[str, str, str]]) -> pd.DataFrame:
    """Concatenate per-setting CSV files ``(model, decoding, path)``, labelled by model and
    decoding (the first two columns), in the given order."""
    parts = []
    for model, decoding, path in settings:
        f = pd.read_csv(path)
        f.insert(0, "decoding", decoding)
        f.insert(0, "model", model)
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def count_columns(n_max: int) -> list[str]:
    """The count columns of a per-text n-gram table: novel_1..novel_{n_max}, then
    ngrams_1..ngrams_{n_max}."""
    ns = range(1, n_max + 1)
    return [f"novel_{n}" for n in ns] + [f"ngrams_{n}" for n in ns]


def text_counts_table(
    parts: Sequence[tuple[Mapping, pd.DataFrame, np.ndarray, np.ndarray]],
    labels: Sequence[str],
    n_max: int,
) -> pd.DataFrame:
    """One row per text of each part ``(label, frame, novel, total)``: the label's values
    (keys ``labels``), ``text`` (the frame's texts in sorted order, the rows of ``novel`` and
    ``total``, as :func:`per_text` splits them) and :func:`count_columns`; the columns alone
    when there is no part. The table the scorecard's text-regrouping tests read."""
    columns = [*labels, "text", *count_columns(n_max)]
    frames = []
    for label, frame, novel, total in parts:
        counts = pd.DataFrame(np.hstack([novel, total]), columns=columns[len(labels) + 1 :])
        counts.insert(0, "text", np.sort(pd.unique(frame["text"])).astype(int))
        for key in reversed(labels):
            counts.insert(0, key, label[key])
        frames.append(counts)
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)


def corpus_sizes(manifests: Sequence[tuple[str, str]]) -> dict[str, int]:
    """label → ``n_tokens`` of the index whose ``index.json`` is given for that label."""
    from ..io import read_json

    return {label: int(read_json(path)["n_tokens"]) for label, path in manifests}


def fmt(x, digits: int = 3) -> str:
    """A number for ``summary.md``: ``digits`` significant digits, ``n/a`` for None or NaN."""
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}g}"
