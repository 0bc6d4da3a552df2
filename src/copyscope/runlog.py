"""What the workflow prints at its end: the errors of failed jobs, and the finished long jobs.

Every rule sends its command's output to its own log (``results/logs/...``), so a failing job's
``copyscope: error: ...`` line is not on the terminal by itself. The Snakefile's ``onerror``
handler prints :func:`failure_summary` — each failed job's log path and its last lines, read
from the logs named in Snakemake's main log — and its ``onsuccess`` handler
:func:`success_summary`.
"""

from __future__ import annotations

import re
from pathlib import Path

ERROR_BLOCK = re.compile(r"^Error in rule (\S+):$")
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
