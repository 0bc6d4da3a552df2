"""The pipeline on a real SLURM cluster, through the project's profile (profiles/slurm).

Needs a running cluster: `bash tests/slurm/start.sh` (as root) starts a single-node one; CI does
so in .ci/run.  Without one these tests fail, on purpose (a skipped test proves nothing):
deselect them with `-m "not slurm"` on a machine without SLURM.

The account and partition come from SLURM_ACCOUNT / SLURM_PARTITION (the profile reads them
from the environment); the defaults are those tests/slurm/start.sh creates.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.slurm

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "profiles" / "slurm"
ACCOUNT = os.environ.get("SLURM_ACCOUNT") or "copyscope"
PARTITION = os.environ.get("SLURM_PARTITION") or "debug"
START_HINT = "start the test cluster with `bash tests/slurm/start.sh` (as root)"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # jobs are submitted with --export=ALL: they find this venv's python through PATH
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["SLURM_ACCOUNT"] = ACCOUNT  # read by the profile's default-resources
    env["SLURM_PARTITION"] = PARTITION
    return env


def _run(cmd, timeout, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


def _snakemake(*args, timeout: int, cwd=ROOT) -> subprocess.CompletedProcess:
    """Run Snakemake under `timeout -k`: it ignores SIGTERM while it thinks jobs are running."""
    cmd = ["timeout", "-k", "30", str(timeout), sys.executable, "-m", "snakemake", *args]
    proc = _run(cmd, timeout=timeout + 60, cwd=cwd)
    # a run that was killed may leave its jobs queued: cancel them (job name = SLURM run ID)
    m = re.search(r"SLURM run ID: (\S+)", proc.stdout + proc.stderr)
    if proc.returncode != 0 and m:
        subprocess.run(["scancel", "--name", m.group(1)], capture_output=True, timeout=30)
    return proc


def _slurm_snakemake(*args, logdir: Path, timeout: int, cwd=ROOT):
    return _snakemake(
        "--profile",
        str(PROFILE),
        # quick first status check and logs kept where the test can show them
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--slurm-logdir",
        str(logdir),
        "--slurm-keep-successful-logs",
        *args,
        timeout=timeout,
        cwd=cwd,
    )


def _tail(proc: subprocess.CompletedProcess, n: int = 6000) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-n:]}\n--- stderr\n{proc.stderr[-n:]}"


def _sacct_states(job_ids: list[str]) -> dict[str, str]:
    """SLURM's accounting record of each job (retried briefly: slurmdbd is asynchronous)."""
    states: dict[str, str] = {}
    for _ in range(20):
        out = _run(
            ["sacct", "-n", "-X", "-P", "-o", "JobID,State", "-j", ",".join(job_ids)], timeout=30
        ).stdout
        states = dict(line.split("|", 1) for line in out.splitlines() if "|" in line)
        if set(states) >= set(job_ids) and all(
            s.split()[0] in ("COMPLETED", "FAILED") for s in states.values()
        ):
            break
        time.sleep(1)
    return states


