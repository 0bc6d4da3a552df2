"""Checks that an index on disk is the one its metadata describes.

Three levels, from cheap to complete:

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
    except (ValueError, OSError, SyntaxError) as exc:
        raise InputError(path, f"not a readable .npy file ({exc}): corrupt index") from exc
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


def verify_shard(directory: Path, recorded_meta_sha: str | None = None) -> list[tuple[str, str]]:
    """(file, status) of every file of one shard: ``ok``, ``MISMATCH`` (sha256 differs from the
    recorded one), ``MISSING`` or ``not recorded`` (built before checksums were recorded)."""
    meta_path = directory / "meta.json"
    if not meta_path.exists():
        return [(str(meta_path), "MISSING")]
    rows = []
    if recorded_meta_sha is not None:
        ok = meta_sha256(directory) == recorded_meta_sha
        rows.append((str(meta_path), "ok" if ok else "MISMATCH"))
    meta = json.loads(meta_path.read_text())
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
    bad = [f"{f} ({status})" for f, status in rows if status in ("MISMATCH", "MISSING")]
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
    or a single shard with ``meta.json``), see :func:`verify_shard`."""
    path = Path(path)
    manifest_path = path / "index.json"
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except json.JSONDecodeError as exc:
            raise InputError(manifest_path, f"expected valid JSON ({exc})") from exc
        recorded = manifest.get("shard_meta_sha256", {})
        rows = []
        for shard in manifest["shards"]:
            rows += verify_shard(path / shard, recorded.get(shard))
        return rows
    if (path / "meta.json").exists():
        return verify_shard(path)
    raise InputError(path, "expected an index directory (index.json or meta.json)")
