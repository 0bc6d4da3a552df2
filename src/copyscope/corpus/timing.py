"""When training sees which text (``corpus.inject.timing``): known-answer timing.

The training order (:func:`copyscope.lm.train.timed_order`) puts some training text only into
the first or only into the last ``window`` share of the training steps; everything else is
spread over the whole run in the seeded random order. What is timed is chosen here, at the
corpus stage, seeded, and recorded in the corpus manifest's ``timing`` block:

* **Plays** (``plays`` per group): of the original training documents (sorted ids, one seeded
  permutation, ``[seed, 5]``), the first ``plays`` are *early*, the next ``plays`` *late*. A
  timed play gets no planted text (no ladder copy, no contamination-set item, no duplicated passage,
  no memorised-baseline passage is taken from or put into it), so everything in it is timed.
  At least one original training document stays untimed.
* **Ladder passages** (``ladder`` per rung and group): for every rung of the ladder, a seeded
  permutation (``[seed, 6, rung]``) of its passages' indices; the first ``ladder`` passages are
  early, the next ``ladder`` late (``2 × ladder ≤ per_rung``). A timed passage's c copies are
  not inserted into training plays but added as c documents ``timed-<passage>-<j>`` of their
  own (a timed window must hold timed text only).
* **Spread**: every other training document, the excerpt documents included
  (``corpus.inject.excerpts``), is seen over the whole run.

The block: ``{"window", "seed", "groups": {"early": {"plays", "ladder", "documents"},
"late": {…}}}`` — ``documents`` are the training document ids the trainer times (the plays
and the timed passages' copies).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import ConfigError
from .sources import Document

KEY = "corpus.inject.timing"
GROUPS = ("early", "late")
"""The timing groups, besides ``spread`` (every untimed training document)."""
SPREAD = "spread"
SET_PREFIX = "timing "
"""The training dynamics name the sets of the timed text ``timing <group>`` (:func:`set_name`):
``timing early``, ``timing late``, ``timing spread``."""


def set_name(group: str) -> str:
    """The dynamics table's set of timing group ``group`` (one of :data:`GROUPS` or
    :data:`SPREAD`)."""
    return SET_PREFIX + group


def timed_windows(steps: int, window: float) -> dict[str, tuple[int, int]]:
    """The steps ``[first, end)`` of each timed group (:data:`GROUPS`) in a training of
    ``steps`` steps: ``early`` the first ``w = max(1, round(window × steps))`` steps, ``late``
    the last ``w`` (the trainer's, :func:`copyscope.lm.train.timed_order`; the scorecard's
    timing rows read it too)."""
    w = max(1, min(steps, round(window * steps)))
    return {"early": (0, w), "late": (steps - w, steps)}


def pick_plays(train: list[Document], n: int, seed: int) -> dict[str, str]:
    """Play id → timing group: a seeded permutation of the sorted ids of the original training
    documents (not planted ones); the first ``n`` early, the next ``n`` late. ConfigError when
    no original document would stay untimed."""
    if n <= 0:
        return {}
    ids = sorted(d.id for d in train if "injected" not in d.meta)
    if 2 * n >= len(ids):
        raise ConfigError(
            f"{KEY}.plays",
            f"{n} early and {n} late play(s) and at least one untimed training document, found "
            f"{len(ids)} training document(s); lower plays",
        )
    order = np.random.default_rng([seed, 5]).permutation(len(ids)).tolist()
    ranked = [ids[i] for i in order]
    return {ranked[k]: GROUPS[k // n] for k in range(2 * n)}


def pick_ladder(rungs: list[int], per_rung: int, n: int, seed: int) -> dict[str, str]:
    """Ladder passage id (``ladder-<c>-<i>``, :func:`copyscope.corpus.ladder.inject_ladder`) →
    timing group: per rung c a seeded permutation of ``range(per_rung)``; the first ``n``
    early, the next ``n`` late. ConfigError when ``2 n > per_rung``."""
    if n <= 0:
        return {}
    if 2 * n > per_rung:
        raise ConfigError(
            f"{KEY}.ladder",
            f"{n} early and {n} late passage(s) per rung out of corpus.inject.ladder.per_rung = "
            f"{per_rung}; lower ladder or raise per_rung",
        )
    out = {}
    for c in rungs:
        order = np.random.default_rng([seed, 6, int(c)]).permutation(per_rung).tolist()
        for k in range(2 * n):
            out[f"ladder-{c}-{order[k]}"] = GROUPS[k // n]
    return out


def mark_plays(train: list[Document], plays: Mapping[str, str]) -> list[Document]:
    """``train`` with each timed play's metadata holding ``timed`` (its group): no planting
    goes into it or is taken from it."""
    return [
        Document(d.id, d.text, {**d.meta, "timed": plays[d.id]}) if d.id in plays else d
        for d in train
    ]


def timing_record(spec: Mapping, plays: Mapping[str, str], ladder: dict | None) -> dict:
    """The manifest's ``timing`` block (module docstring) from the chosen plays and the ladder
    record (its timed passages carry ``timing`` and ``documents``)."""
    groups = {g: {"plays": [], "ladder": [], "documents": []} for g in GROUPS}
    for play, g in sorted(plays.items()):
        groups[g]["plays"].append(play)
        groups[g]["documents"].append(play)
    for p in (ladder or {}).get("passages", []):
        if p.get("timing") in groups:
            groups[p["timing"]]["ladder"].append(p["id"])
            groups[p["timing"]]["documents"] += p["documents"]
    return {"window": float(spec["window"]), "seed": int(spec["seed"]), "groups": groups}


def document_groups(manifest: Mapping, doc_ids: list[str]) -> list[str | None]:
    """The timing group of each training document id (None: spread), from a corpus
    manifest's ``timing`` block (all None without one)."""
    block = manifest.get("timing") or {}
    of = {d: g for g, grp in (block.get("groups") or {}).items() for d in grp["documents"]}
    return [of.get(str(d)) for d in doc_ids]


def timing_of(manifest: Mapping) -> dict[str, str]:
    """Item id (a play or a ladder passage) → its timing group, from a corpus manifest
    (``{}`` without timing; an item not listed is ``spread``)."""
    groups = (manifest.get("timing") or {}).get("groups") or {}
    return {i: g for g, grp in groups.items() for k in ("plays", "ladder") for i in grp[k]}


def training_plan(manifest_json, meta: Mapping) -> dict | None:
    """The ``timing`` argument of :func:`copyscope.lm.train.train_model` from a corpus
    manifest file and the tokenized training split's metadata (its ``doc_ids``):
    ``{"window", "groups"}``, or None without a ``timing`` block."""
    from ..io import read_json

    manifest = read_json(manifest_json)
    if not manifest.get("timing"):
        return None
    groups = document_groups(manifest, meta["doc_ids"])
    return {"window": manifest["timing"]["window"], "groups": groups}
