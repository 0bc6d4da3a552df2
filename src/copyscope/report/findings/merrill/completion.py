"""Merrill et al. 2024, Fig. 1 (right), and the authors' analysis code: the completion-loss
rows (``completion-loss-in-training``; ``completion-loss-frequency``, a related claim), with
their nulls (in-training labels permuted within each n-gram length, training counts shuffled
within each L_t) and their known positives (a gap planted on permuted labels, a slope planted
on shuffled counts)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ....novelty.metrics import FREQUENCY_LENGTHS, completion_aggregate, completion_frame
from ....stats import sign_test, within, z_signs
from ... import completion_loss as completion_report
from ... import per_text
from ..core import (
    FAILS,
    HOLDS,
    MERRILL,
    UNCLEAR,
    ZERO,
    Null,
    Positive,
    Tables,
    ci,
    ci_of,
    claim,
    decided,
    g,
    p_verdict,
)
from ..data import STATE, Data, projected_sizes


def _curves(table: pd.DataFrame, min_tokens: int) -> dict[str, pd.DataFrame]:
    """model → completion-loss rows, one column per curve (``in training``, ``not in
    training``), indexed by x, only the points with at least ``min_tokens`` tokens."""
    t = table[table["tokens"] >= min_tokens]
    return {
        m: rows.pivot_table(index="x", columns="curve", values="loss")
        for m, rows in t.groupby("model", sort=False)
    }


def completion_points_frame(completion: pd.DataFrame) -> pd.DataFrame:
    """The tokens of the two completion-loss curves the rule compares (``in training``,
    ``not in training``, :func:`copyscope.novelty.metrics.completion_frame`) of every model,
    as a frame (model, curve, x, loss) sorted by model and x (stable)."""
    parts = []
    for model, f in completion.groupby("model", sort=False):
        pts = completion_frame(per_text(f, "L"), per_text(f, "loss"))
        pts = pts[pts["curve"].isin(["in training", "not in training"])]
        parts.append(pts.assign(model=model).sort_values("x", kind="stable"))
    return pd.concat(parts, ignore_index=True)[["model", "curve", "x", "loss"]]


def _completion_points(data: Data) -> pd.DataFrame:
    cached = STATE.get("completion_points")
    if cached is not None and cached[0] is data.completion:
        return cached[1]
    pts = completion_points_frame(data.completion)
    STATE["completion_points"] = (data.completion, pts)
    return pts


def permuted_in_training(rng, data, params):
    """Merrill et al.'s completion loss with the in-training label permuted among the tokens
    of each n-gram size x, per model: at every x, which tokens complete an n-gram seen in
    training is random, so neither curve can be lower (the loss's dependence on x stays)."""
    if data.completion is None or not len(data.completion):
        return None
    pts = _completion_points(data)
    tables = []
    for model, grp in pts.groupby("model", sort=False):
        curve = grp["curve"].to_numpy()[within(grp["x"].to_numpy(), rng)]
        tables.append(completion_aggregate(grp.assign(curve=curve), model))
    return {"completion_loss": pd.concat(tables, ignore_index=True)}


PLANTED_GAP = 0.5
"""The known positive's gap (nats): tokens completing an n-gram seen in training made this much
easier than the others of their n-gram size. copyscope's choice (the paper's Fig. 1 (right)
gives no number to take); the default's models show gaps of a few nats."""
CURVES = ("in training", "not in training")


def completion_text_points(data: Data, shared: dict) -> dict[str, list[pd.DataFrame]]:
    """model → the points of each validation text on the two curves the rule compares
    (:func:`copyscope.novelty.metrics.completion_frame` of that text alone: curve, x, loss),
    built once per power job (``shared``)."""
    if "completion_texts" not in shared:
        out = {}
        for model, f in data.completion.groupby("model", sort=False):
            texts = []
            for L, loss in zip(per_text(f, "L"), per_text(f, "loss"), strict=True):
                pts = completion_frame([L], [loss])
                texts.append(pts[pts["curve"].isin(CURVES)])
            out[model] = texts
        shared["completion_texts"] = out
    return shared["completion_texts"]


def planted_gap(texts: dict[str, list[pd.DataFrame]], gap: float):
    """Builder: per model, ``size`` validation texts drawn with replacement, their in-training
    labels permuted among the tokens of each n-gram size x (as the null
    :func:`permuted_in_training`), then the loss of every token labelled in training lowered by
    ``gap`` nats: the in-training curve is lower at every x by construction."""

    def build(rng, data, params, size):
        tables = []
        for model, parts in texts.items():
            pick = rng.integers(0, len(parts), size)
            pts = pd.concat([parts[i] for i in pick], ignore_index=True)
            pts = pts.sort_values("x", kind="stable")
            curve = pts["curve"].to_numpy()[within(pts["x"].to_numpy(), rng)]
            loss = pts["loss"].to_numpy() - gap * (curve == CURVES[0])
            tables.append(completion_aggregate(pts.assign(curve=curve, loss=loss), model))
        return {"completion_loss": pd.concat(tables, ignore_index=True)}

    return build


def completion_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """:data:`PLANTED_GAP` planted on permuted labels, at the run's validation texts per model
    (the fewest of any model) and projected sizes."""
    if data.completion is None or not len(data.completion):
        return []
    texts = completion_text_points(data, shared)
    name = f"in-training completions {PLANTED_GAP:g} nats easier"
    return per_text_positive(texts, name, planted_gap(texts, PLANTED_GAP), params)


def per_text_positive(texts: dict, name: str, build, params: Mapping) -> list[Positive]:
    """The positive ``name`` built by ``build`` over per-text parts (model → texts), measured at
    the run's texts per model (the fewest of any model) and the projected sizes."""
    observed = min(len(parts) for parts in texts.values())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], observed)
    return [Positive(name, build, HOLDS, sizes, observed)]


