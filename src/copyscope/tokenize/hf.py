"""Hugging Face tokenizer kinds: ``bpe`` (trained here) and ``hf:<dir>`` (a local tokenizer)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from .registry import Tokenizer, register

EOT = "<|endoftext|>"


def train_bpe(texts, vocab_size: int, min_frequency: int = 2):
    """A byte-level BPE trained on ``texts``, as a ``PreTrainedTokenizerFast`` whose
    ``<|endoftext|>`` (id 0) is the eos, bos, unk and pad token."""
    from tokenizers import Tokenizer as RawTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = RawTokenizer(models.BPE())
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
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=EOT, bos_token=EOT, unk_token=EOT, pad_token=EOT
    )


GGUF = ".gguf"


def is_gguf(path) -> bool:
    """Whether ``path`` names a GGUF file (llama.cpp's format: a model's weights and its
    tokenizer in one file), by its suffix."""
    return Path(path).suffix.lower() == GGUF


def is_tokenizer_file(path) -> bool:
    """Whether ``path`` names a ``tokenizers`` file (``tokenizer.json``, what
    ``Tokenizer.save`` writes: the form in which released indexes' tokenizers, Llama-2's,
    GPT-2's or OLMo's, are often kept), by its ``.json`` suffix."""
    return Path(path).suffix.lower() == ".json"


def _from_tokenizer_file(path: Path):
    """A ``PreTrainedTokenizerFast`` around the ``tokenizers`` file ``path``
    (``Tokenizer.from_file``); its ids are the file's, without special tokens added."""
    from tokenizers import Tokenizer as RawTokenizer
    from transformers import PreTrainedTokenizerFast

    if not path.is_file():
        raise InputError(path, "expected a tokenizer file (tokenizer.json)")
    try:
        backend = RawTokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception on a malformed file
        raise InputError(path, f"could not load a tokenizer from this file ({exc})") from exc
    return PreTrainedTokenizerFast(tokenizer_object=backend)


def load_hf_tokenizer(path):
    """A local Hugging Face tokenizer directory, a ``tokenizers`` file (``tokenizer.json``,
    :func:`is_tokenizer_file`), or the tokenizer in a GGUF model file (``transformers``' GGUF
    reader, ``from_pretrained(dir, gguf_file=name)``); never downloaded."""
    from transformers import AutoTokenizer

    path = Path(path)
    if is_gguf(path):
        if not path.is_file():
            raise InputError(path, "expected a GGUF model file (weights and tokenizer)")
        try:
            return AutoTokenizer.from_pretrained(
                str(path.parent), gguf_file=path.name, local_files_only=True
            )
        except Exception as exc:  # transformers raises OSError/ValueError/KeyError variants
            raise InputError(path, f"could not read a tokenizer from this GGUF file ({exc})") from exc
    if is_tokenizer_file(path):
        return _from_tokenizer_file(path)
    if not path.is_dir():
        raise InputError(path, "expected a local Hugging Face tokenizer directory")
    try:
        return AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError variants
        raise InputError(path, f"could not load a tokenizer from this directory ({exc})") from exc


def load_backend(path):
    """The ``tokenizers`` tokenizer of a directory's ``tokenizer.json`` (no transformers, no
    torch: a fraction of a second), or ``None`` when the directory has none."""
    from tokenizers import Tokenizer as RawTokenizer

    file = Path(path) / "tokenizer.json"
    if not file.is_file():
        return None
    try:
        return RawTokenizer.from_file(str(file))
    except Exception as exc:  # tokenizers raises a bare Exception on a malformed file
        raise InputError(file, f"could not load a tokenizer from this file ({exc})") from exc


def backend_fingerprint(backend) -> str:
    """sha256 of a ``tokenizers`` tokenizer's definition (normalizer, pre-tokenizer, model
    with its vocabulary and merges, added tokens, decoder), without run-time settings
    (truncation, padding) that loading may change."""
    spec = json.loads(backend.to_str())
    for key in ("truncation", "padding", "version"):
        spec.pop(key, None)
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


@functools.cache
def _byte_level_alphabet() -> dict[str, int]:
    """Character → byte of byte-level BPE (GPT-2, Radford et al. 2019): the printable bytes
    ``!``..``~``, ``¡``..``¬`` and ``®``..``ÿ`` stand for themselves, every other byte b for
    chr(256 + its rank among those others)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    keep += list(range(ord("®"), ord("ÿ") + 1))
    others = [b for b in range(256) if b not in keep]
    table = {chr(b): b for b in keep}
    table.update({chr(256 + k): b for k, b in enumerate(others)})
    return table


def byte_level_bytes(token: str) -> bytes | None:
    """The bytes a byte-level BPE token string stands for (``None`` if it is not one)."""
    table = _byte_level_alphabet()
    if not token or any(c not in table for c in token):
        return None
    return bytes(table[c] for c in token)


class HFTokenizer(Tokenizer):
    """A Hugging Face tokenizer saved with ``save_pretrained``; ids without special tokens.

    Ids come from the ``transformers`` tokenizer (``hf``) when it is loaded, else from the
    ``tokenizers`` backend alone (``BPE.load``: the same ids without importing transformers);
    ``hf`` is then loaded from ``directory`` when it is first asked for.
    """

    def __init__(self, kind=None, spec=None, tokenizer=None, backend=None, directory=None):
        super().__init__(kind, spec)
        self._hf = tokenizer
        self._backend = backend
        self.directory = directory

    @property
    def hf(self):
        if self._hf is None:
            self._hf = load_hf_tokenizer(self.directory)
        return self._hf

    @hf.setter
    def hf(self, tokenizer) -> None:
        self._hf, self._backend = tokenizer, None

    @property
    def backend(self):
        return self._backend if self._backend is not None else self.hf.backend_tokenizer

    def save(self, directory) -> None:
        self.hf.save_pretrained(str(directory))

    @classmethod
    def load(cls, directory, kind=None) -> HFTokenizer:
        return cls(kind, None, load_hf_tokenizer(directory), directory=directory)

    def encode(self, text: str) -> np.ndarray:
        if self._hf is not None:
            ids = self._hf.encode(text, add_special_tokens=False)
        else:
            ids = self._backend.encode(text, add_special_tokens=False).ids
        return np.asarray(ids, dtype=np.int64)

    def decode(self, ids) -> str:
        ids = list(map(int, ids))
        if self._hf is not None:
            return self._hf.decode(ids)
        return self._backend.decode(ids, skip_special_tokens=False)

    def piece(self, i: int) -> str:
        """The text of id ``i``; a byte-level piece that is not whole UTF-8 (part of a
        character) shows its undecodable bytes as ``\\xNN``."""
        text = self.decode([i])
        if "\ufffd" not in text:
            return text
        raw = byte_level_bytes(self.backend.id_to_token(i) or "")
        return text if raw is None else raw.decode("utf-8", errors="backslashreplace")

    @property
    def vocab_size(self) -> int:
        if self._hf is not None:
            return len(self._hf)
        return self._backend.get_vocab_size(with_added_tokens=True)

    def fingerprint(self) -> str:
        return backend_fingerprint(self.backend)


@register("bpe")
class BPE(HFTokenizer):
    """Byte-level BPE learned from the training split (``vocab_size``, default 8192;
    ``min_frequency``, default 2)."""

    def learn(self, texts) -> None:
        self.hf = train_bpe(
            texts, int(self.spec.get("vocab_size", 8192)), int(self.spec.get("min_frequency", 2))
        )

    @classmethod
    def load(cls, directory, kind=None) -> BPE:
        """From ``tokenizer.json`` with the ``tokenizers`` library alone (what ``train_bpe``
        saves; ``transformers`` is imported only if :attr:`hf` is used)."""
        backend = load_backend(directory)
        if backend is None:
            return super().load(directory, kind)
        return cls(kind, None, None, backend, directory)


@register("hf")
class LocalHF(HFTokenizer):
    """``hf:<dir>``: the Hugging Face tokenizer in a local directory, copied as is;
    ``hf:<file>.json``: a ``tokenizers`` file (``Tokenizer.from_file``), saved as a tokenizer
    directory; ``hf:<file>.gguf``: the tokenizer of a GGUF model file, saved as a tokenizer directory."""

    arg = "dir"

    def learn(self, texts) -> None:
        self.hf = load_hf_tokenizer(self.argument)
