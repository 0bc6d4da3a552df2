"""Tiny language models, their tokenizer and training settings: for the tests of every stage that
needs a model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import yaml

from copyscope.config import validate
from copyscope.errors import ConfigError
from copyscope.lm import (
    build_model,
)
from support.workflow import ROOT

VOCAB = 50


N_CTX = 64


EOS = 0


SPECS = {
    "gpt2": {"kind": "gpt2", "n_layer": 2, "n_embd": 32, "n_head": 4, "n_ctx": N_CTX},
    "lstm": {"kind": "lstm", "n_embd": 16, "n_hidden": 32, "n_layer": 2, "n_ctx": N_CTX},
}


def make_tokenizer(path) -> None:
    """A 50-word Hugging Face tokenizer whose id 0 is <|endoftext|> (eos/bos/pad)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    eot = "<|endoftext|>"
    vocab = {eot: 0, **{f"w{i}": i for i in range(1, VOCAB)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=eot))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=eot, bos_token=eot, unk_token=eot, pad_token=eot
    )
    fast.save_pretrained(str(path))


def tiny_model(kind: str, seed: int = 0):
    """A random tiny model with a peaked output distribution (embeddings of std 1)."""
    torch.manual_seed(seed)
    model = build_model(dict(SPECS[kind], dropout=0.0), VOCAB, EOS)
    with torch.no_grad():
        model.get_input_embeddings().weight.normal_(0.0, 1.0)
    return model.eval()


def full_logits(model, ids) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=torch.as_tensor([list(map(int, ids))])).logits[0].float()


def zoo_config_error(name: str, spec: dict) -> str:
    """The message of copyscope.config.validate for the tiny config with one more model."""
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["models"]["zoo"][name] = spec
    with pytest.raises(ConfigError) as err:
        validate(cfg)
    return str(err.value)


# --------------------------------------------------------------------------- training
def toy_corpus():
    pattern = np.arange(1, 11, dtype=np.uint16)
    return [np.tile(pattern, 25) for _ in range(8)], [np.tile(pattern, 12)]


TRAIN = {
    "tokens": 8 * N_CTX * 30,
    "batch_size": 8,
    "lr": 1e-2,
    "warmup": 0.1,
    "weight_decay": 0.01,
    "eval_every": 10,
    "eval_batches": 2,
    "bf16": False,
    "grad_clip": 1.0,
    "min_lr_ratio": 0.0,
}


def write_pretrained(path, texts, seed: int = 0, vocab_size: int = 300, n_ctx: int = 64):
    """A local Hugging Face model folder as a pretrained model's or a checkpoint's: a BPE
    tokenizer fitted on ``texts`` and a tiny random GPT-2 of context ``n_ctx``
    (``save_pretrained``); returns ``path``."""
    from copyscope.tokenize import from_spec

    from_spec({"kind": "bpe", "vocab_size": vocab_size}).fit(texts, path)
    spec = {"kind": "gpt2", "n_layer": 1, "n_embd": 16, "n_head": 2, "n_ctx": n_ctx}
    build_model(spec, vocab_size, seed).save_pretrained(path)
    return path
