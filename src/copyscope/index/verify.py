"""Checks that an index on disk is the one its metadata describes.

Four levels, from cheap to complete:

* :func:`check_meta` and :func:`check_manifest` (every open): ``meta.json`` and ``index.json``
  hold every key the index reads, each of the expected type and range (a damaged file is named,
  never a ``KeyError``);
* :func:`check_array_files` (every open): each ``.npy`` exists, its header parses, its dtype
  and shape are the ones ``meta.json`` implies, and the file holds exactly the bytes the header
  promises (a truncated or padded file is named, never memory-mapped);
* :func:`order_problem` (every open): a fixed sample of neighbouring suffix-array ranks is
  checked against the definition of the index — suffixes of the reversed stream in increasing
  order, ``lcp[k]`` their longest common prefix capped at ``lcp_cap`` — so overwritten contents
  of the right size are caught too, with a probability that grows with the damaged share;
* :func:`verify_index` (``copyscope index verify DIR``): the sha256 of every file against the
  checksums recorded at build time (``meta.json`` ``files``, ``index.json``
  ``shard_meta_sha256``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io import sha256_array, sha256_file

FORMAT = "copyscope-index/1"  # the on-disk format (see copyscope.index.build)
ARRAYS = ("tokens", "sa", "lcp")
SAMPLE_RANKS = 512
TOKEN_DTYPES = ("uint16", "uint32")
DAMAGED = "DAMAGED"  # verify status of a metadata file that cannot be read (then ": reason")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_map(value) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _is_file_records(value) -> bool:
    """``{file name: {"bytes": int, "sha256": str}}`` with plain file names (no folders)."""
    return isinstance(value, dict) and all(
        isinstance(rec, dict)
        and _is_int(rec.get("bytes"))
        and isinstance(rec.get("sha256"), str)
        and name == Path(name).name
        and name not in ("", ".", "..")
        for name, rec in value.items()
    )


def _problem(obj, required: dict, optional: dict) -> str | None:
    """The first key of ``required`` missing from the JSON object ``obj``, or of either dict
    present with a value its check refuses (``(check, what was expected)`` per key)."""
    if not isinstance(obj, dict):
        return f"expected a JSON object, found {type(obj).__name__}"
    for key, (check, what) in {**required, **optional}.items():
        if key not in obj:
            if key in required:
                return f"missing key {key!r} ({what})"
            continue
        if not check(obj[key]):
            return f"expected {key!r} to be {what}, found {obj[key]!r:.60}"
    return None


META_KEYS = {
    "format": (lambda v: v == FORMAT, repr(FORMAT)),
    "dtype": (lambda v: v in TOKEN_DTYPES, f"one of {list(TOKEN_DTYPES)}"),
    "sep": (_is_int, "an integer"),
    "n_tokens": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "n_docs": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "alphabet_size": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "lcp_cap": (lambda v: _is_int(v) and 1 <= v <= 255, "an integer in [1, 255]"),
}
META_OPTIONAL = {
    "sa_dtype": (lambda v: v in (None, "int32", "int64"), "int32 or int64"),
    "files": (_is_file_records, 'an object {file: {"bytes": int, "sha256": str}}'),
    "tokens_sha256": (lambda v: isinstance(v, str), "a string"),
    "first_doc": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
}
MANIFEST_KEYS = {
    "shards": (
        lambda v: isinstance(v, list) and v and all(isinstance(s, str) and s for s in v),
        "a non-empty list of shard folders",
    ),
    "dtype": (lambda v: v in TOKEN_DTYPES, f"one of {list(TOKEN_DTYPES)}"),
    "sep": (_is_int, "an integer"),
    "n_tokens": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
}
MANIFEST_OPTIONAL = {
    "format": (lambda v: v == FORMAT, repr(FORMAT)),
    "n_docs": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "shard_meta_sha256": (_is_str_map, "an object {shard: sha256}"),
    **{
        key: (lambda v: isinstance(v, str), "a string")
        for key in ("tokenizer", "tokenizer_dir", "tokenizer_kind", "tokenizer_sha256")
    },
}


def check_meta(path, meta) -> None:
    """Raise an InputError naming the shard's ``meta.json`` (``path``) unless ``meta`` holds
    every key a query reads (:data:`META_KEYS`), each of the expected type and range, the
    separator the dtype's largest value, the alphabet below it and the documents no more than
    the tokens."""
    problem = _problem(meta, META_KEYS, META_OPTIONAL)
    if problem is None:
        sep = int(np.iinfo(np.dtype(meta["dtype"])).max)
        if meta["sep"] != sep:
            problem = (
                f"expected 'sep' to be {sep} (the largest {meta['dtype']}), found {meta['sep']}"
            )
        elif meta["alphabet_size"] > sep:
            problem = f"expected 'alphabet_size' to be at most {sep}, found {meta['alphabet_size']}"
        elif meta["n_docs"] > meta["n_tokens"]:
            problem = f"'n_docs' {meta['n_docs']} exceeds 'n_tokens' {meta['n_tokens']}"
    if problem:
        raise InputError(path, f"damaged index metadata: {problem}{VERIFY_HINT}")


def check_manifest(path, manifest) -> None:
    """Raise an InputError naming ``index.json`` (``path``) unless ``manifest`` holds the keys
    an index is opened with (:data:`MANIFEST_KEYS`), each of the expected type."""
    problem = _problem(manifest, MANIFEST_KEYS, MANIFEST_OPTIONAL)
    if problem:
        raise InputError(path, f"damaged index manifest: {problem}{VERIFY_HINT}")


VERIFY_HINT = "; rebuild the index or copy it again (`copyscope index verify` checks every file)"


def read_metadata(path, check) -> dict:
    """The JSON file ``path`` (``meta.json`` or ``index.json``) checked by ``check``; a file
    that is not valid UTF-8 JSON is an InputError naming it, as a damaged one is."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found (incomplete or corrupt index)")
    try:
        obj = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            path, f"damaged index metadata: not valid JSON ({exc}){VERIFY_HINT}"
        ) from exc
    check(path, obj)
    return obj


