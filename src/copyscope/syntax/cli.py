"""``copyscope syntax …``: parse a text set into its parse file; tag documents of a split."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_parse(a):
    from .stage import parse_text_set

    counts = parse_text_set(
        a.params_json, a.set_name, a.out, a.corpus, a.samples, a.tokenizer, a.prompt_length
    )
    log.info("%s: %s", a.set_name, counts.line())


def cmd_tags(a):
    from .stage import write_tag_documents

    n = write_tag_documents(a.parses, a.out)
    log.info("%s: %d sentence tag documents", a.out, n)


def register(sub) -> None:
    g = add_group(sub, "syntax", "syntax stage: parse text sets; POS-tag documents")
    f = add_command(g, "parse", cmd_parse, "parse one text set (a corpus split or a sample set)")
    add_params(f, "the syntax: config block")
    f.add_argument("--set-name", required=True, help="text set name, e.g. train, gpt2/pure")
    one = f.add_mutually_exclusive_group(required=True)
    one.add_argument("--corpus", help="corpus split documents (.jsonl, training text)")
    one.add_argument("--samples", help="sample set (.jsonl): prompts + continuations")
    f.add_argument(
        "--tokenizer", metavar="DIR", help="the model's tokenizer (decodes --samples prompts)"
    )
    f.add_argument(
        "--prompt-length", type=int, help="the prompt length of the --samples rows parsed"
    )
    f.add_argument("--out", required=True, help="parse file to write (.parquet)")
    f = add_command(g, "tags", cmd_tags, "one POS-tag document per sentence of a parse file")
    f.add_argument("--parses", required=True, help="parse file (.parquet, from syntax parse)")
    f.add_argument("--out", required=True, help="tag documents to write (.jsonl)")
