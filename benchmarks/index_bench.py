"""Benchmark of the copyscope suffix-array index against pydivsufsort and rusty-dawg.

For every corpus size the script generates a seeded synthetic corpus (Zipf token ids, documents
of varying length each followed by the separator 65535, ~10% of them exact duplicates of earlier
documents) and a query set (half mutated excerpts of the corpus, half fresh Zipf text), then runs
every measurement in its own child process (this script with a hidden sub-command) so that the
peak RSS of each tool is measured alone:

* ``build``  copyscope ``build_index``: wall seconds (median), peak RSS, bytes per token;
* ``query``  copyscope ``Index.longest_matches`` (L_t and C_t): tokens/s, peak RSS, index size;
* ``sais``   pydivsufsort SA + Kasai LCP on the same reversed stream: seconds;
* ``rdawg``  rusty-dawg CDAWG: build + fill_counts seconds, peak RSS, per-token query tokens/s.

L_t and C_t of copyscope must equal rusty-dawg's on every query position; otherwise the script
reports the first mismatch and exits with status 1.  Results are printed as a markdown table
(stdout), with one PASS/FAIL line per target, and written as JSON to ``--out``.

Usage::

    python benchmarks/index_bench.py --sizes 1e6 1e7
    python benchmarks/index_bench.py --sizes 1e8 --queries 1000 --no-reference
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

SEP = 65535
CHILD_CMD = "_child"
TASKS = ("build", "query", "sais", "rdawg")
MB = 1024 * 1024

# targets
MAX_BUILD_RATIO = 1.5  # copyscope build / pydivsufsort SA+LCP
MAX_BYTES_PER_TOKEN = 7.0
FIXED_BYTES = 16 * 1024  # allowed size-independent overhead (.npy headers, meta.json)
RSS_SLACK_MB = 300  # query peak RSS <= index size + this
MIN_SPEEDUP = 4.0  # copyscope query tok/s / rusty-dawg tok/s


# ----------------------------------------------------------------------------- utilities
def log(msg: str) -> None:
    """Print a progress message with a timestamp to stderr."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_bytes(path: Path) -> int:
    """Total size of the regular files below ``path``."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def parse_size(text: str) -> int:
    """Parse a corpus size such as ``1e6`` or ``2500000``."""
    value = float(text)
    if value < 2 or value != int(value):
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens >= 2, got {text}")
    return int(value)


def size_label(n: int) -> str:
    """Short label of a size (``1e6``, ``2.5e7``)."""
    exp = int(math.floor(math.log10(n)))
    mant = n / 10**exp
    return f"{mant:g}e{exp}"


def package_version(name: str) -> str | None:
    """Installed version of a distribution, or None."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


# ----------------------------------------------------------------------------- data
class ZipfSource:
    """Zipf-distributed token ids: rank k has probability ~ k^-exponent, ranks are mapped to
    ids by a seeded random permutation of ``range(vocab)`` (so ids are < vocab < 65535)."""

    def __init__(self, vocab: int, exponent: float, seed: int):
        if not 0 < vocab < SEP:
            raise ValueError(f"vocab must be in (0, {SEP})")
        ranks = np.arange(1, vocab + 1, dtype=np.float64)
        cdf = np.cumsum(ranks**-exponent)
        self.cdf = cdf / cdf[-1]
        self.ids = np.random.default_rng([seed, 0]).permutation(vocab).astype(np.uint16)
        self.vocab = vocab

    def sample(self, rng: np.random.Generator, n: int, chunk: int = 1 << 23) -> np.ndarray:
        """``n`` Zipf token ids as uint16 (drawn in chunks to bound memory)."""
        out = np.empty(n, dtype=np.uint16)
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            rank = np.searchsorted(self.cdf, rng.random(b - a), side="right")
            out[a:b] = self.ids[np.minimum(rank, self.vocab - 1)]
        return out


