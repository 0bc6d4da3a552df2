"""Merrill et al. 2024: the copier sets, the known positives of the n-gram novelty rows:
human continuations with a share of their spans replaced by spans of training documents
(:func:`copier_set`), matched against the index (:class:`Copier`, built once per run,
:func:`copier_of`), and the builders that resample them."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core import FAILS, HOLDS, Positive, model_size
from ..data import HUMAN, Data, first_decoding, resample_windows, sizes_up_to
from .nulls import novelty_nulls


def copier_set(
    continuations: list[np.ndarray],
    documents: list[np.ndarray],
    share: float,
    span: int,
    rng: np.random.Generator,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Copies of ``continuations`` in which round(share · slots) of the ``span``-token slots
    (each continuation cut into whole slots from its start, a shorter rest never copied),
    drawn at random over all continuations, are replaced by a random ``span``-token span of a
    random training document (of at least ``span`` tokens). Returns the texts and, per text,
    a boolean mask of the copied tokens."""
    long_docs = [d for d in documents if len(d) >= span]
    if not long_docs:
        raise ValueError(f"no training document has {span} tokens")
    slots = [(i, s) for i, c in enumerate(continuations) for s in range(0, len(c) - span + 1, span)]
    chosen = rng.choice(len(slots), size=round(share * len(slots)), replace=False)
    texts = [np.array(c, copy=True) for c in continuations]
    masks = [np.zeros(len(c), dtype=bool) for c in continuations]
    for k in np.sort(chosen):
        i, s = slots[k]
        doc = long_docs[rng.integers(len(long_docs))]
        start = rng.integers(len(doc) - span + 1)
        texts[i][s : s + span] = doc[start : start + span]
        masks[i][s : s + span] = True
    return texts, masks


def copier_tokens(texts: list[np.ndarray], windows: np.ndarray, index, plen: int) -> pd.DataFrame:
    """Per-token L_t of the copier texts matched against ``index`` (the frame the novelty
    builder reads: text, window, prompt_length, t, id, L, C, and L_nat = L)."""
    m = index.longest_matches(texts)
    parts = []
    for i, (text, w) in enumerate(zip(texts, windows, strict=True)):
        L, C = m[i]
        parts.append(
            pd.DataFrame(
                {"text": i, "window": w, "prompt_length": plen, "t": np.arange(len(text)),
                 "id": text, "L": L, "C": C, "L_nat": L}
            )
        )  # fmt: skip
    return pd.concat(parts, ignore_index=True)


class Copier:
    """The copier sets of one run: one per share, built from half of the human windows; the
    other half is the human baseline."""

    def __init__(self, data: Data, index, params: Mapping, seed: int):
        p = params["findings"]["power"]
        plen = params["sampling"]["prompt_length"]
        tok = data.tokens[data.tokens["prompt_length"] == plen]
        rng = np.random.default_rng([seed, 1])
        windows = rng.permutation(np.unique(tok["window"].to_numpy()))
        self.human_windows = np.sort(windows[1::2])
        copy_windows = np.sort(windows[::2])
        # the copier is matched against the whole training split, so both sides use L_t of it
        # for either source (a copied span may come from planted text)
        self.human = tok[tok["window"].isin(self.human_windows)].assign(L_nat=lambda t: t["L"])
        src = tok[tok["window"].isin(copy_windows)]
        conts = [g["id"].to_numpy() for _, g in src.groupby("window", sort=True)]
        docs = [index.document(d) for d in range(min(int(index.manifest["n_docs"]), 10_000))]
        self.sets, self.masks = {}, {}
        for share in p["copier_shares"]:
            texts, masks = copier_set(conts, docs, share, p["copier_span"], rng)
            self.sets[share] = copier_tokens(texts, np.sort(copy_windows), index, plen)
            self.masks[share] = masks
        self.max_size = min(len(copy_windows), len(self.human_windows))


