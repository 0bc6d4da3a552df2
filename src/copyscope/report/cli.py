"""``copyscope report``: one command per analysis of :data:`copyscope.report.ANALYSES`, plus
``summary`` (summary.md from the tables) and ``runtime`` (from the benchmark files).

An analysis command is built from its module's ``INPUTS``/``OUTPUTS``/``PARAMS`` (see
:mod:`copyscope.report`): labelled repeatable input flags, one ``--out-<name>`` per output.
"""

from __future__ import annotations

import logging
import shlex

from ..clikit import add_command, add_group, add_params
from .jobs import flags, parse_run_models

log = logging.getLogger(__name__)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _analysis_command(module):
    """The command function of an analysis module: labelled inputs, outputs, params → run."""

    def command(a) -> None:
        if a.run_models:
            from .. import plotting

            plotting.use_run_models(parse_run_models(a.run_models))
        inputs = {name: [tuple(v) for v in getattr(a, name)] for name in flags(module)}
        out = {name: getattr(a, f"out_{name}") for name in module.OUTPUTS}
        module.run(inputs, out, a.params_json if module.PARAMS else {})
        log.info("%s: wrote %s", module.NAME, ", ".join(map(str, out.values())))

    return command


def cmd_summary(a) -> None:
    from .summary import write_summary

    write_summary(a.table, a.training_log, a.index_manifest, a.params_json, a.out)
    log.info("wrote %s from %d tables", a.out, len(a.table))


def cmd_runtime(a) -> None:
    from .runtime import write_runtime

    table = write_runtime(a.benchmarks, a.out)
    log.info("wrote %s (%d rules)", a.out, len(table))


def cmd_of_source(a) -> None:
    from .novelty import write_of_source

    n = write_of_source(a.table, a.source, a.out)
    log.info("wrote %s: %d rows of source %s", a.out, n, a.source)


def _add_analysis(group, module) -> None:
    f = add_command(group, module.NAME, _analysis_command(module), module.HELP)
    for name, spec in flags(module).items():
        f.add_argument(
            _flag(name),
            nargs=len(spec.labels) + 1,
            action="append",
            default=[],
            metavar=(*spec.labels, "PATH"),
            help=f"{spec.help}; once per {' and '.join(spec.labels).lower()}",
        )
    for name, out in module.OUTPUTS.items():
        f.add_argument(_flag(f"out_{name}"), required=True, metavar="PATH", help=out.help)
    if module.PARAMS:
        add_params(f, module.PARAMS.help)
    f.add_argument(
        "--run-models",
        nargs="*",
        default=[],
        metavar="MODEL[=SIZE]",
        help="every model of the run (SIZE: 12·layers·width², where the config gives it): a "
        "model's colour in the figures is its place among them, by size",
    )


def register(sub) -> None:
    """Add the ``report`` group: the analyses, ``summary`` and ``runtime``."""
    from . import analyses

    group = add_group(sub, "report", "tables, figures and summary across settings")
    for module in analyses():
        _add_analysis(group, module)

    f = add_command(group, "summary", cmd_summary, "summary.md from the analyses' tables")
    f.add_argument(
        "--table",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "PATH"),
        help="a table (.csv) under the name the summary sections read, e.g. nnsl_samples",
    )
    f.add_argument(
        "--training-log",
        nargs=2,
        action="append",
        default=[],
        metavar=("MODEL", "PATH"),
        help="training log (.csv) of a trained model; once per model",
    )
    f.add_argument(
        "--index-manifest",
        required=True,
        metavar="PATH",
        help="index.json of the models' tokenizer (the corpus size in the header)",
    )
    add_params(f, "the config blocks sampling, analysis and models (tokenizer, evaluator)")
    f.add_argument("--out", required=True, metavar="PATH", help="summary.md")

    f = add_command(group, "of-source", cmd_of_source, "the rows of one source of a novelty table")
    f.add_argument("--table", required=True, metavar="PATH", help="a table with column source")
    f.add_argument("--source", required=True, help="the rows kept (all, natural)")
    f.add_argument("--out", required=True, metavar="PATH", help="those rows, without source")

    f = add_command(group, "runtime", cmd_runtime, "runtime and memory per rule")
    f.add_argument("--benchmarks", required=True, metavar="DIR", help="benchmark folder")
    f.add_argument("--out", required=True, metavar="PATH", help="runtime table (.csv)")



ONE_THREAD = ("OMP_NUM_THREADS=1", "NUMBA_NUM_THREADS=1")
"""The environment of a report job's command line: one OpenMP thread (torch, OpenBLAS) and one
Numba thread (the index kernels). Numba's parallel kernels otherwise start a thread per core
that keeps spinning between kernels, and a forked worker must not inherit a started OpenMP
pool (docs/performance.md#thread-pools)."""


def command_line(module, inputs, outputs, params_json=None, threads=1, models=()) -> str:
    """The command line of an analysis's report job, from its module's declaration (what the
    generated rules of ``rules/report.smk`` run): for a module with ``PROCESSES`` (the
    environment variable of its worker count) that variable set to ``threads``, then
    ``python -m copyscope report NAME``, one group of words per entry of ``inputs`` (rule
    input → the labelled flags of its paths, ``--<flag> LABEL… PATH``, as an argument list;
    an input without paths leaves its place empty), ``--params-json JSON`` with PARAMS, and
    ``--out-<name> PATH`` for each of OUTPUTS from ``outputs`` (name → path), then
    ``--run-models`` with ``models`` (the run's models, :func:`copyscope.report.jobs.run_models`)
    when given. The groups are joined by one space, each shell-quoted.

    Every report job's native thread pools get one thread (:data:`ONE_THREAD`): a report job
    is one process, or ``threads`` forked workers of one thread each."""
    env = getattr(module, "PROCESSES", None)
    words = list(ONE_THREAD) + ([f"{env}={threads}"] if env else [])
    words += ["python -m copyscope report", module.NAME]
    words += [shlex.join(args) for args in inputs.values()]
    if module.PARAMS:
        words.append("--params-json " + shlex.quote(params_json))
    words += [f"{_flag(f'out_{n}')} {shlex.quote(str(outputs[n]))}" for n in module.OUTPUTS]
    if models:
        words.append("--run-models " + shlex.join(models))
    return " ".join(words)
