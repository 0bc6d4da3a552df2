"""Checkpoints at log-spaced steps and the resume of an interrupted training (tiny models)."""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from hypothesis import given
from hypothesis import strategies as st

from copyscope.config import validate
from copyscope.errors import InputError
from copyscope.lm import checkpoints as ck
from copyscope.lm import train as train_mod
from copyscope.lm import train_model
from support.models import (
    EOS,
    N_CTX,
    SPECS,
    TRAIN,
    VOCAB,
    make_tokenizer,
    toy_corpus,
    zoo_config_error,
)
from support.workflow import ROOT

STEPS = 20
# 20 steps, checkpoints at 20^(1/4), 20^(2/4), 20^(3/4), 20 = 2.11, 4.47, 9.46, 20
KEPT = [2, 4, 9, 20]


# --------------------------------------------------------------------------- the steps
@pytest.mark.parametrize(
    "n, steps, expected",
    [
        (8, 1000, [2, 6, 13, 32, 75, 178, 422, 1000]),  # 1000^(i/8) = 2.37, 5.62, 13.3, …
        (4, 20, KEPT),
        (4, 30, [2, 5, 13, 30]),
        (3, 27, [3, 9, 27]),  # 27^(1/3) is 3.0000000000000004 in floats
        (4, 5, [1, 2, 3, 5]),  # 5^(i/4) = 1.50 (1.4953), 2.24, 3.34, 5
        (8, 3, [1, 2, 3]),  # 3^(i/8) = 1.15, 1.32, 1.51, 1.73, 1.98, 2.28, 2.62, 3: deduplicated
        (2, 9, [3, 9]),
        (1, 47, [47]),
        (5, 1, [1]),
        (0, 47, []),
    ],
)
def test_checkpoint_steps_by_hand(n, steps, expected):
    assert ck.checkpoint_steps(n, steps) == expected


@given(st.integers(0, 40), st.integers(1, 10**7))
def test_checkpoint_steps_are_log_spaced_and_end_at_the_last_step(n, steps):
    got = ck.checkpoint_steps(n, steps)
    assert got == sorted(set(got))
    assert len(got) <= min(n, steps)
    if n == 0:
        assert got == []
        return
    assert got[-1] == steps and got[0] >= 1
    # each is the integer nearest steps^(i/n) for some i, i.e. within 1/2 of it
    targets = [steps ** (i / n) for i in range(1, n + 1)]
    assert all(min(abs(s - t) for t in targets) <= 0.5 + 1e-9 for s in got)
    if steps >= 2 ** (2 * n):  # points at least a factor 4 apart never collide
        assert len(got) == n


# --------------------------------------------------------------------------- the config
def test_checkpoints_key_is_optional_and_checked():
    raw = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    del raw["models"]["train"]["checkpoints"]
    raw["analysis"]["dynamics"]["enabled"] = False  # it needs checkpoints
    cfg = validate(raw)
    assert "checkpoints" not in cfg["models"]["train"]  # no default filled: the spec unchanged
    assert train_mod._train_settings({"train": dict(TRAIN)})["checkpoints"] == 0
    raw = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    raw["models"]["train"]["checkpoints"] = 8
    raw["models"]["zoo"]["lstm"]["train"] = {"checkpoints": 0}
    cfg = validate(raw)
    assert cfg["models"]["train"]["checkpoints"] == 8
    assert cfg["models"]["zoo"]["lstm"]["train"] == {"checkpoints": 0}
    message = zoo_config_error("big", dict(SPECS["gpt2"], train={"checkpoints": -1}))
    assert "config key 'models.zoo.big.train.checkpoints': expected an integer >= 0" in message
    message = zoo_config_error("big", dict(SPECS["gpt2"], train={"checkpoints": 2.5}))
    assert "models.zoo.big.train.checkpoints" in message and "an integer" in message


# --------------------------------------------------------------------------- training
def spec_with(checkpoints: int | None, kind: str = "gpt2", dropout: float = 0.1) -> dict:
    train = dict(TRAIN, tokens=8 * N_CTX * STEPS)
    if checkpoints is not None:
        train["checkpoints"] = checkpoints
    return dict(SPECS[kind], dropout=dropout, train=train)


def train(spec, tok_dir, out, seed=5):
    train_docs, valid_docs = toy_corpus()
    log_csv = out.parent / f"{out.name}.csv"
    train_model(
        spec, tok_dir, train_docs, valid_docs, out, seed=seed, device="cpu", log_csv=log_csv
    )
    return pd.read_csv(log_csv).drop(columns="seconds")