def expected_arrays(meta: dict) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """dtype and shape of each array of a shard with metadata ``meta``: the stream in the
    recorded dtype, the suffix array in its recorded ``sa_dtype`` (shards built before it was
    recorded: int32, int64 from 2^31 tokens), the LCP in uint8."""
    n = int(meta["n_tokens"])
    sa_dtype = np.dtype(meta.get("sa_dtype") or (np.int32 if n < 2**31 else np.int64))
    return {
        "tokens": (np.dtype(meta["dtype"]), (n,)),
        "sa": (sa_dtype, (n,)),
        "lcp": (np.dtype(np.uint8), (n,)),
    }


def npy_header(path: Path) -> tuple[np.dtype, tuple[int, ...], int]:
    """(dtype, shape, data offset) from the header of the ``.npy`` file ``path``."""
    fmt = np.lib.format
    try:
        with open(path, "rb") as fh:
            version = fmt.read_magic(fh)
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, fortran, dtype = read(fh)
            offset = fh.tell()
    except Exception as exc:  # damaged header bytes: numpy's parser raises many kinds
        raise InputError(path, f"not a readable .npy file ({exc!r:.200}): corrupt index") from exc
    if fortran and len(shape) > 1:
        raise InputError(path, "expected a C-ordered array")
    return np.dtype(dtype), tuple(int(s) for s in shape), offset


def check_array_files(directory: Path, meta: dict) -> None:
    """Raise an InputError naming the first array file of the shard ``directory`` that is
    missing, has another dtype or shape than ``meta`` implies, or is not exactly as long as
    its header says (truncated or padded)."""
    for name, (dtype, shape) in expected_arrays(meta).items():
        path = directory / f"{name}.npy"
        if not path.exists():
            raise InputError(path, "missing index array (incomplete or corrupt index)")
        found_dtype, found_shape, offset = npy_header(path)
        if found_dtype != dtype or found_shape != shape:
            raise InputError(
                path,
                f"expected dtype {dtype} and shape {shape} (from meta.json), found "
                f"{found_dtype} {found_shape}: corrupt index or meta.json of another index",
            )
        want = offset + int(np.prod(shape)) * dtype.itemsize
        size = path.stat().st_size
        if size != want:
            what = "truncated" if size < want else "longer than its header says"
            raise InputError(
                path, f"{what}: {size} bytes, expected {want} (corrupt or incompletely copied)"
            )


