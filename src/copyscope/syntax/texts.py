"""The text sets the syntax stage parses, read from the files other stages write.

* A corpus split (``corpus/{split}.jsonl``: ``id``, ``text``): each document is one passage of
  training text (nothing generated), passage index = its line number.
* A sample set (``samples/{model}/{decoding}.jsonl``, the human baseline included): the rows of
  one prompt length; the prompt (model token ids) is decoded with the model's tokenizer and the
  continuation ``text`` appended, as RAVEN parses prompt + continuation together; passage index
  = the row's prompt ``window``. Decoding the prompt and the continuation separately and
  joining the strings gives the text of the joined ids for byte-level BPE tokenizers.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InputError
from ..io import read_jsonl
from .parse import Text


def corpus_texts(path) -> tuple[list[Text], list[int]]:
    """(texts, passage ids) of a corpus split: every document, nothing generated."""
    texts = [Text(row["text"], len(row["text"])) for row in read_jsonl(path)]
    return texts, list(range(len(texts)))


def sample_texts(path, decode: Callable, prompt_length: int) -> tuple[list[Text], list[int]]:
    """(texts, passage ids) of a sample set at ``prompt_length``: prompt + continuation, the
    continuation generated; ``decode`` turns prompt ids into text."""
    texts, ids = [], []
    for row in read_jsonl(path):
        if row["prompt_length"] != prompt_length:
            continue
        prompt = decode(row["prompt"]) if row["prompt"] else ""
        texts.append(Text(prompt + row["text"], len(prompt), continuation=True))
        ids.append(int(row["window"]))
    if not texts:
        raise InputError(path, f"sample rows with prompt_length {prompt_length}")
    if len(set(ids)) != len(ids):
        raise InputError(path, f"one row per prompt window at prompt_length {prompt_length}")
    return texts, ids


def tag_documents(passages) -> list[dict]:
    """The POS-tag documents of parsed passages for the ``pos`` tokenizer: one document per
    sentence (id ``<passage>.<sentence>``, text = its tags separated by spaces)."""
    return [
        {"id": f"{p.passage}.{s}", "text": " ".join(sent.tags)}
        for p in passages
        for s, sent in enumerate(p.sentences)
    ]
