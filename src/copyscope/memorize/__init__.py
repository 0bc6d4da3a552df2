"""Memorization stage: the extraction test on the memorization ladder.

Carlini et al. (2023, "Quantifying Memorization Across Neural Language Models") call a training
sequence extractable when, prompted with its first P tokens, the model's greedy continuation
equals its next S tokens. The ladder's passages (:mod:`copyscope.corpus.ladder`) occur a known
number of times in the training split (``copies``; 0 for the never-planted controls). For every
model, each passage is encoded with the model's own tokenizer (no special tokens), its first P
tokens are the prompt (preceded by the eos token, as every prompt of :func:`copyscope.lm.generate`)
and S tokens are decoded greedily, an end-of-text token being an ordinary token (always S
tokens; :mod:`copyscope.memorize.extraction`, end-of-text policy ``"continue"``). Per passage:

* ``exact`` — all S generated tokens equal the passage's next S tokens (Carlini et al.'s
  extraction);
* ``match_fraction`` — the share of the S positions where the generated token equals the
  passage's token at that position;
* ``lcp`` — the longest common prefix of the generation and the passage's next S tokens, in
  tokens (0..S).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..corpus import ladder_passages
from ..errors import InputError
from .extraction import greedy_extract

__all__ = ["extract", "extract_file", "extraction_row", "passage_tokens"]

COLUMNS = [
    "model",
    "passage",
    "kind",
    "copies",
    "n_tokens",
    "exact",
    "match_fraction",
    "lcp",
    "prompt",
    "target",
    "generated",
]


def extraction_row(tokenizer, ids, prompt_tokens: int, suffix_tokens: int, generated, measures):
    """The extraction columns of one row of an extraction table (the last six of
    :data:`COLUMNS`): the measures of :func:`copyscope.memorize.extraction.extraction_measures`
    (``exact`` as 0/1) and the decoded prompt ``ids[:P]``, target ``ids[P:P+S]`` and
    generation."""
    P, S = prompt_tokens, suffix_tokens
    return {
        "exact": int(measures["exact"]),
        "match_fraction": measures["match_fraction"],
        "lcp": measures["lcp"],
        "prompt": tokenizer.decode(ids[:P].tolist()),
        "target": tokenizer.decode(ids[P : P + S].tolist()),
        "generated": tokenizer.decode(generated.tolist()),
    }


def passage_tokens(tokenizer, text: str, need: int, where: str) -> np.ndarray:
    """The passage's ids in ``tokenizer`` (no special tokens); InputError naming ``where``
    when it has fewer than ``need`` (= P + S) tokens."""
    ids = np.asarray(tokenizer.encode(text, add_special_tokens=False), dtype=np.int64)
    if ids.size < need:
        raise InputError(
            where,
            f"expected at least prompt_tokens + suffix_tokens = {need} tokens, found {ids.size} "
            "(raise corpus.inject.ladder.words)",
        )
    return ids


def extract(
    model,
    tokenizer,
    passages: list[dict],
    *,
    model_name: str,
    prompt_tokens: int,
    suffix_tokens: int,
    batch_size: int,
    device,
    where: str = "manifest",
) -> pd.DataFrame:
    """One row per passage (:data:`COLUMNS`): prompt with its first ``prompt_tokens`` tokens,
    decode ``suffix_tokens`` greedily and score the generation against the passage's next
    ``suffix_tokens`` tokens (:func:`copyscope.memorize.extraction.greedy_extract`, end-of-text
    policy ``"continue"``)."""
    P, S = prompt_tokens, suffix_tokens
    ids = [passage_tokens(tokenizer, p["text"], P + S, f"{where}: {p['id']}") for p in passages]
    found = greedy_extract(
        model,
        ids,
        prompt_tokens=P,
        suffix_tokens=S,
        eos_id=tokenizer.eos_token_id,
        at_eos="continue",  # always S tokens: an end-of-text token is simply a mismatch
        batch_size=batch_size,
        device=device,
    )
    rows = []
    for p, x, (generated, measures) in zip(passages, ids, found, strict=True):
        rows.append(
            {
                "model": model_name,
                "passage": p["id"],
                "kind": p["kind"],
                "copies": int(p["copies"]),
                "n_tokens": int(x.size),
                **extraction_row(tokenizer, x, P, S, generated, measures),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def extract_file(
    model_dir,
    model_name: str,
    manifest_json,
    out,
    *,
    prompt_tokens: int,
    suffix_tokens: int,
    batch_size: int,
    device: str = "auto",
) -> pd.DataFrame:
    """:func:`extract` for the model in ``model_dir`` on the ladder passages of the corpus
    manifest ``manifest_json``; writes the rows to ``out`` (.csv) and returns them."""
    from ..io import read_json, write_csv
    from ..lm import load_model

    passages = ladder_passages(read_json(manifest_json))
    if not passages:
        raise InputError(manifest_json, "expected ladder passages (corpus.inject.ladder)")
    model, tok = load_model(model_dir, device)
    frame = extract(
        model,
        tok,
        passages,
        model_name=model_name,
        prompt_tokens=prompt_tokens,
        suffix_tokens=suffix_tokens,
        batch_size=batch_size,
        device=str(next(model.parameters()).device),
        where=str(manifest_json),
    )
    write_csv(out, frame)
    return frame