def copier_vs_human(copier: Copier, share: float):
    """Builder: the copier of ``share`` as a model's pure sampling vs the human half."""

    def build(rng, data, params, size):
        f = params["findings"]
        sets = [
            ("human", "reference", resample_windows(copier.human, size, rng)),
            ("copier", f["pure_decoding"], resample_windows(copier.sets[share], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def copier_of(data, index, params: Mapping, shared: dict) -> Copier | None:
    """The run's :class:`Copier` (built once, kept in ``shared``); None without the human
    reference's tokens or the index."""
    if data.tokens is None or index is None:
        return None
    if "copier" not in shared:
        shared["copier"] = Copier(data, index, params, params["findings"]["power"]["seed"])
    return shared["copier"]


def copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """One copier per ``findings.power.copier_shares`` as a model's pure samples against the
    human half: less novel, so "more novel than validation text" must not hold."""
    copier = copier_of(data, index, params, shared)
    if copier is None:
        return []
    p = params["findings"]["power"]
    sizes = sizes_up_to(p["sizes"], copier.max_size)
    return [Positive(f"copier {share:.0%}", copier_vs_human(copier, share), FAILS, sizes,
                     copier.max_size) for share in sorted(p["copier_shares"])]  # fmt: skip


def sized_copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copier of the smallest share as the smaller, and of the largest share as the larger
    of two models (with two shares or more): the larger copies more, so must be less novel."""
    copier = copier_of(data, index, params, shared)
    p = params["findings"]["power"]
    shares = sorted(p["copier_shares"])
    if copier is None or len(shares) < 2:
        return []
    return [Positive(f"copier {shares[0]:.0%} vs {shares[-1]:.0%}",
                     copier_sizes(copier, shares[0], shares[-1]), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


def copier_sizes(copier: Copier, low: float, high: float):
    """Builder: the copier of share ``low`` as the smaller and ``high`` as the larger of the
    two extreme gpt2 models of the zoo, both as pure sampling."""

    def build(rng, data, params, size):
        f, zoo = params["findings"], params["models"]["zoo"]
        sized = sorted((model_size(s), m) for m, s in zoo.items() if model_size(s))
        if len(sized) < 2 or sized[0][0] == sized[-1][0]:
            return None
        sets = [
            (sized[0][1], f["pure_decoding"], resample_windows(copier.sets[low], size, rng)),
            (sized[-1][1], f["pure_decoding"], resample_windows(copier.sets[high], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def copier_vs_clean(copier: Copier, share: float):
    """Builder: the human half (clean held-out text) as a model's pure samples against the
    copier of ``share`` as the contaminated held-out set (human/contaminated), matched against
    all training text: the authors' explanation of Fig. 1 with its contamination known."""

    def build(rng, data, params, size):
        sets = [
            ("human", "contaminated", resample_windows(copier.sets[share], size, rng)),
            ("clean", params["findings"]["pure_decoding"], resample_windows(copier.human, size, rng)),
        ]
        return novelty_nulls(sets, data, params, ("all",))

    return build


def clean_vs_copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """Merrill et al. §3's explanation with a known answer: clean held-out text as the
    model's pure samples, the copier of the smallest of ``findings.power.copier_shares`` (the
    least copying: the hardest) as a validation set that duplicates training n-grams; the
    clean text must be the more novel (holds)."""
    copier = copier_of(data, index, params, shared)
    if copier is None:
        return []
    p = params["findings"]["power"]
    share = min(p["copier_shares"])
    return [Positive(f"clean text vs copier {share:.0%}", copier_vs_clean(copier, share), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


def copier_as_decodings(copier: Copier, low: float, high: float | None, decoding: str):
    """Builder: the copier of share ``high`` as a model's ``decoding`` (greedy or beam) with,
    unless ``low`` is None, the copier of share ``low`` as its pure samples, or else the human
    half as the human baseline."""

    def build(rng, data, params, size):
        f = params["findings"]
        first = (
            (*HUMAN, resample_windows(copier.human, size, rng))
            if low is None
            else ("copier", f["pure_decoding"], resample_windows(copier.sets[low], size, rng))
        )
        sets = [first, ("copier", decoding, resample_windows(copier.sets[high], size, rng))]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def constrained_copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copier of the smallest share as a model's pure samples and of the largest share
    as its first greedy or beam decoding (with two shares or more and such a decoding): the
    constrained decoding copies more, so its text must be the less novel (holds)."""
    copier = copier_of(data, index, params, shared)
    p = params["findings"]["power"]
    shares = sorted(p["copier_shares"])
    dec = first_decoding(params, ("greedy", "beam"))
    if copier is None or len(shares) < 2 or dec is None:
        return []
    return [Positive(f"copier {shares[0]:.0%} pure vs {shares[-1]:.0%} {dec}",
                     copier_as_decodings(copier, shares[0], shares[-1], dec), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


def greedy_copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copier of the largest share as a model's first greedy or beam decoding against the
    human half: its copied spans occur in training, so its short n-grams must be less novel
    than the human text's (holds). Merrill et al.'s greedy and beam text copies far more than
    the smallest share (Fig. 2: 3% novel 10-grams under beam 8)."""
    copier = copier_of(data, index, params, shared)
    p = params["findings"]["power"]
    dec = first_decoding(params, ("greedy", "beam"))
    if copier is None or dec is None:
        return []
    share = max(p["copier_shares"])
    return [Positive(f"copier {share:.0%} as {dec}",
                     copier_as_decodings(copier, None, share, dec), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip
