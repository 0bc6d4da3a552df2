"""How an analysis declares itself, and the report jobs of a run built from the declarations.

Every analysis module of :mod:`copyscope.report` declares, once, everything about its command
and its job in the workflow:

* ``INPUTS`` — rule input name → :class:`Input`: the labels of its repeatable flag, its help
  and the plan query that gives a run's labels and paths (``files``); in command-line order;
* ``OUTPUTS`` — output name → :class:`Output`: the path under the results root, its help, and
  its caption and category in the HTML report (or none: a plain output); the category is
  the paper the output is an analog of, as the pages ``docs/papers/<category>.md`` group
  them, or one of the run's own (:data:`CATEGORIES`);
* ``PARAMS`` — :class:`Params`: what ``--params-json`` holds and the plan query that builds it
  from the config (the config keys the analysis reads), or ``None``;
* optionally ``THREADS`` (its job's threads: its ``PROCESSES`` variable), ``SHOWN_WITH`` (the
  optional part of the run without which its files are plain outputs, not in the HTML report)
  and ``NO_REPORT_JOB`` (why the workflow runs no job of it).

:func:`report_jobs` turns the declarations into one :class:`ReportJob` per analysis for a run
plan (:class:`copyscope.plan.Plan`, passed in: nothing here imports the plan); ``rules/report.smk``
generates one rule per job. A plan query is a function of the plan, e.g.
``lambda p: (p.settings(), p.analysis_files("tokens.parquet"))``, or one of the helpers
:func:`per_model`, :func:`fixed` and :func:`tables`.
"""

from __future__ import annotations

import os
from collections import namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..clikit import labelled

Query = Callable[..., tuple[list, list]]
"""A plan query: plan → (labels, paths) of one input, in command-line order."""


@dataclass(frozen=True)
class Input:
    """One labelled input of an analysis command: ``--<flag> LABEL… PATH`` once per file.

    ``labels`` the words of each label (e.g. ``("MODEL", "DECODING")``), ``help`` the text of
    the flag, ``files`` the plan query of a run's labels and paths (None: the workflow gives
    none), ``flag`` the command's flag when it differs from the rule input's name (two rule
    inputs may feed one flag), ``optional``: the job may leave it out altogether (else it is
    present, possibly empty), ``directory``: each path is an ``index.json`` whose folder is
    given on the command line."""

    labels: tuple[str, ...]
    help: str
    files: Query | None = None
    flag: str | None = None
    optional: bool = False
    directory: bool = False


CATEGORIES = {
    "merrill": "Merrill et al. (n-gram novelty)",
    "raven": "RAVEN (McCoy et al.)",
    "shaib": "Shaib et al. (syntactic templates)",
    "li": "Li (perplexity contamination)",
    "literature": "Literature paper (name cloze)",
    "related": "Related claims",
    "known answers": "Known answers",
    "models": "Models and training",
    "summary": "Summary and scorecard",
}
"""The categories of the HTML report, in the order of the documentation: one per paper, named
as its page ``docs/papers/<key>.md`` (``related``: the claims outside the five papers), whose
analog tables list the figures and tables of that category; then the run's own: ``known
answers`` (checks on the planted ground truth that no paper page lists), ``models`` (the models,
their training and the run's runtime) and ``summary`` (``summary.md``, the findings scorecard,
the explorer). The titles hold no colon (a Snakemake report's category is a reST link target)."""

PAPERS = ("merrill", "raven", "shaib", "li", "literature", "related")
"""The categories that are pages of ``docs/papers/``."""


def category_title(key: str) -> str:
    """The HTML report's title of category ``key`` (:data:`CATEGORIES`)."""
    if key not in CATEGORIES:
        raise ValueError(f"report category {key!r}: expected one of {', '.join(CATEGORIES)}")
    return CATEGORIES[key]


@dataclass(frozen=True)
class Output:
    """One output of an analysis command (``--out-<name> PATH``): ``path`` under the results
    root (None for an analysis without a report job), ``help``, and its ``caption``
    (``report/<caption>.rst``) and ``category`` in the HTML report (a key of
    :data:`CATEGORIES`; both None: a plain output)."""

    path: str | None
    help: str
    caption: str | None = None
    category: str | None = None

    def __post_init__(self):
        if self.category is not None:
            category_title(self.category)
        if (self.caption is None) != (self.category is None):
            raise ValueError(f"output {self.path}: a caption and a category, or neither")


@dataclass(frozen=True)
class Params:
    """The ``--params-json`` block of an analysis command: ``help`` (what it holds) and
    ``of``, the plan query that builds it from the run's config."""

    help: str
    of: Callable

    def __str__(self) -> str:
        return self.help


ReportJob = namedtuple("ReportJob", "name rule inputs outputs params threads models", defaults=((),))
ReportJob.__doc__ = """The report job of one analysis command ``name`` (rule ``rule``):
``inputs`` rule input name → (flag, labels, paths) in the order of the command line (an
optional input without its part is left out); ``outputs`` output name → (path, caption or
None, category title or None: :func:`category_title`) in OUTPUTS' order; ``params`` the --params-json block (None without
PARAMS); ``threads``; ``models``, the run's models as ``--run-models`` names them
(:func:`run_models`)."""


def flag_of(name: str, spec: Input) -> str:
    """The command-line flag name (without ``--``) of rule input ``name``."""
    return spec.flag or name


def flags(module) -> dict[str, Input]:
    """The distinct flags of a module's INPUTS (flag → its first declaration), in order."""
    out: dict[str, Input] = {}
    for name, spec in module.INPUTS.items():
        out.setdefault(flag_of(name, spec), spec)
    return out


def rule_name(name: str) -> str:
    """The rule of the report job of command ``name``: ``report_<name>`` (``_`` for ``-``);
    its log and benchmark files are named after it."""
    return "report_" + name.replace("-", "_")


def per_model(pattern: str, models: str) -> Query:
    """The query of one file per model of the plan's list ``models`` (an attribute name, e.g.
    ``cloze_models``), ``pattern`` under the results root with ``{model}``."""

    def query(plan):
        of = getattr(plan, models)
        return of, plan.model_files(pattern, of)

    return query


def fixed(label, path: str, when: str | None = None) -> Query:
    """The query of one file under the results root with one label (a word or a tuple of
    words); with ``when`` (a plan attribute) only when that attribute is true, else none."""

    def query(plan):
        if when is not None and not getattr(plan, when):
            return [], []
        return [label], [f"{plan.results}/{path}"]

    return query


def tables(names: Sequence[str] | Callable[[], Sequence[str]]) -> Query:
    """The query of report tables by name (file name without .csv; :func:`table_path`),
    labelled by name: ``names`` a sequence or a function giving one when the query runs."""

    def query(plan):
        chosen = list(names() if callable(names) else names)
        return chosen, [table_path(plan, t) for t in chosen]

    return query


def table_files(modules=None) -> dict[str, str]:
    """Every table an analysis writes: its name (the ``.csv`` output's file name without .csv)
    → its path under the results root, in the order of the analyses and of their OUTPUTS; a
    name written twice is an error (summary.md and the scorecard read tables by name)."""
    from . import analyses

    modules = analyses() if modules is None else modules
    files: dict[str, str] = {}
    for m in modules:
        for o in m.OUTPUTS.values():
            if o.path and o.path.endswith(".csv"):
                name = os.path.basename(o.path)[: -len(".csv")]
                if name in files:
                    raise ValueError(f"two analyses write the table {name}: {files[name]}, {o.path}")
                files[name] = o.path
    return files


def declared_tables(modules=None) -> list[str]:
    """The names of :func:`table_files`, in their order."""
    return list(table_files(modules))


