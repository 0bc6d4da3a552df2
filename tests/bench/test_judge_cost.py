"""benchmarks/judge_cost.py on a tiny GGUF judge and a run's sample sets written by the test:
the numbers it prints and writes, and the run's continuations it projects to."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lm"))

from test_gguf import LINES, write_gguf  # noqa: E402

import judge_cost  # noqa: E402
from copyscope.io import write_jsonl  # noqa: E402

pytestmark = pytest.mark.bench


def test_judge_cost_on_a_tiny_judge(tmp_path, capsys):
    judge = tmp_path / "judge.gguf"
    write_gguf(judge)
    rows = [
        {"model": m, "decoding": d, "window": w, "prompt_length": p, "prompt": [1] * p,
         "ids": [2, 3, 4], "text": LINES[w % len(LINES)]}
        for m, d in (("human", "reference"), ("a", "pure"))
        for p in (0, 8)
        for w in range(5)
    ]  # fmt: skip
    for m, d in (("human", "reference"), ("a", "pure")):
        write_jsonl(tmp_path / "run" / "samples" / m / f"{d}.jsonl",
                    [r for r in rows if (r["model"], r["decoding"]) == (m, d)])  # fmt: skip
    out = tmp_path / "cost.json"
    judge_cost.main(["--results", str(tmp_path / "run"), "--judge", str(judge), "--texts", "6",
                     "--prompt-length", "8", "--json", str(out)])  # fmt: skip
    got = json.loads(out.read_text())
    assert (got["sets"], got["continuations"], got["main_length"], got["texts"]) == (2, 20, 10, 6)
    assert got["cpu_s_per_1000"] > 0 and got["judge_tokens_per_text"] > 0
    assert got["run_cpu_min"] == pytest.approx(
        (got["cpu_s_per_1000"] * 20 / 1000 + 3 * got["load_cpu_s"]) / 60
    )
    assert "cpu_s_per_1000\t" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no sample sets"):
        judge_cost.main(["--results", str(tmp_path / "empty"), "--judge", str(judge)])
