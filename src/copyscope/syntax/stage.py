"""The syntax stage's jobs: parse one text set into its parse file; write a split's tag
documents for the ``pos`` tokenizer."""

from __future__ import annotations

import logging

from ..errors import InputError
from ..io import write_jsonl
from .io import read_parses, write_parses
from .parse import ParseCounts, make_backend, parse_texts
from .texts import corpus_texts, sample_texts, tag_documents

log = logging.getLogger("copyscope")


def parse_text_set(
    params: dict,
    set_name: str,
    out,
    corpus=None,
    samples=None,
    tokenizer=None,
    prompt_length: int | None = None,
) -> ParseCounts:
    """Parse a corpus split (``corpus``) or a sample set (``samples`` with the model's
    ``tokenizer`` directory and ``prompt_length``) with the backend of the ``syntax:`` block
    ``params``; write the passages to ``out``."""
    if corpus is not None:
        texts, ids = corpus_texts(corpus)
    elif tokenizer is None or prompt_length is None:
        raise InputError(samples, "a sample set needs the model's tokenizer and a prompt length")
    else:
        from ..tokenize import load_hf_tokenizer

        tok = load_hf_tokenizer(tokenizer)
        texts, ids = sample_texts(samples, lambda x: tok.decode([int(i) for i in x]), prompt_length)
    backend = make_backend(params)
    log.info("%s: %d texts, backend %s", set_name, len(texts), backend.name)
    passages, counts = parse_texts(
        backend, texts, set_name, ids, params["max_sentence_words"], params["chunk_chars"]
    )
    write_parses(passages, out)
    return counts


def write_tag_documents(parses, out) -> int:
    """Write the tag documents (:func:`tag_documents`) of a parse file; returns how many."""
    return write_jsonl(out, tag_documents(read_parses(parses)))
