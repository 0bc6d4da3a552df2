"""Prompt windows: non-overlapping (prompt, continuation) pieces of held-out documents, the
prompts of the samples (:mod:`copyscope.sample`) and of held-out novelty
(:mod:`copyscope.novelty`), whose continuation is the human baseline."""

from __future__ import annotations

import numpy as np


def prompt_windows(
    docs: list[np.ndarray],
    prompt_tokens: int,
    continuation_tokens: int,
    max_windows: int,
    seed: int,
    keep=None,
) -> list[dict]:
    """Non-overlapping (prompt, continuation) windows cut from held-out documents.

    Each document is cut into consecutive windows of ``prompt_tokens + continuation_tokens``;
    a seeded sample of at most ``max_windows`` of them is returned in document order.  The
    continuation is the human baseline: the true text that follows the prompt. ``keep``
    (optional): a function of the candidate windows' tokens (a list of arrays) giving a
    boolean per window; only those it keeps are drawn from.
    """
    width = prompt_tokens + continuation_tokens
    cands = [(d, s) for d, doc in enumerate(docs) for s in range(0, len(doc) - width + 1, width)]
    if keep is not None and cands:
        mask = np.asarray(keep([docs[d][s : s + width] for d, s in cands]), dtype=bool)
        cands = [c for c, k in zip(cands, mask, strict=True) if k]
    if len(cands) > max_windows:
        rng = np.random.default_rng(seed)
        pick = np.sort(rng.choice(len(cands), size=max_windows, replace=False))
        cands = [cands[i] for i in pick]
    return [
        {
            "doc": d,
            "start": s,
            "prompt": docs[d][s : s + prompt_tokens].tolist(),
            "continuation": docs[d][s + prompt_tokens : s + width].tolist(),
        }
        for d, s in cands
    ]
