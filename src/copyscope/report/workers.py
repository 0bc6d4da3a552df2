"""Forked workers for the report jobs that repeat a seeded computation many times (the null
calibration's draws, the power table's resamples): the job's threads become processes.

Every task is seeded by itself, so the results do not depend on how many processes draw
them; the parent sets the module state the tasks read before forking (copy-on-write: the
tables are not pickled)."""

from __future__ import annotations

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


def forked_map(func: Callable, tasks: Sequence, processes: int, what: str = "report") -> list:
    """``[func(t) for t in tasks]``, in task order, by ``processes`` forked workers (``func``
    a module-level function). A worker that dies (a crash in native code, a kill) breaks the
    executor instead of leaving it waiting for ever (as ``multiprocessing.Pool.map`` does);
    the tasks it left undone are then run here, one by one, with the same results."""
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