@pytest.fixture(scope="module")
def cluster():
    """A reachable cluster with the partition up, accounting, and the executor plugin."""
    for tool in ("sinfo", "sbatch", "sacct"):
        if shutil.which(tool) is None:
            pytest.fail(f"SLURM is not available (`{tool}` not found): {START_HINT}", pytrace=False)
    proc = _run(["sinfo", "-h", "-p", PARTITION, "-o", "%a %T"], timeout=30)
    states = proc.stdout.split()
    if (
        proc.returncode != 0
        or "up" not in states
        or not any(s.startswith(("idle", "mixed", "allocated", "completing")) for s in states)
    ):
        pytest.fail(
            f"SLURM partition {PARTITION!r} is not up with a usable node "
            f"(sinfo: {proc.stdout.strip() or proc.stderr.strip()!r}): {START_HINT}",
            pytrace=False,
        )
    proc = _run(["sacct", "-n", "-X", "-S", "now-1minutes"], timeout=30)
    if proc.returncode != 0:
        pytest.fail(
            f"`sacct` fails (accounting/slurmdbd not running?): {proc.stderr.strip()}; "
            f"{START_HINT}",
            pytrace=False,
        )
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.fail(
            "snakemake-executor-plugin-slurm is not installed in this venv "
            "(`make setup`, or pip install -r requirements-dev.txt)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def local_run(cluster, request, tmp_path_factory) -> Path:
    """The reference: config/tiny.yaml run locally on 2 cores.

    The session's `tiny_run` (tests/conftest.py, the same run) when there is one, so that the
    whole suite runs the tiny pipeline locally only once; else a run of our own.
    """
    try:
        return request.getfixturevalue("tiny_run")
    except pytest.FixtureLookupError:
        pass
    out = tmp_path_factory.mktemp("local") / "results"
    proc = _snakemake(
        "--cores",
        "2",
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={out}",
        timeout=900,
    )
    assert proc.returncode == 0, "local run failed\n" + _tail(proc)
    return out


MODEL = "gpt2-b"
"""The model whose jobs go through SLURM in :func:`test_tiny_pipeline_on_slurm_matches_local_run`:
sampled under every decoding of the tiny grid, with checkpoints (dynamics) and a probe."""


def model_outputs(run: Path, model: str) -> list[str]:
    """Every file the jobs of ``model`` write in the run ``run`` (paths relative to it): its
    samples, their analyses and parses, its probe, own-benchmark, memorization, dynamics and
    training outputs, and the model itself (its training summary aside: timings)."""
    folders = [f"samples/{model}", f"analysis/{model}", f"syntax/{model}",
               f"membership/{model}", f"models/{model}"]  # fmt: skip
    files = [f"dynamics/{model}.csv", f"memorization/{model}.csv", f"tables/training/{model}.csv"]
    for folder in folders:
        files += [str(p.relative_to(run)) for p in sorted((run / folder).rglob("*"))
                  if p.is_file() and not p.name.startswith(".")]  # fmt: skip
    return sorted(f for f in files if not f.endswith("train_summary.json"))


def test_tiny_pipeline_on_slurm_matches_local_run(cluster, local_run, tmp_path):
    """config/tiny.yaml through SLURM: every job one model needs (corpus, tokenizers,
    indexes, parses, training, sampling under every decoding, analyses, probe, own
    benchmarks, memorization, dynamics) runs as a cluster job and writes the very same bytes
    as the local run. The report jobs read only such files, with the same code: the local
    runs check them (a whole run through SLURM took 15 minutes of the suite's time)."""
    local, slurm = local_run, tmp_path / "slurm"
    files = model_outputs(local, MODEL)
    assert len(files) > 30 and any(f.endswith(".safetensors") for f in files)
    proc = _slurm_snakemake(
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={slurm}",
        "--",
        *(str(slurm / f) for f in files if not f.startswith("models/")),
        logdir=tmp_path / "slurm-logs",
        timeout=1500,
    )
    assert proc.returncode == 0, "run through SLURM failed\n" + _tail(proc)
    log = proc.stdout + proc.stderr
    submitted = re.findall(r"submitted with SLURM jobid (\d+)", log)
    assert len(submitted) >= 10, "expected the pipeline's jobs to go through sbatch\n" + log[-3000:]
    for rule in ("train_model", "sample", "analyze", "probe", "dynamics", "membership_benchmark"):
        assert re.search(rf"rule {rule}:", log), f"no {rule} job in the SLURM run\n" + log[-3000:]

    assert model_outputs(slurm, MODEL) == files
    differ = []
    for name in files:
        a, b = (local / name).read_bytes(), (slurm / name).read_bytes()
        if name.startswith("tables/training/"):  # the same losses at every step; the times differ
            x, y = (pd.read_csv(r / name).drop(columns="seconds") for r in (local, slurm))
            a, b = x.to_csv().encode(), y.to_csv().encode()
        if a == b:
            continue
        if not name.endswith((".csv", ".jsonl", ".json")):
            differ.append(f"{name}: the bytes differ")
            continue
        diff = difflib.unified_diff(
            a.decode(errors="replace").splitlines(),
            b.decode(errors="replace").splitlines(),
            f"local/{name}",
            f"slurm/{name}",
            lineterm="",
            n=0,
        )
        differ.append("\n".join(list(diff)[:12]))
    assert not differ, "files differ between the local and the SLURM run:\n" + "\n".join(differ)
    # the pipeline's benchmarks were written on the compute node as well
    assert (slurm / "benchmarks" / "train_model" / f"{MODEL}.tsv").stat().st_size > 0


def test_query_fanout_on_slurm_is_byte_identical(cluster, local_run, tmp_path):
    """index.query_fanout through SLURM: the per-shard and merge jobs are cluster jobs, and the
    novelty files of both tokenizers equal the local single-process run's byte for byte (the
    novelty query sets only: the analysis sets go through the same rules, one cluster job per
    sample set and shard, and tests/workflow/test_workflow.py checks them all locally)."""
    from support.workflow import (
        NOVELTY_FANOUT_OUTPUTS,
        NOVELTY_FANOUT_QSETS,
        fanout_differences,
        fanout_rerun,
    )

    fan = tmp_path / "fanout"
    proc = _slurm_snakemake(
        *fanout_rerun(local_run, fan, NOVELTY_FANOUT_OUTPUTS),
        logdir=tmp_path / "slurm-logs",
        timeout=1200,
    )
    assert proc.returncode == 0, "fan-out run through SLURM failed\n" + _tail(proc)
    log = proc.stdout + proc.stderr
    assert re.search(r"rule shard_matches", log) and "submitted with SLURM jobid" in log, log[
        -3000:
    ]
    assert len(re.findall(r"rule shard_matches", log)) > 2, log[-3000:]  # one per shard
    assert fanout_differences(local_run, fan, NOVELTY_FANOUT_OUTPUTS, NOVELTY_FANOUT_QSETS) == []


def test_failed_job_is_retried_by_slurm(cluster, tmp_path):
    """A job that fails once is submitted again (profile: retries) and the run completes."""
    (tmp_path / "Snakefile").write_text(
        textwrap.dedent("""\
        rule all:
            input:
                "done.txt",


        rule flaky:
            output:
                "done.txt",
            resources:
                attempt_no=lambda wildcards, attempt: attempt,
            shell:
                # the first attempt leaves a marker and fails; later ones succeed
                "echo {resources.attempt_no} $SLURM_JOB_ID >> attempts.txt; "
                "if [ ! -e failed-once ]; then touch failed-once; "
                "echo 'failing on purpose' >&2; exit 1; fi; "
                "echo ok > {output}"
        """)
    )
    proc = _slurm_snakemake(
        "--snakefile",
        str(tmp_path / "Snakefile"),
        "--directory",
        str(tmp_path),
        logdir=tmp_path / "slurm-logs",
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, _tail(proc)
    assert (tmp_path / "done.txt").read_text() == "ok\n"

    attempts = [line.split() for line in (tmp_path / "attempts.txt").read_text().splitlines()]
    assert [a[0] for a in attempts] == ["1", "2"], attempts  # Snakemake's attempt counter
    job_ids = [a[1] for a in attempts]
    assert len(set(job_ids)) == 2, f"expected two SLURM jobs, got {job_ids}"
    states = _sacct_states(job_ids)
    assert [states.get(j, "").split()[0:1] for j in job_ids] == [["FAILED"], ["COMPLETED"]], states
