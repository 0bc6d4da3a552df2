"""Building one index shard: suffix array (libdivsufsort) + capped LCP over the reversed stream.

On-disk format of a shard directory (format ``copyscope-index/1``); arrays are ``.npy`` so they
memory-map, 7 bytes per token with uint16 ids:

============  =============================================================  =========
file          content                                                        bytes/tok
============  =============================================================  =========
tokens.npy    the token stream, every document followed by the separator     2 (u16)
sa.npy        suffix array of the reversed stream (int32; int64 if ≥ 2^31)    4 (8)
lcp.npy       LCP of neighbouring suffixes, one byte, capped at 255          1
meta.json     dtype, separator, sizes, size and sha256 of every file, build timings
doc_ids.json  document ids (only when they are not simply 0, 1, 2, …)
============  =============================================================  =========

A shard of 2^31 tokens or more (:data:`INT32_SUFFIXES`) stores an int64 suffix array:
11 bytes/token; ``index.shard_tokens`` (at most 2·10^9) keeps planned shards below it.
libdivsufsort sorts ``width`` bytes per token (2 for a uint16 stream of 255 ids or more, see
:func:`token_code`) and switches to its 64-bit sorter (8 instead of 4 bytes per sorted byte)
past 2^31 - 1 bytes, i.e. about 1.07e9 uint16 tokens.

Everything else the queries need (per-token buckets, LCP block minima, the sampled keys of
the suffix array, document starts) is
derived in memory when a query first needs it.  The separator is the largest value of the dtype (65535
for uint16, as in rusty-dawg), so every query id must be smaller.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pydivsufsort

from ..errors import InputError
from ..io import atomic_path, save_npy_hashed, sha256_array
from ..streams import SUPPORTED_DTYPES, default_sep, token_dtype_for
from .build_kernels import (
    aligned_suffixes,
    alphabet_size,
    fixed_width_bytes,
    lcp_capped,
    top_two,
)
from .kernels import LCP_CAP
from .verify import (
    FORMAT,
    check_manifest,
    file_records,
    index_folder,
    meta_sha256,
    read_metadata,
)


def token_code(seq: np.ndarray) -> tuple[int, int, int]:
    """``(top, code_top, width)``: the fewest bytes ``width`` that hold every value of ``seq``
    once its largest value ``top`` is recoded as ``code_top`` = one more than the next largest
    value. The order of values is unchanged, so the separator (the dtype's largest value) costs
    no extra byte: a uint16 stream of fewer than 255 ids needs 1 byte per token, a uint32
    stream of fewer than 2^24 - 1 ids 3 bytes."""
    top, below = top_two(seq)
    code_top = min(top, below + 1)
    return top, code_top, max(1, (code_top.bit_length() + 7) // 8)


def suffix_array(seq: np.ndarray) -> np.ndarray:
    """Suffix array of an integer sequence (uint16/uint32), sorted by libdivsufsort (Yuta
    Mori's divsufsort, through pydivsufsort).

    libdivsufsort sorts bytes, so each value is written as ``width`` big-endian bytes
    (:func:`token_code`); the order of the byte suffixes that start at multiples of ``width``
    equals the order of the token suffixes. pydivsufsort runs the 32-bit sorter up to 2^31 - 1
    bytes and divsufsort64 beyond; the result is int32 below :data:`INT32_SUFFIXES` tokens,
    else int64 (:func:`suffix_dtype`).
    """
    n = int(seq.shape[0])
    out = np.empty(n + 1, dtype=suffix_dtype(n))
    if n == 0:
        return out[:0]
    top, code_top, width = token_code(seq)
    data = np.empty(n * width, dtype=np.uint8)
    fixed_width_bytes(seq, top, code_top, width, data)
    sa_bytes = pydivsufsort.divsufsort(data)
    del data
    aligned_suffixes(sa_bytes, width, out)
    return out[:n]


INT32_SUFFIXES = 2**31
"""A shard of at least this many tokens gets an int64 suffix array (8 bytes/token, so 11
bytes/token with uint16 ids); ``index.shard_tokens`` is capped below it, so only a single
document longer than that (e.g. the joined stream of RAVEN's index) needs one."""


def suffix_dtype(n: int) -> np.dtype:
    """int32 for the suffix array of ``n`` < :data:`INT32_SUFFIXES` tokens, else int64."""
    return np.dtype(np.int32 if n < INT32_SUFFIXES else np.int64)


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
        "sa_dtype": str(sa.dtype),
        "build_seconds": {"sa": t_sa, "lcp": t_total - t_sa, "total": t_total},
        **(extra_meta or {}),
    }
    arrays = {"tokens": tokens, "sa": sa, "lcp": lcp}
    with atomic_path(out_dir) as tmp:
        tmp.mkdir()
        files = {
            f"{name}.npy": save_npy_hashed(tmp / f"{name}.npy", a) for name, a in arrays.items()
        }
        if doc_ids is not None and list(doc_ids) != [str(i) for i in range(n_docs)]:
            (tmp / "doc_ids.json").write_text(json.dumps(list(doc_ids)))
            files.update(file_records(tmp, ["doc_ids.json"]))
        meta["files"] = files
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


def plan_shards(doc_lengths, shard_tokens: int) -> dict:
    """The shard plan of a token stream whose documents have ``doc_lengths`` tokens (each is
    followed by one separator): ``{"shard_tokens", "shards": [{"name": "shard-NNN",
    "first_doc", "end_doc", "start", "end"}]}`` with [first_doc, end_doc) the documents and
    [start, end) the stream positions (separators included) of each shard, from
    :func:`shard_plan`."""
    lengths = np.asarray(doc_lengths, dtype=np.int64) + 1
    ends = np.cumsum(lengths)
    starts = ends - lengths
    shards = [
        {
            "name": f"shard-{i:03d}",
            "first_doc": a,
            "end_doc": b,
            "start": int(starts[a]),
            "end": int(ends[b - 1]),
        }
        for i, (a, b) in enumerate(shard_plan(lengths, shard_tokens))
    ]
    return {"shard_tokens": shard_tokens, "shards": shards}


def build_planned_shard(tokens_npy, meta_json, plan_json, shard: str, out) -> dict:
    """Build shard ``shard`` of the plan ``plan_json`` (see :func:`plan_shards`) from the
    tokenized split ``tokens_npy`` / ``meta_json`` into ``out``; returns the shard's meta."""
    plan = json.loads(Path(plan_json).read_text())
    entry = next((s for s in plan["shards"] if s["name"] == shard), None)
    if entry is None:
        raise InputError(plan_json, f"no shard named {shard!r}")
    doc_ids = json.loads(Path(meta_json).read_text())["doc_ids"]
    tokens = np.load(tokens_npy, mmap_mode="r")
    return build_shard(
        np.ascontiguousarray(tokens[entry["start"] : entry["end"]]),
        out,
        doc_ids=doc_ids[entry["first_doc"] : entry["end_doc"]],
        extra_meta={"first_doc": entry["first_doc"]},
    )


def planned_shard_dirs(plan_json, shard_dirs: list) -> list[Path]:
    """``shard_dirs`` in the order of the plan ``plan_json``; each planned shard must be given
    exactly once (a directory is matched to a shard by its name)."""
    names = [s["name"] for s in json.loads(Path(plan_json).read_text())["shards"]]
    by_name = {Path(d).name: Path(d) for d in shard_dirs}
    if sorted(by_name) != sorted(names) or len(by_name) != len(shard_dirs):
        raise InputError(plan_json, f"expected the shard directories {names}, got {shard_dirs}")
    return [by_name[n] for n in names]


def write_manifest(out_json, shard_dirs: list, extra: dict | None = None) -> dict:
    """Write the index manifest ``out_json`` (``index.json``) listing the shard directories in
    order, as paths relative to the manifest's folder (the index directory)."""
    out_json = Path(out_json)
    metas = [json.loads((Path(s) / "meta.json").read_text()) for s in shard_dirs]
    dtypes = {m["dtype"] for m in metas}
    seps = {m["sep"] for m in metas}
    if len(dtypes) != 1 or len(seps) != 1:
        raise InputError(out_json.parent, f"shards disagree on dtype/sep: {dtypes} {seps}")
    manifest = {
        "format": FORMAT,
        "shards": [os.path.relpath(s, out_json.parent) for s in shard_dirs],
        "shard_meta_sha256": {
            os.path.relpath(s, out_json.parent): meta_sha256(s) for s in shard_dirs
        },
        "dtype": dtypes.pop(),
        "sep": seps.pop(),
        "n_tokens": sum(m["n_tokens"] for m in metas),
        "n_docs": sum(m["n_docs"] for m in metas),
        "bytes_on_disk": sum(m["bytes_on_disk"] for m in metas),
        **(extra or {}),
    }
    manifest["bytes_per_token"] = manifest["bytes_on_disk"] / manifest["n_tokens"]
    with atomic_path(out_json) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def source_shard_dirs(index_dir) -> list[Path]:
    """The shard directories of the index at ``index_dir``: the ones its ``index.json`` lists
    (in order), or ``index_dir`` itself when it is a single shard (``meta.json``)."""
    index_dir = index_folder(index_dir)
    manifest = index_dir / "index.json"
    if manifest.exists():
        return [index_dir / s for s in read_metadata(manifest, check_manifest)["shards"]]
    return [index_dir]


def link_index(source, out_json, tokenizer: dict) -> dict:
    """Write ``out_json``, the manifest of an index built elsewhere (``source``), so that the
    workflow queries it in place of one built from the training split.

    Before anything is written: every file of ``source`` must match the sha256 recorded at
    build time (:func:`copyscope.index.verify.verify_index`), and when ``source`` recorded its
    tokenizer's fingerprint, it must equal ``tokenizer["tokenizer_sha256"]`` (the tokenizer
    the workflow encodes texts with). The manifest lists ``source``'s shards (relative paths,
    as :func:`write_manifest`), names the workflow's tokenizer and records ``source_index``.
    """
    from .verify import verify_index, verify_problems

    source = index_folder(source)
    problem = verify_problems(verify_index(source))
    if problem:
        raise InputError(source, problem)
    recorded_path = source / "index.json"
    recorded = json.loads(recorded_path.read_text()) if recorded_path.exists() else {}
    sha = recorded.get("tokenizer_sha256")
    if sha and tokenizer.get("tokenizer_sha256") and sha != tokenizer["tokenizer_sha256"]:
        raise InputError(
            source,
            f"built with another tokenizer (fingerprint {sha[:12]}, "
            f"{recorded.get('tokenizer')!r} of kind {recorded.get('tokenizer_kind')}) than "
            f"tokenizer {tokenizer.get('tokenizer')!r} (kind {tokenizer.get('tokenizer_kind')}, "
            f"fingerprint {tokenizer['tokenizer_sha256'][:12]}): build the index with the "
            "workflow's tokenizer, or set that tokenizer's kind to the index's",
        )
    return write_manifest(
        out_json, source_shard_dirs(source), {**tokenizer, "source_index": str(source.resolve())}
    )


def link_infinigram(source, out_json, tokenizer: dict, token_dtype: str | None = None) -> dict:
    """Write ``out_json``, the manifest of an infini-gram index folder ``source``, so that the
    workflow queries it in place (:class:`~copyscope.index.infinigram.InfiniGramIndex`).

    Before anything is written the folder is opened and checked as every query opens it, and
    the workflow's tokenizer (``tokenizer``, :func:`tokenizer_entry`) must fit its token width
    (every id below its separator); infini-gram records no tokenizer, so which tokenizer its
    ids come from is the user's word. The manifest records ``format: infini-gram``,
    ``source_index`` and the token width, the sizes and the tokenizer."""
    from ..tokenize import load
    from .infinigram import InfiniGramIndex

    source = Path(source)
    index = InfiniGramIndex(source, token_dtype)
    if tokenizer.get("tokenizer_dir"):
        where = os.path.normpath(Path(out_json).parent / tokenizer["tokenizer_dir"])
        tok = load(tokenizer["tokenizer_kind"], where)
        if tok.max_id >= index.sep:
            raise InputError(
                source,
                f"its tokens are {index.manifest['dtype']} (ids below {index.sep}), tokenizer "
                f"{tokenizer.get('tokenizer')!r} has ids up to {tok.max_id}: not the tokenizer "
                "of this index",
            )
    manifest = {
        "format": "infini-gram",
        "source_index": str(source.resolve()),
        "token_dtype": index.manifest["dtype"],
        **{k: index.manifest[k] for k in ("dtype", "sep", "n_tokens", "n_docs", "pointer_bytes")},
        "infinigram_shards": index.manifest["shards"],
        **tokenizer,
    }
    with atomic_path(Path(out_json)) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def tokenizer_entry(tokenizer_dir, name: str, kind: str, out_json) -> dict:
    """Manifest keys naming the index's tokenizer: its directory relative to the index (so
    results can be moved or mounted elsewhere), config name, kind and fingerprint (so a query
    with another tokenizer is detected)."""
    from ..tokenize import load

    rel = os.path.relpath(tokenizer_dir, Path(out_json).parent)
    return {
        "tokenizer_dir": rel,
        "tokenizer": name,
        "tokenizer_kind": kind,
        "tokenizer_sha256": load(kind, tokenizer_dir, "--tokenizer-kind").fingerprint(),
    }


def build_index(
    tokens: np.ndarray,
    out_dir,
    *,
    sep: int | None = None,
    doc_ids: list[str] | None = None,
    shard_tokens: int | None = None,
    extra: dict | None = None,
) -> dict:
    """Build a complete (possibly sharded) index in one process: shards + ``index.json``
    (with the keys ``extra``, e.g. :func:`tokenizer_entry`).

    The index is built in a temporary folder next to ``out_dir`` and renamed onto it when
    complete (:func:`copyscope.io.atomic_path`), so an interrupted build leaves no folder and
    an index already at ``out_dir`` is replaced whole. A folder there that is not an index
    (files, but no ``index.json``) is refused rather than replaced."""
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    sep = default_sep(tokens.dtype) if sep is None else int(sep)
    validate_stream(tokens, sep)
    ends = np.flatnonzero(tokens == sep) + 1
    starts = np.concatenate([[0], ends[:-1]])
    plan = shard_plan(ends - starts, shard_tokens or tokens.shape[0])
    with atomic_path(out_dir) as tmp:
        tmp.mkdir()
        names = []
        for i, (a, b) in enumerate(plan):
            name = f"shard-{i:03d}"
            ids = doc_ids[a:b] if doc_ids is not None else [str(j) for j in range(a, b)]
            build_shard(
                tokens[starts[a] : ends[b - 1]],
                tmp / name,
                sep=sep,
                doc_ids=ids,
                extra_meta={"first_doc": int(a)},
            )
            names.append(name)
        manifest = write_manifest(tmp / "index.json", [tmp / n for n in names], extra)
    return manifest


def check_out_dir(out_dir: Path) -> None:
    """An index may be written to ``out_dir``: it does not exist, or is an empty folder, or
    an index (``index.json``), which the new one replaces."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(out_dir, "expected an index directory to write, found a file there")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / "index.json").is_file():
        raise InputError(
            out_dir,
            "expected a new or empty folder (or an index to replace) to write the index to, "
            "found a folder with other files: name a new folder",
        )


def stream_from_signed(array: np.ndarray, source="tokens") -> np.ndarray:
    """A signed integer stream as a supported one: -1 is the document separator, every other
    value an id in [0, 2^32 - 1); uint16 when every id is below 65535, else uint32."""
    ids = array[array != -1]
    low = int(ids.min()) if ids.size else 0
    high = int(ids.max()) if ids.size else 0
    if low < 0 or high >= np.iinfo(np.uint32).max:
        bad = low if low < 0 else high
        raise InputError(
            source,
            f"token id {bad} does not fit: a signed stream holds ids in [0, 4294967295) and -1 "
            "as the document separator",
        )
    dtype = token_dtype_for(high)
    out = array.astype(dtype)
    out[array == -1] = default_sep(dtype)
    return out


def load_token_stream(path) -> np.ndarray:
    """The token stream in the ``.npy`` file ``path``, checked: a 1-D integer array, uint16 or
    uint32 with the dtype's largest value as the separator, or signed (int8–int64) with -1 as
    the separator (:func:`stream_from_signed`)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found (expected a token stream saved with numpy.save)")
    try:
        array = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(
            path, f"expected a .npy file written by numpy.save, could not read it ({exc})"
        ) from exc
    if not isinstance(array, np.ndarray):
        raise InputError(path, "expected a .npy file (one array), got a .npz archive")
    if array.ndim != 1:
        raise InputError(
            path,
            f"expected a 1-D token stream, got shape {array.shape}: concatenate the documents, "
            "each followed by the separator",
        )
    if array.dtype.kind == "i":
        if array.size and int(array[-1]) != -1:
            raise InputError(
                path,
                f"expected the stream to end with the separator -1 (a signed stream, "
                f"{array.dtype}: -1 follows every document), found {int(array[-1])}",
            )
        return stream_from_signed(array, path)
    if array.dtype not in SUPPORTED_DTYPES:
        raise InputError(
            path,
            f"expected integer token ids (uint16/uint32 with the dtype's largest value as the "
            f"separator, or signed with -1 as the separator), got {array.dtype}",
        )
    return array


def build_index_from_files(
    tokens_npy,
    out_dir,
    meta_json=None,
    join: bool = False,
    shard_tokens: int | None = None,
    extra: dict | None = None,
) -> dict:
    """:func:`build_index` of a token stream file (:func:`load_token_stream`); document ids
    from the split's ``meta_json`` if given; ``join``: index the documents as one stream
    (:func:`join_documents`); ``extra``: more ``index.json`` keys."""
    from ..io import read_json

    check_out_dir(Path(out_dir))  # before reading the stream
    tokens = load_token_stream(tokens_npy)
    validate_stream(tokens, default_sep(tokens.dtype), tokens_npy)
    if join:
        return build_index(join_documents(tokens), out_dir, shard_tokens=shard_tokens, extra=extra)
    ids = read_json(meta_json).get("doc_ids") if meta_json else None
    return build_index(tokens, out_dir, doc_ids=ids, shard_tokens=shard_tokens, extra=extra)


def join_documents(tokens: np.ndarray) -> np.ndarray:
    """The stream as one document: every separator removed but the final one (RAVEN's
    concatenated training stream, where n-grams may cross document boundaries)."""
    sep = default_sep(tokens.dtype)
    body = tokens[tokens != sep]
    return np.append(body, np.array([sep], dtype=tokens.dtype))