@claim(
    "completion-loss-in-training",
    "The loss of the token completing an n-gram of validation text is lower when that n-gram "
    "occurs in training, across n",
    MERRILL,
    "Fig. 1 (right)",
    "Pythia models on the Pile's validation text; per-token loss grouped by n",
    ("completion_loss",),
    "per model, over the n-gram lengths x where both curves have at least {min_tokens} tokens: "
    "k of m points have the lower loss on the in-training curve; two-sided sign test "
    "(binomial, p = 1/2): holds if k > m/2 with p < {alpha}, does not hold if k < m/2 with "
    "p < {alpha}, else inconclusive; the claim holds if every model holds, "
    "does not hold if every model does not",
    nulls=(Null("permuted in-training labels", permuted_in_training),),
    positives=completion_positives,
)
def completion_loss_in_training(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 1 (right): tokens that complete an n-gram seen in training have
    a lower loss than tokens that complete a novel n-gram of the same length."""
    f = params["findings"]
    parts, verdicts, models = [], [], []
    for model, c in _curves(tables["completion_loss"], f["min_tokens"]).items():
        if not {"in training", "not in training"} <= set(c.columns):
            continue
        both = c.dropna(subset=["in training", "not in training"])
        k, m = int((both["in training"] < both["not in training"]).sum()), len(both)
        p = sign_test(k, m)
        verdict = p_verdict(k - m / 2, p, +1, f["alpha"])
        gap = (both["not in training"] - both["in training"]).mean()
        parts.append(
            f"{model}: lower at {k} of {m} lengths (p = {g(p)}), mean gap {g(gap)} nats → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(
        parts,
        verdicts,
        f"no model has both curves with ≥ {f['min_tokens']} tokens per point",
        models,
    )


def shuffled_count_column(f: pd.DataFrame, rng) -> tuple[np.ndarray, np.ndarray]:
    """``(C, used)`` of one model's per-token frame: its training counts with those of the
    loss-vs-frequency tokens (t ≥ 1, L_t one of :data:`FREQUENCY_LENGTHS`) shuffled among the
    tokens of the same L_t, and the positions of those tokens."""
    L, C = f["L"].to_numpy(), f["C"].to_numpy().copy()
    used = np.flatnonzero(f["text"].duplicated().to_numpy() & np.isin(L, FREQUENCY_LENGTHS))
    by_length = used[np.argsort(L[used], kind="stable")]
    C[by_length] = C[by_length[within(L[by_length], rng)]]
    return C, used


def shuffled_counts(rng, data, params):
    """The loss-vs-frequency tokens (t ≥ 1, L_t one of the fixed n of
    :data:`copyscope.novelty.metrics.FREQUENCY_LENGTHS`) with their training counts C_t
    shuffled among the tokens of the same L_t, per model: the slope of loss on log10 C_t is 0
    by construction; the slope table is built by the report's own builder
    (:func:`copyscope.report.completion_loss.build_slope`)."""
    if data.completion is None or not len(data.completion):
        return None
    frames = []
    for model, f in data.completion.groupby("model", sort=False):
        C, _ = shuffled_count_column(f, rng)
        frames.append((model, f.assign(C=C)))
    return {"completion_loss_slope": completion_report.build_slope(frames, params["novelty"])}


PLANTED_SLOPE = 0.25
"""The frequency row's known positive (nats per decade of training count): copyscope's choice
(the authors' analysis code plots the relation and states no number)."""


def completion_text_frames(data: Data, shared: dict) -> dict[str, list[pd.DataFrame]]:
    """model → the per-token frame of each validation text, split once per power job."""
    if "completion_frames" not in shared:
        shared["completion_frames"] = {
            model: [t for _, t in f.groupby("text", sort=True)]
            for model, f in data.completion.groupby("model", sort=False)
        }
    return shared["completion_frames"]


def planted_slope(texts: dict[str, list[pd.DataFrame]], slope: float):
    """Builder: per model, ``size`` validation texts drawn with replacement (renumbered, so a
    text drawn twice counts twice), their counts shuffled as the null
    :func:`shuffled_counts` does, then the loss of every loss-vs-frequency token lowered by
    ``slope`` per decade of its count: the slope is −``slope`` at every L by construction."""

    def build(rng, data, params, size):
        frames = []
        for model, parts in texts.items():
            pick = rng.integers(0, len(parts), size)
            f = pd.concat([parts[i].assign(text=k) for k, i in enumerate(pick)], ignore_index=True)
            C, used = shuffled_count_column(f, rng)
            loss = f["loss"].to_numpy().copy()
            loss[used] -= slope * np.log10(C[used])
            frames.append((model, f.assign(C=C, loss=loss)))
        return {"completion_loss_slope": completion_report.build_slope(frames, params["novelty"])}

    return build


def slope_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """:data:`PLANTED_SLOPE` planted on shuffled counts, at the run's validation texts per
    model (the fewest of any model) and projected sizes."""
    if data.completion is None or not len(data.completion):
        return []
    texts = completion_text_frames(data, shared)
    name = f"slope −{PLANTED_SLOPE:g} nats per decade planted"
    return per_text_positive(texts, name, planted_slope(texts, PLANTED_SLOPE), params)


@claim(
    "completion-loss-frequency",
    "For a fixed n-gram length, n-grams that occur more often in training are completed with "
    "lower loss",
    MERRILL,
    "released analysis code (loss by training frequency)",
    "Pythia on the Pile's validation text; tokens with L_t = L for fixed L, bucketed by "
    "log10 count",
    ("completion_loss_slope",),
    "per model and n-gram length L with at least {min_tokens} tokens from at least {min_texts} "
    "texts: the slope of token loss on log10 C_t over the tokens with L_t = L, with its 95% "
    "bootstrap CI over texts; every "
    "(model, L) at once (z from the 95% CIs, Bonferroni over the (model, L), α = {alpha}): a "
    "(model, L) holds if the slope is below 0, does not hold if above 0, else inconclusive; "
    "the claim holds if every (model, L) holds, does not hold if every (model, L) does not",
    setting="the papers' text does not state this; it is what the authors' analysis code plots",
    related=True,
    nulls=(Null("shuffled counts", shuffled_counts),),
    positives=slope_positives,
)
def completion_loss_frequency(tables: Tables, params: Mapping):
    """Merrill et al. 2024 (analysis code): for a fixed length L, more frequent training
    n-grams are completed with lower loss (negative slope of loss on log10 count)."""
    f, t = params["findings"], tables["completion_loss_slope"]
    t = t[(t["tokens"] >= f["min_tokens"]) & (t["texts"] >= f["min_texts"])]
    t = t[np.isfinite(t["slope"].astype(float))]
    slopes = [ci_of(r, "slope", "slope_lo", "slope_hi") for _, r in t.iterrows()]
    # all (model, L) at once: four 95% intervals would err one in ten times together
    signs = z_signs(slopes, [ZERO] * len(slopes), f["alpha"])
    parts, verdicts, models = [], [], []
    for (_, r), v, sign in zip(t.iterrows(), slopes, signs, strict=True):
        verdict = HOLDS if sign < 0 else FAILS if sign > 0 else UNCLEAR
        parts.append(
            f"{r['model']} L={int(r['n'])}: slope {ci(v)} nats per decade "
            f"({int(r['tokens'])} tokens, {int(r['texts'])} texts) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(r["model"])
    return decided(
        parts,
        verdicts,
        f"no length L with ≥ {f['min_tokens']} tokens from ≥ {f['min_texts']} texts and a slope",
        models,
    )
