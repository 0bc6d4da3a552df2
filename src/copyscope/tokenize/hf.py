"""Hugging Face tokenizer kinds: ``bpe`` (trained here) and ``hf:<dir>`` (a local tokenizer)."""

from __future__ import annotations

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


class HFTokenizer(Tokenizer):
    """A Hugging Face tokenizer saved with ``save_pretrained``; ids without special tokens."""

    def __init__(self, kind=None, spec=None, tokenizer=None):
        super().__init__(kind, spec)
        self.hf = tokenizer

    def save(self, directory) -> None:
        self.hf.save_pretrained(str(directory))

    @classmethod
    def load(cls, directory, kind=None) -> HFTokenizer:
        return cls(kind, None, load_hf_tokenizer(directory))

    def encode(self, text: str) -> np.ndarray:
        return np.asarray(self.hf.encode(text, add_special_tokens=False), dtype=np.int64)

    def decode(self, ids) -> str:
        return self.hf.decode(list(map(int, ids)))

    @property
    def vocab_size(self) -> int:
        return len(self.hf)


@register("bpe")
class BPE(HFTokenizer):
    """Byte-level BPE learned from the training split (``vocab_size``, default 8192;
    ``min_frequency``, default 2)."""

    def learn(self, texts) -> None:
        self.hf = train_bpe(
            texts, int(self.spec.get("vocab_size", 8192)), int(self.spec.get("min_frequency", 2))
        )


@register("hf")
class LocalHF(HFTokenizer):
    """``hf:<dir>``: the Hugging Face tokenizer in a local directory, copied as is."""

    arg = "dir"

    def learn(self, texts) -> None:
        self.hf = load_hf_tokenizer(self.argument)
