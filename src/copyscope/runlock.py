"""One run per results folder: a lock the main Snakemake process holds for its whole run.

Snakemake's own lock (``.snakemake/locks``) is not enough for several configs in one checkout:
Snakemake 9 deletes the whole lock folder when any run ends, so a second run's end removes the
first run's lock and a third run could write the same outputs concurrently. The Snakefile's
``onstart`` (run only by the main process of a real run: not by ``--dry-run``, ``--lint``,
``--report``, ``--unlock``, nor by the jobs a cluster re-executes, which Snakemake starts with
``--no-hooks``) takes an exclusive ``flock`` on ``<results>/.copyscope.lock`` and keeps it
until the process ends. The kernel releases it however the process ends (SIGKILL included), so
there is never a stale lock to remove.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from pathlib import Path

from .errors import CopyscopeError

LOCK_NAME = ".copyscope.lock"

# lock files held by this process: resolved path -> open descriptor (kept open: the lock)
_HELD: dict[str, int] = {}


class RunLockError(CopyscopeError):
    """Another run holds the lock of a results folder."""


def _holder(fd: int) -> str:
    """The other run's record in the lock file ("pid N on HOST, started …")."""
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace").split()
    except OSError:
        text = []
    if len(text) >= 3:
        pid, host, started = text[:3]
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(started)))
        return f"pid {pid} on {host}, started {when}"
    return "pid unknown"


def hold_results_lock(results) -> Path:
    """Take the run lock of the folder ``results`` for the rest of this process (again in the
    same process: nothing to do); raise :class:`RunLockError` naming the folder and the other
    run's pid when another process holds it."""
    path = Path(results) / LOCK_NAME
    key = str(path.resolve())
    if key in _HELD:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        other = _holder(fd)
        os.close(fd)
        raise RunLockError(
            f"{results}: another run is using this results folder ({other}; lock "
            f"{path}): wait for it to end, or give this run another results folder "
            "(config key results)"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()} {socket.gethostname()} {time.time():.0f}\n".encode(), 0)
    _HELD[key] = fd
    return path


def release_results_lock(results) -> None:
    """Give the lock of ``results`` back before this process ends (tests; a run just ends)."""
    fd = _HELD.pop(str((Path(results) / LOCK_NAME).resolve()), None)
    if fd is not None:
        os.close(fd)
