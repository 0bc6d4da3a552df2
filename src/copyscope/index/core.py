"""Querying an index: longest matches per token, counts, and occurrence locations.

``Index`` opens a directory written by :func:`copyscope.index.build.build_index` (or a single
shard directory) with every array memory-mapped, and merges shards exactly: per token the
length is the maximum over shards and the count the sum over the shards reaching it.

A damaged index is an :class:`~copyscope.errors.InputError` naming the shard's file, never a
crash: opening checks the metadata, the array files' headers and sizes, the sha256 of every
file of a shard of at most :data:`CHECKSUM_BYTES` (milliseconds) and a sample of the suffix
order (:mod:`copyscope.index.verify`); deriving the kernels' tables checks every token
against the recorded alphabet and the separator count; the kernels check every suffix-array
entry they read (``kernels._position``), as the numpy path does
(:func:`~copyscope.index.small.suffix_position`).
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from .small import SMALL_QUERY_TOKENS, BadSuffix, longest_matches_numpy, match_interval
from .verify import (
    ARRAYS,
    check_array_files,
    check_manifest,
    check_meta,
    check_shard_metas,
    damaged_files,
    index_folder,
    order_problem,
    read_metadata,
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
SERIAL_NGRAMS = 16384  # batched counts of at most this many n-grams run in the calling thread
NO_FIRST = np.zeros(0, dtype=np.int64)  # the batched kernel's out_first when ranks are not kept
CHECKSUM_BYTES = 16 << 20  # a shard of at most 16 MiB is checked whole (sha256) on opening


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
        if not meta_path.is_file():
            raise InputError(self.path, "expected an index shard directory with meta.json")
        self.meta = read_metadata(meta_path, check_meta)
        check_array_files(self.path, self.meta)
        files = self.meta.get("files", {})
        if files and sum(r["bytes"] for r in files.values()) <= CHECKSUM_BYTES:
            if damaged_files(self.path, self.meta):
                raise self.corrupt("its sha256 differs from the one recorded at build time")
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
        if problem is not None:
            raise self.corrupt(problem)

    def corrupt(self, problem: str, suspect: str | None = None) -> InputError:
        """The error of a damaged shard: names the files whose sha256 differs from the one
        recorded at build time, else ``suspect`` (the file the problem was seen in), else the
        shard directory; says what was seen and how to check every file."""
        bad = damaged_files(self.path, self.meta)
        where = self.path / (bad[0] if bad else suspect or "")
        others = f" (also damaged: {', '.join(bad[1:])})" if len(bad) > 1 else ""
        return InputError(
            where,
            f"corrupt index: {problem}{others}; rebuild it or copy it again "
            f"(`copyscope index verify {self.path}` checks every file)",
        )

    def _check_fault(self, fault: np.ndarray) -> None:
        """Raise the error of the damage a kernel met: a suffix-array entry outside the stream
        (``fault = (1, rank)``, see ``kernels._position``) or LCP values that widen a match
        past its first token's suffixes (``(2, rank)``, ``kernels._within``)."""
        rank = int(fault[1])
        if fault[0] == 1:
            raise self.corrupt(
                f"suffix array entry {int(self.sa[rank])} at rank {rank} is outside the "
                f"stream of {self.n_tokens} tokens",
                "sa.npy",
            )
        if fault[0] == 2:
            raise self.corrupt(
                f"the LCP values around rank {rank} widen a match past the suffixes that "
                "start with its token",
                "lcp.npy",
            )

    def _positions(self, ranks: np.ndarray) -> np.ndarray:
        """``sa[ranks]`` as int64, each checked to be a position of the stream."""
        pos = np.asarray(self.sa[ranks], dtype=np.int64)
        bad = np.flatnonzero((pos < 0) | (pos >= self.n_tokens))
        if bad.size:
            self._check_fault(np.array([1, ranks[bad[0]]], dtype=np.int64))
        return pos

    @property
    def doc_starts(self) -> np.ndarray:
        """Start of every document in ``tokens``, plus the stream length at the end."""
        if self._doc_starts is None:
            ends = np.flatnonzero(np.asarray(self.tokens) == self.sep) + 1
            if ends.shape[0] != int(self.meta["n_docs"]):
                raise self.corrupt(
                    f"the stream holds {ends.shape[0]} separators, meta.json records "
                    f"{self.meta['n_docs']} documents",
                    "tokens.npy",
                )
            self._doc_starts = np.concatenate([[0], ends]).astype(np.int64)
        return self._doc_starts

    @property
    def doc_ids(self) -> list[str]:
        if self._doc_ids is None:
            f = self.path / "doc_ids.json"
            n_docs = int(self.meta["n_docs"])
            if not f.exists():
                self._doc_ids = [str(i) for i in range(n_docs)]
                return self._doc_ids
            try:
                ids = json.loads(f.read_bytes().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise self.corrupt(f"not valid JSON ({exc})", "doc_ids.json") from exc
            if not (
                isinstance(ids, list)
                and len(ids) == n_docs
                and all(isinstance(i, str) for i in ids)
            ):
                raise self.corrupt(f"expected a list of {n_docs} document ids", "doc_ids.json")
            self._doc_ids = ids
        return self._doc_ids

    def kernel_args(self):
        """The kernels' arguments: the arrays and, derived in memory on first use, the LCP
        block minima (blocks of 64, 64², 64³), the per-token suffix-array buckets and a sampled
        top layer of the suffix array (0.5 bytes/token; see ``kernels.sample_keys``), then the
        shard's ``fault`` array (``kernels._position``; zero while no kernel met a damaged
        entry). Every token is checked against the recorded alphabet and the separators
        counted on the way."""
        if self._derived is None:
            k = _kernels()
            m1 = k.block_minima(self.lcp, 6)
            m2 = k.block_minima(m1, 6)
            m3 = k.block_minima(m2, 6)
            size = int(self.meta["alphabet_size"])
            bucket, bad = k.dense_buckets(self.tokens, self.sep, size)
            if bad >= 0:
                raise self.corrupt(
                    f"token {int(self.tokens[bad])} at position {bad} is neither below the "
                    f"alphabet size {size} nor the separator {self.sep}",
                    "tokens.npy",
                )
            if bucket[size] != self.n_tokens - int(self.meta["n_docs"]):
                raise self.corrupt(
                    f"the stream holds {self.n_tokens - int(bucket[size])} separators, "
                    f"meta.json records {self.meta['n_docs']} documents",
                    "tokens.npy",
                )
            key_bits = 8 * self.tokens.dtype.itemsize + 1
            fault = np.zeros(2, dtype=np.int64)
            keys = k.sample_keys(self.tokens, self.sa, key_bits, fault)
            self._check_fault(fault)
            self._derived = (m1, m2, m3, bucket, keys, key_bits, fault)
        return (self.tokens, self.sa, self.lcp, *self._derived)

    def match(self, pattern_rev: np.ndarray) -> tuple[int, int, int]:
        """(L, first, last) for one reversed pattern (:meth:`Index.count` of one n-gram): the
        numpy path in a process without the kernels, else ``kernels.match_one``."""
        if use_numpy_path(len(pattern_rev)):
            with self._numpy_faults():
                return match_interval(self.tokens, self.sa, pattern_rev)
        q = np.ascontiguousarray(pattern_rev[::-1], dtype=np.int64)
        args = self.kernel_args()
        found = _kernels().match_one(*args, q, 0, q.shape[0] - 1)
        self._check_fault(args[-1])
        return found

    @contextmanager
    def _numpy_faults(self):
        """The numpy path's damaged suffix-array entries (:class:`BadSuffix`) as the shard's
        error."""
        try:
            yield
        except BadSuffix as exc:
            raise self.corrupt(str(exc), "sa.npy") from exc

    def longest_matches(self, flat: np.ndarray, offsets: np.ndarray, segments) -> tuple:
        """L_t and C_t (0 where L_t = 0) of the flat queries (``offsets``) against this shard
        alone: the kernel over ``segments`` (``kernels.query_segments``), or the numpy path
        when ``segments`` is None."""
        if segments is None:
            qstart = np.repeat(offsets[:-1], np.diff(offsets))
            with self._numpy_faults():
                return longest_matches_numpy(self.tokens, self.sa, flat, qstart)
        k = _kernels()
        args = self.kernel_args()
        ln = np.empty(flat.shape[0], dtype=np.int64)
        cn = np.empty(flat.shape[0], dtype=np.int64)
        stop = np.empty(segments[0].shape[0], dtype=np.int64)
        k.longest_matches_kernel(args, flat, *segments, KEEP_OCCURRENCES, PROBE, stop, ln, cn)
        pos, pqs = k.pending_positions(stop, segments[1], segments[2])
        if pos.size:  # short matches: batched searches, then matching statistics for long ones
            from numba import get_num_threads

            k.batched_matches_kernel(
                args, flat, pos, pqs, BATCH_CAP, get_num_threads(), ln, cn, NO_FIRST
            )
            runs = k.capped_runs(pos, pqs, ln, BATCH_CAP)
            if runs[0].size:
                k.longest_matches_kernel(
                    args, flat, *runs, KEEP_OCCURRENCES, 0, np.empty_like(runs[0]), ln, cn
                )
        self._check_fault(args[-1])
        return ln, cn

    def ngram_intervals(self, flat: np.ndarray, offsets: np.ndarray, numpy_path: bool):
        """``(found, first, count)`` per non-empty n-gram ``flat[offsets[i]:offsets[i+1]]``:
        whether it occurs in this shard, the first suffix-array rank of its occurrences and
        their number (0 where absent). One batched, prefetching kernel call
        (``kernels.batched_matches_kernel`` searched at each n-gram's last token, see there),
        or for ``numpy_path`` one :func:`~copyscope.index.small.match_interval` per n-gram."""
        lens = np.diff(offsets)
        k = lens.shape[0]
        if numpy_path:
            first = np.zeros(k, dtype=np.int64)
            count = np.zeros(k, dtype=np.int64)
            for i in range(k):
                with self._numpy_faults():
                    L, a, b = match_interval(
                        self.tokens, self.sa, flat[offsets[i] : offsets[i + 1]][::-1]
                    )
                if L == lens[i]:
                    first[i], count[i] = a, b - a + 1
            return count > 0, first, count
        kn = _kernels()
        end = offsets[1:] - 1
        # searched in the order of their last tokens, so that neighbouring searches share
        # the suffix-array buckets they read (answers are stored at each n-gram's position)
        order = np.argsort(flat[end], kind="stable")
        pos, qs = end[order], offsets[:-1][order]
        ln = np.empty(flat.shape[0], dtype=np.int64)  # written at every n-gram's last position
        cn = np.empty(flat.shape[0], dtype=np.int64)
        fr = np.empty(flat.shape[0], dtype=np.int64)  # read only where the n-gram is found
        args = (self.kernel_args(), flat, pos, qs, int(lens.max()))
        if k <= SERIAL_NGRAMS:
            kn.batched_matches_serial(*args, ln, cn, fr)
        else:
            from numba import get_num_threads

            kn.batched_matches_kernel(*args, get_num_threads(), ln, cn, fr)
        self._check_fault(args[0][-1])
        found = ln[end] == lens
        return found, np.where(found, fr[end], 0), np.where(found, cn[end], 0)


class Index:
    """A (possibly sharded) index over a token stream."""

    def __init__(self, path):
        path = index_folder(path)
        manifest_path = path / "index.json"
        if manifest_path.exists():
            self.manifest = read_metadata(manifest_path, check_manifest)
            shards = self.manifest["shards"]
            recorded = self.manifest.get("shard_meta_sha256")
            if len(set(shards)) != len(shards) or (
                recorded is not None and sorted(recorded) != sorted(shards)
            ):
                raise InputError(
                    manifest_path,
                    f"its shards {shards} are not each listed once with the recorded "
                    f"checksums' shards {sorted(recorded or {})} (corrupt index)",
                )
            check_shard_metas(path, self.manifest)
            self.shards = [Shard(path / s) for s in self.manifest["shards"]]
            if sum(s.n_tokens for s in self.shards) != int(self.manifest["n_tokens"]):
                raise InputError(
                    manifest_path,
                    "its n_tokens is not the sum of its shards' (corrupt index)",
                )
            for s in self.shards:
                if (s.meta["dtype"], s.sep) != (self.manifest["dtype"], self.manifest["sep"]):
                    raise InputError(
                        manifest_path,
                        f"its dtype and separator {self.manifest['dtype']} "
                        f"{self.manifest['sep']} are not those of {s.path / 'meta.json'} "
                        "(corrupt index)",
                    )
        else:
            self.shards = [Shard(path)]
            self.manifest = {"shards": ["."], **self.shards[0].meta}
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
        """Number of occurrences of ``ngram`` in the corpus (0 if absent; corpus size if empty):
        one search per shard (a batch of n-grams: :meth:`count_many`)."""
        g = self._as_query(ngram, "ngram")
        if g.size == 0:
            return self.n_tokens
        total = 0
        for shard in self.shards:
            L, first, last = shard.match(g[::-1])
            if L == len(g):
                total += last - first + 1
        return int(total)

    def _as_ngrams(self, ngrams) -> tuple[np.ndarray, np.ndarray]:
        """``(flat, offsets)`` of a batch of n-grams: a sequence of 1-D id arrays or a 2-D
        array (one n-gram per row), checked like :meth:`count`'s ``ngram``."""
        if isinstance(ngrams, np.ndarray) and ngrams.ndim == 2:
            rows, n = ngrams.shape
            flat = ngrams.astype(np.int64).ravel()
            offsets = np.arange(rows + 1, dtype=np.int64) * n
        else:
            offsets = np.zeros(len(ngrams) + 1, dtype=np.int64)
            np.cumsum(np.array([len(g) for g in ngrams], dtype=np.int64), out=offsets[1:])
            try:
                flat = np.concatenate(ngrams).astype(np.int64) if len(ngrams) else offsets[:0]
            except (ValueError, TypeError):
                flat = None
            if flat is None or flat.ndim != 1 or flat.shape[0] != offsets[-1]:
                for i, g in enumerate(ngrams):
                    self._as_query(g, f"ngrams[{i}]")
                raise InputError("ngrams", "expected a sequence of 1-D sequences of token ids")
        if flat.size and (flat.min() < 0 or flat.max() >= self.sep):
            for i in range(len(offsets) - 1):
                self._as_query(flat[offsets[i] : offsets[i + 1]], f"ngrams[{i}]")
        return flat, offsets

    def _intervals(self, ngrams):
        """``(lengths, per-shard (found, first, count))`` of the non-empty n-grams of a batch,
        with their positions in the batch (``keep``)."""
        flat, offsets = self._as_ngrams(ngrams)
        lens = np.diff(offsets)
        keep = np.flatnonzero(lens > 0)
        if keep.size == 0:
            return lens, keep, []
        if keep.size < lens.size:  # empty n-grams add no tokens: only the offsets change
            offsets = np.concatenate([[0], np.cumsum(lens[keep])]).astype(np.int64)
        numpy_path = use_numpy_path(flat.shape[0])
        shards = [s.ngram_intervals(flat, offsets, numpy_path) for s in self.shards]
        return lens, keep, shards

    def count_many(self, ngrams) -> np.ndarray:
        """:meth:`count` of every n-gram of a batch (a sequence of 1-D id arrays, or a 2-D
        array with one n-gram per row), as int64: one batched search per shard, 32 n-grams at a
        time in lockstep with their memory loads prefetched (``kernels.batched_search``)."""
        lens, keep, shards = self._intervals(ngrams)
        out = np.full(lens.shape[0], self.n_tokens, dtype=np.int64)
        out[keep] = sum(count for _, _, count in shards) if shards else 0
        return out

    def count_and_key(self, ngrams) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`count_many` of a batch and a key per n-gram that names it: equal n-grams get
        equal keys, different n-grams of the corpus different ones (the suffix-array rank of
        its first occurrence in the first shard holding it, ranks of later shards offset by
        the earlier shards' sizes); -1 for an n-gram absent from the corpus or empty."""
        lens, keep, shards = self._intervals(ngrams)
        count = np.full(lens.shape[0], self.n_tokens, dtype=np.int64)
        key = np.full(lens.shape[0], -1, dtype=np.int64)
        if not shards:
            return count, key
        count[keep] = sum(c for _, _, c in shards)
        sub = np.full(keep.shape[0], -1, dtype=np.int64)
        base = 0
        for shard, (found, first, _) in zip(self.shards, shards, strict=True):
            new = found & (sub < 0)
            sub[new] = base + first[new]
            base += shard.n_tokens
        key[keep] = sub
        return count, key

    def locate_many(self, ngrams, limit: int = 10) -> list[list[tuple[str, int, int]]]:
        """:meth:`locate` of every n-gram of a batch (as for :meth:`count_many`): the same
        occurrences in the same order, from one batched search per shard."""
        lens, keep, shards = self._intervals(ngrams)
        out: list[list[tuple[str, int, int]]] = [[] for _ in range(lens.shape[0])]
        if not shards:
            return out
        slot = keep.tolist()
        left = np.full(keep.shape[0], limit, dtype=np.int64)
        klen = lens[keep]
        doc_base = 0
        for shard, (_, first, count) in zip(self.shards, shards, strict=True):
            take = np.minimum(count, np.maximum(left, 0))
            total = int(take.sum())
            if total:
                which = np.repeat(np.arange(keep.shape[0]), take)
                begin = np.concatenate([[0], np.cumsum(take)[:-1]])
                ranks = np.repeat(first - begin, take) + np.arange(total)
                end = shard.n_tokens - 1 - shard._positions(ranks)
                pos = end - klen[which] + 1
                order = np.lexsort((pos, which))
                which, pos = which[order], pos[order]
                docs = np.searchsorted(shard.doc_starts, pos, side="right") - 1
                offs = pos - shard.doc_starts[docs]
                ids = shard.doc_ids
                for w, d, o in zip(which.tolist(), docs.tolist(), offs.tolist(), strict=True):
                    out[slot[w]].append((ids[d], doc_base + d, o))
            left -= take
            doc_base += int(shard.meta["n_docs"])
        return out

    def locate(self, ngram, limit: int = 10) -> list[tuple[str, int, int]]:
        """Up to ``limit`` occurrences of ``ngram`` as (document id, document number, offset):
        in each shard in turn, the first of its occurrences by suffix-array rank, sorted by
        position. ``offset`` is the position of the n-gram's first token within its document.
        """
        return self.locate_many([self._as_query(ngram, "ngram")], limit)[0]

    def locate_documents(self, ngrams, limit: int = 10) -> list[list[tuple[str, int, int]]]:
        """Per n-gram of a batch (as for :meth:`count_many`), one occurrence in each of up to
        ``limit`` documents: the occurrences are read in the order :meth:`locate_many` takes
        them (suffix-array rank, shard by shard), an occurrence in a document already listed
        skipped (:func:`copyscope.index.spans.distinct_documents`); listed by position. The
        first ``max(2 * limit, 16)`` ranks of every n-gram in every shard are read in one
        batch, further ones in growing blocks where needed: an n-gram repeated within few
        documents costs more ranks than :meth:`locate_many`, never more than its count."""
        from .spans import distinct_documents

        lens, keep, shards = self._intervals(ngrams)
        out: list[list[tuple[str, int, int]]] = [[] for _ in range(lens.shape[0])]
        if not shards:
            return out
        klen = lens[keep]
        head = max(2 * limit, 16)
        heads = []  # per shard: (docs, offsets, start of each n-gram's run) of the first ranks
        for shard, (_, first, count) in zip(self.shards, shards, strict=True):
            take = np.minimum(count, head)
            begin = np.concatenate([[0], np.cumsum(take)]).astype(np.int64)
            ranks = np.repeat(first - begin[:-1], take) + np.arange(begin[-1], dtype=np.int64)
            pos = shard.n_tokens - shard._positions(ranks) - np.repeat(klen, take)
            docs = np.searchsorted(shard.doc_starts, pos, side="right") - 1
            heads.append((docs.tolist(), (pos - shard.doc_starts[docs]).tolist(), begin.tolist()))
        for j, slot in enumerate(keep.tolist()):
            found = self._occurrences(int(klen[j]), j, shards, heads, head)
            out[slot] = distinct_documents(found, limit)
        return out

    def _occurrences(self, length: int, j: int, shards, heads, head: int):
        """(doc id, doc number, offset) of every occurrence of the ``j``-th n-gram of
        :meth:`_intervals` (``length`` tokens), lazily, in suffix-array rank, shard by shard:
        the first ``head`` ranks from ``heads`` (read in :meth:`locate_documents`), the rest in
        growing blocks."""
        doc_base = 0
        for shard, (_, first, count), (docs, offs, begin) in zip(
            self.shards, shards, heads, strict=True
        ):
            ids = shard.doc_ids
            for k in range(begin[j], begin[j + 1]):
                yield ids[docs[k]], doc_base + docs[k], offs[k]
            done, block, total = head, 4 * head, int(count[j])
            while done < total:
                ranks = int(first[j]) + np.arange(done, min(done + block, total), dtype=np.int64)
                pos = shard.n_tokens - shard._positions(ranks) - length
                more = np.searchsorted(shard.doc_starts, pos, side="right") - 1
                at = pos - shard.doc_starts[more]
                for d, o in zip(more.tolist(), at.tolist(), strict=True):
                    yield ids[d], doc_base + d, o
                done, block = done + ranks.shape[0], block * 4
            doc_base += int(shard.meta["n_docs"])

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
