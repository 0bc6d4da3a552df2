"""The syntax stage's jobs: parse one text set into its parse file; write a split's tag
documents for the ``pos`` tokenizer."""

from __future__ import annotations

import logging

from ..errors import InputError
from ..io import write_jsonl
from .io import read_parses, write_parses
from .parse import ParseCounts, make_backend, parse_texts
from .texts import corpus_texts, sample_texts, tag_documents
from .types import Passage

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


def parse_sample_sets(params: dict, sets, prompt_length: int) -> ParseCounts:
    """Parse several sample sets with one backend (one parser start-up) and write each set's
    parse file: ``sets`` holds ``(set_name, samples, tokenizer, out)`` per set. Every text is
    parsed on its own, so each file equals the one :func:`parse_text_set` writes for that set
    alone. Returns the counts over all sets."""
    from ..tokenize import load_hf_tokenizer

    if not sets:
        raise InputError("--set", "at least one sample set")
    tokenizers, texts, groups = {}, [], []
    for name, samples, tokenizer, out in sets:
        if tokenizer not in tokenizers:
            tokenizers[tokenizer] = load_hf_tokenizer(tokenizer)
        tok = tokenizers[tokenizer]
        set_texts, ids = sample_texts(
            samples, lambda x, tok=tok: tok.decode([int(i) for i in x]), prompt_length
        )
        groups.append((name, ids, out, len(texts)))
        texts += set_texts
    backend = make_backend(params)
    log.info("%d sample sets, %d texts, backend %s", len(sets), len(texts), backend.name)
    passages, counts = parse_texts(
        backend, texts, "", None, params["max_sentence_words"], params["chunk_chars"]
    )
    for name, ids, out, lo in groups:
        mine = passages[lo : lo + len(ids)]
        write_parses([Passage(name, i, p.sentences) for i, p in zip(ids, mine, strict=True)], out)
    return counts


def write_tag_documents(parses, out) -> int:
    """Write the tag documents (:func:`tag_documents`) of a parse file; returns how many."""
    return write_jsonl(out, tag_documents(read_parses(parses)))
