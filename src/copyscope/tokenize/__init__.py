"""Tokenization stage: byte-level BPE, any local Hugging Face tokenizer, or Moses words.

A tokenizer is configured by name under ``tokenizers:`` with a ``kind``:

* ``bpe`` — byte-level BPE trained with ``tokenizers`` on the training split
  (``vocab_size``), saved as a Hugging Face tokenizer directory (models load it later);
* ``hf:<local dir>`` — any local Hugging Face tokenizer, loaded with ``local_files_only``;
* ``moses`` — Moses word tokens (sacremoses, with its default escaping ``'`` → ``&apos;``,
  ``"`` → ``&quot;``, ``&`` → ``&amp;`` as RAVEN does; line breaks become the token ``<nl>``),
  mapped to a word vocabulary built from the training split.  Words never seen in training get
  ids above the vocabulary from a stable hash, so they never match training text.

Output per split: ``{split}.npy`` (the token stream; every document followed by the
separator, the dtype's largest value) and ``{split}.json`` (dtype, separator, document ids,
document lengths).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import ConfigError, InputError
from ..index.build import default_sep, token_dtype_for
from ..io import atomic_path, read_json, read_jsonl, sha256_array, write_json, write_npy

NEWLINE = "<nl>"
EOT = "<|endoftext|>"


# --------------------------------------------------------------------------- BPE
def train_bpe(texts, vocab_size: int, out_dir, min_frequency: int = 2) -> None:
    """Train a byte-level BPE on ``texts`` and save it as a Hugging Face tokenizer directory."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=EOT, bos_token=EOT, unk_token=EOT, pad_token=EOT
    )
    with atomic_path(out_dir) as tmp:
        fast.save_pretrained(str(tmp))


def load_hf_tokenizer(path):
    """A local Hugging Face tokenizer directory (never downloaded)."""
    from transformers import AutoTokenizer

    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "expected a local Hugging Face tokenizer directory")
    try:
        return AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError variants
        raise InputError(path, f"could not load a tokenizer from this directory ({exc})") from exc


# --------------------------------------------------------------------------- Moses words
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


def moses_words(text: str, tokenizer=None) -> list[str]:
    """Moses tokens of ``text`` with RAVEN's escaping; each line break is the token ``<nl>``."""
    if tokenizer is None:
        from sacremoses import MosesTokenizer

        tokenizer = MosesTokenizer(lang="en")
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


# --------------------------------------------------------------------------- common interface
class Encoder:
    """Turns texts into token ids for one configured tokenizer (``fit`` first for bpe/moses)."""

    def __init__(self, name: str, spec: dict, model_dir):
        self.name = name
        self.kind = str(spec.get("kind", ""))
        self.spec = spec
        self.model_dir = Path(model_dir)
        if not (self.kind in ("bpe", "moses") or self.kind.startswith("hf:")):
            raise ConfigError(
                f"tokenizers.{name}.kind", f"expected bpe, moses or hf:<dir>, got {self.kind!r}"
            )
        self._tok = None
        self._vocab = None

    # training / loading
    def fit(self, texts: list[str]) -> None:
        """Learn the tokenizer from training texts and save it to ``model_dir``."""
        if self.kind == "bpe":
            train_bpe(
                texts,
                int(self.spec.get("vocab_size", 8192)),
                self.model_dir,
                int(self.spec.get("min_frequency", 2)),
            )
        elif self.kind == "moses":
            from sacremoses import MosesTokenizer

            mt = MosesTokenizer(lang="en")
            vocab = WordVocab.build(moses_words(t, mt) for t in texts)
            with atomic_path(self.model_dir) as tmp:
                tmp.mkdir()
                vocab.save(tmp / "vocab.json")
        else:
            tok = load_hf_tokenizer(self.kind[3:])
            with atomic_path(self.model_dir) as tmp:
                tok.save_pretrained(str(tmp))

    def load(self) -> None:
        if self.kind == "moses":
            self._vocab = WordVocab.load(self.model_dir / "vocab.json")
            from sacremoses import MosesTokenizer

            self._tok = MosesTokenizer(lang="en")
        else:
            self._tok = load_hf_tokenizer(self.model_dir)

    @property
    def vocab_size(self) -> int:
        if self._tok is None:
            self.load()
        if self.kind == "moses":
            return len(self._vocab.words)
        return len(self._tok)

    @property
    def max_id(self) -> int:
        """Largest id this encoder can produce (hashed unseen words included for moses)."""
        if self.kind == "moses":
            return self.vocab_size + WordVocab.HASH_SPACE - 1
        return self.vocab_size - 1

    @property
    def dtype(self):
        return token_dtype_for(self.max_id)

    def encode(self, text: str) -> np.ndarray:
        if self._tok is None:
            self.load()
        if self.kind == "moses":
            return self._vocab.encode(moses_words(text, self._tok))
        return np.asarray(self._tok.encode(text, add_special_tokens=False), dtype=np.int64)

    def decode(self, ids) -> str:
        if self._tok is None:
            self.load()
        if self.kind == "moses":
            inv = self._vocab.words
            return moses_detokenize([inv[i] if i < len(inv) else "<unk>" for i in ids])
        return self._tok.decode(list(map(int, ids)))


def encode_split(encoder: Encoder, docs_jsonl, out_npy, out_json) -> dict:
    """Tokenize every document of a split into one stream (documents followed by the separator)."""
    ids, pieces, lengths = [], [], []
    dtype = encoder.dtype
    sep = default_sep(dtype)
    for row in read_jsonl(docs_jsonl):
        toks = encoder.encode(row["text"])
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
        "tokenizer": encoder.name,
        "kind": encoder.kind,
        "dtype": str(dtype),
        "sep": sep,
        "vocab_size": encoder.vocab_size,
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
