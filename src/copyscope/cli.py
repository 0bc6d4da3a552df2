"""The ``copyscope`` command: the user tools and one command group per pipeline stage.

User-facing commands::

    copyscope query INDEX --text "..."      # per-token L_t and C_t
    copyscope trace INDEX --text "..."      # maximal copied spans and where they come from
    copyscope count INDEX --text "..."      # occurrences of the whole text as one n-gram
    copyscope count INDEX --tags "DT JJ NN" # a POS n-gram in a POS-tag index (kind pos)
    copyscope explore --results results --out page.html   # the copied spans, in a browser
    copyscope index build TOKENS.npy OUT_DIR [--shard-tokens N]
    copyscope index verify INDEX           # sha256 of every file (after copying an index)

Each takes --file PATH (- for stdin) instead of --text, or --batch texts.jsonl|texts.txt for
one result row per text (--format table|csv|json).  The other commands are the pipeline's
stages, which the workflow's rules call.

    copyscope each COMMAND… :: COMMAND… [:: …]   # several commands in one process, in order

``each`` runs stage commands one after another in one Python process, so torch and
transformers are imported once and a model loaded by one command is handed to the next that
asks for it (the workflow's model jobs are one library command each instead: ``sample model``,
``analyze model``, ``probe model``); it stops at the first command that fails.

Every stage package ``copyscope/<stage>/`` registers its commands in ``<stage>/cli.py``
(``register(subparsers)``); ``copyscope <stage> --help`` lists them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading

from .errors import CopyscopeError

# the stage packages with a cli.py, in pipeline order
STAGES = (
    "corpus",
    "tokenize",
    "index",
    "novelty",
    "lm",
    "sample",
    "analyze",
    "memorize",
    "syntax",
    "membership",
    "probe",
    "dynamics",
    "report",
    "explore",
)
# top-level user commands and the stage whose cli.py registers them (``register_tools``)
TOOLS = {"query": "index", "trace": "index", "count": "index"}


def _stage_cli(stage: str):
    return importlib.import_module(f"copyscope.{stage}.cli")


def build_parser(stages=STAGES) -> argparse.ArgumentParser:
    """The parser with the user tools first, then the command groups of ``stages``."""
    p = argparse.ArgumentParser(
        prog="copyscope", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [_stage_cli(s) for s in stages]
    for module in modules:
        if hasattr(module, "register_tools"):
            module.register_tools(sub)
    for module in modules:
        module.register(sub)
    register_config(sub)
    return p


def cmd_config_check(a):
    from .config import check_file

    warnings: list[str] = []
    check_file(a.file, warnings)
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    print(f"{a.file}: a valid config")


def register_config(sub) -> None:
    """``copyscope config check FILE``: the workflow's config validation, before Snakemake."""
    g = sub.add_parser("config", help="check a config file", description="check a config file")
    c = g.add_subparsers(dest="sub", required=True, metavar="COMMAND")
    f = c.add_parser(
        "check",
        help="validate FILE as the workflow will (YAML, schema, keys, input paths)",
        description="validate FILE as the workflow will; each problem names the file and line",
    )
    f.add_argument("file", help="the config file (YAML)")
    f.set_defaults(func=cmd_config_check)


def _requested_stage(argv: list[str]) -> str | None:
    """The stage whose cli.py serves ``argv`` (its first non-option word), if it names one:
    only that stage's package is imported (torch, pandas … load only where needed)."""
    word = next((w for w in argv if not w.startswith("-")), None)
    return TOOLS.get(word, word if word in STAGES else None)


# ``copyscope each A… :: B…``: the word that runs several commands and their separator
EACH = "each"
SEPARATOR = "::"
# the environment variable with which ``each`` lets its commands share a loaded model
# (copyscope.lm.models.SHARE_ENV; named here so that the CLI does not import torch)
SHARE_MODELS = "COPYSCOPE_SHARE_MODELS"


def split_commands(argv: list[str]) -> list[list[str]]:
    """The command lines of ``each``'s arguments, split at every ``::``; an empty one (two
    separators in a row, or one at either end) is an error."""
    commands: list[list[str]] = [[]]
    for word in argv:
        if word == SEPARATOR:
            commands.append([])
        else:
            commands[-1].append(word)
    if any(not c for c in commands):
        raise SystemExit(f"copyscope each: an empty command between '{SEPARATOR}' separators")
    return commands


def _exit_on_signal(signum, frame):
    """SIGHUP/SIGTERM as an exit that unwinds the stack: every temporary output is removed
    by its ``finally`` (``copyscope.io.atomic_path``), as after Ctrl-C."""
    raise SystemExit(128 + signum)


def _quiet_stdout() -> None:
    """After a broken pipe (``copyscope query … | head``): stdout to /dev/null, so the exit
    does not fail again flushing it."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv=None) -> int:
    before = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGHUP, signal.SIGTERM):
            if signal.getsignal(signum) is signal.SIG_DFL:  # an ignored one (nohup) stays so
                before[signum] = signal.signal(signum, _exit_on_signal)
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away: stop quietly, as Unix tools do
        _quiet_stdout()
        return 128 + signal.SIGPIPE
    except KeyboardInterrupt:
        print("copyscope: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == [EACH]:
        commands = split_commands(argv[1:])
        # the commands share a model they load one after another (copyscope.lm.models)
        before = os.environ.get(SHARE_MODELS)
        os.environ[SHARE_MODELS] = "1"
        try:
            for command in commands:
                status = _main(command)
                if status:
                    return status
        finally:
            if before is None:
                os.environ.pop(SHARE_MODELS, None)
            else:
                os.environ[SHARE_MODELS] = before
        return 0
    stage = _requested_stage(argv)
    only = (stage,) if stage else () if argv[:1] == ["config"] else STAGES
    args = build_parser(only).parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # numexpr (imported by pandas) logs its thread count at INFO on import: noise for a user
    logging.getLogger("numexpr").setLevel(logging.WARNING)
    try:
        args.func(args)
    except CopyscopeError as exc:
        print(f"copyscope: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
