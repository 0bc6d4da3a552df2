"""The ``moses`` kind: Moses word tokens mapped to a word vocabulary of the training split.

sacremoses tokenizes with its default escaping (``'`` → ``&apos;``, ``"`` → ``&quot;``,
``&`` → ``&amp;``) as RAVEN does; each line break becomes the token ``<nl>``.  Words never seen
in training get ids above the vocabulary from a stable hash, so they never match training text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import read_json, write_json
from .registry import Tokenizer, register

NEWLINE = "<nl>"


class WordVocab:
    """Moses word tokens ↔ ids. Ids 0..V-1 are training words by descending frequency."""

    HASH_SPACE = 1 << 30

    def __init__(self, words: list[str]):
        self.words = list(words)
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, token_lists) -> WordVocab:
        from collections import Counter

        counts = Counter()
        for toks in token_lists:
            counts.update(toks)
        return cls([w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))])

    def id(self, word: str) -> int:
        i = self.index.get(word)
        if i is not None:
            return i
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return len(self.words) + h % self.HASH_SPACE

    def encode(self, tokens: list[str]) -> np.ndarray:
        return np.fromiter((self.id(w) for w in tokens), dtype=np.int64, count=len(tokens))

    def save(self, path) -> None:
        write_json(path, {"kind": "moses", "words": self.words})

    @classmethod
    def load(cls, path) -> WordVocab:
        data = read_json(path)
        if data.get("kind") != "moses":
            raise InputError(path, "expected a Moses word vocabulary (kind: moses)")
        return cls(data["words"])


def _moses_tokenizer():
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang="en")


def moses_words(text: str, tokenizer=None) -> list[str]:
    """Moses tokens of ``text`` with RAVEN's escaping; each line break is the token ``<nl>``."""
    tokenizer = tokenizer or _moses_tokenizer()
    out: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip():
            out.extend(tokenizer.tokenize(line, escape=True))
        if i < len(lines) - 1:
            out.append(NEWLINE)
    return out


def moses_detokenize(words: list[str]) -> str:
    from sacremoses import MosesDetokenizer

    det = MosesDetokenizer(lang="en")
    lines, cur = [], []
    for w in words:
        if w == NEWLINE:
            lines.append(det.detokenize(cur, unescape=True))
            cur = []
        else:
            cur.append(w)
    lines.append(det.detokenize(cur, unescape=True))
    return "\n".join(lines)


@register("moses")
class MosesWords(Tokenizer):
    """Moses words; the directory holds ``vocab.json``. ``max_id`` includes the hashed ids."""

    unit = "words"
    joiner = " "

    def __init__(self, kind=None, spec=None, vocab: WordVocab | None = None):
        super().__init__(kind, spec)
        self.vocab = vocab
        self._moses = _moses_tokenizer()

    def learn(self, texts) -> None:
        self.vocab = WordVocab.build(moses_words(t, self._moses) for t in texts)

    def save(self, directory) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        self.vocab.save(Path(directory) / "vocab.json")

    @classmethod
    def load(cls, directory, kind=None) -> MosesWords:
        return cls(kind, None, WordVocab.load(Path(directory) / "vocab.json"))

    def encode(self, text: str) -> np.ndarray:
        return self.vocab.encode(moses_words(text, self._moses))

    def decode(self, ids) -> str:
        inv = self.vocab.words
        return moses_detokenize([inv[i] if i < len(inv) else "<unk>" for i in ids])

    @property
    def vocab_size(self) -> int:
        return len(self.vocab.words)

    @property
    def max_id(self) -> int:
        return self.vocab_size + WordVocab.HASH_SPACE - 1