def _reversed_window(tokens: np.ndarray, start: int, width: int) -> np.ndarray:
    """``rev[start:start + width]`` of the reversed stream ``rev = tokens[::-1]``."""
    n = tokens.shape[0]
    return np.asarray(tokens[max(0, n - start - width) : n - start])[::-1]


def pair_problem(tokens, sa, lcp, k: int, cap: int) -> str | None:
    """What is wrong at suffix-array rank ``k`` (≥ 1), or ``None``: the suffixes SA[k-1] and
    SA[k] of the reversed stream must be distinct positions in increasing order, and
    ``lcp[k]`` must be min(cap, their longest common prefix)."""
    n = tokens.shape[0]
    a, b = int(sa[k - 1]), int(sa[k])
    if not (0 <= a < n and 0 <= b < n) or a == b:
        return f"suffix array entries {a}, {b} at ranks {k - 1}, {k} are not distinct positions"
    x = _reversed_window(tokens, a, cap + 1)
    y = _reversed_window(tokens, b, cap + 1)
    m = min(len(x), len(y))
    differ = np.flatnonzero(x[:m] != y[:m])
    common = int(differ[0]) if differ.size else m
    if common < m and x[common] > y[common]:
        return f"suffixes at ranks {k - 1}, {k} are out of order"
    if common == m and len(x) > len(y) and m < cap + 1:
        return f"suffixes at ranks {k - 1}, {k} are out of order"
    if int(lcp[k]) != min(common, cap):
        return f"lcp[{k}] is {int(lcp[k])}, the suffixes share {min(common, cap)} tokens"
    return None


