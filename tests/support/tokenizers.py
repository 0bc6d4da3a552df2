"""Tokenizers the tests write: a released index's tokenizer kept as a ``tokenizer.json`` file."""

from __future__ import annotations


def tokenizer_file(path, texts, vocab_size: int):
    """A ``tokenizers`` file (``tokenizer.json``) of a byte-level BPE trained on ``texts``: the
    form a released index's tokenizer (Llama-2's, GPT-2's) is kept in."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<unk>", "<s>", "</s>"],  # as Llama-2's: the ids differ from the BPE's
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path
