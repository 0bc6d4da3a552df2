"""The report jobs (copyscope.report.jobs): each analysis's one declaration turned into the job
of a run, asserted on the shipped configs with hand-checked values."""

from __future__ import annotations

from pathlib import Path

import pytest

from copyscope.report import analyses, findings
from copyscope.report.jobs import (
    Input,
    Output,
    declared_tables,
    fixed,
    flags,
    per_model,
    report_jobs,
    table_path,
    tables,
)
from support.configs import plan_of, report_flags, report_job

ROOT = Path(__file__).resolve().parents[2]

REPORT_RULES = [
    "report_novelty", "report_training_prompts", "report_completion_loss", "report_loops",
    "report_raven",
    "report_supercopies", "report_creativity",
    "report_planted", "report_memorization", "report_syntax_novelty", "report_novel_words",
    "report_templates",
    "report_template_coverage", "report_style", "report_membership", "report_own_benchmarks",
    "report_contamination",
    "report_books", "report_training", "report_checkpoints", "report_dynamics",
    "report_calibration", "report_power", "report_findings",
]  # fmt: skip


@pytest.fixture(scope="module")
def tiny():
    return plan_of("tiny")


@pytest.mark.parametrize("name", ["config", "tiny", "pretrained", "tiny-fr"])
def test_every_analysis_but_seeds_has_one_report_job(name):
    """One job per analysis module but seeds, in the analyses' order, reading the flags the
    module declares and writing exactly its OUTPUTS under the results root; captions exist;
    the tables summary.md and the scorecard read are report outputs."""
    from copyscope.report.summary import tables as summary_tables

    p = plan_of(name)
    jobs = report_jobs(p)
    assert [j.rule for j in jobs] == REPORT_RULES
    modules = {m.NAME: m for m in analyses()}
    assert set(modules) - {j.name for j in jobs} == {"seeds"}
    for job in jobs:
        module = modules[job.name]
        assert list(job.outputs) == list(module.OUTPUTS)
        assert {flag for flag, _, _ in job.inputs.values()} <= set(flags(module))
        for key, (_, labels, paths) in job.inputs.items():
            arity = len(module.INPUTS[key].labels)
            assert len(labels) == len(paths)
            assert all(len(lab) == arity if isinstance(lab, tuple) else arity == 1 for lab in labels)
        for path, caption, category in job.outputs.values():
            assert path.startswith("/r/") and (caption is None) == (category is None)
            assert caption is None or (ROOT / "report" / f"{caption}.rst").exists(), caption
    assert {j.rule: j.threads for j in jobs if j.threads != 1} == {"report_calibration": 2,
                                                                   "report_power": 2}
    outputs = {path for j in jobs for path, _, _ in j.outputs.values()}
    assert {table_path(p, t) for t in summary_tables()} <= outputs
    read = findings.claimed_tables()
    assert set(read) == findings.TABLES and len(read) == len(set(read))


def test_every_declaration_is_complete():
    """Each input has labels, help and a plan query (but seeds, which has no job); each output
    a path (but seeds') and help; the table names are unique across the analyses."""
    for m in analyses():
        job = not getattr(m, "NO_REPORT_JOB", None)
        for spec in m.INPUTS.values():
            assert isinstance(spec, Input) and spec.labels and spec.help
            assert (spec.files is not None) == job, (m.NAME, spec)
        for out in m.OUTPUTS.values():
            assert isinstance(out, Output) and out.help and (out.path is not None) == job
    names = declared_tables()
    assert len(names) == len(set(names)) and "findings" in names and "novelty_samples" in names


def test_report_job_inputs_of_the_tiny_config(tiny):
    """Hand-checked command-line order and labels of a few report jobs."""
    inputs = report_job(tiny, "template-coverage").inputs
    assert list(inputs) == ["parses", "training_tags", "pos_index"]
    assert report_flags(tiny, "template-coverage")[-3:] == ["--pos-index", "train", "/r/index/pos"]
    calibration = report_job(tiny, "calibration").inputs
    assert calibration["contaminated"] == (
        "parses", [("human", "contaminated")], ["/r/syntax/human/contaminated.parquet"]
    )  # fmt: skip
    flags_ = report_flags(tiny, "calibration")
    assert flags_[:4] == ["--tokens", "human", "reference", "/r/analysis/human/reference/tokens.parquet"]
    assert flags_.count("--parses") == 2 and flags_.count("--extraction") == 3
    membership = report_flags(tiny, "membership")
    assert membership[-6:] == [
        "--manifest", "corpus", "/r/corpus/manifest.json", "--overlap", "bpe", "/r/membership/overlap.csv"
    ]  # fmt: skip
    table = report_job(tiny, "findings").inputs["table"]
    assert table[1][:3] == ["novelty_samples", "nnsl_samples", "novelty_texts"]
    assert table[2][:2] == ["/r/tables/novelty_samples.csv", "/r/tables/nnsl_samples.csv"]
    assert report_job(tiny, "findings").outputs["md"] == (
        "/r/findings.md", "findings", "Summary and scorecard"
    )  # fmt: skip
    # the training-history rows: the dynamics table (tiny keeps checkpoints) and the window
    assert "dynamics" in table[1] and "/r/tables/dynamics.csv" in table[2]
    for name in ("calibration", "power"):
        assert report_job(tiny, name).inputs["dynamics"] == (
            "dynamics", ["dynamics"], ["/r/tables/dynamics.csv"]
        )  # fmt: skip
        assert report_job(tiny, name).params["timing"] == tiny.timing_block()
    assert report_job(tiny, "findings").params["timing"] == tiny.timing_block()
    # own benchmarks and books: plain outputs, not in the HTML report, without them
    books = report_job(tiny, "books")
    assert books.outputs["table"] == ("/r/tables/membership_books.csv", None, None)
    assert report_job(tiny, "supercopies").params is None
    assert books.params == {"bootstrap": 1000, "seed": 0}  # analysis.membership
    own = report_job(tiny, "own-benchmarks").inputs
    assert own["files"][0] == "items"  # the rule input "files" feeds --items


