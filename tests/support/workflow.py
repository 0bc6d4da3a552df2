"""Runs of the workflow from the tests: the repository root, Snakemake in a subprocess, the per-
shard fan-out's reruns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def snakemake(*args, timeout=1800):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# query sets whose files the per-shard fan-out must reproduce byte for byte (tiny config)
FANOUT_OUTPUTS = [
    *(
        f"novelty/{tok}/{name}"
        for tok in ("bpe", "words")
        for name in ("valid_matches.parquet", "novelty_valid.csv", "nnsl_valid.csv")
    ),
    *(
        f"analysis/{setting}/{name}"
        for setting in ("gpt2-b/greedy", "human/reference")
        for name in ("tokens.parquet", "words.parquet", "supercopies.csv", "planted.csv")
    ),
]


# the query sets whose per-shard files :func:`fanout_differences` checks, with their index
FANOUT_QSETS = {"novelty/bpe": "bpe", "analysis/gpt2-b/greedy/words": "words-joined"}


# the novelty query sets only (one per tokenizer): a few cluster jobs instead of one per
# (sample set, shard) of every analysed setting; the SLURM test's fan-out
NOVELTY_FANOUT_OUTPUTS = [n for n in FANOUT_OUTPUTS if n.startswith("novelty/")]


NOVELTY_FANOUT_QSETS = {"novelty/bpe": "bpe", "novelty/words": "words"}


def fanout_rerun(reference: Path, dest: Path, outputs=FANOUT_OUTPUTS) -> list[str]:
    """Copy a finished tiny run (``reference``) to ``dest`` and return the Snakemake arguments
    that recompute ``outputs`` (default :data:`FANOUT_OUTPUTS`) there with
    ``index.query_fanout: true`` (the query rules forced, everything upstream reused)."""
    import shutil

    import yaml

    shutil.copytree(reference, dest, symlinks=True)  # copy2: modification times kept
    for name in outputs:
        (dest / name).unlink()
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["results"] = str(dest)
    cfg["index"]["query_fanout"] = True
    path = dest.parent / "fanout.yaml"
    path.write_text(yaml.safe_dump(cfg))
    targets = [str(dest / name) for name in outputs]
    # targets first: --configfile and --forcerun take several values
    return [*targets, "--configfile", str(path), "--forcerun", "novelty_valid", "analyze"]


def fanout_differences(
    reference: Path, dest: Path, outputs=FANOUT_OUTPUTS, qsets=FANOUT_QSETS
) -> list[str]:
    """The files of ``outputs`` that differ between the two runs, and a problem if the fan-out
    jobs did not run for every shard of the index of each query set of ``qsets`` (query set →
    index)."""
    import json

    bad = [n for n in outputs if (reference / n).read_bytes() != (dest / n).read_bytes()]
    for qset, tok in qsets.items():
        shards = json.loads((dest / "index" / tok / "index.json").read_text())["shards"]
        made = sorted(p.stem for p in (dest / "fanout" / qset).glob("shard-*.npz"))
        if made != sorted(shards) or not (dest / "fanout" / qset / "matches.npz").exists():
            bad.append(f"fanout/{qset}: per-shard files {made}, shards {shards}")
    if len(json.loads((dest / "index/bpe/index.json").read_text())["shards"]) < 2:
        bad.append("the bpe index has one shard: nothing was fanned out")
    return bad