def document_plan(rng: np.random.Generator, n_tokens: int, args) -> list[tuple[bool, int, int]]:
    """Plan the documents of a corpus of exactly ``n_tokens`` tokens (separators included).

    Returns (is_duplicate, source, length) per document: for an original document ``source`` is
    its offset in the pool of fresh Zipf tokens, for a duplicate the index of the original
    document it copies.  A small random "hot" set of originals receives half of the duplicates,
    so some documents are duplicated several times.
    """
    sigma = args.doc_sigma
    mu = math.log(args.doc_mean) - sigma**2 / 2  # lognormal with mean doc_mean
    max_len = 20 * args.doc_mean
    plan: list[tuple[bool, int, int]] = []
    originals: list[int] = []
    hot: list[int] = []
    total = pool = 0
    while total < n_tokens:
        room = n_tokens - total - 1  # tokens left for this document's content
        dup = bool(originals) and rng.random() < args.dup_fraction
        if dup:
            src = (
                hot[rng.integers(len(hot))]
                if hot and rng.random() < 0.5
                else originals[rng.integers(len(originals))]
            )
            length = plan[src][2]
            if length <= room:
                plan.append((True, src, length))
                total += length + 1
                continue
        length = min(max(1, int(rng.lognormal(mu, sigma))), max_len, room)
        if length < room and room - length < 2:
            length = room  # do not leave a gap too small for another document
        originals.append(len(plan))
        if rng.random() < 0.01:
            hot.append(len(plan))
        plan.append((False, pool, length))
        pool += length
        total += length + 1
    return plan


def make_corpus(n_tokens: int, zipf: ZipfSource, args) -> tuple[np.ndarray, dict]:
    """A synthetic corpus of exactly ``n_tokens`` uint16 tokens ending with the separator."""
    rng = np.random.default_rng([args.seed, n_tokens, 1])
    plan = document_plan(rng, n_tokens, args)
    pool = zipf.sample(rng, sum(length for dup, _, length in plan if not dup))
    sep = np.array([SEP], dtype=np.uint16)
    pieces = []
    for dup, src, length in plan:
        start = plan[src][1] if dup else src
        pieces.append(pool[start : start + length])
        pieces.append(sep)
    corpus = np.concatenate(pieces)
    assert corpus.shape[0] == n_tokens and corpus[-1] == SEP
    n_dup = sum(1 for dup, _, _ in plan if dup)
    copies = np.bincount([src for dup, src, _ in plan if dup], minlength=len(plan))
    stats = {
        "n_docs": len(plan),
        "n_duplicate_docs": n_dup,
        "duplicate_fraction": n_dup / len(plan),
        "max_copies_of_one_doc": int(copies.max()) if n_dup else 0,
        "mean_doc_len": float(np.mean([length for _, _, length in plan])),
    }
    return corpus, stats


def make_queries(corpus: np.ndarray, zipf: ZipfSource, args) -> tuple[list[np.ndarray], dict]:
    """Half excerpts of single documents with random token mutations, half fresh Zipf text."""
    rng = np.random.default_rng([args.seed, corpus.shape[0], 2])
    qlen = args.query_len
    seps = np.flatnonzero(corpus == SEP)
    starts = np.concatenate([[0], seps[:-1] + 1])
    lens = seps - starts
    long_docs = np.flatnonzero(lens >= qlen)
    if long_docs.size == 0:
        raise SystemExit(f"no document has {qlen} tokens; use a smaller --query-len")
    weights = (lens[long_docs] - qlen + 1).astype(np.float64)
    n_excerpts = args.queries // 2
    queries = []
    n_mut = 0
    for i in range(args.queries):
        if i < n_excerpts:
            d = long_docs[rng.choice(long_docs.size, p=weights / weights.sum())]
            a = starts[d] + rng.integers(lens[d] - qlen + 1)
            q = corpus[a : a + qlen].copy()
            mask = rng.random(qlen) < args.mutation_rate
            q[mask] = rng.integers(0, zipf.vocab, int(mask.sum()))
            n_mut += int(mask.sum())
        else:
            q = zipf.sample(rng, qlen)
        assert not np.any(q == SEP)
        queries.append(q)
    stats = {
        "n_queries": len(queries),
        "query_len": qlen,
        "n_excerpts": n_excerpts,
        "n_mutated_tokens": n_mut,
        "n_query_tokens": int(sum(len(q) for q in queries)),
    }
    return queries, stats


def save_queries(queries: list[np.ndarray], folder: Path) -> None:
    """Store the queries as one flat uint16 array plus offsets."""
    offsets = np.concatenate([[0], np.cumsum([len(q) for q in queries])]).astype(np.int64)
    np.save(folder / "queries_flat.npy", np.concatenate(queries).astype(np.uint16))
    np.save(folder / "queries_offsets.npy", offsets)


