"""Querying an index: longest matches per token, counts, and occurrence locations.

``Index`` opens a directory written by :func:`copyscope.index.build.build_index` (or a single
shard directory) with every array memory-mapped, and merges shards exactly: per token the
length is the maximum over shards and the count the sum over the shards reaching it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import read_json
from .small import SMALL_QUERY_TOKENS, longest_matches_numpy, match_interval
from .verify import (
    ARRAYS,
    FORMAT,
    check_array_files,
    check_shard_metas,
    damaged_files,
    order_problem,
)


def _kernels():
    """The compiled kernels (importing them starts numba: about a second per process)."""
    from . import kernels

    return kernels


def kernels_loaded() -> bool:
    """Whether this process has already paid numba's start-up for the kernels."""
    return "copyscope.index.kernels" in sys.modules


def use_numpy_path(n_query_tokens: int) -> bool:
    """A call about at most :data:`~copyscope.index.small.SMALL_QUERY_TOKENS` tokens in a
    process that has not loaded the kernels is answered by :mod:`copyscope.index.small` (the
    same answers; no numba start-up)."""
    return n_query_tokens <= SMALL_QUERY_TOKENS and not kernels_loaded()


SEGMENT_TOKENS = 2048  # queries are cut into pieces of this size for the parallel kernel
KEEP_OCCURRENCES = 64  # matches with at most this many occurrences are extended in place
PROBE = 32  # a window of 32 positions with more than 24 searches: the rest is searched batched
BATCH_CAP = 64  # batched searches read at most 64 pattern tokens (longer: matching statistics)


@dataclass
class Matches:
    """Per-token results for a batch of queries (flat arrays with per-query offsets).

    ``length[t]`` is L_t, the non-novel suffix length (Merrill et al.'s "nnsl"): the length of
    the longest suffix of the query prefix ending at t that occurs in the corpus.
    ``count[t]`` is C_t, its number of occurrences (the corpus size when L_t = 0).
    """

    length: np.ndarray
    count: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.offsets[i], self.offsets[i + 1]
        return self.length[a:b], self.count[a:b]

    def split_lengths(self) -> list[np.ndarray]:
        return [self.length[self.offsets[i] : self.offsets[i + 1]] for i in range(len(self))]


