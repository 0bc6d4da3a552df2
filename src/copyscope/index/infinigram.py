"""An infini-gram index folder, opened as it is: memory-mapped, no conversion, no copy.

infini-gram (Liu et al. 2024; the ``infini_gram`` package, whose indexer wrote the released
indexes of the Pile, Dolma, RedPajama and C4) stores per shard, in one folder:

* ``tokenized.S`` — the token stream, ``w`` bytes per token (u8, u16 or u32, little-endian),
  every document *preceded* by the separator ``2**(8w) - 1`` (so the stream starts with it);
* ``table.S`` — the suffix array of the forward stream: one byte offset into ``tokenized.S``
  per token, each ``p`` bytes little-endian, ``p = ceil(log2(bytes of tokenized.S) / 8)``
  (the indexer's rule; the engine reads ``p`` as ``size(table) / tokens``);
* ``offset.S`` — the byte offset of every document (of its separator) as u64;
* optionally ``metadata.S`` (one JSON line per document: ``path``, ``linenum``, ``metadata``)
  and ``metaoff.S`` (the byte offset of every line, u64).

``S`` is ``0, 1, …`` (the package's ``indexing``) or empty (``indexing_v6``: ``tokenized``,
``table``, …); shards are taken in the order of their file names, as infini-gram's engine
takes them, so document numbers are the engine's ``doc_ix``. The token width is given, or is
the one of u8/u16/u32 whose pointer width ``size(table) / tokens`` is the indexer's rule for
the stream's size (exactly one is). Only the forward layout of the released indexes (the
package's version 4) is read; a reversed index (version 5, ``--reversed``) cannot be told
from its files and is not supported.

:class:`InfiniGramIndex` answers every query of :class:`copyscope.index.Index` — L_t and C_t,
``count`` / ``count_many`` / ``count_and_key``, ``locate`` / ``locate_many`` (with the
document's metadata: :meth:`InfiniGramIndex.metadata`), ``document`` — with the kernels of
:mod:`copyscope.index.infinigram_kernels` over the memory-mapped files, or, for a short query
in a process without them, with the same searches in Python (:class:`_PyShard`). A damaged or
inconsistent folder is one :class:`~copyscope.errors.InputError` naming the file: opening
checks every file's size against the others, a sample of the document offsets, the metadata
offsets and the suffix order; the kernels check every table entry they read.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..errors import InputError
from .core import SERIAL_NGRAMS, Index

WIDTHS = {"u8": 1, "u16": 2, "u32": 4}
DTYPES = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}
STEMS = ("tokenized", "table", "offset", "metadata", "metaoff")
SAMPLE = 64  # table ranks and document offsets checked when a shard is opened
ORDER_DEPTH = 32  # tokens compared per sampled pair of neighbouring suffixes
HINT = "(an infini-gram index: rebuild it or download it again)"


def _kernels():
    from . import infinigram_kernels

    return infinigram_kernels


def _suffixes(folder: Path, stem: str) -> set[str]:
    """The shard suffixes of the files ``stem`` / ``stem.S`` in ``folder``."""
    out = set()
    for f in folder.iterdir():
        name = f.name
        if name == stem or (name.startswith(stem + ".") and f.is_file()):
            out.add(name[len(stem) :])
    return out


def is_infinigram(path) -> bool:
    """Whether ``path`` is a folder laid out as an infini-gram index (``tokenized*`` and
    ``table*`` files) and not a copyscope index (``index.json`` / ``meta.json``)."""
    path = Path(path)
    if not path.is_dir() or (path / "index.json").exists() or (path / "meta.json").exists():
        return False
    return bool(_suffixes(path, "tokenized")) and bool(_suffixes(path, "table"))


def pointer_width(ds_bytes: int) -> int:
    """The indexer's pointer width for a stream of ``ds_bytes`` bytes:
    ``ceil(log2(ds_bytes) / 8)``, the fewest bytes that address every offset."""
    return math.ceil(math.log2(ds_bytes) / 8) if ds_bytes > 1 else 1


def token_width(ds_bytes: int, sa_bytes: int, given: int | None, where: Path) -> int:
    """The token width of a shard: ``given``, checked against the file sizes, else the one
    width of 1, 2, 4 whose pointer width follows the indexer's rule (:func:`pointer_width`)."""
    if given is not None:
        return given
    fits = [
        w
        for w in (1, 2, 4)
        if ds_bytes % w == 0 and sa_bytes * w == ds_bytes * pointer_width(ds_bytes)
    ]
    if len(fits) != 1:
        raise InputError(
            where,
            f"its size ({sa_bytes} bytes, stream {ds_bytes} bytes) fits no token width "
            "u8/u16/u32 with the pointer width infini-gram's indexer writes; give the token "
            f"width (--token-dtype) {HINT}",
        )
    return fits[0]


