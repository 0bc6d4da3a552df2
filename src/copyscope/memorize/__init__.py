"""Memorization stage: the extraction test on the memorization ladder.

Carlini et al. (2023, "Quantifying Memorization Across Neural Language Models") call a training
sequence extractable when, prompted with its first P tokens, the model's greedy continuation
equals its next S tokens. The ladder's passages (:mod:`copyscope.corpus.ladder`) occur a known
number of times in the training split (``copies``; 0 for the never-planted controls). For every
model, each passage is encoded with the model's own tokenizer (no special tokens), its first P
tokens are the prompt (preceded by the eos token, as every prompt of :func:`copyscope.lm.generate`)
and S tokens are decoded greedily. Per passage:

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

from ..errors import InputError

__all__ = ["extract", "extract_file", "extraction_measures", "ladder_passages", "passage_tokens"]

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


def extraction_measures(generated, target) -> tuple[bool, float, int]:
    """``(exact, match_fraction, lcp)`` of a generation against the true next tokens (same
    length S ≥ 1): all S equal; the share of equal positions; the number of equal tokens before
    the first difference (see the module docstring)."""
    g, t = np.asarray(generated), np.asarray(target)
    if g.shape != t.shape or g.ndim != 1 or g.size == 0:
        raise ValueError(
            f"expected two id sequences of the same length >= 1, got {g.shape}, {t.shape}"
        )
    equal = g == t
    lcp = int(equal.size if equal.all() else np.argmin(equal))
    return bool(equal.all()), float(equal.mean()), lcp


def ladder_passages(manifest: dict) -> list[dict]:
    """The ladder passages of a corpus manifest (``ladder.passages``; [] without a ladder)."""
    return list((manifest.get("ladder") or {}).get("passages", []))


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
    decode ``suffix_tokens`` greedily (batched, :func:`copyscope.lm.generate`) and score the
    generation against the passage's next ``suffix_tokens`` tokens (:func:`extraction_measures`)."""
    from ..lm import generate

    P, S = prompt_tokens, suffix_tokens
    ids = [passage_tokens(tokenizer, p["text"], P + S, f"{where}: {p['id']}") for p in passages]
    outs = generate(
        model,
        [x[:P] for x in ids],
        {"kind": "greedy"},
        max_new_tokens=S,
        eos_id=tokenizer.eos_token_id,
        stop_at_eos=False,  # always S tokens: an end-of-text token is simply a mismatch
        seed=0,
        batch_size=batch_size,
        device=device,
    )
    rows = []
    for p, x, out in zip(passages, ids, outs, strict=True):
        target = x[P : P + S]
        exact, frac, lcp = extraction_measures(out["ids"], target)
        rows.append(
            {
                "model": model_name,
                "passage": p["id"],
                "kind": p["kind"],
                "copies": int(p["copies"]),
                "n_tokens": int(x.size),
                "exact": int(exact),
                "match_fraction": frac,
                "lcp": lcp,
                "prompt": tokenizer.decode(x[:P].tolist()),
                "target": tokenizer.decode(target.tolist()),
                "generated": tokenizer.decode(out["ids"].tolist()),
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
