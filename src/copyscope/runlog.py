"""What the workflow prints at its end: the errors of failed jobs, or the finished long jobs.

Every rule sends its command's output to its own log (``results/logs/...``), so a failing job's
``copyscope: error: ...`` line is not on the terminal by itself. The Snakefile's ``onerror``
handler prints :func:`failure_summary` — each failed job's log path and its last lines, read
from the logs named in Snakemake's main log — and its ``onsuccess`` handler
:func:`success_summary`: one line per long job with its wall time (from its ``benchmark:``
file) and its command's last log message (what it did, with its throughput).
"""

from __future__ import annotations

import re
from pathlib import Path

ERROR_BLOCK = re.compile(r"^Error in rule (\S+):$")
JOB_BLOCK = re.compile(r"^(?:local)?rule (\S+):$")
JOB_FIELD = re.compile(r"^\s+(jobid|log|benchmark|wildcards): (.+)$")
FINISHED = re.compile(r"^Finished jobid: (\d+)")
LOG_MESSAGE = re.compile(r"^\S+ \S+ INFO \S+: (.+)$")
# the jobs worth one line each at the end of a run (they take up to many minutes each)
LONG_RULES = (
    "novelty_valid",
    "train_model",
    "sample",
    "sample_shared",
    "analyze",
    "analyze_shared",
    "analyze_human",
    "probe",
)
LOG_LINE = re.compile(r"^\s+log: (.+?)(?: \(check log file\(s\) for error details\))?$")
TAIL_LINES = 6


def failed_jobs(main_log: str) -> list[tuple[str, list[str]]]:
    """(rule, log paths) of every ``Error in rule <rule>:`` block of a Snakemake main log, in
    order; a job without a ``log:`` line has no paths."""
    jobs: list[tuple[str, list[str]]] = []
    for line in main_log.splitlines():
        start = ERROR_BLOCK.match(line)
        if start:
            jobs.append((start.group(1), []))
            continue
        found = LOG_LINE.match(line)
        if jobs and found and not jobs[-1][1]:
            jobs[-1][1].extend(p.strip() for p in found.group(1).split(","))
    return jobs


def tail(path: Path, n: int = TAIL_LINES) -> list[str]:
    """The last ``n`` non-blank lines of ``path`` (none if it is missing)."""
    if not path.is_file():
        return []
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    return lines[-n:]


def failure_summary(main_logs, n: int = TAIL_LINES) -> str:
    """For every failed job of the Snakemake main log(s) ``main_logs`` (a path or a list of
    paths): its rule, its log path and the log's last ``n`` lines; then how to resume."""
    if isinstance(main_logs, (str, Path)):
        main_logs = [main_logs]
    jobs = [
        j for log in main_logs if Path(log).is_file() for j in failed_jobs(Path(log).read_text())
    ]
    if not jobs:
        return ""
    out = [f"copyscope: {len(jobs)} job(s) failed:"]
    for rule, logs in jobs:
        for log in logs or ["(no log file)"]:
            out.append(f"  {rule}: {log}")
            out.extend(f"    | {line}" for line in tail(Path(log), n))
    out.append(
        "Fix the cause and run the same command again: finished jobs are kept, failed and "
        "interrupted ones run again."
    )
    return "\n".join(out)


def finished_jobs(main_log: str) -> list[dict]:
    """Every job of a Snakemake main log that finished, in order of finishing: ``rule`` and
    the job's ``log``, ``benchmark`` and ``wildcards`` as the log lists them."""
    jobs: dict[str, dict] = {}
    current: dict | None = None
    done = []
    for line in main_log.splitlines():
        start = JOB_BLOCK.match(line)
        field = JOB_FIELD.match(line)
        finished = FINISHED.match(line)
        if start:
            current = {"rule": start.group(1)}
        elif current is not None and field:
            current[field.group(1)] = field.group(2).strip()
            jobs[current.get("jobid", "")] = current
        elif not line.startswith(" "):
            current = None
        if finished and finished.group(1) in jobs:
            done.append(jobs[finished.group(1)])
    return done


def benchmark_seconds(path: Path) -> float | None:
    """Wall seconds of a job from its ``benchmark:`` file (column ``s``)."""
    if not path.is_file():
        return None
    header, *rows = path.read_text().splitlines()
    if not rows:
        return None
    return float(rows[0].split("\t")[header.split("\t").index("s")])


def last_message(path: Path) -> str:
    """The last INFO message of a copyscope log (without time and logger), else ``""``."""
    for line in reversed(tail(path, 20)):
        found = LOG_MESSAGE.match(line)
        if found:
            return found.group(1)
    return ""


def success_summary(main_logs, rules=LONG_RULES) -> str:
    """One line per finished job of ``rules`` in the Snakemake main log(s): rule, wildcards,
    wall seconds and its command's last message (what it did, with its throughput)."""
    if isinstance(main_logs, (str, Path)):
        main_logs = [main_logs]
    jobs = [
        job
        for log in main_logs
        if Path(log).is_file()
        for job in finished_jobs(Path(log).read_text())
        if job["rule"] in rules
    ]
    if not jobs:
        return ""
    out = [f"copyscope: {len(jobs)} long job(s) finished in this run:"]
    for job in jobs:
        seconds = benchmark_seconds(Path(job.get("benchmark", "")))
        took = f"{seconds:7.1f} s" if seconds is not None else "      ? s"
        name = f"{job['rule']} {job.get('wildcards', '')}".strip()
        message = last_message(Path(job.get("log", "")))
        out.append(f"  {took}  {name}" + (f": {message[:140]}" if message else ""))
    return "\n".join(out)
