"""Tokenization stage: texts → token streams, for any registered tokenizer kind.

A tokenizer is configured by name under ``tokenizers:`` with a ``kind``; the kinds are the
registered :class:`Tokenizer` classes (:func:`kinds`):

* ``bpe`` — byte-level BPE trained with ``tokenizers`` on the training split
  (``vocab_size``), saved as a Hugging Face tokenizer directory (models load it later);
* ``hf:<local dir>`` — any local Hugging Face tokenizer, loaded with ``local_files_only``;
* ``moses`` — Moses word tokens (RAVEN's escaping, line breaks as ``<nl>``) mapped to a word
  vocabulary built from the training split; unseen words get hashed ids above it;
* ``pos`` — Penn Treebank tags of the syntax stage's parses (one document per sentence, see
  :mod:`copyscope.tokenize.pos`), so the index answers POS n-gram counts.

Output per split: ``{split}.npy`` (the token stream; every document followed by the
separator, the dtype's largest value) and ``{split}.json`` (dtype, separator, document ids,
document lengths).

Adding a kind is one class in a module imported below (the ``pos`` kind of ``pos.py`` is
this one)::

    @register("pos")                       # config: tokenizers.<name>.kind: pos
    class PosTags(Tokenizer):
        unit = "tags"                      # how tables name one id
        def learn(self, texts): ...        # build the tag vocabulary (omit if nothing to learn)
        def save(self, directory): ...     # write it into the new directory
        @classmethod
        def load(cls, directory, kind=None): ...
        def encode(self, text): ...        # -> np.ndarray of int64 ids
        def decode(self, ids): ...
        @property
        def vocab_size(self): ...

``dtype``, ``separator`` and ``max_id`` follow from ``vocab_size`` (override ``max_id`` if
``encode`` can return ids above the vocabulary).  Set ``arg = "<what>"`` for a kind written
``name:<what>`` (its value is ``self.argument``).  Nothing else changes: ``tokenize fit`` /
``encode``, the index manifest and the query commands go through :func:`from_spec` and
:func:`load`, and ``config.py`` checks kinds against :func:`kinds`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import read_jsonl, sha256_array, write_json, write_npy
from .hf import BPE, EOT, HFTokenizer, LocalHF, load_hf_tokenizer, train_bpe
from .moses import NEWLINE, MosesWords, WordVocab, moses_detokenize, moses_words
from .pos import PTB_TAGS, PosTags
from .registry import Tokenizer, from_spec, kind_class, kinds, load, register

__all__ = [
    "BPE",
    "EOT",
    "NEWLINE",
    "HFTokenizer",
    "LocalHF",
    "MosesWords",
    "PTB_TAGS",
    "PosTags",
    "Tokenizer",
    "WordVocab",
    "encode_split",
    "from_spec",
    "kind_class",
    "kinds",
    "load",
    "load_hf_tokenizer",
    "moses_detokenize",
    "moses_words",
    "read_split",
    "register",
    "train_bpe",
]


def encode_split(tokenizer: Tokenizer, docs_jsonl, out_npy, out_json, name: str) -> dict:
    """Tokenize every document of a split into one stream (documents followed by the separator)
    with the fitted ``tokenizer`` configured as ``tokenizers.<name>``."""
    ids, pieces, lengths = [], [], []
    dtype = tokenizer.dtype
    sep = tokenizer.separator
    for row in read_jsonl(docs_jsonl):
        toks = tokenizer.encode(row["text"])
        if toks.size and (toks.min() < 0 or toks.max() >= sep):
            raise InputError(
                docs_jsonl, f"token id outside [0, {sep}) for {dtype} in document {row['id']!r}"
            )
        ids.append(str(row["id"]))
        pieces.append(toks.astype(dtype))
        pieces.append(np.array([sep], dtype=dtype))
        lengths.append(int(toks.size))
    stream = np.concatenate(pieces) if pieces else np.zeros(0, dtype=dtype)
    meta = {
        "tokenizer": name,
        "kind": tokenizer.kind,
        "dtype": str(dtype),
        "sep": sep,
        "vocab_size": tokenizer.vocab_size,
        "n_docs": len(ids),
        "n_tokens": int(stream.size),
        "doc_ids": ids,
        "doc_lengths": lengths,
        "sha256": sha256_array(stream),
    }
    write_npy(out_npy, stream)
    write_json(out_json, meta)
    return meta


def read_split(npy, meta_json) -> tuple[np.ndarray, dict, list[np.ndarray]]:
    """(stream, meta, list of documents without separators) of a tokenized split."""
    stream = np.load(npy, mmap_mode="r")
    meta = json.loads(Path(meta_json).read_text())
    ends = np.cumsum(np.asarray(meta["doc_lengths"], dtype=np.int64) + 1)
    starts = ends - 1 - np.asarray(meta["doc_lengths"], dtype=np.int64)
    docs = [
        np.asarray(stream[a : b - 1]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
    ]
    return stream, meta, docs
