"""Building one index shard: suffix array (PySAIS) + LCP (Kasai) over the reversed stream.

On-disk format of a shard directory (format ``copyscope-index/1``); arrays are ``.npy`` so they
memory-map, 7 bytes per token with uint16 ids:

============  =============================================================  =========
file          content                                                        bytes/tok
============  =============================================================  =========
tokens.npy    the token stream, every document followed by the separator     2 (u16)
sa.npy        suffix array of the reversed stream (int32; int64 if ≥ 2^31)    4
lcp.npy       LCP of neighbouring suffixes, one byte, capped at 255          1
meta.json     dtype, separator, sizes, sha256 of the tokens, build timings
doc_ids.json  document ids (only when they are not simply 0, 1, 2, …)
============  =============================================================  =========

Everything else the queries need (per-token buckets, LCP block minima, document starts) is
derived when the index is opened.  The separator is the largest value of the dtype (65535
for uint16, as in rusty-dawg), so every query id must be smaller.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import PySAIS

from ..errors import InputError
from ..io import atomic_path, sha256_array
from .kernels import LCP_CAP, aligned_suffixes, alphabet_size, lcp_capped

FORMAT = "copyscope-index/1"
SUPPORTED_DTYPES = (np.dtype(np.uint16), np.dtype(np.uint32))


def default_sep(dtype) -> int:
    """The document separator: the largest value of the token dtype (65535 for uint16)."""
    return int(np.iinfo(np.dtype(dtype)).max)


def token_dtype_for(max_id: int):
    """Smallest supported dtype whose range holds ``max_id`` and a separator above it."""
    if max_id < np.iinfo(np.uint16).max:
        return np.dtype(np.uint16)
    if max_id < np.iinfo(np.uint32).max:
        return np.dtype(np.uint32)
    raise ValueError(f"token id {max_id} does not fit below the uint32 separator")


def suffix_array(seq: np.ndarray) -> np.ndarray:
    """Suffix array of an integer sequence (uint16/uint32) using PySAIS (Yuta Mori's SA-IS).

    PySAIS sorts bytes only, so each token is written as fixed-width big-endian bytes; the
    order of the byte suffixes that start at multiples of the width equals the order of the
    token suffixes.
    """
    seq = np.ascontiguousarray(seq)
    width = seq.dtype.itemsize
    n = seq.shape[0]
    be = seq.astype(seq.dtype.newbyteorder(">"), copy=False).tobytes()
    sa_bytes = PySAIS.sais(be)
    del be
    sa = aligned_suffixes(sa_bytes, width, n) if width > 1 else sa_bytes
    del sa_bytes
    return sa.astype(np.int32 if n < 2**31 else np.int64, copy=False)


def validate_stream(tokens: np.ndarray, sep: int, source="tokens") -> None:
    """Check a token stream before indexing; raise InputError naming ``source`` otherwise."""
    if tokens.dtype not in SUPPORTED_DTYPES:
        raise InputError(source, f"expected uint16 or uint32 token ids, got {tokens.dtype}")
    if tokens.ndim != 1 or tokens.shape[0] == 0:
        raise InputError(source, "expected a non-empty 1-D token stream (is the corpus empty?)")
    if sep != default_sep(tokens.dtype):
        raise InputError(
            source, f"expected the separator to be {default_sep(tokens.dtype)}, got {sep}"
        )
    if int(tokens[-1]) != sep:
        raise InputError(source, f"expected the stream to end with the separator id {sep}")


def build_shard(
    tokens: np.ndarray,
    out_dir,
    *,
    sep: int | None = None,
    doc_ids: list[str] | None = None,
    extra_meta: dict | None = None,
) -> dict:
    """Build an index shard for ``tokens`` (documents each followed by ``sep``) into ``out_dir``.

    The directory is written under a temporary name and renamed when complete.
    Returns the metadata (also in ``meta.json``), including build timings.
    """
    sep = default_sep(tokens.dtype) if sep is None else int(sep)
    validate_stream(tokens, sep)
    n = int(tokens.shape[0])
    n_docs = int(np.count_nonzero(tokens == sep))
    if doc_ids is not None and len(doc_ids) != n_docs:
        raise InputError("doc_ids", f"expected {n_docs} document ids, got {len(doc_ids)}")

    t0 = time.perf_counter()
    rev = np.ascontiguousarray(tokens[::-1])
    sa = suffix_array(rev)
    t_sa = time.perf_counter() - t0
    lcp = np.empty(n, dtype=np.uint8)
    lcp_capped(rev, sa, np.empty(n, dtype=sa.dtype), lcp, LCP_CAP)
    del rev
    t_total = time.perf_counter() - t0

    meta = {
        "format": FORMAT,
        "dtype": str(tokens.dtype),
        "sep": sep,
        "n_tokens": n,
        "n_docs": n_docs,
        "alphabet_size": int(alphabet_size(tokens, sep)),
        "tokens_sha256": sha256_array(tokens),
        "lcp_cap": LCP_CAP,
        "build_seconds": {"sa": t_sa, "lcp": t_total - t_sa, "total": t_total},
        **(extra_meta or {}),
    }
    arrays = {"tokens": tokens, "sa": sa, "lcp": lcp}
    with atomic_path(out_dir) as tmp:
        tmp.mkdir()
        for name, arr in arrays.items():
            np.save(tmp / f"{name}.npy", arr)
        if doc_ids is not None and list(doc_ids) != [str(i) for i in range(n_docs)]:
            (tmp / "doc_ids.json").write_text(json.dumps(list(doc_ids)))
        meta["bytes_on_disk"] = sum(p.stat().st_size for p in tmp.iterdir())
        meta["bytes_per_token"] = meta["bytes_on_disk"] / n
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta


def shard_plan(doc_lengths: np.ndarray, shard_tokens: int) -> list[tuple[int, int]]:
    """Split documents (lengths include their separator) into consecutive shards of at most
    ``shard_tokens`` tokens each; a document longer than the limit gets a shard of its own.
    Returns [first_doc, end_doc) pairs.
    """
    if shard_tokens <= 0:
        raise ValueError("shard_tokens must be positive")
    plan = []
    first = 0
    size = 0
    for i, length in enumerate(doc_lengths.tolist()):
        if size > 0 and size + length > shard_tokens:
            plan.append((first, i))
            first, size = i, 0
        size += length
    if size > 0 or not plan:
        plan.append((first, len(doc_lengths)))
    return plan


def write_manifest(index_dir, shard_dirs: list[str], extra: dict | None = None) -> dict:
    """Write ``index.json`` listing the shards (paths relative to ``index_dir``) in order."""
    index_dir = Path(index_dir)
    metas = [json.loads((index_dir / s / "meta.json").read_text()) for s in shard_dirs]
    dtypes = {m["dtype"] for m in metas}
    seps = {m["sep"] for m in metas}
    if len(dtypes) != 1 or len(seps) != 1:
        raise InputError(index_dir, f"shards disagree on dtype/sep: {dtypes} {seps}")
    manifest = {
        "format": FORMAT,
        "shards": list(shard_dirs),
        "dtype": dtypes.pop(),
        "sep": seps.pop(),
        "n_tokens": sum(m["n_tokens"] for m in metas),
        "n_docs": sum(m["n_docs"] for m in metas),
        "bytes_on_disk": sum(m["bytes_on_disk"] for m in metas),
        **(extra or {}),
    }
    manifest["bytes_per_token"] = manifest["bytes_on_disk"] / manifest["n_tokens"]
    with atomic_path(index_dir / "index.json") as tmp:
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def build_index(
    tokens: np.ndarray,
    out_dir,
    *,
    sep: int | None = None,
    doc_ids: list[str] | None = None,
    shard_tokens: int | None = None,
) -> dict:
    """Build a complete (possibly sharded) index in one process: shards + ``index.json``."""
    sep = default_sep(tokens.dtype) if sep is None else int(sep)
    validate_stream(tokens, sep)
    out_dir = Path(out_dir)
    ends = np.flatnonzero(tokens == sep) + 1
    starts = np.concatenate([[0], ends[:-1]])
    plan = shard_plan(ends - starts, shard_tokens or tokens.shape[0])
    names = []
    for i, (a, b) in enumerate(plan):
        name = f"shard-{i:03d}"
        ids = doc_ids[a:b] if doc_ids is not None else [str(j) for j in range(a, b)]
        build_shard(
            tokens[starts[a] : ends[b - 1]],
            out_dir / name,
            sep=sep,
            doc_ids=ids,
            extra_meta={"first_doc": int(a)},
        )
        names.append(name)
    return write_manifest(out_dir, names)


def join_documents(tokens: np.ndarray) -> np.ndarray:
    """The stream as one document: every separator removed but the final one (RAVEN's
    concatenated training stream, where n-grams may cross document boundaries)."""
    sep = default_sep(tokens.dtype)
    body = tokens[tokens != sep]
    return np.append(body, np.array([sep], dtype=tokens.dtype))
