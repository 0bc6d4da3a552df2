"""Greedy extraction: the one implementation of "prompt with a training text's first P tokens,
decode S tokens greedily, compare them with the text's next S tokens".

Used by the memorization ladder (:mod:`copyscope.memorize`), the style repeats
(:func:`copyscope.syntax.style.extract_repeats`) and continuation overlap
(:mod:`copyscope.membership.overlap`); it lives in the earliest stage that needs it.

Every prompt is read after one end-of-text (eos) token (:func:`copyscope.lm.generate`). What
an eos *generated* by the model means is the **end-of-text policy** ``at_eos``, which each
caller states:

* ``"continue"`` — eos is an ordinary token: decoding always yields S tokens, and a generated
  eos is compared with the true token at its position like any other (a mismatch unless the
  text has eos there). Carlini et al.'s extraction test (ladder, style repeats).
* ``"stop"`` — the generation ends at its first eos, which is not recorded (Hugging Face
  ``generate`` with ``eos_token_id``): the eos position and every position after it are misses.
  Zhang et al. (2024)'s continuation overlap.

Measures of a generation g against the true suffix t of S ≥ 1 tokens (:func:`extraction_measures`),
position by position over the S positions of t — position i *matches* when g has an i-th token
and ``g[i] == t[i]`` (a shorter g misses its absent positions, tokens of g after S are ignored):

* ``exact`` — all S positions match (Carlini et al. 2023, "Quantifying Memorization Across
  Neural Language Models": the sequence is *extractable*);
* ``match_fraction`` — the share of the S positions that match;
* ``lcp`` — the longest common prefix: the number of positions before the first miss (0..S).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "EOS_POLICIES",
    "extraction_measures",
    "greedy_continuations",
    "greedy_extract",
    "position_matches",
]

EOS_POLICIES = ("continue", "stop")
"""The end-of-text policies (module docstring)."""


def _check_policy(at_eos: str) -> None:
    if at_eos not in EOS_POLICIES:
        raise ValueError(f"expected at_eos in {EOS_POLICIES}, got {at_eos!r}")


def position_matches(generated: Sequence, target: Sequence) -> np.ndarray:
    """One bool per position i of ``target``: ``i < len(generated)`` and ``generated[i] ==
    target[i]`` (token ids, words, tags: any symbols that compare with ``==``)."""
    n = min(len(generated), len(target))
    hit = np.zeros(len(target), dtype=bool)
    hit[:n] = np.asarray(generated[:n]) == np.asarray(target[:n])
    return hit


def extraction_measures(generated, target, eos_id: int | None = None) -> dict:
    """``{"match_fraction", "lcp", "exact"}`` of the id sequence ``generated`` against the true
    suffix ``target`` (1-D, at least one token; the definitions are in the module docstring).
    ``eos_id``: the ``"stop"`` policy — ``generated`` ends before its first ``eos_id`` (None: the
    ``"continue"`` policy, every generated token is compared)."""
    t = np.asarray(target, dtype=np.int64)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"expected a target of at least one token, got shape {t.shape}")
    g = np.asarray(generated, dtype=np.int64)[: t.size]
    if eos_id is not None and (g == eos_id).any():
        g = g[: int(np.argmax(g == eos_id))]
    hit = position_matches(g, t)
    lcp = int(t.size if hit.all() else np.argmin(hit))
    return {"match_fraction": float(hit.mean()), "lcp": lcp, "exact": bool(hit.all())}


def greedy_continuations(
    model,
    prompts: Sequence[np.ndarray],
    new_tokens: int,
    *,
    eos_id: int,
    at_eos: str,
    batch_size: int,
    device,
) -> list[np.ndarray]:
    """The greedy continuation of every id prompt (read after ``eos_id``), batched with
    :func:`copyscope.lm.generate`: ``new_tokens`` ids each with ``at_eos="continue"``, at most
    that many, ending before the first eos, with ``"stop"``."""
    from ..lm import generate

    _check_policy(at_eos)
    outs = generate(
        model,
        list(prompts),
        {"kind": "greedy"},
        max_new_tokens=new_tokens,
        eos_id=eos_id,
        stop_at_eos=at_eos == "stop",
        seed=0,
        batch_size=batch_size,
        device=device,
    )
    return [out["ids"] for out in outs]


def greedy_extract(
    model,
    sequences: Sequence[np.ndarray],
    *,
    prompt_tokens: int,
    suffix_tokens: int,
    eos_id: int,
    at_eos: str,
    batch_size: int,
    device,
) -> list[tuple[np.ndarray, dict]]:
    """``(generated ids, measures)`` for every id sequence (≥ P + S tokens): its first P =
    ``prompt_tokens`` ids are the prompt, S = ``suffix_tokens`` ids are decoded greedily
    (:func:`greedy_continuations`) and compared with the sequence's next S ids
    (:func:`extraction_measures`) under the end-of-text policy ``at_eos``."""
    _check_policy(at_eos)
    P, S = prompt_tokens, suffix_tokens
    seqs = [np.asarray(x, dtype=np.int64) for x in sequences]
    for i, x in enumerate(seqs):
        if x.ndim != 1 or x.size < P + S:
            raise ValueError(f"sequence {i}: expected at least {P} + {S} ids, got {x.shape}")
    gens = greedy_continuations(
        model,
        [x[:P] for x in seqs],
        S,
        eos_id=eos_id,
        at_eos=at_eos,
        batch_size=batch_size,
        device=device,
    )
    stop = eos_id if at_eos == "stop" else None
    return [
        (g, extraction_measures(g, x[P : P + S], stop)) for g, x in zip(gens, seqs, strict=True)
    ]
