"""One training on both cores, or two trainings side by side on one core each?

``models.train_threads`` sets the CPU threads of every training job. With 2 (the earlier
default) the four models of the default train one after the other, each on both cores; with 1
Snakemake runs two trainings (or a training and a probe) side by side. This script measures
which finishes the default's training sooner on this machine.

For every model of ``--models`` (built as the pipeline builds it, the fp32 or ``--bf16`` step
of ``copyscope.lm.train`` as ``benchmarks/train_step.py``'s ``pipeline`` variant runs it, on
seeded random token ids) it times ``--steps`` steps after ``--warmup`` untimed ones:

* ``alone, 2 threads`` — one process with ``OMP_NUM_THREADS=2``, nothing else of the script
  running;
* ``side by side, 1 thread`` — two processes with ``OMP_NUM_THREADS=1`` at once, both training
  the same model (each the other's load, as two training jobs of the run are).

Printed per model: the median seconds per step of each way, and the ratio
``2 × (alone s/step) / (side-by-side s/step)``: above 1, two one-thread trainings get through
more steps per second together than one two-thread training. Then the default's training time
each way (its steps per model: ``models.train.tokens`` over the model's batch of windows):
one after the other on both cores (the sum), and two at a time on one core each (the
longest-first schedule of the four jobs on two cores). The two lines compare only the
trainings, not what else the run schedules beside them.

Usage::

    python benchmarks/train_threads.py                       # the default's four models
    python benchmarks/train_threads.py --models t4x256 lstm --steps 8
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def worker(config: Path, model: str, steps: int, warmup: int, bf16: bool) -> None:
    """Time ``steps`` training steps of ``model`` (threads from ``OMP_NUM_THREADS``) and print
    one JSON line: the seconds of every timed step."""
    import torch

    import train_step as B

    specs, vocab, seed = B.model_specs(config, [model])
    variant = B.VARIANTS["pipeline"]
    with B.knobs(variant):
        runner = B.Runner(specs[model], vocab, seed, variant, bf16)
        for _ in range(warmup):
            runner.step()
        times = [runner.step() for _ in range(steps)]
    print(json.dumps({"threads": torch.get_num_threads(), "times": times}), flush=True)


def run(config: Path, model: str, threads: int, copies: int, a) -> list[float]:
    """The step times of ``copies`` worker processes started at once (all of them pooled)."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    cmd = [sys.executable, __file__, "--worker", model, "--config", str(config),
           "--steps", str(a.steps), "--warmup", str(a.warmup)] + (["--bf16"] if a.bf16 else [])  # fmt: skip
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True) for _ in range(copies)
    ]
    times = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode:
            raise SystemExit(f"worker {model} ({threads} threads) failed: exit {p.returncode}")
        times += json.loads(out.strip().splitlines()[-1])["times"]
    return times


def default_specs(names: list[str], config: Path = ROOT / "config" / "config.yaml") -> dict:
    """The pipeline's spec of each model (``train`` merged over ``models.train``)."""
    import train_step as B

    return B.model_specs(config, names)[0]


def two_machines(durations: list[float]) -> float:
    """The finishing time of jobs of these durations on two workers, longest first, each job
    to the worker free first."""
    free = [0.0, 0.0]
    for d in sorted(durations, reverse=True):
        free[free.index(min(free))] += d
    return max(free)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    p.add_argument("--models", nargs="+", default=None, help="default: the config's zoo")
    p.add_argument("--steps", type=int, default=6, help="timed steps per process")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps per process first")
    p.add_argument("--bf16", action="store_true", help="bf16 autocast (a CPU with AVX-512 BF16)")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(a.config, a.worker, a.steps, a.warmup, a.bf16)
        return 0
    import yaml

    from copyscope.config import validate

    zoo = validate(yaml.safe_load(a.config.read_text()))["models"]["zoo"]
    names = a.models or [m for m, s in zoo.items() if s.get("kind") != "pretrained"]
    specs = default_specs(names, a.config)
    print("| model | steps in the default | alone, 2 threads (s/step) | side by side, 1 thread "
          "(s/step) | steps/s of two 1-thread vs one 2-thread |")  # fmt: skip
    print("|---|---:|---:|---:|---:|")
    alone, side = {}, {}
    for m in names:
        spec = specs[m]
        steps = math.ceil(spec["train"]["tokens"] / (spec["train"]["batch_size"] * spec["n_ctx"]))
        t2 = statistics.median(run(a.config, m, 2, 1, a))
        t1 = statistics.median(run(a.config, m, 1, 2, a))
        alone[m], side[m] = steps * t2, steps * t1
        print(f"| `{m}` | {steps} | {t2:.3f} | {t1:.3f} | {2 * t2 / t1:.2f} |", flush=True)
    print(
        f"\nthe default's trainings, one after the other on 2 threads: {sum(alone.values()):.0f} s"
    )
    print(
        f"two at a time on 1 thread each (longest first): {two_machines(list(side.values())):.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
