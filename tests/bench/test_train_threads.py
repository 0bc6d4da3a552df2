"""benchmarks/train_threads.py: the two-worker schedule, and one real measurement of the
smallest default model (one step each way) with its table and the two training totals."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import train_threads  # noqa: E402

pytestmark = pytest.mark.bench


def test_two_machines_longest_first():
    # 5 → A, 4 → B, 3 → B (7), 3 → A (8): the last finishes at 8
    assert train_threads.two_machines([3, 5, 3, 4]) == 8
    assert train_threads.two_machines([10]) == 10
    assert train_threads.two_machines([]) == 0


def test_measures_a_model_both_ways(capsys):
    assert train_threads.main(["--models", "t2x64", "--steps", "1", "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| `t2x64` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    spec = train_threads.default_specs(["t2x64"])["t2x64"]
    windows = spec["train"]["batch_size"] * spec["n_ctx"]
    assert int(cells[1]) == -(-spec["train"]["tokens"] // windows)  # tokens / window, rounded up
    assert float(cells[2]) > 0 and float(cells[3]) > 0
    assert "one after the other on 2 threads" in out and "two at a time" in out
