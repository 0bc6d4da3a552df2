"""The ``moses`` kind: Moses word tokens mapped to a word vocabulary of the training split.

sacremoses tokenizes with its default escaping (``'`` → ``&apos;``, ``"`` → ``&quot;``,
``&`` → ``&amp;``) as RAVEN does; each line break becomes the token ``<nl>``.  Words never seen
in training get ids above the vocabulary from a stable hash, so they never match training text.

The tokenizer's language is the ``language`` of its spec (``corpus.language``, passed by the
workflow; default ``en``), kept in ``vocab.json`` (written only when not ``en``, so an English
tokenizer's files and fingerprint are those it had before) and so used again when loaded.
sacremoses' language rules differ on apostrophes: English splits before one (``it's`` → ``it``
``&apos;s``), French after one (``l'homme`` → ``l&apos;`` ``homme``, ``qu'il`` → ``qu&apos;``
``il``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import ConfigError, InputError
from ..io import read_json, write_json
from ..language import DEFAULT, LANGUAGES, language_of
from .registry import Tokenizer, register

NEWLINE = "<nl>"


class WordVocab:
    """Moses word tokens ↔ ids. Ids 0..V-1 are training words by descending frequency."""

    HASH_SPACE = 1 << 30

    def __init__(self, words: list[str], language: str = DEFAULT):
        self.words = list(words)
        self.language = language
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, token_lists, language: str = DEFAULT) -> WordVocab:
        from collections import Counter

        counts = Counter()
        for toks in token_lists:
            counts.update(toks)
        words = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        return cls(words, language)

    def id(self, word: str) -> int:
        i = self.index.get(word)
        if i is not None:
            return i
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return len(self.words) + h % self.HASH_SPACE

    def encode(self, tokens: list[str]) -> np.ndarray:
        return np.fromiter((self.id(w) for w in tokens), dtype=np.int64, count=len(tokens))

    def save(self, path) -> None:
        data = {"kind": "moses", "words": self.words}
        if self.language != DEFAULT:
            data["language"] = self.language
        write_json(path, data)

    @classmethod
    def load(cls, path) -> WordVocab:
        data = read_json(path)
        if data.get("kind") != "moses":
            raise InputError(path, "expected a Moses word vocabulary (kind: moses)")
        language = data.get("language", DEFAULT)
        if language not in LANGUAGES:
            raise InputError(path, f"expected a language of {list(LANGUAGES)}, found {language!r}")
        return cls(data["words"], language)


def _moses_tokenizer(language: str = DEFAULT):
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=language)


def moses_words(text: str, tokenizer=None, language: str = DEFAULT) -> list[str]:
    """Moses tokens of ``text`` in ``language`` (sacremoses ``lang``; ignored when a
    ``tokenizer`` is given) with RAVEN's escaping; each line break is the token ``<nl>``."""
    tokenizer = tokenizer or _moses_tokenizer(language)
    out: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip():
            out.extend(tokenizer.tokenize(line, escape=True))
        if i < len(lines) - 1:
            out.append(NEWLINE)
    return out


def moses_detokenize(words: list[str], language: str = DEFAULT) -> str:
    from sacremoses import MosesDetokenizer

    det = MosesDetokenizer(lang=language)
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
        self.language = vocab.language if vocab is not None else language_of(spec)
        if self.language not in LANGUAGES:
            raise ConfigError("corpus.language", f"one of {list(LANGUAGES)}, found {self.language!r}")
        self._moses = _moses_tokenizer(self.language)

    def learn(self, texts) -> None:
        self.vocab = WordVocab.build((moses_words(t, self._moses) for t in texts), self.language)

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
        return moses_detokenize(
            [inv[i] if i < len(inv) else "<unk>" for i in ids], self.language
        )

    @property
    def vocab_size(self) -> int:
        return len(self.vocab.words)

    @property
    def max_id(self) -> int:
        return self.vocab_size + WordVocab.HASH_SPACE - 1
