"""Start-up time of ``copyscope query`` (target: at most 1 s) or ``copyscope count`` (``--tool
count``, target: at most 0.5 s, issue 24) on an index.

Runs ``python -m copyscope TOOL INDEX --text TEXT`` ``--repeats`` times as a fresh process
(what a user pays per ad-hoc question) and reports the median wall time; then one run with
``python -X importtime`` for the heaviest top-level imports, and whether torch or transformers
were imported at all (loading a BPE tokenizer needs only the ``tokenizers`` library).

Usage::

    python benchmarks/query_startup.py                          # results/index/bpe
    python benchmarks/query_startup.py --index results-tiny/index/bpe --repeats 7
    python benchmarks/query_startup.py --tool count --text "the king"
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = {"query": 1.0, "count": 0.5}


def command(index: str, text: str, importtime: bool = False, tool: str = "query") -> list[str]:
    flags = ["-X", "importtime"] if importtime else []
    return [sys.executable, *flags, "-m", "copyscope", tool, index, "--text", text]


def run_once(cmd: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds and CPU seconds (user + system) of one run of ``cmd`` (which must
    succeed), and its result.  CPU time is what the run costs on an idle machine at most; wall
    time also counts waiting for cores that other processes use."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"query failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, cpu, done


def top_level_imports(importtime_log: str, n: int) -> list[tuple[str, float]]:
    """The ``n`` top-level modules (no indentation in ``-X importtime``) with the largest
    cumulative import time, in seconds."""
    rows = []
    for line in importtime_log.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if cumulative.strip().isdigit() and not name.startswith("  "):
            rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:n]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", default="results/index/bpe", help="index directory to query")
    p.add_argument("--text", default="Is this a dagger which I see before me", help="query")
    p.add_argument("--repeats", type=int, default=5, help="fresh processes timed (median)")
    p.add_argument("--tool", choices=sorted(TARGET_SECONDS), default="query")
    args = p.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = command(args.index, args.text, tool=args.tool)
    run_once(cmd, env)  # warm the page cache and numba's cache
    runs = [run_once(cmd, env)[:2] for _ in range(args.repeats)]
    times = [wall for wall, _ in runs]
    cpu = statistics.median(c for _, c in runs)
    _, _, traced = run_once(command(args.index, args.text, True, args.tool), env)
    heavy = {"torch", "transformers"}
    loaded = sorted(
        {ln.split("|")[-1].strip().split(".")[0] for ln in traced.stderr.splitlines()} & heavy
    )
    median = statistics.median(times)
    print(f"copyscope {args.tool} {args.index}: median {median:.2f} s over {args.repeats} runs")
    print("  runs: " + ", ".join(f"{t:.2f}" for t in times))
    print(f"  CPU (user + system), median: {cpu:.2f} s; load average {os.getloadavg()[0]:.1f}")
    print("  heaviest top-level imports:")
    for name, seconds in top_level_imports(traced.stderr, 6):
        print(f"    {seconds:6.3f} s  {name}")
    print(f"  torch/transformers imported: {', '.join(loaded) if loaded else 'no'}")
    target = TARGET_SECONDS[args.tool]
    ok = median <= target and not loaded
    print(f"{'PASS' if ok else 'FAIL'}: median ≤ {target:g} s without torch/transformers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
