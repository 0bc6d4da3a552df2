"""Forked report workers (copyscope.report.workers): results in task order whatever the
worker count, and a worker that dies leaves its tasks to the caller instead of hanging."""

from __future__ import annotations

import os

from copyscope.report import workers

PARENT = os.getpid()


def square(x):
    return x * x, os.getpid() != PARENT


def die_on_three(x):
    if x == 3 and os.getpid() != PARENT:
        os._exit(3)
    return x * x


def test_forked_map_runs_in_workers_and_keeps_the_task_order():
    out = workers.forked_map(square, list(range(7)), 2)
    assert [v for v, _ in out] == [x * x for x in range(7)]
    assert all(forked for _, forked in out)  # drawn by the workers, not here
    assert workers.forked_map(square, [5], 2) == [(25, False)]  # one task: no fork
    assert [v for v, _ in workers.forked_map(square, [1, 2], 1)] == [1, 4]


def test_a_dying_worker_leaves_its_tasks_to_the_caller(caplog):
    assert workers.forked_map(die_on_three, list(range(6)), 2, "test") == [0, 1, 4, 9, 16, 25]
    assert "a test worker died" in caplog.text


def test_the_worker_count_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(workers.PROCESSES, raising=False)
    assert workers.processes() == 1
    monkeypatch.setenv(workers.PROCESSES, "2")
    assert workers.processes() == 2
    monkeypatch.setenv(workers.PROCESSES, "0")
    assert workers.processes() == 1