def _memmap(path: Path, dtype) -> np.ndarray:
    if path.stat().st_size == 0:
        raise InputError(path, f"the file is empty {HINT}")
    return np.memmap(path, dtype=dtype, mode="r")


class _PyShard:
    """The searches of :mod:`copyscope.index.infinigram_kernels` in Python (a few query
    tokens in a process that has not paid numba's start-up): the same definitions, the
    same answers (tested against the kernels)."""

    def __init__(self, shard: InfiniGramShard):
        self.s = shard
        self.n = shard.n_tokens
        self.w = shard.width
        self.p = shard.ptr_bytes

    def key(self, v: int) -> int:
        return int.from_bytes(int(v).to_bytes(self.w, "little"), "big")

    def position(self, r: int) -> int:
        s = self.s
        x = int.from_bytes(bytes(s.sa[r * self.p : (r + 1) * self.p]), "little")
        if x >= self.n * self.w or x % self.w:
            raise s.bad_entry(r, x)
        return x // self.w

    def compare(self, pos: int, qk: list, h: int) -> tuple[int, int]:
        ds, n = self.s.ds, self.n
        while h < len(qk):
            if pos + h >= n:
                return h, -1
            k = self.key(ds[pos + h])
            if k != qk[h]:
                return h, (-1 if k < qk[h] else 1)
            h += 1
        return h, 0

    def narrow(self, qk: list, lo: int, hi: int, d: int) -> tuple[int, int]:
        x, z, hx, hz = lo, hi, d, d
        while x < z:
            mid = (x + z) >> 1
            h, c = self.compare(self.position(mid), qk, min(hx, hz))
            if c < 0:
                x, hx = mid + 1, h
            else:
                z, hz = mid, h
        first, z, hx, hz = x, hi, len(qk), d
        while x < z:
            mid = (x + z) >> 1
            h, c = self.compare(self.position(mid), qk, min(hx, hz))
            if c <= 0:
                x = mid + 1
            else:
                z, hz = mid, h
        return first, x

    def longest_matches(self, flat: np.ndarray, offsets: np.ndarray):
        ln = np.zeros(flat.shape[0], dtype=np.int64)
        cn = np.zeros(flat.shape[0], dtype=np.int64)
        qk = [self.key(v) for v in flat.tolist()]
        for i in range(len(offsets) - 1):
            s, d, lo, hi = int(offsets[i]), 0, 0, self.n
            for t in range(int(offsets[i]), int(offsets[i + 1])):
                while True:
                    f, e = self.narrow(qk[s : t + 1], lo, hi, d)
                    if f < e:
                        lo, hi, d = f, e, d + 1
                        ln[t], cn[t] = d, e - f
                        break
                    if d == 0:
                        s, lo, hi = t + 1, 0, self.n
                        break
                    s, d = s + 1, d - 1
                    lo, hi = self.narrow(qk[s:t], 0, self.n, 0) if d else (0, self.n)
        return ln, cn


