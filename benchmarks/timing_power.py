"""Power of the scorecard's training-history rows at the settings known-answer timing could
have: how large the timed groups must be for ``cloze-late-sudden`` and ``forgetting-early`` to
reach a decision (the settings proposed in docs/methods/models.md, "Training dynamics").

Each row is the claim's own known positive (:mod:`copyscope.report.findings.literature`,
:mod:`~copyscope.report.findings.related`) decided by the scorecard's rule on ``--draws``
seeded draws, at the checkpoint steps of the default training (``--steps`` with
``--checkpoints`` log-spaced checkpoints, ``--window``):

* ``cloze-late-sudden`` — name cloze items per set (late-timed plays, excerpt plays, held-out
  plays; the same for the three) against the gains planted: the held-out plays at ``--base``
  at every checkpoint, the late plays jumping by ``late`` after the late window, the excerpt
  plays rising steadily to ``excerpt`` (the pairs of ``--cloze-gains``);
* ``forgetting-early`` — timed ladder passages per group against the end's extraction rates
  planted: early passages at 0 (forgotten), late ones at each rate of ``--late-rates``.

Usage::

    python benchmarks/timing_power.py
    python benchmarks/timing_power.py --draws 400 --steps 782 --checkpoints 8
"""

from __future__ import annotations

import argparse

from copyscope.corpus.timing import timed_windows
from copyscope.report import findings as F
from copyscope.report import power as P
from copyscope.report.findings import literature, related


def params(window: float, alpha: float) -> dict:
    """The scorecard parameters the two rules read."""
    return {"findings": {"alpha": alpha}, "timing": {"window": window}}


def checkpoint_steps(n: int, steps: int) -> list[int]:
    """:func:`copyscope.lm.checkpoints.checkpoint_steps` (that module imports torch)."""
    return sorted({int(steps ** (i / n) + 0.5) for i in range(1, n + 1)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=782, help="training steps (default run: 782)")
    ap.add_argument("--checkpoints", type=int, default=8)
    ap.add_argument("--window", type=float, default=0.1)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--base", type=float, default=0.1, help="held-out plays' accuracy")
    ap.add_argument("--cloze-gains", nargs="+", default=["0.2:0.1", "0.2:0.2", "0.3:0.1"],
                    help="late:excerpt gains over the held-out plays at the end")  # fmt: skip
    ap.add_argument("--cloze-sizes", nargs="+", type=int, default=[20, 40, 80, 120, 200])
    ap.add_argument("--late-rates", nargs="+", type=float, default=[0.25, 0.5, 0.75])
    ap.add_argument("--ladder-sizes", nargs="+", type=int, default=[6, 12, 18, 24, 36])
    a = ap.parse_args()
    p = params(a.window, a.alpha)
    steps = checkpoint_steps(a.checkpoints, a.steps)
    start = timed_windows(a.steps, a.window)["late"][0]
    print(f"checkpoints {steps}; late window after step {start}; {a.draws} draws per cell\n")
    print("| cloze-late-sudden: late gain | excerpt gain | " +
          " | ".join(f"{n} items" for n in a.cloze_sizes) + " |")  # fmt: skip
    print("|---|---|" + "---|" * len(a.cloze_sizes))
    for pair in a.cloze_gains:
        late, excerpt = (float(x) for x in pair.split(":"))
        plan = {"m": {"steps": steps, "base": dict.fromkeys(steps, a.base), "late": late,
                      "excerpt": excerpt, "start": start}}  # fmt: skip
        build = literature.planted_cloze_timing(plan)
        power = [P.power_at("cloze-late-sudden", build, F.HOLDS, None, p, n, a.draws, 0)["power"]
                 for n in a.cloze_sizes]  # fmt: skip
        print(f"| {late} | {excerpt} | "
              + " | ".join(f"{x:.2f}" for x in power) + " |")  # fmt: skip
    print("\n| forgetting-early: late rate (early 0) | " +
          " | ".join(f"{n} passages" for n in a.ladder_sizes) + " |")  # fmt: skip
    print("|---|" + "---|" * len(a.ladder_sizes))
    for rate in a.late_rates:
        build = related.planted_forgetting({"m": (a.steps, 0.0, rate)})
        power = [P.power_at("forgetting-early", build, F.HOLDS, None, p, n, a.draws, 0)["power"]
                 for n in a.ladder_sizes]  # fmt: skip
        print(f"| {rate} | " + " | ".join(f"{x:.2f}" for x in power) + " |")


if __name__ == "__main__":
    main()
