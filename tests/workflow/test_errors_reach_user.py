"""Errors reach the terminal: a failed job's own message and log path, and checks that run
before any job (missing inputs, a split that comes out empty, records without an id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from copyscope.config import ConfigErrors, check_paths, validate
from copyscope.corpus import CorpusPaths, prepare_corpus
from copyscope.corpus.sources import Document, read_jsonl
from copyscope.errors import ConfigError, InputError
from copyscope.runlog import failed_jobs, failure_summary, success_summary
from support.workflow import ROOT, snakemake

MAIN_LOG = """\
Select jobs to execute...
[Mon Nov 30 07:41:49 2026]
localrule corpus:
    log: r/logs/corpus.log
    jobid: 7
RuleException:
CalledProcessError in file "rules/corpus.smk", line 40:
Command 'python -m copyscope corpus prepare --params-json '{"a": 1}'' returned non-zero exit status 2.
[Mon Nov 30 07:41:49 2026]
Error in rule corpus:
    message: None
    jobid: 7
    output: r/corpus/train.jsonl
    log: {log} (check log file(s) for error details)
    shell:
        python -m copyscope corpus prepare
Error in rule tokenize:
    jobid: 9
Shutting down, this might take some time.
"""


def _config(tmp_path, mutate) -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    mutate(cfg)
    return cfg


def _write(tmp_path, cfg) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


# ----------------------------------------------------------------------------- failed jobs
def test_failed_jobs_are_read_from_the_main_log(tmp_path):
    job_log = tmp_path / "corpus.log"
    job_log.write_text("INFO start\n\ncopyscope: error: data.jsonl:2: expected one JSON object\n")
    main_log = tmp_path / "main.log"
    main_log.write_text(MAIN_LOG.replace("{log}", str(job_log)))
    assert failed_jobs(main_log.read_text()) == [("corpus", [str(job_log)]), ("tokenize", [])]
    assert failure_summary([str(main_log)]).splitlines() == [
        "copyscope: 2 job(s) failed:",
        f"  corpus: {job_log}",
        "    | INFO start",
        "    | copyscope: error: data.jsonl:2: expected one JSON object",
        "  tokenize: (no log file)",
        "Fix the cause and run the same command again: finished jobs are kept, failed and "
        "interrupted ones run again.",
    ]
    assert failure_summary(str(tmp_path / "missing.log")) == ""


@pytest.mark.e2e
def test_a_failing_job_shows_its_error_and_log_on_the_terminal(tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"id": "a", "text": "hello there"}\nnot json\n')

    def mutate(c):
        c["corpus"].update(source="jsonl", path=str(data))
        c["corpus"].pop("subset")
        c["corpus"]["split"]["valid_ids"] = []

    proc = snakemake("--cores", "1", "--configfile", _write(tmp_path, _config(tmp_path, mutate)))
    assert proc.returncode != 0
    err = proc.stderr
    log = tmp_path / "results" / "logs" / "corpus.log"
    assert f"copyscope: 1 job(s) failed:\n  corpus: {log}\n" in err
    assert f"    | copyscope: error: {data}:2: expected one JSON object per line" in err
    assert "run the same command again" in err


# ----------------------------------------------------------------------------- before any job
@pytest.mark.e2e
def test_missing_corpus_path_is_named_by_its_key_before_any_job(tmp_path):
    def mutate(c):
        c["corpus"].update(source="jsonl", path=str(tmp_path / "none.jsonl"))
        c["corpus"].pop("subset")

    path = _write(tmp_path, _config(tmp_path, mutate))
    proc = snakemake("-n", "--configfile", path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "MissingInputException" not in out
    line = Path(path).read_text().splitlines().index(f"  path: {tmp_path / 'none.jsonl'}") + 1
    assert (  # at the line of the key, as `copyscope config check` says it
        f"copyscope: config error:\n{path}:{line}: config key 'corpus.path': expected an "
        f"existing file for source jsonl, found nothing there: '{tmp_path / 'none.jsonl'}'"
    ) in out


def test_missing_tokenizer_and_model_dirs_fail_at_start_up(tmp_path):
    def mutate(c):
        c["tokenizers"]["mine"] = {"kind": f"hf:{tmp_path / 'no-model'}"}
        c["models"]["zoo"]["lm"] = {
            "kind": "pretrained",
            "path": str(tmp_path / "no-model"),
            "tokenizer": "mine",
        }
        c["corpus"]["path"] = None

    cfg = validate(_config(tmp_path, mutate))
    with pytest.raises(ConfigErrors) as err:
        check_paths(cfg)
    assert str(err.value).splitlines() == [
        "config key 'tokenizers.mine.kind': expected hf:<an existing local tokenizer "
        f"directory>, found no directory '{tmp_path / 'no-model'}'",
        "config key 'models.zoo.lm.path': expected an existing model directory "
        f"(save_pretrained), found no directory '{tmp_path / 'no-model'}'",
    ]
    (tmp_path / "data").mkdir()
    txt = validate(
        _config(
            tmp_path,
            lambda c: c["corpus"].update(source="txt", path=str(tmp_path / "data" / "x.txt")),
        )
    )
    with pytest.raises(
        ConfigErrors,
        match="'corpus.path': expected an existing folder for source txt, found nothing",
    ):
        check_paths(txt)


# ----------------------------------------------------------------------------- corpus
def test_one_document_corpus_fails_at_the_split(tmp_path):
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"id": "only", "text": "a b c " * 50}) + "\n")
    cfg = {"source": "jsonl", "path": str(data), "text_field": "text", "id_field": "id"}
    with pytest.raises(ConfigError) as err:
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "o"))
    assert str(err.value).startswith(
        "config key 'corpus.split.valid_fraction': the validation split is empty (1 document(s)"
    )
    assert "a corpus of one document cannot be split, add documents" in str(err.value)
    assert not (tmp_path / "o").exists()


def test_records_without_the_id_field_are_an_error(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "text": "x"}\n{"text": "y"}\n')
    with pytest.raises(InputError) as err:
        read_jsonl(data, "text", "id")
    assert str(err.value) == (
        f"{data}:2: expected the id field 'id' (corpus.id_field) in every record; set "
        "corpus.id_field: null to number the records instead"
    )
    assert read_jsonl(data, "text", None) == [Document("0", "x"), Document("1", "y")]


def test_records_without_the_id_column_are_an_error(tmp_path):
    import pandas as pd

    from copyscope.corpus.sources import read_parquet

    pd.DataFrame({"text": ["x", "y"]}).to_parquet(tmp_path / "d.parquet")
    with pytest.raises(InputError, match=r"d\.parquet: expected the id field 'id'"):
        read_parquet(tmp_path / "d.parquet", "text", "id")
    assert [d.id for d in read_parquet(tmp_path / "d.parquet", "text", None)] == ["0", "1"]


# ----------------------------------------------------------------------------- progress
def test_success_summary_has_one_line_per_long_job(tmp_path):
    log = tmp_path / "gpt2-a.log"
    log.write_text(
        "Loading weights: 100%\n"
        '2026-11-30 06:57:27,491 INFO copyscope: gpt2-a: {"tokens": 24064}\n'
        "2026-11-30 06:57:27,492 INFO copyscope: gpt2-a: trained on 24064 tokens, 26081 tokens/s\n"
    )
    bench = tmp_path / "gpt2-a.tsv"
    bench.write_text("s\th:m:s\tmax_rss\n12.3456\t0:00:12\t900\n")
    main_log = tmp_path / "main.log"
    main_log.write_text(
        "[Mon Nov 30 06:23:37 2026]\n"
        "localrule train_model:\n"
        f"    log: {log}\n"
        "    jobid: 4\n"
        f"    benchmark: {bench}\n"
        "    wildcards: model=gpt2-a\n"
        "[Mon Nov 30 06:23:37 2026]\n"
        "rule corpus:\n"
        "    jobid: 7\n"
        "Finished jobid: 7 (Rule: corpus)\n"
        "Finished jobid: 4 (Rule: train_model)\n"
    )
    assert success_summary(str(main_log)).splitlines() == [
        "copyscope: 1 long job(s) finished in this run:",
        "     12.3 s  train_model model=gpt2-a: gpt2-a: trained on 24064 tokens, 26081 tokens/s",
    ]
    assert success_summary(str(main_log), rules=("sample",)) == ""