def table_path(plan, table: str) -> str:
    """The path of a report table under the plan's results root by its name (its file name
    without .csv)."""
    path = table_files().get(table)
    if path is None:
        raise KeyError(f"no analysis writes the table {table}")
    return f"{plan.results}/{path}"


def shape_size(spec) -> float | None:
    """The size of a trained model from its config: 12·L·d², L its ``n_layer`` and d its
    ``n_embd`` (an LSTM's ``n_hidden``), the proxy :func:`copyscope.plotting.model_size` reads
    from a shape name; None for a pretrained model (its name may state its size)."""
    if spec.get("kind") == "pretrained" or "n_layer" not in spec:
        return None
    width = spec.get("n_hidden", spec.get("n_embd")) if spec.get("kind") == "lstm" else spec.get("n_embd")
    return None if width is None else 12.0 * int(spec["n_layer"]) * int(width) ** 2


def run_models(plan) -> tuple[str, ...]:
    """The run's models, ``--run-models`` of every analysis command: each model of the plan
    (checkpoints included) as ``NAME=SIZE`` with its :func:`shape_size`, or ``NAME`` without
    one, then the models of the generations from outside; the figures give each its colour by
    its place among them (:func:`copyscope.plotting.use_run_models`)."""
    out = []
    for m in [*plan.models, *plan.external_models]:
        size = shape_size(plan.zoo[m]) if m in plan.zoo else None
        out.append(m if size is None else f"{m}={size:g}")
    return tuple(dict.fromkeys(out))


def parse_run_models(words) -> dict[str, float | None]:
    """``--run-models`` words (``NAME`` or ``NAME=SIZE``) → name → size or None."""
    out = {}
    for w in words:
        name, _, size = str(w).rpartition("=") if "=" in str(w) else (str(w), "", "")
        out[name] = float(size) if size else None
    return out


def report_job(plan, module) -> ReportJob:
    """The report job of one analysis module for a run plan (see the module docstring)."""
    inputs = {}
    for name, spec in module.INPUTS.items():
        if spec.files is None:
            raise ValueError(f"copyscope report {module.NAME}: input {name} has no plan query")
        labels, paths = spec.files(plan)
        if spec.optional and not paths:
            continue
        if len(labels) != len(paths):
            raise ValueError(
                f"copyscope report {module.NAME}: input {name}: "
                f"{len(labels)} labels for {len(paths)} paths"
            )
        inputs[name] = (flag_of(name, spec), list(labels), list(paths))
    part = getattr(module, "SHOWN_WITH", None)
    shown = part is None or plan.parts()[part]
    outputs = {
        k: (
            f"{plan.results}/{o.path}",
            *((o.caption, category_title(o.category)) if shown and o.caption else (None, None)),
        )
        for k, o in module.OUTPUTS.items()
    }
    params = module.PARAMS.of(plan) if module.PARAMS else None
    return ReportJob(
        module.NAME,
        rule_name(module.NAME),
        inputs,
        outputs,
        params,
        getattr(module, "THREADS", 1),
        run_models(plan),
    )


def report_jobs(plan, modules=None) -> list[ReportJob]:
    """The report job of every analysis module (default :func:`copyscope.report.analyses`) but
    those with ``NO_REPORT_JOB``, in the order of the analyses."""
    from . import analyses

    modules = analyses() if modules is None else modules
    return [report_job(plan, m) for m in modules if not getattr(m, "NO_REPORT_JOB", None)]


def report_args(spec: Input, flag: str, labels: Sequence, paths: Sequence[str]) -> list[str]:
    """The labelled flags of one input of a report job (``--<flag> LABEL… PATH``, see
    :func:`copyscope.clikit.labelled`; for a ``directory`` input the folder of each
    index.json)."""
    if spec.directory:
        paths = [os.path.dirname(p) for p in paths]
    return labelled("--" + flag.replace("_", "-"), labels, paths)
