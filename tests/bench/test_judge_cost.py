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


def test_judge_cost_decides_the_row_with_the_judge(tmp_path):
    """``--row``: every model set of the run's raven_texts judged again at the main prompt
    length (the tiny config's 8) and the novelty–quality row decided with those scores (the
    human set judged too, left out of the row); the duplication scores are the run's."""
    from copyscope.report import findings as F

    judge = tmp_path / "judge.gguf"
    write_gguf(judge)
    run = tmp_path / "run"
    texts, summary = [], []
    for d, (decoding, score) in enumerate([("pure", 1.5), ("top_k_10", 2.5), ("greedy", 4.0)]):
        rows = [{"model": "gpt2-b", "decoding": decoding, "window": w, "prompt_length": 8,
                 "prompt": [1] * 8, "ids": [2, 3], "text": LINES[(w + d) % len(LINES)] * (d + 1)}
                for w in range(6)]  # fmt: skip
        write_jsonl(run / "samples" / "gpt2-b" / f"{decoding}.jsonl", rows)
        texts += [("gpt2-b", decoding, w, 10 * score, 10, 0.0, 1, "gpt2-a") for w in range(6)]
        summary.append({"model": "gpt2-b", "decoding": decoding, "source": "union",
                        "prompt_length": 8, "evaluator": "gpt2-a"})  # fmt: skip
    texts.append(("human", "reference", 0, 20.0, 10, 5.0, 1, "gpt2-b"))
    (run / "tables").mkdir()
    cols = ["model", "decoding", "text", "score_sum", "score_tokens", "nll_sum", "nll_tokens",
            "evaluator"]  # fmt: skip
    import pandas as pd

    pd.DataFrame(texts, columns=cols).to_csv(run / "tables/raven_texts.csv", index=False)
    pd.DataFrame(summary).to_csv(run / "tables/raven_summary.csv", index=False)
    write_jsonl(run / "samples" / "human" / "reference.jsonl",
                [{"window": 0, "prompt_length": 8, "prompt": [1] * 8, "ids": [2],
                  "text": LINES[0]}])  # fmt: skip
    out = tmp_path / "row.json"
    judge_cost.main(["--results", str(run), "--judge", str(judge), "--texts", "3",
                     "--prompt-length", "8", "--row", "config/tiny.yaml", "--judge-name", "tj",
                     "--json", str(out)])  # fmt: skip
    got = json.loads(out.read_text())
    assert got["row_texts"] == 18 and got["row_verdict"] in F.VERDICTS
    assert got["row_measured"].startswith("gpt2-b (judged by tj, models.judge: outside the zoo)")
    assert sorted(got["judged_perplexity"]) == ["gpt2-b/greedy", "gpt2-b/pure", "gpt2-b/top_k_10",
                                                "human/reference"]  # fmt: skip