def sample_ranks(n: int, size: int = SAMPLE_RANKS) -> np.ndarray:
    """A fixed (seeded) sample of suffix-array ranks in [1, n), evenly spread plus random."""
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    even = np.linspace(1, n - 1, num=min(size // 2, n - 1)).astype(np.int64)
    rand = np.random.default_rng(0).integers(1, n, size=min(size // 2, n - 1))
    return np.unique(np.concatenate([even, rand]))


def order_problem(tokens, sa, lcp, cap: int) -> str | None:
    """The first problem :func:`pair_problem` finds at the ranks of :func:`sample_ranks`."""
    for k in sample_ranks(tokens.shape[0]).tolist():
        problem = pair_problem(tokens, sa, lcp, k, cap)
        if problem:
            return problem
    return None


def damaged_files(directory: Path, meta: dict) -> list[str]:
    """The files of a shard whose sha256 differs from the one recorded in ``meta``
    (``files``); none when nothing was recorded (an index built before checksums)."""
    files = meta.get("files")
    if not files:
        return []
    return [f for f, rec in sorted(files.items()) if _sha(directory / f) != rec["sha256"]]


def _sha(path: Path) -> str | None:
    return sha256_file(path) if path.exists() else None


def file_records(directory: Path, names) -> dict[str, dict]:
    """``{file: {"bytes", "sha256"}}`` of the files ``names`` in ``directory`` (build time)."""
    return {
        f: {"bytes": (directory / f).stat().st_size, "sha256": sha256_file(directory / f)}
        for f in names
    }


def meta_sha256(shard_dir: Path) -> str:
    """sha256 of a shard's ``meta.json`` (recorded in ``index.json``)."""
    return hashlib.sha256((Path(shard_dir) / "meta.json").read_bytes()).hexdigest()


def check_shard_metas(index_dir: Path, manifest: dict) -> None:
    """Raise an InputError naming the first shard ``meta.json`` whose sha256 differs from the
    one ``index.json`` recorded (indexes built before checksums record none)."""
    for shard, sha in manifest.get("shard_meta_sha256", {}).items():
        path = Path(index_dir) / shard / "meta.json"
        if path.exists() and meta_sha256(path.parent) != sha:
            raise InputError(path, "differs from the one index.json recorded (corrupt index)")


def _damaged(exc: InputError) -> str:
    """The :data:`DAMAGED` status of a metadata file, with what is wrong with it."""
    why = exc.expected.removesuffix(VERIFY_HINT)
    for prefix in ("damaged index metadata: ", "damaged index manifest: "):
        why = why.removeprefix(prefix)
    return f"{DAMAGED}: {why}"


def verify_shard(directory: Path, recorded_meta_sha: str | None = None) -> list[tuple[str, str]]:
    """(file, status) of every file of one shard: ``ok``, ``MISMATCH`` (sha256 differs from the
    recorded one), ``MISSING``, ``not recorded`` (built before checksums were recorded), or
    for a ``meta.json`` that cannot be read (not JSON, keys missing or of the wrong type)
    ``DAMAGED: <what is wrong>`` (its arrays are then not checked)."""
    meta_path = directory / "meta.json"
    if not meta_path.is_file():
        return [(str(meta_path), "MISSING")]
    rows = []
    if recorded_meta_sha is not None:
        ok = meta_sha256(directory) == recorded_meta_sha
        rows.append((str(meta_path), "ok" if ok else "MISMATCH"))
    try:
        meta = read_metadata(meta_path, check_meta)
    except InputError as exc:
        return [(str(meta_path), _damaged(exc))]
    files = meta.get("files", {})
    for name in [f"{a}.npy" for a in ARRAYS] + sorted(set(files) - {f"{a}.npy" for a in ARRAYS}):
        path = directory / name
        if not path.exists():
            rows.append((str(path), "MISSING"))
        elif name == "tokens.npy" and name not in files and "tokens_sha256" in meta:
            rows.append((str(path), _old_tokens_status(path, meta["tokens_sha256"])))
        elif name not in files:
            rows.append((str(path), "not recorded"))
        else:
            rows.append(
                (str(path), "ok" if sha256_file(path) == files[name]["sha256"] else "MISMATCH")
            )
    return rows


def _old_tokens_status(path: Path, sha: str) -> str:
    """Status of ``tokens.npy`` of an index that recorded only the stream's ``tokens_sha256``."""
    try:
        ok = sha256_array(np.load(path, mmap_mode="r")) == sha
    except ValueError:  # truncated: the header promises more than the file holds
        ok = False
    return "ok" if ok else "MISMATCH"


def verify_problems(rows: list[tuple[str, str]]) -> str | None:
    """One line summing up :func:`verify_index` rows that are not ``ok`` (``None`` if all are)."""
    bad = [
        f"{f} ({status})"
        for f, status in rows
        if status in ("MISMATCH", "MISSING") or status.startswith(DAMAGED)
    ]
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        return f"damaged or missing: {', '.join(bad[:3])}{more}; rebuild it or copy it again"
    unknown = sum(status == "not recorded" for _, status in rows)
    if unknown:
        return (
            f"{unknown} file(s) have no recorded checksum (marked above): the index was built "
            "before copyscope recorded them; rebuild it to make it verifiable"
        )
    return None


def verify_index(path) -> list[tuple[str, str]]:
    """(file, status) for every file of the index at ``path`` (a directory with ``index.json``
    or a single shard with ``meta.json``), see :func:`verify_shard`. An infini-gram index is an
    :class:`InputError`: it records no checksums to verify its files against."""
    from .infinigram import is_infinigram

    if is_infinigram(path):
        raise InputError(
            path,
            "an infini-gram index records no checksums to verify its files against (opening "
            "it, as every query does, checks their sizes, the document offsets and a sample of "
            "the suffix order)",
        )
    path = index_folder(path)
    manifest_path = path / "index.json"
    if manifest_path.exists():
        try:
            manifest = read_metadata(manifest_path, check_manifest)
        except InputError as exc:
            return [(str(manifest_path), _damaged(exc))]
        recorded = manifest.get("shard_meta_sha256", {})
        rows = []
        for shard in manifest["shards"]:
            rows += verify_shard(path / shard, recorded.get(shard))
        return rows
    return verify_shard(path)


def index_folder(path) -> Path:
    """The folder of the index at ``path``: ``path`` itself when it is a folder holding
    ``index.json`` (an index) or ``meta.json`` (one shard), or the folder of ``path`` when it
    names such a file; anything else is an InputError."""
    path = Path(path)
    if path.name in ("index.json", "meta.json") and path.is_file():
        return path.parent
    if path.is_dir() and ((path / "index.json").is_file() or (path / "meta.json").is_file()):
        return path
    raise InputError(
        path,
        "expected an index directory (a folder holding index.json, or one shard's meta.json) "
        "or its index.json" + ("" if path.exists() else "; it does not exist"),
    )
