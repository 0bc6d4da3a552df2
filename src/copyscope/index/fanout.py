"""Per-shard fan-out of the longest-match queries (config ``index.query_fanout``).

A query job normally opens every shard of an index in one process (:class:`Index` merges them).
With fan-out the same answer is computed in three kinds of jobs, so that each cluster job maps
one shard only:

1. the stage writes the query texts of one text set (:func:`save_queries`, ``.npz``);
2. one job per (text set, shard) computes that shard's L_t and C_t (:func:`shard_matches`);
3. one job per text set merges the shards' answers exactly (:func:`merge_matches`): per token
   the length is the maximum over the shards (Merrill et al.'s non-novel suffix length) and the
   count the sum of the counts of the shards reaching that maximum; where no shard matches
   (L_t = 0) the count is the corpus size, as for :meth:`Index.longest_matches`.

The stage then reads the merged file through :class:`MatchedIndex`, which answers
``longest_matches`` for exactly those queries and opens the index itself only for the other
calls (``count``, ``locate``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import atomic_path
from .core import Index, Matches
from .verify import check_manifest, index_folder, meta_sha256, read_metadata


def _flat(queries: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(concatenated ids as int64, offsets) of a list of 1-D queries."""
    lens = np.array([len(q) for q in queries], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    parts = [np.asarray(q, dtype=np.int64) for q in queries]
    flat = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return flat, offsets


def queries_sha256(flat: np.ndarray, offsets: np.ndarray) -> str:
    """Fingerprint of a query set: sha256 of its int64 ids followed by its int64 offsets."""
    h = hashlib.sha256(np.ascontiguousarray(flat, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(offsets, dtype=np.int64).tobytes())
    return h.hexdigest()


def _save_npz(path, **arrays) -> None:
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)


def _load_npz(path, keys: Sequence[str], what: str) -> dict[str, np.ndarray]:
    path = Path(path)
    if not path.is_file():
        raise InputError(path, f"file not found (expected {what}, .npz)")
    with np.load(path, allow_pickle=False) as z:
        missing = [k for k in keys if k not in z.files]
        if missing:
            raise InputError(
                path, f"expected {what} with the arrays {list(keys)}, missing {missing}"
            )
        return {k: z[k] for k in keys}


def save_queries(path, queries: Sequence[np.ndarray]) -> str:
    """Write a text set's queries (``ids``, ``offsets``) to ``path``; returns their sha256."""
    flat, offsets = _flat(queries)
    _save_npz(path, ids=flat, offsets=offsets)
    return queries_sha256(flat, offsets)


def load_queries(path) -> list[np.ndarray]:
    """The queries written by :func:`save_queries`, one int64 array each."""
    z = _load_npz(path, ("ids", "offsets"), "queries written by save_queries")
    return np.split(z["ids"], z["offsets"][1:-1]) if len(z["offsets"]) > 1 else []


def shard_matches(shard_dir, queries: Sequence[np.ndarray]) -> Matches:
    """L_t and C_t of every query position against one shard directory alone (the count is
    the shard's size where the shard has no match; :func:`merge_matches` replaces it)."""
    return Index(shard_dir).longest_matches(queries)  # copyscope.index.open of one shard


def merge_matches(parts: Sequence[Matches], n_tokens: int) -> Matches:
    """Exact merge of per-shard answers over the same queries: L_t = max over the shards,
    C_t = sum of the counts of the shards whose length equals that maximum, and C_t =
    ``n_tokens`` (the corpus size) where L_t = 0 — the definition of
    :meth:`Index.longest_matches` over the union of the shards."""
    if not parts:
        raise ValueError("merge_matches needs at least one shard's matches")
    offsets = parts[0].offsets
    for p in parts[1:]:
        if not np.array_equal(p.offsets, offsets):
            raise ValueError("the shards' matches are for different queries")
    lengths = np.stack([np.asarray(p.length, dtype=np.int64) for p in parts])
    counts = np.stack([np.asarray(p.count, dtype=np.int64) for p in parts])
    best = lengths.max(axis=0)
    total = np.where(lengths == best, counts, 0).sum(axis=0, dtype=np.int64)
    total[best == 0] = n_tokens
    return Matches(best, total, np.asarray(offsets, dtype=np.int64).copy())


def save_matches(path, matches: Matches, queries_sha: str, shard_sha: Sequence[str]) -> None:
    """Write matches with the fingerprint of their queries and the ``meta.json`` sha256 of
    every shard they cover."""
    _save_npz(
        path,
        length=np.asarray(matches.length, dtype=np.int64),
        count=np.asarray(matches.count, dtype=np.int64),
        offsets=np.asarray(matches.offsets, dtype=np.int64),
        queries_sha256=np.array(queries_sha),
        shard_meta_sha256=np.array(sorted(shard_sha), dtype=str),
    )


MATCH_KEYS = ("length", "count", "offsets", "queries_sha256", "shard_meta_sha256")


def load_matches(path) -> tuple[Matches, str, list[str]]:
    """(matches, queries sha256, shard meta sha256s) written by :func:`save_matches`."""
    z = _load_npz(path, MATCH_KEYS, "matches written by save_matches")
    m = Matches(z["length"], z["count"], z["offsets"])
    return m, str(z["queries_sha256"]), [str(s) for s in z["shard_meta_sha256"]]


def shard_matches_file(shard_dir, queries_npz, out) -> Matches:
    """:func:`shard_matches` of the queries in ``queries_npz`` against ``shard_dir``, saved to
    ``out``."""
    queries = load_queries(queries_npz)
    m = shard_matches(shard_dir, queries)
    save_matches(out, m, queries_sha256(*_flat(queries)), [meta_sha256(Path(shard_dir))])
    return m


def merge_matches_files(index_dir, parts, out) -> Matches:
    """Merge the per-shard files ``parts`` of the index ``index_dir`` (:func:`merge_matches`):
    together they must cover every shard ``index.json`` lists, once, for the same queries."""
    manifest = read_metadata(index_folder(index_dir) / "index.json", check_manifest)
    loaded = [load_matches(p) for p in parts]
    shas = sorted(s for _, _, covered in loaded for s in covered)
    expected = sorted(manifest["shard_meta_sha256"].values())
    if shas != expected:
        raise InputError(
            index_dir,
            f"expected the matches of each of its {len(expected)} shard(s) once, got "
            f"{len(shas)} file(s) {[str(p) for p in parts]} not matching index.json's shards",
        )
    if len({q for _, q, _ in loaded}) != 1:
        raise InputError(parts[0], "the per-shard matches are for different queries")
    merged = merge_matches([m for m, _, _ in loaded], int(manifest["n_tokens"]))
    save_matches(out, merged, loaded[0][1], shas)
    return merged


class MatchedIndex:
    """An index whose ``longest_matches`` answers come from a merged fan-out file.

    ``longest_matches(queries)`` returns the stored matches after checking that ``queries``
    are the ones they were computed for; ``n_tokens``, ``manifest`` and ``path`` come from
    ``index.json``; every other attribute opens the :class:`Index` (memory-mapped) on first use.
    Made by :func:`copyscope.index.open` with ``matches``.
    """

    def __init__(self, index_dir, matches_npz):
        self.path = index_folder(index_dir)
        self.manifest = read_metadata(self.path / "index.json", check_manifest)
        self.n_tokens = int(self.manifest["n_tokens"])
        self.matches_path = Path(matches_npz)
        self._matches, self._sha, covered = load_matches(matches_npz)
        if sorted(covered) != sorted(self.manifest["shard_meta_sha256"].values()):
            raise InputError(
                matches_npz, f"expected the merged matches of every shard of {index_dir}"
            )
        self._index = None

    def longest_matches(self, queries) -> Matches:
        if queries_sha256(*_flat(queries)) != self._sha:
            raise InputError(
                self.matches_path, "these matches were computed for other queries (stale file?)"
            )
        return self._matches

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._index is None:
            self._index = Index(self.path)
        return getattr(self._index, name)
