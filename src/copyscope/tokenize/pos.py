"""The ``pos`` kind: Penn Treebank tag streams, so the suffix-array index works on POS tags.

A "text" of this kind is a whitespace-separated tag sequence (``"DT JJ NN"``; PTB tags contain
no spaces). The syntax stage writes the tags of a parsed split as one such text per *sentence*
(``copyscope syntax tags``), so the token stream holds one separator per sentence: a POS n-gram
never spans two sentences. That is the unit both syntactic analyses use — Shaib et al.'s
templates are POS n-grams within sentences, and RAVEN's POS-sequence unit is a sentence's tag
sequence — so a cross-sentence tag n-gram would count patterns neither paper counts.

Ids: the fixed Penn Treebank tag set (:data:`PTB_TAGS`, in that order, so the ids of the
standard tags are the same for every corpus), then every other tag the backend emitted in the
training parses (sorted; e.g. the universal POS tags of a French corpus's parses, ``NOUN``,
``DET`` …, of which only ``SYM`` is also a PTB tag). A tag never seen in training (a query
typo, a tag of another backend) gets the id ``vocab_size``, which no training stream holds, so
it never matches.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import read_json, write_json
from .registry import Tokenizer, register

# The Penn Treebank tag set (Marcus et al. 1993: 36 word tags and the punctuation tags), plus
# the tags of OntoNotes 5 that spaCy's English models add (ADD, AFX, HYPH, NFP, XX) and spaCy's
# whitespace tag _SP.
PTB_TAGS = (
    "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP",
    "NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB",
    "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB",
    "#", "$", ".", ",", ":", "``", "''", "-LRB-", "-RRB-",
    "ADD", "AFX", "HYPH", "NFP", "XX", "_SP",
)  # fmt: skip
UNKNOWN = "<unk>"


def tag_vocabulary(tag_texts) -> list[str]:
    """:data:`PTB_TAGS`, then the other tags found in ``tag_texts`` (sorted)."""
    seen = {t for text in tag_texts for t in text.split()}
    return list(PTB_TAGS) + sorted(seen - set(PTB_TAGS))


@register("pos")
class PosTags(Tokenizer):
    """POS tags ↔ ids; the directory holds ``tags.json``. ``max_id`` is the unknown-tag id."""

    unit = "tags"
    joiner = " "

    def __init__(self, kind=None, spec=None, tags: list[str] | None = None):
        super().__init__(kind, spec)
        self.tags = list(tags) if tags is not None else list(PTB_TAGS)
        self.index = {t: i for i, t in enumerate(self.tags)}

    def learn(self, texts) -> None:
        self.tags = tag_vocabulary(texts)
        self.index = {t: i for i, t in enumerate(self.tags)}

    def save(self, directory) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        write_json(Path(directory) / "tags.json", {"kind": "pos", "tags": self.tags})

    @classmethod
    def load(cls, directory, kind=None) -> PosTags:
        path = Path(directory) / "tags.json"
        data = read_json(path)
        if data.get("kind") != "pos":
            raise InputError(path, "expected a POS tag vocabulary (kind: pos)")
        return cls(kind, None, data["tags"])

    def encode(self, text: str) -> np.ndarray:
        unknown = len(self.tags)
        tags = text.split()
        return np.fromiter((self.index.get(t, unknown) for t in tags), np.int64, len(tags))

    def decode(self, ids) -> str:
        n = len(self.tags)
        return " ".join(self.tags[i] if 0 <= i < n else UNKNOWN for i in map(int, ids))

    @property
    def vocab_size(self) -> int:
        return len(self.tags)

    @property
    def max_id(self) -> int:
        return len(self.tags)