class Shard:
    """One memory-mapped index shard."""

    def __init__(self, path):
        self.path = Path(path)
        meta_path = self.path / "meta.json"
        if not meta_path.exists():
            raise InputError(self.path, "expected an index shard directory with meta.json")
        self.meta = read_json(meta_path)
        if self.meta.get("format") != FORMAT:
            raise InputError(
                meta_path, f"expected format {FORMAT!r}, got {self.meta.get('format')!r}"
            )
        check_array_files(self.path, self.meta)
        for name in ARRAYS:
            setattr(self, name, np.load(self.path / f"{name}.npy", mmap_mode="r"))
        self.sep = int(self.meta["sep"])
        self.n_tokens = int(self.meta["n_tokens"])
        self._check_contents()
        self._derived = None
        self._doc_ids = None
        self._doc_starts = None

    def _check_contents(self) -> None:
        """Sampled suffix order and LCP values (:func:`order_problem`); on a problem, the
        damaged files by checksum when the index recorded them, else the shard is named."""
        if self.n_tokens and int(self.tokens[-1]) != self.sep:
            problem = f"the stream does not end with the separator {self.sep}"
        else:
            problem = order_problem(self.tokens, self.sa, self.lcp, int(self.meta["lcp_cap"]))
        if problem is None:
            return
        bad = damaged_files(self.path, self.meta)
        where = self.path / bad[0] if bad else self.path
        others = f" (also damaged: {', '.join(bad[1:])})" if len(bad) > 1 else ""
        raise InputError(
            where,
            f"corrupt index: {problem}{others}; rebuild it or copy it again "
            f"(`copyscope index verify {self.path}` checks every file)",
        )

    @property
    def doc_starts(self) -> np.ndarray:
        """Start of every document in ``tokens``, plus the stream length at the end."""
        if self._doc_starts is None:
            ends = np.flatnonzero(np.asarray(self.tokens) == self.sep) + 1
            self._doc_starts = np.concatenate([[0], ends]).astype(np.int64)
        return self._doc_starts

    @property
    def doc_ids(self) -> list[str]:
        if self._doc_ids is None:
            f = self.path / "doc_ids.json"
            n_docs = int(self.meta["n_docs"])
            self._doc_ids = (
                json.loads(f.read_text()) if f.exists() else [str(i) for i in range(n_docs)]
            )
        return self._doc_ids

    def kernel_args(self):
        """The kernels' arguments: the arrays and, derived in memory on first use, the LCP
        block minima (blocks of 64, 64², 64³), the per-token suffix-array buckets and a sampled
        top layer of the suffix array (0.5 bytes/token; see ``kernels.sample_keys``)."""
        if self._derived is None:
            k = _kernels()
            m1 = k.block_minima(self.lcp, 6)
            m2 = k.block_minima(m1, 6)
            m3 = k.block_minima(m2, 6)
            bucket = k.dense_buckets(self.tokens, self.sep, int(self.meta["alphabet_size"]))
            key_bits = 8 * self.tokens.dtype.itemsize + 1
            keys = k.sample_keys(self.tokens, self.sa, key_bits)
            self._derived = (m1, m2, m3, bucket, keys, key_bits)
        return (self.tokens, self.sa, self.lcp, *self._derived)

    def match(self, pattern_rev: np.ndarray) -> tuple[int, int, int]:
        """(L, first, last) for the reversed pattern — internal helper for count/locate."""
        if use_numpy_path(len(pattern_rev)):
            return match_interval(self.tokens, self.sa, pattern_rev)
        q = np.ascontiguousarray(pattern_rev[::-1], dtype=np.int64)
        return _kernels().match_one(*self.kernel_args(), q, 0, q.shape[0] - 1)

    def longest_matches(self, flat: np.ndarray, offsets: np.ndarray, segments) -> tuple:
        """L_t and C_t (0 where L_t = 0) of the flat queries (``offsets``) against this shard
        alone: the kernel over ``segments`` (``kernels.query_segments``), or the numpy path
        when ``segments`` is None."""
        if segments is None:
            qstart = np.repeat(offsets[:-1], np.diff(offsets))
            return longest_matches_numpy(self.tokens, self.sa, flat, qstart)
        k = _kernels()
        args = self.kernel_args()
        ln = np.empty(flat.shape[0], dtype=np.int64)
        cn = np.empty(flat.shape[0], dtype=np.int64)
        stop = np.empty(segments[0].shape[0], dtype=np.int64)
        k.longest_matches_kernel(*args, flat, *segments, KEEP_OCCURRENCES, PROBE, stop, ln, cn)
        pos, pqs = k.pending_positions(stop, segments[1], segments[2])
        if pos.size:  # short matches: batched searches, then matching statistics for long ones
            from numba import get_num_threads

            k.batched_matches_kernel(*args, flat, pos, pqs, BATCH_CAP, get_num_threads(), ln, cn)
            runs = k.capped_runs(pos, pqs, ln, BATCH_CAP)
            if runs[0].size:
                k.longest_matches_kernel(
                    *args, flat, *runs, KEEP_OCCURRENCES, 0, np.empty_like(runs[0]), ln, cn
                )
        return ln, cn

    def positions(self, first: int, last: int, length: int, limit: int) -> np.ndarray:
        """Start positions (in ``tokens``) of occurrences ranked first..last, at most ``limit``."""
        ranks = np.arange(first, min(last + 1, first + limit))
        end = self.n_tokens - 1 - np.asarray(self.sa[ranks], dtype=np.int64)
        return np.sort(end - length + 1)