class InfiniGramShard:
    """One shard of an infini-gram index (its files ``STEM + suffix``), memory-mapped."""

    def __init__(self, folder: Path, suffix: str, width: int | None, with_metadata: bool):
        self.folder = folder
        self.files = {stem: folder / f"{stem}{suffix}" for stem in STEMS}
        self.path = self.files["tokenized"]
        for stem in ("tokenized", "table", "offset"):
            if not self.files[stem].is_file():
                raise InputError(self.files[stem], f"file not found {HINT}")
        ds_bytes = self.files["tokenized"].stat().st_size
        sa_bytes = self.files["table"].stat().st_size
        if ds_bytes == 0:
            raise InputError(self.files["tokenized"], f"the file is empty {HINT}")
        w = token_width(ds_bytes, sa_bytes, width, self.files["table"])
        if ds_bytes % w:
            raise InputError(
                self.files["tokenized"],
                f"its {ds_bytes} bytes are not whole tokens of {w} bytes {HINT}",
            )
        n = ds_bytes // w
        if sa_bytes % n or not 1 <= sa_bytes // n <= 8:
            raise InputError(
                self.files["table"],
                f"its {sa_bytes} bytes are not one pointer of 1 to 8 bytes per token of the "
                f"{n} tokens of {self.files['tokenized'].name} {HINT}",
            )
        self.width, self.n_tokens, self.ptr_bytes = w, n, sa_bytes // n
        if 256**self.ptr_bytes < ds_bytes:
            raise InputError(
                self.files["table"],
                f"its pointers of {self.ptr_bytes} bytes cannot address the {ds_bytes} bytes "
                f"of {self.files['tokenized'].name} {HINT}",
            )
        self.sep = (1 << (8 * w)) - 1
        self.ds = _memmap(self.files["tokenized"], DTYPES[w])
        self.sa = _memmap(self.files["table"], np.uint8)
        od_bytes = self.files["offset"].stat().st_size
        if od_bytes % 8:
            raise InputError(
                self.files["offset"], f"its {od_bytes} bytes are not u64 document offsets {HINT}"
            )
        self.od = _memmap(self.files["offset"], "<u8")
        self.n_docs = self.od.shape[0]
        self.mt = self.om = None
        if with_metadata:
            for stem in ("metadata", "metaoff"):
                if not self.files[stem].is_file():
                    raise InputError(
                        self.files[stem],
                        f"file not found (the other shards have document metadata) {HINT}",
                    )
            if self.files["metaoff"].stat().st_size != 8 * self.n_docs:
                raise InputError(
                    self.files["metaoff"],
                    f"expected one u64 offset per document of {self.files['offset'].name} "
                    f"({8 * self.n_docs} bytes) {HINT}",
                )
            self.mt = _memmap(self.files["metadata"], np.uint8)
            self.om = _memmap(self.files["metaoff"], "<u8")
        self.meta = {"n_docs": self.n_docs, "n_tokens": n}
        self._check()
        self.fault = np.zeros(2, dtype=np.int64)
        self._doc_starts = None
        self._buckets = None

    # ------------------------------------------------------------------ checks
    def _check(self) -> None:
        """Sampled checks: document offsets (first at 0, increasing, each at a separator),
        metadata offsets (increasing, inside the file) and the order of neighbouring
        suffixes (table entries inside the stream, suffixes sorted)."""
        w, n, nd = self.width, self.n_tokens, self.n_docs
        docs = _sample(nd)
        od = np.asarray(self.od[docs], dtype=np.uint64)
        if int(self.od[0]) != 0:
            raise self.corrupt("offset", f"the first document starts at byte {int(self.od[0])}")
        bad = np.flatnonzero((od >= n * w) | (od % w != 0))
        if bad.size:
            raise self.corrupt(
                "offset",
                f"document {int(docs[bad[0]])} starts at byte {int(od[bad[0]])}, not at a "
                f"token of the stream of {n * w} bytes",
            )
        inner = docs[docs + 1 < nd]
        nxt = np.asarray(self.od[inner + 1], dtype=np.uint64)
        worse = np.flatnonzero(nxt <= od[: inner.shape[0]])
        if worse.size:
            k = int(inner[worse[0]])
            raise self.corrupt(
                "offset", f"the offsets of documents {k} and {k + 1} do not increase"
            )
        at = np.asarray(self.ds[(od // w).astype(np.int64)])
        if np.any(at != self.sep):
            k = int(docs[np.flatnonzero(at != self.sep)[0]])
            raise self.corrupt(
                "offset", f"document {k} does not start at a separator {self.sep}", "tokenized"
            )
        if self.om is not None:
            om = np.asarray(self.om[docs], dtype=np.uint64)
            size = self.mt.shape[0]
            if int(self.om[0]) != 0 or np.any(om > size) or np.any(om[1:] < om[:-1]):
                raise self.corrupt("metaoff", "its offsets do not run through metadata in order")
        py = _PyShard(self)
        for r in _sample(n - 1).tolist():
            a, b = py.position(r), py.position(r + 1)
            for h in range(ORDER_DEPTH):
                if a + h >= n:
                    break
                if b + h >= n:
                    raise self.corrupt("table", f"the suffixes at ranks {r} and {r + 1} are "
                                       "out of order")  # fmt: skip
                ka, kb = py.key(self.ds[a + h]), py.key(self.ds[b + h])
                if ka != kb:
                    if ka > kb:
                        raise self.corrupt(
                            "table", f"the suffixes at ranks {r} and {r + 1} are out of order"
                        )
                    break

    def corrupt(self, stem: str, problem: str, *also: str) -> InputError:
        where = self.files[stem]
        extra = f" (or {', '.join(self.files[s].name for s in also)})" if also else ""
        return InputError(where, f"corrupt infini-gram index: {problem}{extra}; rebuild it or "
                          "download it again")  # fmt: skip

    def bad_entry(self, rank: int, value: int | None = None) -> InputError:
        what = f" {value}" if value is not None else ""
        return self.corrupt(
            "table",
            f"suffix array entry{what} at rank {rank} is not the byte offset of a token of the "
            f"stream of {self.n_tokens} tokens",
        )

    def check_fault(self) -> None:
        if self.fault[0]:
            rank = int(self.fault[1])
            self.fault[:] = 0
            raise self.bad_entry(rank)

    # ------------------------------------------------------------------ queries
    @property
    def tokens(self) -> np.ndarray:
        return self.ds

    def keys(self, flat: np.ndarray) -> np.ndarray:
        return _kernels().token_keys(flat, self.width)

    def _counts(self, qk, starts, ends, glo, ghi, d0: int) -> tuple[np.ndarray, np.ndarray]:
        """(first rank, count) of the n-grams ``qk[starts[i]:ends[i]]`` searched within
        ``[glo[i], ghi[i])`` (``infinigram_kernels.count_batch``; a few in this thread)."""
        kn = _kernels()
        first = np.zeros(starts.shape[0], dtype=np.int64)
        count = np.zeros(starts.shape[0], dtype=np.int64)
        args = (self.ds, self.sa, self.ptr_bytes, self.width, self.fault, qk, starts, ends,
                glo, ghi, d0)  # fmt: skip
        if starts.shape[0] <= SERIAL_NGRAMS:
            kn.count_serial(*args, first, count)
        else:
            from numba import get_num_threads

            kn.count_batch(*args, get_num_threads(), first, count)
        self.check_fault()
        return first, count

    def token_intervals(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` per token of ``values``: the ranks of the suffixes starting with it
        (searched once per distinct token; for u8 and u16 kept for the process's later
        calls, in a table of every token value)."""
        u, inv = np.unique(values, return_inverse=True)
        if self.width <= 2:
            if self._buckets is None:
                self._buckets = np.full((2, 1 << (8 * self.width)), -1, dtype=np.int64)
            need = u[self._buckets[0, u] < 0]
        else:
            need = u
        if need.size:
            ends = np.arange(1, need.size + 1, dtype=np.int64)
            whole = np.zeros(need.size, dtype=np.int64)
            f, c = self._counts(self.keys(need), ends - 1, ends, whole, whole + self.n_tokens, 0)
            if self.width > 2:
                return f[inv], (f + c)[inv]
            self._buckets[0, need], self._buckets[1, need] = f, f + c
        return self._buckets[0, u][inv], self._buckets[1, u][inv]

    def longest_matches(self, flat: np.ndarray, offsets: np.ndarray, segments) -> tuple:
        """L_t and C_t (0 where L_t = 0) of the flat queries against this shard: the kernel
        over ``segments``, or the Python searches when ``segments`` is None."""
        if segments is None:
            return _PyShard(self).longest_matches(flat, offsets)
        ln = np.zeros(flat.shape[0], dtype=np.int64)
        cn = np.zeros(flat.shape[0], dtype=np.int64)
        if flat.size == 0:
            return ln, cn
        blo, bhi = self.token_intervals(flat)
        _kernels().longest_matches(
            self.ds, self.sa, self.ptr_bytes, self.width, self.fault, self.keys(flat), blo, bhi,
            *segments, ln, cn,
        )  # fmt: skip
        self.check_fault()
        return ln, cn

    def ngram_intervals(self, flat: np.ndarray, offsets: np.ndarray, numpy_path: bool):
        """``(found, first, count)`` per non-empty n-gram ``flat[offsets[i]:offsets[i+1]]``:
        whether it occurs in this shard, the first rank of its occurrences and their number."""
        k = offsets.shape[0] - 1
        if numpy_path:
            py = _PyShard(self)
            first = np.zeros(k, dtype=np.int64)
            count = np.zeros(k, dtype=np.int64)
            qk = [py.key(v) for v in flat.tolist()]
            for i in range(k):
                f, e = py.narrow(qk[offsets[i] : offsets[i + 1]], 0, self.n_tokens, 0)
                first[i], count[i] = f, e - f
            return count > 0, first, count
        starts = offsets[:-1].copy()
        glo, ghi = self.token_intervals(flat[starts])
        first, count = self._counts(self.keys(flat), starts, offsets[1:].copy(), glo, ghi, 1)
        return count > 0, first, count

    def positions(self, ranks: np.ndarray) -> np.ndarray:
        """Token position of the suffix of every rank (checked)."""
        if ranks.size == 0:
            return ranks.astype(np.int64)
        p, w = self.ptr_bytes, self.width
        raw = np.asarray(self.sa[(ranks[:, None] * p + np.arange(p)).ravel()]).reshape(-1, p)
        x = (raw.astype(np.uint64) << (np.arange(p, dtype=np.uint64) * np.uint64(8))).sum(1)
        bad = np.flatnonzero((x >= self.n_tokens * w) | (x % w != 0))
        if bad.size:
            raise self.bad_entry(int(ranks[bad[0]]), int(x[bad[0]]))
        return (x // w).astype(np.int64)

    def docs_of(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(local document number, offset of the token in its document) of token positions."""
        byte = pos.astype(np.uint64) * np.uint64(self.width)
        docs = np.searchsorted(self.od, byte, side="right").astype(np.int64) - 1
        start = np.asarray(self.od[docs], dtype=np.int64) // self.width + 1
        return docs, pos - start

    def doc_bounds(self, doc: int) -> tuple[int, int]:
        """Token range [a, b) of local document ``doc`` (without its separator)."""
        a = int(self.od[doc]) // self.width + 1
        b = int(self.od[doc + 1]) // self.width if doc + 1 < self.n_docs else self.n_tokens
        if not (0 < a <= b <= self.n_tokens):
            raise self.corrupt("offset", f"document {doc} spans tokens {a - 1}..{b}")
        return a, b

    @property
    def doc_starts(self) -> np.ndarray:
        """First token of every document, then ``n_tokens + 1`` (document ``k`` is
        ``doc_starts[k] .. doc_starts[k+1] - 1``, as in :attr:`copyscope.index.core.Shard`)."""
        if self._doc_starts is None:
            starts = np.asarray(self.od, dtype=np.int64) // self.width + 1
            self._doc_starts = np.append(starts, self.n_tokens + 1)
        return self._doc_starts

    def metadata(self, doc: int) -> dict | None:
        """The metadata line of local document ``doc`` (``path``, ``linenum``, ``metadata``),
        or None without metadata files."""
        if self.om is None:
            return None
        a = int(self.om[doc])
        b = int(self.om[doc + 1]) if doc + 1 < self.n_docs else self.mt.shape[0]
        if not 0 <= a <= b <= self.mt.shape[0]:
            raise self.corrupt("metaoff", f"document {doc}'s metadata spans bytes {a}..{b}")
        try:
            out = json.loads(bytes(self.mt[a:b]).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self.corrupt("metadata", f"document {doc}'s line is not JSON ({exc})") from exc
        if not isinstance(out, dict):
            raise self.corrupt("metadata", f"document {doc}'s line is not a JSON object")
        return out


def _sample(n: int, size: int = SAMPLE) -> np.ndarray:
    """A fixed sample of ``[0, n)``: its first and last entries, evenly spread and random."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    even = np.linspace(0, n - 1, num=min(size // 2, n)).astype(np.int64)
    rand = np.random.default_rng(0).integers(0, n, size=min(size // 2, n))
    return np.unique(np.concatenate([even, rand, [0, n - 1]]))


def doc_id(meta: dict | None, number: int) -> str:
    """A document's id: ``metadata.id`` of its metadata line when there is one, else
    ``path:linenum`` of its source file, else its document number."""
    if meta is None:
        return str(number)
    inner = meta.get("metadata")
    if isinstance(inner, dict) and isinstance(inner.get("id"), (str, int)):
        return str(inner["id"])
    if "path" in meta and "linenum" in meta:
        return f"{meta['path']}:{meta['linenum']}"
    return str(number)


class InfiniGramIndex(Index):
    """An infini-gram index folder with the queries of :class:`copyscope.index.Index`."""

    def __init__(self, path, token_dtype: str | None = None):
        path = Path(path)
        if token_dtype is not None and token_dtype not in WIDTHS:
            raise InputError(path, f"token width {token_dtype!r}: expected u8, u16 or u32")
        width = WIDTHS.get(token_dtype) if token_dtype else None
        suffixes = {stem: _suffixes(path, stem) for stem in STEMS}
        shards = sorted(suffixes["tokenized"], key=lambda s: f"tokenized{s}")
        for stem in ("table", "offset"):
            if suffixes[stem] != set(shards):
                odd = sorted(suffixes[stem] ^ set(shards))[0]
                raise InputError(
                    path / f"{stem}{odd}",
                    f"expected one {stem} file per tokenized file (shards "
                    f"{', '.join('tokenized' + s for s in shards)}) {HINT}",
                )
        has_meta = bool(suffixes["metadata"] or suffixes["metaoff"])
        self.shards = [InfiniGramShard(path, s, width, has_meta) for s in shards]
        widths = {s.width for s in self.shards}
        if len(widths) > 1:
            raise InputError(path, f"its shards have different token widths {sorted(widths)} "
                             f"{HINT}")  # fmt: skip
        self.width = widths.pop()
        self.path = path
        self.sep = (1 << (8 * self.width)) - 1
        self.dtype = DTYPES[self.width]
        self.n_tokens = sum(s.n_tokens for s in self.shards)
        self.n_docs = sum(s.n_docs for s in self.shards)
        self.manifest = {
            "format": "infini-gram",
            "shards": [s.path.name for s in self.shards],
            "n_tokens": self.n_tokens,
            "n_docs": self.n_docs,
            "dtype": f"u{8 * self.width}",
            "sep": self.sep,
            "pointer_bytes": [s.ptr_bytes for s in self.shards],
        }

    def count(self, ngram) -> int:
        """Number of occurrences of ``ngram`` (0 if absent; the corpus size if empty)."""
        return int(self.count_many([self._as_query(ngram, "ngram")])[0])

    def _local(self, doc: int) -> tuple[InfiniGramShard, int]:
        if doc < 0:
            raise IndexError(doc)
        for shard in self.shards:
            if doc < shard.n_docs:
                return shard, doc
            doc -= shard.n_docs
        raise IndexError(doc)

    def document(self, doc: int) -> np.ndarray:
        """Tokens of global document number ``doc`` (infini-gram's ``doc_ix``), without its
        separator."""
        shard, k = self._local(doc)
        a, b = shard.doc_bounds(k)
        return np.asarray(shard.ds[a:b])

    def metadata(self, doc: int) -> dict | None:
        """The metadata line of global document ``doc`` (None without metadata files)."""
        shard, k = self._local(doc)
        return shard.metadata(k)

    def locate_documents(self, ngrams, limit: int = 10) -> list[list[tuple[str, int, int]]]:
        """Per n-gram of a batch, one occurrence in each of up to ``limit`` documents
        (:meth:`copyscope.index.Index.locate_documents`, the trace's ``--docs-per-span``): the
        first ``max(2 * limit, 16)`` occurrences that :meth:`locate_many` reads, four times as
        many while they hold fewer than ``limit`` documents and the n-gram has more
        (:func:`copyscope.index.spans.distinct_documents`)."""
        from .spans import distinct_documents

        out = []
        for ngram in ngrams:
            take = max(2 * limit, 16)
            while True:
                found = self.locate_many([ngram], take)[0]
                docs = distinct_documents(found, limit)
                if len(docs) >= limit or len(found) < take:
                    break
                take *= 4
            out.append(docs)
        return out

    def locate_many(self, ngrams, limit: int = 10) -> list[list[tuple[str, int, int]]]:
        """Up to ``limit`` occurrences of every n-gram of a batch as (document id, document
        number, offset of its first token in the document): in each shard in turn, the
        first of its occurrences by suffix-array rank, sorted by position."""
        lens, keep, shards = self._intervals(ngrams)
        out: list[list[tuple[str, int, int]]] = [[] for _ in range(lens.shape[0])]
        if not shards:
            return out
        slot = keep.tolist()
        left = np.full(keep.shape[0], limit, dtype=np.int64)
        doc_base = 0
        for shard, (_, first, count) in zip(self.shards, shards, strict=True):
            take = np.minimum(count, np.maximum(left, 0))
            total = int(take.sum())
            if total:
                which = np.repeat(np.arange(keep.shape[0]), take)
                begin = np.concatenate([[0], np.cumsum(take)[:-1]])
                ranks = np.repeat(first - begin, take) + np.arange(total)
                pos = shard.positions(ranks)
                order = np.lexsort((pos, which))
                which, pos = which[order], pos[order]
                docs, offs = shard.docs_of(pos)
                ids: dict[int, str] = {}
                for w, d, o in zip(which.tolist(), docs.tolist(), offs.tolist(), strict=True):
                    if d not in ids:
                        ids[d] = doc_id(shard.metadata(d), doc_base + d)
                    out[slot[w]].append((ids[d], doc_base + d, o))
            left -= take
            doc_base += shard.n_docs
        return out


def open_linked(path, matches=None) -> InfiniGramIndex | None:
    """The infini-gram index that the ``index.json`` at ``path`` (a folder holding it, or the
    file) links (``format: infini-gram``, written by ``copyscope index link --format
    infini-gram``), its manifest extended by the link's (the tokenizer), its ``path`` the
    link's folder (where the tokenizer directory is relative to); None for anything else."""
    path = Path(path)
    manifest_path = path if path.name == "index.json" else path / "index.json"
    if not manifest_path.is_file():
        return None
    try:
        link = json.loads(manifest_path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None  # the copyscope index's own checks name the damage
    if not isinstance(link, dict) or link.get("format") != "infini-gram":
        return None
    if matches is not None:
        raise InputError(matches, "per-shard matches are not read for an infini-gram index")
    source = link.get("source_index")
    if not isinstance(source, str) or not is_infinigram(source):
        raise InputError(
            manifest_path,
            f"it links the infini-gram index {source!r}, which is not an infini-gram index "
            "folder (moved or deleted?): link it again (`copyscope index link --format "
            "infini-gram`)",
        )
    index = InfiniGramIndex(source, link.get("token_dtype"))
    if int(link.get("n_tokens", -1)) != index.n_tokens:
        raise InputError(
            manifest_path,
            f"it links {source} of {link.get('n_tokens')} tokens, which now holds "
            f"{index.n_tokens}: link it again",
        )
    index.manifest.update({k: v for k, v in link.items() if k.startswith("tokenizer")})
    index.manifest["source_index"] = source
    index.path = manifest_path.parent
    return index