def tree_bytes(root) -> dict:
    """Every file under ``root`` (relative path → bytes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return path


@pytest.fixture(scope="module")
def plain(tok_dir, tmp_path_factory):
    """An uninterrupted training with checkpoints (dropout on: the RNG state matters)."""
    out = tmp_path_factory.mktemp("plain") / "m"
    return out, train(spec_with(4), tok_dir, out)


def test_default_writes_no_checkpoint_and_checkpoints_change_no_number(plain, tok_dir, tmp_path):
    out, log = plain
    base = tmp_path / "base"

    def never(*_args):
        raise AssertionError("nothing is saved during a training without checkpoints")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ck, "save_weights", never)
        mp.setattr(ck, "save_state", never)
        base_log = train(spec_with(None), tok_dir, base)
    assert not (base / "checkpoints").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "base.csv"]  # no resume folder
    # the checkpoint steps' extra evaluations and saves leave the training as it was
    assert (out / "model.safetensors").read_bytes() == (base / "model.safetensors").read_bytes()
    pd.testing.assert_frame_equal(log, base_log)
    assert ck.read_checkpoints(base) == []


def test_checkpoints_written_with_their_manifest(plain):
    out, log = plain
    assert sorted(p.name for p in out.parent.iterdir()) == ["m", "m.csv"]  # resume folder gone
    manifest = json.loads((out / "checkpoints" / "checkpoints.json").read_text())
    assert manifest["steps"] == STEPS
    assert [r["step"] for r in manifest["checkpoints"]] == KEPT
    assert [r["tokens"] for r in manifest["checkpoints"]] == [k * 8 * N_CTX for k in KEPT]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "checkpoints.json",
        *sorted(f"step-{k}" for k in KEPT),
    ]
    for k in KEPT:  # weights only: no optimizer state, no tokenizer
        names = {p.name for p in (out / "checkpoints" / f"step-{k}").iterdir()}
        assert names == {"config.json", "generation_config.json", "model.safetensors"}
    # the last checkpoint is the final model; its valid loss is the log's last one
    last = out / "checkpoints" / f"step-{STEPS}" / "model.safetensors"
    assert last.read_bytes() == (out / "model.safetensors").read_bytes()
    assert manifest["checkpoints"][-1]["valid_loss"] == pytest.approx(
        log["valid_loss"].iloc[-1], rel=1e-5
    )
    # a checkpoint's valid loss is its weights' loss on the fixed validation subset
    rows = ck.read_checkpoints(out)
    assert [r["step"] for r in rows] == KEPT
    _, valid_docs = toy_corpus()
    stream = train_mod.doc_stream(valid_docs, EOS, VOCAB, "valid_docs")
    valid = train_mod.windows(stream, N_CTX)
    valid = valid[np.linspace(0, len(valid) - 1, min(len(valid), 16)).round().astype(np.int64)]
    losses = []
    for row in rows:
        model, tokenizer = ck.load_checkpoint(out, row["step"], device="cpu")
        assert tokenizer.eos_token_id == EOS and not model.training
        loss = train_mod._evaluate(model, valid, 8, torch.device("cpu"), contextlib.nullcontext)
        assert loss == pytest.approx(row["valid_loss"], rel=1e-5)
        losses.append(loss)
    assert losses[-1] < losses[0]  # it learns between the first and the last
    with pytest.raises(
        InputError, match=r"no checkpoint at step 3; expected one of \[2, 4, 9, 20\]"
    ):
        ck.load_checkpoint(out, 3, device="cpu")


class Interrupt(SystemExit):
    """What the CLI raises on SIGTERM/SIGHUP (an exit that unwinds the stack)."""


def interrupt_at(monkeypatch, call: int) -> None:
    """The ``call``-th training step (1-based, counted in this attempt) raises
    :class:`Interrupt` before it updates anything."""
    real, calls = train_mod._train_step, []

    def step(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise Interrupt(143)
        return real(*args, **kwargs)

    monkeypatch.setattr(train_mod, "_train_step", step)


@pytest.mark.parametrize("kind", ["gpt2", "lstm"])
def test_an_interrupted_training_resumes_with_the_same_bytes(
    kind, plain, tok_dir, tmp_path, caplog
):
    """Interrupted twice (during step 7: its last checkpoint is step 4; then during step 15, 11
    steps into the second attempt: after the checkpoint at 9), then completed: the same files
    (weights, checkpoints, manifest) and log as an uninterrupted training."""
    spec = spec_with(4, kind=kind)
    if kind == "gpt2":
        reference, reference_log = plain
    else:
        reference = tmp_path / "reference"
        reference_log = train(spec, tok_dir, reference)
    out = tmp_path / "m"
    resume = ck.resume_dir(out)
    caplog.set_level(logging.INFO, logger="copyscope.lm.train")
    with pytest.MonkeyPatch.context() as mp:
        interrupt_at(mp, 7)
        with pytest.raises(Interrupt):
            train(spec, tok_dir, out)
    assert not out.exists() and not (tmp_path / "m.csv").exists()
    assert sorted(p.name for p in (resume / "checkpoints").iterdir()) == ["step-2", "step-4"]
    assert torch.load(resume / "state.pt", weights_only=True)["run"]["step"] == 4
    with pytest.MonkeyPatch.context() as mp:
        interrupt_at(mp, 15 - 4)
        with pytest.raises(Interrupt):
            train(spec, tok_dir, out)
    assert torch.load(resume / "state.pt", weights_only=True)["run"]["step"] == 9
    log = train(spec, tok_dir, out)
    resumed = [r.getMessage() for r in caplog.records if "resuming from step" in r.getMessage()]
    assert [m.split("resuming from step ")[1].split(" ")[0] for m in resumed] == ["4/20", "9/20"]
    assert not resume.exists()
    pd.testing.assert_frame_equal(log, reference_log)
    got, expected = tree_bytes(out), tree_bytes(reference)
    assert sorted(got) == sorted(expected)
    differ = [k for k in got if got[k] != expected[k]]
    assert differ == ["train_summary.json"]  # its seconds and tokens/s
    summary = [json.loads((d / "train_summary.json").read_text()) for d in (out, reference)]
    for s in summary:
        del s["summary"]["seconds"], s["summary"]["tokens_per_s"]
    assert summary[0] == summary[1]


def test_an_exit_after_the_model_is_saved_resumes_at_the_end(plain, tok_dir, tmp_path, monkeypatch):
    """Interrupted between the model directory and the log table (Snakemake then removes the
    incomplete model directory): the run again trains no step and writes the same files."""
    reference, reference_log = plain
    out = tmp_path / "m"

    def fail(*_args):
        raise Interrupt(143)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_mod, "write_csv", fail)
        with pytest.raises(Interrupt):
            train(spec_with(4), tok_dir, out)
    assert ck.resume_dir(out).is_dir() and out.is_dir()
    shutil.rmtree(out)
    interrupt_at(monkeypatch, 1)  # a step would raise: none is run
    log = train(spec_with(4), tok_dir, out)
    pd.testing.assert_frame_equal(log, reference_log)
    assert (out / "model.safetensors").read_bytes() == (
        reference / "model.safetensors"
    ).read_bytes()


def test_an_exit_between_a_checkpoints_weights_and_its_state(plain, tok_dir, tmp_path):
    """Killed after the weights of the checkpoint at step 4 are written but before its state
    is: the run again resumes at step 2, writes step 4's weights again, and ends with the
    bytes of an uninterrupted run."""
    reference, reference_log = plain
    out = tmp_path / "m"
    real, calls = ck.save_state, []

    def save_state(*args):
        calls.append(1)
        if len(calls) == 2:
            raise Interrupt(137)
        real(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ck, "save_state", save_state)
        with pytest.raises(Interrupt):
            train(spec_with(4), tok_dir, out)
    resume = ck.resume_dir(out)
    assert sorted(p.name for p in (resume / "checkpoints").iterdir()) == ["step-2", "step-4"]
    assert torch.load(resume / "state.pt", weights_only=True)["run"]["step"] == 2
    pd.testing.assert_frame_equal(train(spec_with(4), tok_dir, out), reference_log)
    assert tree_bytes(out / "checkpoints") == tree_bytes(reference / "checkpoints")
    assert (out / "model.safetensors").read_bytes() == (
        reference / "model.safetensors"
    ).read_bytes()


def cli_train(tmp_path, tok_dir, spec, out) -> subprocess.Popen:
    """``copyscope lm train`` of ``spec`` on the toy corpus (its splits written as the
    pipeline's .npy/.json, if not there yet), started in the background."""
    for name, docs in zip(["train", "valid"], toy_corpus(), strict=True):
        if not (tmp_path / f"{name}.json").exists():
            stream = np.concatenate([np.append(d, EOS) for d in docs]).astype(np.uint16)
            np.save(tmp_path / f"{name}.npy", stream)
            lengths = {"doc_lengths": [len(d) for d in docs]}
            (tmp_path / f"{name}.json").write_text(json.dumps(lengths))
    cmd = [sys.executable, "-m", "copyscope", "lm", "train", "--model-name", "tiny"]
    cmd += ["--params-json", json.dumps(spec), "--tokenizer", str(tok_dir), "--seed", "5"]
    for name in ("train", "valid"):
        cmd += [f"--{name}-npy", str(tmp_path / f"{name}.npy")]
        cmd += [f"--{name}-json", str(tmp_path / f"{name}.json")]
    cmd += ["--device", "cpu", "--out", str(out), "--log-csv", f"{out}.csv"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finished(proc: subprocess.Popen) -> str:
    """The stderr of ``proc``, which must exit 0."""
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return err


def test_sigterm_then_the_same_command_resumes_with_the_same_bytes(tok_dir, tmp_path):
    """SIGTERM to ``copyscope lm train`` right after its first checkpoint (step 2 of 30): it
    exits 143 with no model written; the same command again resumes and writes the files of
    an uninterrupted run of the command (run alongside)."""
    spec = dict(SPECS["gpt2"], dropout=0.1, train=dict(TRAIN, tokens=8 * N_CTX * 30, checkpoints=4))
    out, reference = tmp_path / "m", tmp_path / "reference"
    uninterrupted = cli_train(tmp_path, tok_dir, spec, reference)
    proc = cli_train(tmp_path, tok_dir, spec, out)
    state = ck.resume_dir(out) / "state.pt"
    deadline = time.time() + 300
    while not state.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]
    assert not out.exists() and state.exists()
    step = torch.load(state, weights_only=True)["run"]["step"]
    assert step in (2, 5, 13)  # steps 2, 5, 13, 30
    assert f"resuming from step {step}/30" in finished(cli_train(tmp_path, tok_dir, spec, out))
    assert "resuming" not in finished(uninterrupted)
    got, expected = tree_bytes(out), tree_bytes(reference)
    assert sorted(got) == sorted(expected) and "checkpoints/step-30/model.safetensors" in got
    assert [k for k in got if got[k] != expected[k]] == ["train_summary.json"]
    logs = [pd.read_csv(f"{d}.csv").drop(columns="seconds") for d in (out, reference)]
    pd.testing.assert_frame_equal(*logs)
    assert not ck.resume_dir(out).exists()


def test_a_state_of_another_training_is_not_resumed(plain, tok_dir, tmp_path, caplog):
    """A resume state left by another spec (here: another seed) is removed with a warning and
    the training starts from step 0."""
    reference, reference_log = plain
    out = tmp_path / "m"
    with pytest.MonkeyPatch.context() as mp:
        interrupt_at(mp, 3)
        with pytest.raises(Interrupt):
            train(spec_with(4), tok_dir, out, seed=6)
    assert ck.resume_dir(out).is_dir()
    caplog.set_level(logging.WARNING, logger="copyscope.lm.checkpoints")
    log = train(spec_with(4), tok_dir, out)
    assert any("state of another training" in r.getMessage() for r in caplog.records)
    pd.testing.assert_frame_equal(log, reference_log)
    assert tree_bytes(out / "checkpoints") == tree_bytes(reference / "checkpoints")


def test_a_state_that_does_not_load_is_removed(tmp_path, caplog):
    resume = ck.resume_dir(tmp_path / "m")
    resume.mkdir()
    (resume / "state.pt").write_bytes(b"not a state")
    assert ck.load_state(resume, "abc") is None
    assert any("does not load" in r.getMessage() for r in caplog.records)
    assert not resume.exists()
    assert ck.load_state(resume, "abc") is None  # none: nothing to say
    ck.save_state(resume, {"fingerprint": "abc", "run": {"step": 3}})
    assert ck.load_state(resume, "abc")["run"] == {"step": 3}


def test_read_checkpoints_errors(tmp_path):
    with pytest.raises(InputError, match="expected a trained model directory"):
        ck.read_checkpoints(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "checkpoints.json").write_text('[{"step": 1}]')
    with pytest.raises(InputError, match=r'expected \{"steps"'):
        ck.read_checkpoints(tmp_path)
    (tmp_path / "checkpoints" / "checkpoints.json").write_text('{"checkpoints": [{"step": 4}]}')
    with pytest.raises(InputError, match="step 4: no checkpoint at"):
        ck.read_checkpoints(tmp_path)
