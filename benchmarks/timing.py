"""What the benchmark scripts share: CPU and wall time of a call, and Zipf-distributed ids."""

from __future__ import annotations

import resource
import statistics
import time

import numpy as np


def zipf_ids(n: int, vocab: int, rng) -> np.ndarray:
    """``n`` word ids, Zipf(1.1) over ``vocab`` ids."""
    return (rng.zipf(1.1, size=n) - 1) % vocab


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn, repeats: int = 1):
    """(result, median wall seconds, median CPU seconds) of ``repeats`` calls of ``fn``."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        c0, t0 = cpu_seconds(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu_seconds() - c0)
    return result, statistics.median(walls), statistics.median(cpus)
