"""``copyscope report …``: summary tables and figures; runtime table."""

from __future__ import annotations

from ..clikit import add_command, add_group, json_arg


def cmd_summarize(a):
    from . import summarize

    summarize(a.params_json)


def cmd_runtime(a):
    from ..io import write_csv
    from . import runtime_table

    write_csv(a.out, runtime_table(a.benchmarks))


def register(sub) -> None:
    g = add_group(sub, "report", "report stage: tables, figures, summary")
    f = add_command(g, "summarize", cmd_summarize, "every summary table, figure and summary.md")
    f.add_argument(
        "--params-json", required=True, type=json_arg, help="the config and settings, as JSON"
    )
    f.add_argument("--index", required=True, help="an index manifest the summary depends on")
    f = add_command(g, "runtime", cmd_runtime, "runtime table from the benchmark files")
    f.add_argument("--benchmarks", required=True, help="folder of the benchmark .tsv files")
    f.add_argument("--out", required=True, help="runtime table to write (.csv)")
