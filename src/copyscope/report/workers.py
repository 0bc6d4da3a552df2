"""Forked workers for the report jobs that repeat a seeded computation many times (the null
calibration's draws, the power table's resamples): the job's threads become processes.

Every task is seeded by itself, so the results do not depend on how many processes draw
them; the parent sets the module state the tasks read before forking (copy-on-write: the
tables are not pickled)."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)

PROCESSES = "COPYSCOPE_PROCESSES"
"""Environment variable: how many processes a report job's workers use (the rule sets it to
the job's threads, :func:`copyscope.report.cli.command_line`)."""


def processes() -> int:
    """The worker count of this job: :data:`PROCESSES` from the environment (1 without)."""
    return max(1, int(os.environ.get(PROCESSES, "1")))


def one_blas_thread():
    """A context in which the BLAS library (numpy's OpenBLAS) uses one thread
    (``threadpoolctl``; a null context without it). The draws' matrix products are small:
    BLAS threads of their own only spin against the job's other worker (a product of the
    bootstrap weights took five times the CPU with two threads on a 2-core machine), and
    every product here sums integer-valued terms or splits no sum over threads, so the
    numbers are the same."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scipy's stack
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def forked_map(func: Callable, tasks: Sequence, processes: int, what: str = "report") -> list:
    """``[func(t) for t in tasks]``, in task order, by ``processes`` forked workers (``func``
    a module-level function), each with one BLAS thread (:func:`one_blas_thread`: the
    workers are the job's threads). A worker that dies (a crash in native code, a kill)
    breaks the executor instead of leaving it waiting for ever (as
    ``multiprocessing.Pool.map`` does); the tasks it left undone are then run here, one by
    one, with the same results."""
    with one_blas_thread():  # set before forking: the workers inherit it
        return _forked_map(func, tasks, processes, what)


def _forked_map(func: Callable, tasks: Sequence, processes: int, what: str) -> list:
    if processes <= 1 or len(tasks) <= 1:
        return [func(t) for t in tasks]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done: dict[int, object] = {}
    ctx = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(min(processes, len(tasks)), mp_context=ctx) as pool:
            futures = {i: pool.submit(func, t) for i, t in enumerate(tasks)}
            for i, f in futures.items():
                done[i] = f.result()
    except BrokenProcessPool:
        log.warning("a %s worker died; running the %d tasks it left in this process", what,
                    len(tasks) - len(done))  # fmt: skip
    return [done[i] if i in done else func(t) for i, t in enumerate(tasks)]