def load_queries(folder: Path) -> list[np.ndarray]:
    """Inverse of :func:`save_queries`."""
    flat = np.load(folder / "queries_flat.npy")
    offsets = np.load(folder / "queries_offsets.npy")
    return [flat[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


# ----------------------------------------------------------------------------- child tasks
def task_build(folder: Path, args) -> dict:
    """copyscope build_index on the corpus: wall seconds (median of repeats), peak RSS,
    bytes/token."""
    from copyscope.index import build_index

    warm = folder / "warm_index"
    build_index(np.array([1, 2, 3, SEP, 2, 3, SEP], dtype=np.uint16), warm)  # compile kernels
    shutil.rmtree(warm)
    tokens = np.load(folder / "corpus.npy")
    times = []
    for r in range(args.repeats):
        shutil.rmtree(folder / "index", ignore_errors=True)
        t0 = time.perf_counter()
        meta = build_index(tokens, folder / "index")
        times.append(time.perf_counter() - t0)
        log(f"  copyscope build repeat {r + 1}/{args.repeats}: {times[-1]:.2f} s")
    shard = json.loads((folder / "index" / meta["shards"][0] / "meta.json").read_text())
    return {
        "seconds": statistics.median(times),
        "all_seconds": times,
        "sa_lcp_seconds_last": shard["build_seconds"],
        "n_tokens": meta["n_tokens"],
        "bytes_on_disk": meta["bytes_on_disk"],
        "bytes_per_token": meta["bytes_per_token"],
        "peak_rss_mb": peak_rss_mb(),
    }


def task_query(folder: Path, args) -> dict:
    """copyscope longest_matches (L_t, C_t) on all queries: tokens/s (median of repeats)."""
    import numba

    from copyscope.index import Index

    t0 = time.perf_counter()
    idx = Index(folder / "index")
    open_seconds = time.perf_counter() - t0
    idx.longest_matches([np.array([1, 2, 3]), np.array([4])])  # warm-up / compile
    queries = load_queries(folder)
    n = sum(len(q) for q in queries)
    times = []
    for r in range(args.repeats):
        t0 = time.perf_counter()
        m = idx.longest_matches(queries)
        times.append(time.perf_counter() - t0)
        log(f"  copyscope query repeat {r + 1}/{args.repeats}: {n / times[-1]:,.0f} tok/s")
    np.save(folder / "cs_L.npy", m.length)
    np.save(folder / "cs_C.npy", m.count)
    return {
        "seconds": times,
        "tokens_per_s": n / statistics.median(times),
        "n_query_tokens": n,
        "open_seconds": open_seconds,
        "index_bytes": dir_bytes(folder / "index"),
        "numba_threads": numba.get_num_threads(),
        "mean_L": float(m.length.mean()),
        "max_L": int(m.length.max()),
        "positions_L_ge_255": int(np.count_nonzero(m.length >= 255)),
        "peak_rss_mb": peak_rss_mb(),
    }


def task_sais(folder: Path, args) -> dict:
    """pydivsufsort SA + Kasai LCP of the reversed corpus (what copyscope indexes)."""
    import pydivsufsort

    rev = np.ascontiguousarray(np.load(folder / "corpus.npy")[::-1])
    times = []
    sa = None
    for r in range(args.repeats):
        sa = None
        t0 = time.perf_counter()
        sa = pydivsufsort.divsufsort(rev)
        lcp = pydivsufsort.kasai(rev, sa)
        times.append(time.perf_counter() - t0)
        del lcp
        log(f"  pydivsufsort repeat {r + 1}/{args.repeats}: {times[-1]:.2f} s")
    cs_sa = np.load(folder / "index" / "shard-000" / "sa.npy", mmap_mode="r")
    return {
        "seconds": times,
        "median_seconds": statistics.median(times),
        "sa_equals_copyscope": bool(np.array_equal(sa, cs_sa)),
        "peak_rss_mb": peak_rss_mb(),
    }


def task_rdawg(folder: Path, args) -> dict:
    """rusty-dawg CDAWG: build + fill_counts, then a per-token Python query loop."""
    t0 = time.perf_counter()
    from rusty_dawg import Cdawg

    import_seconds = time.perf_counter() - t0
    rss_after_import = peak_rss_mb()
    corpus = np.load(folder / "corpus.npy")
    t0 = time.perf_counter()
    cdawg = Cdawg(corpus)  # uint16 array: same result as a list, without 28 bytes per token
    cdawg.build()
    cdawg.fill_counts()
    build_seconds = time.perf_counter() - t0
    log(f"  rusty-dawg build: {build_seconds:.2f} s")
    queries = [q.tolist() for q in load_queries(folder)]
    step, count, initial = cdawg.transition_and_count, cdawg.get_suffix_count, cdawg.get_initial
    lengths: list[int] = []
    counts: list[int] = []
    t0 = time.perf_counter()
    for q in queries:
        cs = initial()
        for tok in q:
            cs = step(cs, tok)
            lengths.append(cs.get_length())
            counts.append(count(cs))
    seconds = time.perf_counter() - t0
    np.save(folder / "rd_L.npy", np.array(lengths, dtype=np.int64))
    np.save(folder / "rd_C.npy", np.array(counts, dtype=np.int64))
    return {
        "build_seconds": build_seconds,
        "query_seconds": seconds,
        "tokens_per_s": len(lengths) / seconds,
        "nodes": int(cdawg.node_count()),
        "edges": int(cdawg.edge_count()),
        "import_seconds": import_seconds,
        "rss_after_import_mb": rss_after_import,
        "peak_rss_mb": peak_rss_mb(),
    }


def child_main(argv: list[str]) -> int:
    """Hidden sub-command: run one task and print its result as JSON on the last stdout line."""
    parser = argparse.ArgumentParser(prog=f"index_bench.py {CHILD_CMD}")
    parser.add_argument("task", choices=TASKS)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    task = globals()[f"task_{args.task}"]
    with contextlib.redirect_stdout(sys.stderr):  # keep stdout for the JSON result
        result = task(args.folder, args)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


def run_child(task: str, folder: Path, args) -> dict:
    """Run one task in a fresh Python process and return its JSON result."""
    cmd = [sys.executable, str(Path(__file__).resolve()), CHILD_CMD, task, str(folder)]
    cmd += ["--repeats", str(args.repeats)]
    log(f"{task}: starting child process")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"child task {task!r} failed with exit status {proc.returncode}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise SystemExit(f"child task {task!r} printed no JSON result")
    result = json.loads(lines[-1])
    log(f"{task}: done in {time.perf_counter() - t0:.1f} s")
    return result


# ----------------------------------------------------------------------------- comparison
def first_mismatch(folder: Path) -> dict | None:
    """Compare copyscope's and rusty-dawg's L_t and C_t; describe the first difference."""
    offsets = np.load(folder / "queries_offsets.npy")
    cs_L, cs_C = np.load(folder / "cs_L.npy"), np.load(folder / "cs_C.npy")
    rd_L, rd_C = np.load(folder / "rd_L.npy"), np.load(folder / "rd_C.npy")
    if cs_L.shape != rd_L.shape or cs_C.shape != rd_C.shape:
        return {"error": f"result sizes differ: copyscope {cs_L.shape}, rusty-dawg {rd_L.shape}"}
    bad = np.flatnonzero((cs_L != rd_L) | (cs_C != rd_C))
    if bad.size == 0:
        return None
    flat = int(bad[0])
    q = int(np.searchsorted(offsets, flat, side="right") - 1)
    return {
        "n_mismatching_positions": int(bad.size),
        "query": q,
        "position": flat - int(offsets[q]),
        "copyscope": [int(cs_L[flat]), int(cs_C[flat])],
        "rusty_dawg": [int(rd_L[flat]), int(rd_C[flat])],
    }


def describe_mismatch(n_tokens: int, mm: dict) -> str:
    """A one-line error message for the first L_t/C_t difference."""
    if "error" in mm:
        return f"ERROR at {n_tokens:,} tokens: {mm['error']}"
    (cl, cc), (rl, rc) = mm["copyscope"], mm["rusty_dawg"]
    return (
        f"ERROR: L_t/C_t differ from rusty-dawg at {n_tokens:,} tokens in "
        f"{mm['n_mismatching_positions']} positions; first: query {mm['query']}, "
        f"position {mm['position']}: copyscope L={cl} C={cc}, rusty-dawg L={rl} C={rc}"
    )


# ----------------------------------------------------------------------------- one size
def bench_size(n_tokens: int, root: Path, zipf: ZipfSource, args) -> dict:
    """Generate data for one corpus size and run all measurements on it."""
    folder = root / size_label(n_tokens)
    folder.mkdir(parents=True)
    log(f"=== {size_label(n_tokens)} tokens: generating corpus and queries")
    t0 = time.perf_counter()
    corpus, corpus_stats = make_corpus(n_tokens, zipf, args)
    queries, query_stats = make_queries(corpus, zipf, args)
    np.save(folder / "corpus.npy", corpus)
    save_queries(queries, folder)
    del corpus, queries
    log(
        f"generated in {time.perf_counter() - t0:.1f} s: {corpus_stats['n_docs']} documents "
        f"({corpus_stats['n_duplicate_docs']} duplicates), {query_stats['n_queries']} queries"
    )
    res = {"n_tokens": n_tokens, "corpus": corpus_stats, "queries": query_stats}
    res["loadavg_before"] = os.getloadavg()  # other load on the machine skews the timings
    res["build"] = run_child("build", folder, args)
    res["query"] = run_child("query", folder, args)
    if not args.no_reference:
        res["sais"] = run_child("sais", folder, args)
        if not res["sais"]["sa_equals_copyscope"]:
            log("WARNING: pydivsufsort's suffix array differs from copyscope's sa.npy")
        res["rdawg"] = run_child("rdawg", folder, args)
        res["mismatch"] = first_mismatch(folder)
        res["match"] = res["mismatch"] is None
    if not args.keep_workdir:
        shutil.rmtree(folder)  # free the disk space before the next size
    return res


# ----------------------------------------------------------------------------- report
def derived(res: dict) -> dict:
    """Ratios and limits used by the table and the targets (None when not measured)."""
    q, b = res["query"], res["build"]
    out = {
        "rss_limit_mb": q["index_bytes"] / MB + RSS_SLACK_MB,
        "build_ratio": None,
        "speedup": None,
    }
    if "sais" in res:
        out["build_ratio"] = b["seconds"] / res["sais"]["median_seconds"]
    if "rdawg" in res:
        out["speedup"] = q["tokens_per_s"] / res["rdawg"]["tokens_per_s"]
    return out


def fmt(value, spec: str, suffix: str = "") -> str:
    """Format a number, or an en dash when it was not measured."""
    return "–" if value is None else f"{value:{spec}}{suffix}"


def markdown_table(results: list[dict]) -> str:
    """One row per corpus size."""
    header = [
        "tokens",
        "copyscope build s",
        "pydivsufsort SA+LCP s",
        f"build ratio (≤ {MAX_BUILD_RATIO}×)",
        f"bytes/token (≤ {MAX_BYTES_PER_TOKEN:g})",
        f"query RSS MB / limit (index + {RSS_SLACK_MB} MB)",
        "copyscope query tok/s",
        "rusty-dawg tok/s",
        f"speedup (≥ {MIN_SPEEDUP:g}×)",
        "rusty-dawg build s",
        "rusty-dawg RSS MB",
        "L/C match",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for res in results:
        d = derived(res)
        sais, rd = res.get("sais"), res.get("rdawg")
        match = "–" if "match" not in res else ("yes" if res["match"] else "**NO**")
        row = [
            f"{res['n_tokens']:,}",
            f"{res['build']['seconds']:.2f}",
            fmt(sais and sais["median_seconds"], ".2f"),
            fmt(d["build_ratio"], ".2f", "×"),
            f"{res['build']['bytes_per_token']:.2f}",
            f"{res['query']['peak_rss_mb']:.0f} / {d['rss_limit_mb']:.0f}",
            f"{res['query']['tokens_per_s']:,.0f}",
            fmt(rd and rd["tokens_per_s"], ",.0f"),
            fmt(d["speedup"], ".1f", "×"),
            fmt(rd and rd["build_seconds"], ".2f"),
            fmt(rd and rd["peak_rss_mb"], ".0f"),
            match,
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def evaluate_targets(results: list[dict]) -> list[dict]:
    """PASS/FAIL/SKIP of every target, with the per-size values."""
    checks = [
        (
            "build ratio",
            f"≤ {MAX_BUILD_RATIO}×",
            lambda r, d: d["build_ratio"],
            lambda v, r, d: v <= MAX_BUILD_RATIO,
            ".2f",
        ),
        (
            "bytes/token",
            f"≤ {MAX_BYTES_PER_TOKEN:g} (+ {FIXED_BYTES // 1024} KiB fixed overhead per index)",
            lambda r, d: r["build"]["bytes_per_token"],
            lambda v, r, d: (
                r["build"]["bytes_on_disk"] <= MAX_BYTES_PER_TOKEN * r["n_tokens"] + FIXED_BYTES
            ),
            ".4f",
        ),
        (
            "query peak RSS",
            f"≤ index size + {RSS_SLACK_MB} MB",
            lambda r, d: r["query"]["peak_rss_mb"],
            lambda v, r, d: v <= d["rss_limit_mb"],
            ".0f",
        ),
        (
            "query speedup vs rusty-dawg",
            f"≥ {MIN_SPEEDUP:g}×",
            lambda r, d: d["speedup"],
            lambda v, r, d: v >= MIN_SPEEDUP,
            ".1f",
        ),
        (
            "L_t/C_t identical to rusty-dawg",
            "all positions",
            lambda r, d: r.get("match"),
            lambda v, r, d: bool(v),
            "",
        ),
    ]
    out = []
    for name, target, get, ok, spec in checks:
        per_size = {}
        status = "SKIP"
        for res in results:
            d = derived(res)
            value = get(res, d)
            if value is None:
                continue
            passed = ok(value, res, d)
            per_size[size_label(res["n_tokens"])] = {"value": value, "pass": passed}
            status = "FAIL" if not passed or status == "FAIL" else "PASS"
        out.append(
            {"target": name, "limit": target, "status": status, "per_size": per_size, "spec": spec}
        )
    return out


def target_lines(targets: list[dict]) -> str:
    """One PASS/FAIL/SKIP line per target."""
    lines = []
    for t in targets:
        vals = ", ".join(
            f"{k}: {format(v['value'], t['spec']) if t['spec'] else v['value']}"
            + ("" if v["pass"] else " ✗")
            for k, v in t["per_size"].items()
        )
        lines.append(
            f"- {t['status']}: {t['target']} {t['limit']}" + (f" ({vals})" if vals else "")
        )
    return "\n".join(lines)


def environment() -> dict:
    """Versions and machine facts recorded with the results."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        **{
            name: package_version(name)
            for name in ("copyscope", "numpy", "numba", "PySAIS", "pydivsufsort", "rusty-dawg")
        },
    }


# ----------------------------------------------------------------------------- main
def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options of the benchmark."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--sizes",
        nargs="+",
        type=parse_size,
        default=[10**6, 10**7],
        help="corpus sizes in tokens incl. separators (default: 1e6 1e7)",
    )
    p.add_argument("--queries", type=int, default=1000, help="number of queries (default 1000)")
    p.add_argument("--query-len", type=int, default=1000, help="tokens per query (default 1000)")
    p.add_argument("--repeats", type=int, default=3, help="timed repeats, median (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab", type=int, default=50_000)
    p.add_argument("--zipf-exponent", type=float, default=1.1)
    p.add_argument("--doc-mean", type=int, default=1000, help="mean document length")
    p.add_argument("--doc-sigma", type=float, default=1.0, help="lognormal sigma of doc lengths")
    p.add_argument(
        "--dup-fraction",
        type=float,
        default=0.1,
        help="fraction of documents that duplicate an earlier one",
    )
    p.add_argument(
        "--mutation-rate", type=float, default=0.02, help="token mutation rate of corpus excerpts"
    )
    p.add_argument("--no-reference", action="store_true", help="skip rusty-dawg and pydivsufsort")
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="parent folder of the temporary working folder (default /tmp)",
    )
    p.add_argument("--keep-workdir", action="store_true", help="do not delete the working folder")
    p.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "out" / "index_bench.json",
        help="raw results (JSON)",
    )
    args = p.parse_args(argv)
    if args.queries < 1 or args.query_len < 1 or args.repeats < 1:
        p.error("--queries, --query-len and --repeats must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for every size, print the table and targets, write the JSON."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == CHILD_CMD:
        return child_main(argv[1:])
    args = parse_args(argv)
    parent = args.workdir or Path("/tmp")
    parent.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="index_bench_", dir=parent))
    log(f"working folder {root}")
    zipf = ZipfSource(args.vocab, args.zipf_exponent, args.seed)
    results = []
    try:
        for n in args.sizes:
            results.append(bench_size(n, root, zipf, args))
    finally:
        if args.keep_workdir:
            log(f"kept working folder {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    targets = evaluate_targets(results)
    table = markdown_table(results)
    print(table)
    print()
    print(target_lines(targets))
    report = {
        "command": [Path(sys.argv[0]).name, *argv],
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "environment": environment(),
        "results": results,
        "targets": targets,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    log(f"wrote {args.out}")

    bad = [r for r in results if r.get("match") is False]
    for r in bad:
        print(describe_mismatch(r["n_tokens"], r["mismatch"]), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
