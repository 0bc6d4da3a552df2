"""Building blocks of the stage command lines.

Every stage package ``copyscope/<stage>/`` has a ``cli.py`` with ``register(subparsers)``, which
adds the stage's command group; :mod:`copyscope.cli` only assembles them. A command function is
a few lines: read the parsed arguments, call one library function, log a line.

Flag names mean the same thing in every command:

==========================  ===============================================================
``--tokenizer DIR``         a tokenizer directory (as written by ``tokenize fit``)
``--tokenizer-name NAME``   a tokenizer's name under ``tokenizers:`` in the config
``--model DIR``             a model directory (``save_pretrained`` layout)
``--model-name NAME``       a model's name under ``models.zoo``
``--index DIR``             an index directory (holding ``index.json``)
``--params-json JSON``      the config block a command needs, as JSON
``--out PATH``              the one output; ``--out-<what> PATH`` when there are several
``--device``, ``--seed``    torch device (auto | cpu | cuda[:N]); random seed
==========================  ===============================================================
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence


def json_arg(text: str):
    """argparse ``type=`` for JSON-valued flags: the parsed value, or a clear error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected JSON ({exc}), got {text[:80]!r}") from exc


def add_group(sub, name: str, help_text: str):
    """A stage's command group (``copyscope <name> …``); returns its sub-parsers."""
    parser = sub.add_parser(name, help=help_text, description=help_text)
    return parser.add_subparsers(dest="sub", required=True, metavar="COMMAND")


def add_command(group, name: str, func, help_text: str) -> argparse.ArgumentParser:
    """A command of a group that calls ``func(args)``; add its flags to the returned parser."""
    parser = group.add_parser(name, help=help_text, description=help_text)
    parser.set_defaults(func=func)
    return parser


def add_params(parser: argparse.ArgumentParser, what: str) -> None:
    """The required ``--params-json``: ``what`` (the config block(s) it holds), as JSON."""
    parser.add_argument("--params-json", required=True, type=json_arg, help=f"{what}, as JSON")


def add_device(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device", default="auto", help="torch device: auto (CUDA when present), cpu or cuda[:N]"
    )


def labelled(flag: str, labels: Sequence, paths: Sequence) -> list[str]:
    """Labelled inputs as arguments: ``FLAG LABEL… PATH`` for each label and path, e.g.
    ``labelled("--tokens", [("human", "reference")], ["a"])`` →
    ``["--tokens", "human", "reference", "a"]``; a label is a string or a tuple of words."""
    if len(labels) != len(paths):
        raise ValueError(f"{flag}: {len(labels)} labels for {len(paths)} paths")
    args: list[str] = []
    for label, path in zip(labels, paths, strict=True):
        words = label if isinstance(label, (tuple, list)) else (label,)
        args += [flag, *words, str(path)]
    return args
