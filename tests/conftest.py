"""Shared test helpers: brute-force references for the index."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def stream_of(docs, dtype=np.uint16) -> np.ndarray:
    """Concatenate documents, each followed by the dtype's largest value (the separator)."""
    sep = np.iinfo(dtype).max
    parts = []
    for d in docs:
        parts.append(np.asarray(d, dtype=dtype))
        parts.append(np.array([sep], dtype=dtype))
    return np.concatenate(parts)


def brute_count(docs, pattern) -> int:
    """Occurrences of ``pattern`` inside documents (never across a document boundary)."""
    m = len(pattern)
    if m == 0:
        return sum(len(d) + 1 for d in docs)
    pat = list(pattern)
    return sum(1 for d in docs for s in range(len(d) - m + 1) if list(d[s : s + m]) == pat)


def brute_matches(docs, query):
    """Reference L_t, C_t: the longest suffix of query[:t+1] occurring in a document, its count.

    For L_t = 0 the count is the corpus size in tokens, separators included (as rusty-dawg).
    """
    docs = [list(map(int, d)) for d in docs]
    total = sum(len(d) + 1 for d in docs)
    grams: dict[tuple, int] = {}
    for d in docs:
        for s in range(len(d)):
            for e in range(s + 1, len(d) + 1):
                grams[tuple(d[s:e])] = grams.get(tuple(d[s:e]), 0) + 1
    L, C = [], []
    q = list(map(int, query))
    for t in range(len(q)):
        best, cnt = 0, total
        for length in range(1, t + 2):
            c = grams.get(tuple(q[t - length + 1 : t + 1]), 0)
            if c == 0:
                break
            best, cnt = length, c
        L.append(best)
        C.append(cnt)
    return np.array(L, dtype=np.int64), np.array(C, dtype=np.int64)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


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


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "results"
    proc = snakemake(
        "--cores", "2", "--configfile", "config/tiny.yaml", "--config", f"results={out}"
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


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


def pixels(path: Path) -> np.ndarray:
    """The RGB pixels of a PNG file (a figure test compares them between two renderings: a
    figure that draws its data changes when the data change; a file size cannot tell)."""
    from matplotlib import image

    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG file"
    return image.imread(path)[..., :3]
