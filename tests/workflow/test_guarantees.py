"""Operational guarantees: resume after SIGKILL, determinism, clear errors end to end."""

from __future__ import annotations

import filecmp
import os
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
import yaml

from support.workflow import ROOT, snakemake

# every test here starts Snakemake
pytestmark = pytest.mark.e2e


# one line per evaluation, logged by copyscope.lm.train while a model trains
TRAINING_STEP = re.compile(r": step (?P<done>\d+)/(?P<steps>\d+), train_loss ")


def _first_training_step(logs, proc, deadline):
    """(model, step, steps) of the first evaluation logged while ``proc`` runs, read from the
    training logs ``logs/<model>.log``."""
    while time.time() < deadline and proc.poll() is None:
        for log in sorted(logs.glob("*.log")) if logs.exists() else []:
            m = TRAINING_STEP.search(log.read_text(errors="replace"))
            if m:
                return log.stem, int(m["done"]), int(m["steps"])
        time.sleep(0.05)
    return None


def _start(cmd, env, out, interrupt):
    """Start ``cmd`` in its own process group (as a terminal's foreground job) and send
    ``interrupt`` to the whole group right after a model logged its first training step (the
    old training logs removed first). Returns (model, step, steps) of that step (None if none
    was logged), whether the run was still going when it was interrupted, and its exit status."""
    logs = out / "logs" / "train_model"
    for old in logs.glob("*.log") if logs.exists() else []:
        old.unlink()
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        start_new_session=True,  # its own process group: the signal reaches every job
        # a terminal's job receives SIGINT even when this test runs where SIGINT is ignored (a
        # background shell job), which the child would otherwise inherit
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        first = _first_training_step(logs, proc, time.time() + 900)
        running = proc.poll() is None
    finally:
        os.killpg(proc.pid, interrupt)
        proc.wait(timeout=600)
    return first, running, proc.returncode


def _cut_off_in_training(out, first, running):
    """The run was stopped while model ``first[0]`` trained: that model was never saved, the
    run never reached the report, and every saved model directory is complete."""
    assert first is not None, "no training step was logged"
    model, done, steps = first
    assert model in yaml.safe_load((ROOT / "config/tiny.yaml").read_text())["models"]["zoo"]
    assert running and done < steps, "training had finished before the interrupt"
    assert not (out / "models" / model).exists()
    assert not (out / "summary.md").exists()
    for saved in (out / "models").glob("*"):
        if not saved.name.startswith("."):
            assert (saved / "config.json").exists() and (saved / "train_summary.json").exists()


def test_interrupts_during_training_then_the_same_command_resumes_deterministically(
    tiny_run, tmp_path
):
    """Ctrl-C (SIGINT to Snakemake and its jobs) while a model trains; exactly the same command
    again starts (profiles/default sets rerun-incomplete) and trains again; SIGKILL of that
    whole run while a model trains leaves nothing half-written; after ``--unlock`` the same
    command completes its targets (every model's training: its folder and training table),
    ends with one line per long job, and every model is byte-identical, weights and
    checkpoints, to the uninterrupted run's (the rest of the run is a function of them:
    test_slurm.py compares every table of two runs)."""
    out = tmp_path / "results"
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    zoo = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())["models"]["zoo"]
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "config/tiny.yaml"]
    cmd += ["--config", f"results={out}", "--", *(f"{out}/tables/training/{m}.csv" for m in zoo)]

    first, running, rc = _start(cmd, env, out, signal.SIGINT)
    _cut_off_in_training(out, first, running)
    assert rc != 0
    # the same command again: no lock, no incomplete-files error; killed in training
    first, running, _ = _start(cmd, env, out, signal.SIGKILL)
    _cut_off_in_training(out, first, running)
    unlock = snakemake("--unlock", "--configfile", "config/tiny.yaml", "--config", f"results={out}")
    assert unlock.returncode == 0, unlock.stderr[-3000:]

    rerun = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "IncompleteFilesException" not in rerun.stderr
    assert "long job(s) finished in this run:" in rerun.stderr
    assert re.search(
        r"s  train_model model=\S+: \S+: trained on \d+ tokens, \d+ tokens/s", rerun.stderr
    )
    assert (out / "models" / first[0] / "train_summary.json").exists()
    for model in zoo:
        a, b = tiny_run / "models" / model, out / "models" / model
        files = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
        assert files == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
        weights = [f for f in files if f.endswith(".safetensors")]
        assert len(weights) >= 2, model  # the model and its checkpoints
        same = [f for f in files if f != "train_summary.json"]  # timings aside
        _, mismatch, errors = filecmp.cmpfiles(a, b, same, shallow=False)
        assert not mismatch and not errors, f"{model}: differs from the uninterrupted run: {mismatch}"
        x = pd.read_csv(tiny_run / "tables" / "training" / f"{model}.csv").drop(columns="seconds")
        y = pd.read_csv(out / "tables" / "training" / f"{model}.csv").drop(columns="seconds")
        pd.testing.assert_frame_equal(x, y)  # the same losses at every step


def _jsonl_config(tmp_path, data) -> str:
    """The tiny config reading the corpus from the .jsonl file ``data``."""
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["corpus"].update(source="jsonl", path=str(data))
    cfg["corpus"].pop("subset")
    cfg["corpus"]["split"]["valid_ids"] = []
    cfg["corpus"]["inject"] = {}
    cfg["results"] = str(tmp_path / "results")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    return str(tmp_path / "c.yaml")


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "nowhere.jsonl"),  # the file does not exist
        ('{"id": "a", "text": "one two"}\n{"id": "b", "text": broken}\n', "nowhere.jsonl:2"),
    ],
)
def test_bad_corpus_file_fails_cleanly(tmp_path, content, message):
    data = tmp_path / "nowhere.jsonl"
    if content is not None:
        data.write_text(content)
    proc = snakemake(
        "--cores", "1", "--configfile", _jsonl_config(tmp_path, data), "--show-failed-logs"
    )
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr
    assert not (tmp_path / "results" / "corpus" / "train.jsonl").exists()


def test_many_shards_equal_one_shard(tiny_run, tmp_path):
    """The tiny config indexes in several shards; one big shard gives byte-identical tables."""
    assert len(list((tiny_run / "index" / "bpe").glob("shard-*"))) > 2
    out = tmp_path / "one"
    targets = [f"{out}/tables/novelty_valid.csv", f"{out}/tables/nnsl_valid.csv"]
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["index"]["shard_tokens"] = 10**9
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(cfg))
    # targets first: --config takes every argument after it
    proc = snakemake(
        *targets,
        "--cores",
        "2",
        "--configfile",
        str(tmp_path / "one.yaml"),
        "--config",
        f"results={out}",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(list((out / "index" / "bpe").glob("shard-*"))) == 1
    for name in ("novelty_valid.csv", "nnsl_valid.csv"):
        assert (out / "tables" / name).read_bytes() == (tiny_run / "tables" / name).read_bytes()
    a = (out / "novelty" / "bpe" / "valid_matches.parquet").read_bytes()
    assert a == (tiny_run / "novelty" / "bpe" / "valid_matches.parquet").read_bytes()