def test_the_query_helpers(tiny):
    assert per_model("membership/{model}/texts.csv", "cloze_models")(tiny) == (
        tiny.models, [f"/r/membership/{m}/texts.csv" for m in tiny.models]
    )  # fmt: skip
    assert fixed("train", "syntax/train.parquet")(tiny) == (["train"], ["/r/syntax/train.parquet"])
    assert fixed("x", "y", when="ladder")(tiny) == (["x"], ["/r/y"])
    no_ladder = plan_of("tiny", lambda cfg: cfg["corpus"]["inject"].pop("ladder"))
    assert fixed("x", "y", when="ladder")(no_ladder) == ([], [])
    assert tables(["templates"])(tiny) == (["templates"], ["/r/tables/templates.csv"])
    with pytest.raises(KeyError, match="no analysis writes the table nothing"):
        table_path(tiny, "nothing")


def test_a_claim_reading_an_undeclared_table_fails(monkeypatch):
    monkeypatch.setattr(findings.core, "TABLES", findings.TABLES | {"no_such_table"})
    with pytest.raises(KeyError, match="no_such_table"):
        findings.claimed_tables()


def test_an_input_whose_query_gives_labels_and_paths_of_different_lengths_fails(tiny):
    """A query that disagrees with itself stops the workflow from loading, with the analysis."""
    from types import SimpleNamespace

    from copyscope.report.jobs import report_job as job_of

    bad = SimpleNamespace(
        NAME="broken",
        INPUTS={"x": Input(("MODEL",), "x", files=lambda p: (["a", "b"], ["/r/a"]))},
        OUTPUTS={"table": Output("tables/b.csv", "t")},
        PARAMS=None,
    )
    with pytest.raises(ValueError, match="copyscope report broken: input x: 2 labels for 1 paths"):
        job_of(tiny, bad)
    bad.INPUTS = {"x": Input(("MODEL",), "x")}
    with pytest.raises(ValueError, match="input x has no plan query"):
        job_of(tiny, bad)


def test_two_analyses_writing_one_table_name_fail():
    """Tables are read by name (summary.md, the scorecard): a name declared twice is refused."""
    from types import SimpleNamespace

    from copyscope.report.jobs import table_files

    a = SimpleNamespace(OUTPUTS={"t": Output("tables/same.csv", "t")})
    b = SimpleNamespace(OUTPUTS={"u": Output("other/same.csv", "u")})
    assert table_files([a]) == {"same": "tables/same.csv"}
    with pytest.raises(ValueError, match="two analyses write the table same"):
        table_files([a, b])


def test_every_report_job_names_the_runs_models_with_their_sizes(tiny):
    """``--run-models`` of every analysis command: the plan's models with 12·layers·width² from
    the config (an LSTM's width its hidden size), in the config's order; the command line
    carries them and the command makes them the figures' models (their colours)."""
    from copyscope import plotting
    from copyscope.cli import build_parser
    from copyscope.report.cli import command_line
    from copyscope.report.jobs import parse_run_models, run_models

    # tiny: gpt2-a (1 × 32), gpt2-b (2 × 64), lstm (1 layer, 64 hidden)
    assert run_models(tiny) == ("gpt2-a=12288", "gpt2-b=98304", "lstm=49152")
    assert {job.models for job in report_jobs(tiny)} == {run_models(tiny)}
    assert parse_run_models(["t2x128", "lstm=49152"]) == {"t2x128": None, "lstm": 49152.0}
    modules = {m.NAME: m for m in analyses()}
    line = command_line(modules["training"], {"log": []}, {"fig": "/f.png"}, models=run_models(tiny))
    assert line.endswith("--out-fig /f.png --run-models gpt2-a=12288 gpt2-b=98304 lstm=49152")
    words = line.split()  # after "[ENV=…] python -m copyscope"
    args = build_parser().parse_args(words[words.index("copyscope") + 1 :])
    assert args.run_models == list(run_models(tiny))
    try:
        plotting.use_run_models(parse_run_models(args.run_models))
        # the LSTM's size from the config places it between the two GPT-2 models
        assert plotting.model_order(["lstm", "gpt2-b", "gpt2-a"]) == ["gpt2-a", "lstm", "gpt2-b"]
    finally:
        plotting.use_run_models({})
