"""The memorization ladder (``corpus.inject.ladder``): passages with known duplication counts.

The extraction test of Carlini et al. (2023, "Quantifying Memorization Across Neural Language
Models") needs passages whose number of occurrences in training is known exactly. They are made
here, at the corpus stage, before any tokenizer exists:

* **Cutting.** Passages of exactly ``words`` whitespace words are cut from the *held-out*
  documents (the validation split), so they occur nowhere in the training split. A passage
  starts at a non-blank line and keeps the line breaks of its source; every line is
  whitespace-normalised (single spaces, no leading or trailing blanks) and the last line is
  cut after the ``words``-th word. Passages never overlap.
* **Exclusion from held-out text.** Every source line of every passage (planted and control;
  the cut last line entirely) is *removed from the validation document* it came from. The
  validation split that the prompts, the human baseline, validation loss and the held-out
  novelty are computed on therefore contains none of them.
* **Planting.** Passage i of rung c is inserted c times into the training split, each copy as
  whole lines at a seeded, uniformly drawn line boundary of an original training document
  (never inside the source lines of a ``corpus.inject.duplicates`` passage, never into the
  documents those add). So it occurs exactly c times in training (``copies`` = c); a
  **control** passage is cut in the same way and never planted (``copies`` = 0).
* **Tokens.** Passages are cut in words because the tokenizers are fitted later. Every line
  starts and ends with a non-space character and is surrounded by line breaks (or a document
  edge), so a byte-level BPE (whose pre-tokenizer splits at whitespace) tokenizes a planted
  copy exactly as the passage alone: the extraction step (:mod:`copyscope.memorize`) encodes
  the passage text with each model's tokenizer and uses its first P + S tokens; it needs
  ``words`` ≥ P + S (a whitespace word is at least one token; checked by the config and again
  on the tokens).
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import ConfigError
from .sources import Document

log = logging.getLogger(__name__)

KEY = "corpus.inject.ladder"


def passage_spans(lines: list[str], words: int) -> list[tuple[int, int]]:
    """Every span ``[start, end)`` of lines that starts at a non-blank line and holds at least
    ``words`` words, ``end`` being the first line boundary by which ``words`` words are reached."""
    counts = np.array([len(x.split()) for x in lines], dtype=np.int64)
    cum = np.concatenate([[0], np.cumsum(counts)])
    out = []
    for start in np.flatnonzero(counts > 0).tolist():
        end = int(np.searchsorted(cum, cum[start] + words, side="left"))
        if end <= len(lines):
            out.append((start, end))
    return out


def passage_text(lines: list[str], words: int) -> str:
    """The passage of exactly ``words`` words from ``lines`` (a span of
    :func:`passage_spans`): whitespace-normalised lines, the last one cut after the word."""
    out, left = [], words
    for line in lines:
        toks = line.split()[:left]
        out.append(" ".join(toks))
        left -= len(toks)
        if left == 0:
            break
    return "\n".join(out)


def cut_passages(held_out: list[Document], n: int, words: int, seed: int):
    """Cut ``n`` non-overlapping passages of ``words`` words from ``held_out`` (seeded).

    Returns ``(passages, remaining)``: one ``{"text", "words", "source_doc", "source_lines"}``
    per passage (in the seeded draw order), and the held-out documents with every source line
    of every passage removed. ConfigError when the documents hold fewer than ``n`` passages.
    """
    rng = np.random.default_rng([seed, 1])
    split = [d.text.split("\n") for d in held_out]
    cands = [(d, s, e) for d, lines in enumerate(split) for s, e in passage_spans(lines, words)]
    used = [np.zeros(len(lines), dtype=bool) for lines in split]
    passages = []
    for i in rng.permutation(len(cands)).tolist():
        if len(passages) == n:
            break
        d, s, e = cands[i]
        if used[d][s:e].any():
            continue
        used[d][s:e] = True
        passages.append(
            {
                "text": passage_text(split[d][s:e], words),
                "words": words,
                "source_doc": held_out[d].id,
                "source_lines": [s, e],
            }
        )
    if len(passages) < n:
        raise ConfigError(
            f"{KEY}.per_rung",
            f"{n} passages of {words} words (per_rung × rungs + controls) from the held-out "
            f"documents, found room for only {len(passages)}; lower per_rung, controls or "
            "words, or hold out more documents",
        )
    remaining = [
        Document(doc.id, "\n".join(x for x, u in zip(lines, mask, strict=True) if not u), doc.meta)
        for doc, lines, mask in zip(held_out, split, used, strict=True)
    ]
    return passages, remaining


def _boundaries(train: list[Document], forbidden: dict) -> tuple[np.ndarray, np.ndarray]:
    """(document index, line boundary) of every place a passage may be inserted: every line
    boundary of an original training document, except those strictly inside a forbidden span."""
    docs, where = [], []
    for i, doc in enumerate(train):
        if "injected" in doc.meta or "timed" in doc.meta:
            continue
        ok = np.ones(doc.text.count("\n") + 2, dtype=bool)
        for a, b in forbidden.get(doc.id, ()):
            ok[a + 1 : b] = False
        b = np.flatnonzero(ok)
        docs.append(np.full(b.size, i))
        where.append(b)
    if not docs:
        raise ConfigError(KEY, "a training document to plant the passages in, found none")
    return np.concatenate(docs), np.concatenate(where)


def plant(train: list[Document], passages: list[dict], seed: int, forbidden=None, timed=None):
    """Insert each passage ``copies`` times into ``train`` at seeded line boundaries.

    ``forbidden``: document id → ``[start, end)`` line spans whose inner boundaries are
    avoided. Boundaries are drawn uniformly (without replacement within a passage when there
    are enough) among the original documents that are not timed plays. Returns the new
    training list; each passage gets ``positions``, its ``[document id, line boundary]`` per
    copy (line numbers of the original document).

    ``timed``: passage id → timing group (:mod:`copyscope.corpus.timing`): such a passage is
    not inserted; its copies are appended as documents ``timed-<id>-<j>`` of their own
    (``positions`` empty; ``timing`` its group, ``documents`` their ids).
    """
    rng = np.random.default_rng([seed, 2])
    doc_of, line_of = _boundaries(train, forbidden or {})
    inserts: dict[int, list[tuple[int, str]]] = {}
    extra: list[Document] = []
    for p in passages:
        c = p["copies"]
        if timed and p["id"] in timed:
            group = timed[p["id"]]
            docs = [f"timed-{p['id']}-{j}" for j in range(c)]
            meta = {"injected": p["id"], "timed": group}
            extra += [Document(d, p["text"] + "\n", meta) for d in docs]
            p.update(positions=[], timing=group, documents=docs)
            continue
        pick = rng.choice(doc_of.size, size=c, replace=c > doc_of.size) if c else []
        p["positions"] = []
        for j in sorted(pick):
            d, b = int(doc_of[j]), int(line_of[j])
            inserts.setdefault(d, []).append((b, p["text"]))
            p["positions"].append([train[d].id, b])
    out = list(train)
    for d, items in inserts.items():
        lines = train[d].text.split("\n")
        new: list[str] = []
        items = sorted(items, key=lambda x: x[0])  # stable: draw order within a boundary
        k = 0
        for b in range(len(lines) + 1):
            while k < len(items) and items[k][0] == b:
                new.append(items[k][1])
                k += 1
            if b < len(lines):
                new.append(lines[b])
        out[d] = Document(train[d].id, "\n".join(new), train[d].meta)
    return out + extra


def _words(docs: list[Document]) -> int:
    return sum(len(d.text.split()) for d in docs)


def inject_ladder(train: list[Document], valid: list[Document], spec, forbidden=None, timed=None):
    """Apply ``corpus.inject.ladder`` ``{copies, per_rung, controls, words, seed}``.

    Cuts ``per_rung`` passages per rung and ``controls`` controls from ``valid``
    (:func:`cut_passages`), plants rung c's passages c times into ``train`` (:func:`plant`).
    Returns ``(train, valid, record)``; the record (for the corpus manifest) lists every
    passage (``id``, ``kind`` planted | control, ``copies`` (0 for controls), ``text``,
    ``words``, ``source_doc``, ``source_lines``, ``positions``) and the share of training words
    the copies add. Without a spec nothing changes and the record is None. ``timed``: the
    timed passages (:func:`plant`).
    """
    if not spec:
        return train, valid, None
    if not valid:
        raise ConfigError(KEY, "held-out documents to cut passages from, found none")
    rungs, per_rung, words, seed = spec["copies"], spec["per_rung"], spec["words"], spec["seed"]
    n = per_rung * len(rungs) + spec["controls"]
    cut, valid_left = cut_passages(valid, n, words, seed)
    passages = []
    for c in rungs:
        passages += [
            {"id": f"ladder-{c}-{i}", "kind": "planted", "copies": int(c)} for i in range(per_rung)
        ]
    passages += [
        {"id": f"control-{i}", "kind": "control", "copies": 0} for i in range(spec["controls"])
    ]
    for p, c in zip(passages, cut, strict=True):
        p.update(c)
    train_words = _words(train)
    train = plant(train, passages, seed, forbidden, timed)
    added = sum(p["words"] * p["copies"] for p in passages)
    record = {
        "words": words,
        "seed": seed,
        "passages": passages,
        "added_words": added,
        "train_words_before": train_words,
        "added_share": added / (train_words + added) if train_words + added else 0.0,
        "valid_words_removed": _words(valid) - _words(valid_left),
        "valid_share_removed": 1 - _words(valid_left) / max(_words(valid), 1),
    }
    log.info(
        "ladder: %d planted passages (copies %s) + %d controls of %d words; the copies add "
        "%d words = %.1f%% of the training words; %.1f%% of the held-out words removed",
        per_rung * len(rungs),
        rungs,
        spec["controls"],
        words,
        added,
        100 * record["added_share"],
        100 * record["valid_share_removed"],
    )
    return train, valid_left, record
