"""benchmarks/cloze_cost.py on a run folder written by the test (a tiny LSTM and GPT-2 with a
word-level tokenizer, a cloze passages file): both ways of ranking the candidates timed, the
same predicted names, and the kind of prefix reuse each model has."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import cloze_cost  # noqa: E402
from support.models import EOS, SPECS, VOCAB, make_tokenizer  # noqa: E402

pytestmark = pytest.mark.bench


def write_run(run: Path) -> None:
    from copyscope.lm import build_model

    for kind in ("lstm", "gpt2"):
        folder = run / "models" / kind
        make_tokenizer(folder)
        build_model(dict(SPECS[kind], dropout=0.0), VOCAB, EOS).save_pretrained(str(folder))
    names = ["w40", "w41", "w42", "w43"]
    passages = [
        {"play": "p", "speech": i, "start": 0, "end": 40, "answer": names[i % 4],
         "passage": f"w{1 + i} w{2 + i} {names[i % 4]} w{3 + i} w{4 + i} w{5 + i}",
         "text": f"w{1 + i} w{2 + i} [MASK] w{3 + i} w{4 + i} w{5 + i}"}
        for i in range(6)
    ]  # fmt: skip
    plays = [{"play": "p", "candidates": names, "passages": passages, "rejected": {}}]
    params = {"cloze_distractors": 5, "language": "en", "ner_model": "en_core_web_sm", "seed": 0}
    (run / "membership").mkdir(parents=True)
    (run / "membership" / "cloze_passages.json").write_text(
        json.dumps({"params": params, "plays": plays})
    )


@pytest.mark.parametrize(("model", "kind"), [("lstm", "state"), ("gpt2", "keys")])
def test_cloze_cost_times_both_ways_on_the_same_items(tmp_path, capsys, model, kind):
    write_run(tmp_path / "run")
    cloze_cost.main(["--results", str(tmp_path / "run"), "--model", model, "--per-play", "4",
                     "--repeats", "1"])  # fmt: skip
    out = capsys.readouterr().out
    assert f"{model}: 4 items, 16 filled passages" in out
    assert f"shared prefix ({kind}):" in out and "whole passages:" in out
    assert "same predicted name for every item: True" in out
    from copyscope.lm import score

    assert score._prefix_cache.__name__ == "_prefix_cache"  # put back after timing
