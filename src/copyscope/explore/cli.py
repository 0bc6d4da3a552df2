"""``copyscope explore``: the explorer page (:mod:`copyscope.explore`)::

    copyscope explore --results results --out page.html     # a finished run's files, found
    copyscope explore --set MODEL DECODING SAMPLES TOKENS WORDS SUPERCOPIES … \
        --index MODEL DIR … --word-tokenizer DIR [--ladder MODEL CSV …] --out page.html
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def cmd_explore(a) -> None:
    from . import explore

    names = ("prompt_length", "max_texts", "min_span", "sources", "seed", "max_span_count",
             "max_span_density", "rank_spans_by", "docs_per_span")  # fmt: skip
    params = {k: getattr(a, k) for k in names} | {"context": a.context_tokens}
    params["prompt_tokenizers"] = dict(a.prompt_tokenizer)
    size, data = explore(a.out, results=a.results, sets=a.set, indexes=dict(a.index),
                         word_tokenizer=a.word_tokenizer, ladders=a.ladder,
                         decodings=a.decodings, **params)  # fmt: skip
    texts = sum(len(s["texts"]) for s in data["settings"])
    log.info("%s: %d settings, %d texts, %.2f MB", a.out, len(data["settings"]), texts, size / 1e6)


def register(sub) -> None:
    """The command ``copyscope explore`` (the stage is one command): the explorer page."""
    from ..index.cli import add_span_options
    from . import DEFAULT_DECODINGS

    help_text = "write the explorer: one HTML page showing the copied spans and their sources"
    f = sub.add_parser("explore", help=help_text, description=help_text)
    f.set_defaults(func=cmd_explore)
    f.add_argument(
        "--results", metavar="DIR", help="a finished run's results folder: its files are found"
    )
    f.add_argument(
        "--decodings",
        nargs="+",
        default=list(DEFAULT_DECODINGS),
        help="with --results: the decodings shown, besides the human reference (default: "
        + " ".join(DEFAULT_DECODINGS)
        + ")",
    )
    f.add_argument(
        "--set",
        nargs=6,
        action="append",
        default=[],
        metavar=("MODEL", "DECODING", "SAMPLES", "TOKENS", "WORDS", "SUPERCOPIES"),
        help="a setting: its samples (.jsonl), tokens.parquet, words.parquet and "
        "supercopies.csv; once per setting, in the order shown",
    )
    f.add_argument(
        "--index",
        nargs=2,
        action="append",
        default=[],
        metavar=("MODEL", "DIR"),
        help="the index in a model's tokens (the label human for the human sets); once per model",
    )
    f.add_argument(
        "--prompt-tokenizer",
        nargs=2,
        action="append",
        default=[],
        metavar=("MODEL", "DIR"),
        help="a model whose analysis encoded its text again in its index's tokenizer: its own "
        "tokenizer (its prompts' ids are in it); once per such model",
    )
    f.add_argument("--word-tokenizer", metavar="DIR", help="the Moses word tokenizer directory")
    f.add_argument(
        "--ladder",
        nargs=2,
        action="append",
        default=[],
        metavar=("MODEL", "PATH"),
        help="a model's memorization ladder (memorization/<model>.csv); once per model",
    )
    f.add_argument(
        "--prompt-length",
        type=int,
        help="the prompt length of the texts shown (default: the one most sets have)",
    )
    f.add_argument(
        "--max-texts", type=int, default=100, help="prompts shown per setting (default 100)"
    )
    f.add_argument(
        "--min-span", type=int, default=8, help="shortest copied span listed, tokens (default 8)"
    )
    f.add_argument(
        "--sources", type=int, default=3, help="source occurrences shown per span (default 3; or --docs-per-span)"
    )
    add_span_options(f, "--sources")
    f.add_argument(
        "--context-tokens",
        type=int,
        default=16,
        help="tokens of a source document shown on each side of a span (default 16)",
    )
    f.add_argument("--seed", type=int, default=0, help="seed of the sample of prompts (default 0)")
    f.add_argument("--out", required=True, metavar="PATH", help="the page to write (.html)")