class Index:
    """A (possibly sharded) index over a token stream."""

    def __init__(self, path):
        path = Path(path)
        if (path / "index.json").exists():
            self.manifest = read_json(path / "index.json")
            check_shard_metas(path, self.manifest)
            self.shards = [Shard(path / s) for s in self.manifest["shards"]]
            if sum(s.n_tokens for s in self.shards) != int(self.manifest["n_tokens"]):
                raise InputError(
                    path / "index.json",
                    "its n_tokens is not the sum of its shards' (corrupt index)",
                )
        elif (path / "meta.json").exists():
            self.shards = [Shard(path)]
            self.manifest = {"shards": ["."], **self.shards[0].meta}
        else:
            raise InputError(path, "expected an index directory (index.json or meta.json)")
        self.path = path
        self.sep = int(self.manifest["sep"])
        self.dtype = np.dtype(self.manifest["dtype"])
        self.n_tokens = sum(s.n_tokens for s in self.shards)

    # ------------------------------------------------------------------ queries
    def _as_query(self, tokens, name="query") -> np.ndarray:
        q = np.asarray(tokens)
        if q.ndim != 1:
            raise InputError(name, "expected a 1-D sequence of token ids")
        q = q.astype(np.int64, copy=False)
        if q.size and (q.min() < 0 or q.max() >= self.sep):
            bad = int(q.max() if q.max() >= self.sep else q.min())
            raise InputError(
                name, f"token id {bad} is outside [0, {self.sep}) (the separator id is {self.sep})"
            )
        return q

    def longest_matches(self, queries) -> Matches:
        """L_t and C_t for every position of every query (Merrill et al. 2024, §2).

        ``queries`` is a sequence of 1-D integer arrays (token ids).  All positions are computed
        in one compiled, parallel call per shard (or, for a few tokens in a process without the
        kernels loaded, by :mod:`copyscope.index.small`); shards are merged exactly.
        """
        qs = [np.asarray(q) for q in queries]
        for i, q in enumerate(qs):
            if q.ndim != 1:
                self._as_query(q, f"queries[{i}]")
        lens = np.fromiter((q.shape[0] for q in qs), dtype=np.int64, count=len(qs))
        offsets = np.zeros(len(qs) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        flat = np.concatenate(qs).astype(np.int64, copy=False) if qs else np.zeros(0, np.int64)
        if flat.size and (flat.min() < 0 or flat.max() >= self.sep):
            for i, q in enumerate(qs):
                self._as_query(q, f"queries[{i}]")
        seg = None  # None: the numpy path (see use_numpy_path)
        if not use_numpy_path(flat.shape[0]):
            seg = _kernels().query_segments(offsets, SEGMENT_TOKENS)
        best_len = best_cnt = None
        for shard in self.shards:
            ln, cn = shard.longest_matches(flat, offsets, seg)
            if best_len is None:
                best_len, best_cnt = ln, cn
                continue
            longer = ln > best_len
            same = (ln == best_len) & ~longer
            best_cnt = np.where(longer, cn, np.where(same, best_cnt + cn, best_cnt))
            best_len = np.maximum(best_len, ln)
        best_cnt[best_len == 0] = self.n_tokens
        return Matches(best_len, best_cnt, offsets)

    def count(self, ngram) -> int:
        """Number of occurrences of ``ngram`` in the corpus (0 if absent; corpus size if empty)."""
        g = self._as_query(ngram, "ngram")
        if g.size == 0:
            return self.n_tokens
        total = 0
        for shard in self.shards:
            L, first, last = shard.match(g[::-1])
            if L == len(g):
                total += last - first + 1
        return int(total)

    def locate(self, ngram, limit: int = 10) -> list[tuple[str, int, int]]:
        """Up to ``limit`` occurrences of ``ngram`` as (document id, document number, offset).

        ``offset`` is the position of the n-gram's first token within its document.
        """
        g = self._as_query(ngram, "ngram")
        out: list[tuple[str, int, int]] = []
        if g.size == 0:
            return out
        doc_base = 0
        for shard in self.shards:
            L, first, last = shard.match(g[::-1])
            if L == len(g) and len(out) < limit:
                pos = shard.positions(first, last, len(g), limit - len(out))
                docs = np.searchsorted(shard.doc_starts, pos, side="right") - 1
                for p, d in zip(pos.tolist(), docs.tolist(), strict=True):
                    out.append((shard.doc_ids[d], doc_base + d, p - int(shard.doc_starts[d])))
            doc_base += int(shard.meta["n_docs"])
        return out

    def document(self, doc: int) -> np.ndarray:
        """Tokens of global document number ``doc`` (without its separator)."""
        for shard in self.shards:
            nd = int(shard.meta["n_docs"])
            if doc < nd:
                return np.asarray(
                    shard.tokens[shard.doc_starts[doc] : shard.doc_starts[doc + 1] - 1]
                )
            doc -= nd
        raise IndexError(doc)


def maximal_spans(length: np.ndarray, min_len: int = 1) -> list[tuple[int, int]]:
    """Maximal copied spans of a query: [start, end) for every t with L_t >= min_len whose match
    is not extended by the next token (L_{t+1} <= L_t), i.e. span = [t - L_t + 1, t + 1).
    """
    length = np.asarray(length)
    out = []
    for t in range(len(length)):
        L = int(length[t])
        if L >= min_len and (t + 1 == len(length) or int(length[t + 1]) <= L):
            out.append((t - L + 1, t + 1))
    return out
