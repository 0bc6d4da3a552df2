"""Sharded index at scale: query cost against the number of shards, and one large run.

    # query cost with 1, 4 and 16 shards of the same 1e7-token corpus, same queries
    python benchmarks/shard_scale.py curve --tokens 1e7 --shards 1 4 16
    # one large run: build (plan + one process per shard), peak RSS, disk, query throughput
    # single-process and fanned out per shard, brute-force spot checks of sampled positions
    python benchmarks/shard_scale.py run --tokens 1e9 --shard-tokens 5e8 --workdir /scratch
    # the queries again on the corpus and index of a run made with --keep-workdir
    python benchmarks/shard_scale.py run --tokens 1e9 --reuse /scratch/shard_run.XXXX

Synthetic corpus: Zipf(1.1) ids over a 50,000-word vocabulary (uint16), lognormal document
lengths (mean 1,000), 10 % of the documents duplicates of earlier ones. Queries: half corpus
excerpts with 2 % of the tokens mutated (long matches), half fresh Zipf text, cut into calls of
100 texts × 128 tokens (the pipeline's batch) — every timing is the median of ``--repeats``
calls over all queries in one process. Results are printed as JSON and written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from index_bench import peak_rss_mb as self_peak_rss_mb

SEP = 65535


def parse_size(text: str) -> int:
    """A size such as ``1e7`` or ``2500000`` as an int."""
    return int(float(text))


def peak_rss_mb(who=resource.RUSAGE_SELF) -> float:
    """Peak resident set size in MiB: of this process since :func:`reset_peak_rss` (VmHWM, as in
    index_bench), or the largest of the finished children (``ru_maxrss``, KiB on Linux)."""
    if who == resource.RUSAGE_SELF:
        return self_peak_rss_mb()
    return resource.getrusage(who).ru_maxrss / 1024


def reset_peak_rss() -> None:
    """Start this process's peak RSS afresh (Linux: writing 5 to /proc/self/clear_refs), so the
    query figures do not include the corpus generation before them."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def zipf_sampler(vocab: int, exponent: float, seed: int):
    """A function (rng, n) → n Zipf(``exponent``) token ids below ``vocab`` (uint16)."""
    cdf = np.cumsum(np.arange(1, vocab + 1, dtype=np.float64) ** -exponent)
    cdf /= cdf[-1]
    ids = np.random.default_rng([seed, 0]).permutation(vocab).astype(np.uint16)

    def sample(rng, n):
        return ids[np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), vocab - 1)]

    return sample


def write_corpus(path: Path, n_tokens: int, args) -> dict:
    """Write a synthetic token stream of exactly ``n_tokens`` (separators included) to the
    ``.npy`` file ``path`` in chunks, with the split metadata ``index plan`` reads
    (``doc_lengths``, ``doc_ids``) beside it; returns the corpus statistics."""
    rng = np.random.default_rng([args.seed, n_tokens])
    sample = zipf_sampler(args.vocab, 1.1, args.seed)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint16, shape=(n_tokens,))
    mu = math.log(1000) - 0.5
    lengths, kept = [], []  # kept: recent originals (start, length) to duplicate
    pos = n_dup = 0
    while pos < n_tokens:
        room = n_tokens - pos - 1
        if kept and rng.random() < 0.1:
            a, length = kept[rng.integers(len(kept))]
            if length <= room:
                out[pos : pos + length] = out[a : a + length]
                n_dup += 1
            else:
                length = room
                out[pos : pos + length] = sample(rng, length)
        else:
            length = min(max(1, int(rng.lognormal(mu, 1.0))), 20_000, room)
            if room - length < 2:
                length = room
            out[pos : pos + length] = sample(rng, length)
            kept.append((pos, length))
            kept = kept[-1000:]
        out[pos + length] = SEP
        lengths.append(length)
        pos += length + 1
    out.flush()
    del out
    meta = {"doc_lengths": lengths, "doc_ids": [str(i) for i in range(len(lengths))]}
    path.with_suffix(".json").write_text(json.dumps(meta))
    return {"n_tokens": n_tokens, "n_docs": len(lengths), "n_duplicate_docs": n_dup}


def make_queries(corpus: np.ndarray, args) -> list[np.ndarray]:
    """Half mutated corpus excerpts, half fresh Zipf text; ``args.query_tokens`` in all, in
    texts of 128 tokens (int64)."""
    rng = np.random.default_rng([args.seed, 2])
    sample = zipf_sampler(args.vocab, 1.1, args.seed + 1)
    n = max(2, args.query_tokens // 128)
    queries = []
    for i in range(n):
        if i % 2 == 0:
            a = int(rng.integers(0, corpus.shape[0] - 128))
            q = np.asarray(corpus[a : a + 128]).astype(np.int64)
            q = q[q != SEP]
            mask = rng.random(q.shape[0]) < 0.02
            q[mask] = rng.integers(0, args.vocab, int(mask.sum()))
        else:
            q = sample(rng, 128).astype(np.int64)
        queries.append(q)
    return queries


def time_queries(index, queries, repeats: int) -> tuple[float, object]:
    """Median seconds to answer all ``queries`` in calls of 100 texts, and the answers."""
    calls = [queries[i : i + 100] for i in range(0, len(queries), 100)]
    index.longest_matches(calls[0])  # compile / warm the page cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        parts = [index.longest_matches(c) for c in calls]
        times.append(time.perf_counter() - t0)
    length = np.concatenate([p.length for p in parts])
    count = np.concatenate([p.count for p in parts])
    offsets = np.concatenate([[0], np.cumsum([len(q) for q in queries])])
    return float(np.median(times)), (length, count, offsets)


def brute_force(corpus: np.ndarray, query: np.ndarray, t: int) -> tuple[int, int]:
    """L_t and C_t of position ``t`` of ``query`` by scanning the stream: the candidates ending
    with q[t] are narrowed one token to the left at a time until none is left."""
    cand = np.flatnonzero(np.asarray(corpus) == query[t])
    if cand.size == 0:
        return 0, int(corpus.shape[0])
    length, count = 1, cand.size
    while length <= t:
        prev = cand - length
        ok = prev >= 0
        cand = cand[ok]
        cand = cand[np.asarray(corpus[prev[ok]]) == query[t - length]]
        if cand.size == 0:
            break
        length, count = length + 1, cand.size
    return length, int(count)


def spot_check(corpus, queries, answers, n: int, seed: int) -> dict:
    """Compare ``n`` sampled (query, position) answers against :func:`brute_force`."""
    length, count, offsets = answers
    rng = np.random.default_rng([seed, 3])
    bad = []
    for _ in range(n):
        i = int(rng.integers(len(queries)))
        t = int(rng.integers(len(queries[i])))
        want = brute_force(corpus, queries[i], t)
        got = (int(length[offsets[i] + t]), int(count[offsets[i] + t]))
        if got != want:
            bad.append({"query": i, "t": t, "got": got, "brute_force": want})
    return {"checked": n, "mismatches": bad}


# ----------------------------------------------------------------------------- curve
def cmd_curve(args) -> dict:
    """Build the same corpus with 1, 4, 16 … shards; time the same queries on each, the shard
    counts interleaved within every repeat (so a load change hits all of them alike)."""
    from copyscope.index import Index, build_index

    work = Path(tempfile.mkdtemp(prefix="shard_curve.", dir=args.workdir))
    try:
        stats = write_corpus(work / "train.npy", args.tokens, args)
        corpus = np.load(work / "train.npy")
        queries = make_queries(corpus, args)
        build_index(corpus[: np.flatnonzero(corpus == SEP)[9] + 1], work / "warm")  # compile
        rows, indexes = [], []
        for k in args.shards:
            # documents are never split: room for the longest (20,000 tokens) keeps k shards
            shard_tokens = math.ceil(args.tokens / k) + 20_001 if k > 1 else args.tokens
            t0 = time.perf_counter()
            build_index(corpus, work / f"idx-{k}", shard_tokens=shard_tokens)
            build = time.perf_counter() - t0
            indexes.append(Index(work / f"idx-{k}"))
            rows.append({"shards": len(indexes[-1].shards), "shard_tokens": shard_tokens,
                         "build_seconds": round(build, 2), "query_seconds": []})  # fmt: skip
        answers = []
        for _ in range(args.repeats):
            for row, index in zip(rows, indexes, strict=True):
                seconds, got = time_queries(index, queries, 1)
                row["query_seconds"].append(round(seconds, 3))
                answers.append(got)
            ratios = [r["query_seconds"][-1] / rows[0]["query_seconds"][-1] for r in rows]
            for row, ratio in zip(rows, ratios, strict=True):
                row.setdefault("cost_vs_1_per_repeat", []).append(round(ratio, 2))
            print(json.dumps(rows), file=sys.stderr, flush=True)
        n_tok = len(answers[0][0])
        for row in rows:
            row["median_cost_vs_1"] = float(np.median(row["cost_vs_1_per_repeat"]))
            row["median_tokens_per_second"] = round(n_tok / float(np.median(row["query_seconds"])))
        same = all(
            np.array_equal(a, b) for got in answers for a, b in zip(got, answers[0], strict=True)
        )
        check = spot_check(corpus, queries, answers[0], args.spot_checks, args.seed)
        return {"corpus": stats, "query_tokens": n_tok, "same_answers": same, "rows": rows,
                **check}  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ----------------------------------------------------------------------------- run
def _copyscope(*argv) -> float:
    """Run ``python -m copyscope ARGV`` as a child process; returns its wall seconds."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "copyscope", *argv], check=True)
    return time.perf_counter() - t0


def build_run(work: Path, args) -> dict:
    """Corpus, plan, one child process per shard and the manifest in ``work``; the figures."""
    from copyscope.index.build import plan_shards

    t0 = time.perf_counter()
    stats = write_corpus(work / "train.npy", args.tokens, args)
    gen = time.perf_counter() - t0
    meta = json.loads((work / "train.json").read_text())
    plan = plan_shards(meta["doc_lengths"], args.shard_tokens)
    (work / "plan.json").write_text(json.dumps(plan))
    out = work / "index"
    shard_secs = []
    for s in plan["shards"]:
        shard_secs.append(
            _copyscope(
                "index", "shard", "--tokens", str(work / "train.npy"), "--meta",
                str(work / "train.json"), "--plan", str(work / "plan.json"), "--shard",
                s["name"], "--out", str(out / s["name"]),
            )
        )  # fmt: skip
    dirs = [str(out / s["name"]) for s in plan["shards"]]
    _copyscope("index", "manifest", "--plan", str(work / "plan.json"), "--shards", *dirs,
               "--out", str(out / "index.json"))  # fmt: skip
    return {
        "corpus": stats,
        "generate_seconds": round(gen, 1),
        "shards": len(plan["shards"]),
        "shard_tokens": args.shard_tokens,
        "build_seconds_total": round(sum(shard_secs), 1),
        "build_seconds_max_shard": round(max(shard_secs), 1),
        "build_peak_rss_mb": round(peak_rss_mb(resource.RUSAGE_CHILDREN)),
        "index_bytes": dir_bytes(out),
        "bytes_per_token": round(dir_bytes(out) / args.tokens, 3),
    }


def cmd_run(args) -> dict:
    """The pipeline's index path on one large corpus: plan, one child process per shard (peak
    RSS of the largest), manifest; queries single-process and fanned out, spot-checked."""
    from copyscope.index import Index
    from copyscope.index.fanout import merge_matches, shard_matches

    if args.reuse:  # the corpus and index of an earlier run (kept with --keep-workdir)
        work = args.reuse
        if not (work / "build.json").exists():
            raise SystemExit(f"{work}: expected build.json of a run made with --keep-workdir")
        built = json.loads((work / "build.json").read_text())
        out = work / "index"
    else:
        work = Path(tempfile.mkdtemp(prefix="shard_run.", dir=args.workdir))
    try:
        if not args.reuse:
            built = build_run(work, args)
            (work / "build.json").write_text(json.dumps(built, indent=2) + "\n")
        out = work / "index"
        corpus = np.load(work / "train.npy", mmap_mode="r")
        queries = make_queries(corpus, args)
        reset_peak_rss()
        rss0 = peak_rss_mb()
        t0 = time.perf_counter()
        index = Index(out)  # maps the arrays, derives the buckets and LCP block minima
        open_seconds = time.perf_counter() - t0
        seconds, answers = time_queries(index, queries, args.repeats)
        query_rss = peak_rss_mb()  # before the fan-out and the brute-force scans below
        t0 = time.perf_counter()
        parts = [shard_matches(out / s, queries) for s in index.manifest["shards"]]
        merged = merge_matches(parts, index.n_tokens)
        fan_seconds = time.perf_counter() - t0
        fan_same = np.array_equal(merged.length, answers[0]) and np.array_equal(
            merged.count, answers[1]
        )
        check = spot_check(corpus, queries, answers, args.spot_checks, args.seed)
        return {
            **built,
            "open_seconds": round(open_seconds, 3),
            "query_tokens": int(len(answers[0])),
            "query_seconds": round(seconds, 3),
            "query_tokens_per_second": round(len(answers[0]) / seconds),
            "query_peak_rss_mb": round(query_rss),
            "query_rss_before_open_mb": round(rss0),
            "fanout_in_process_seconds": round(fan_seconds, 3),
            "fanout_equals_single_process": bool(fan_same),
            **check,
        }
    finally:
        if not (args.keep_workdir or args.reuse):
            shutil.rmtree(work, ignore_errors=True)


# ----------------------------------------------------------------------------- trace
def make_responses(corpus: np.ndarray, args) -> list[np.ndarray]:
    """``args.responses`` model-like responses of ``args.response_tokens`` tokens (int64): runs
    of fresh Zipf text (8–40 tokens) alternating with corpus excerpts of 8–64 tokens (a
    seeded start; separators dropped, 2 % of their tokens mutated), as a response that copies
    phrases and sentences from its training data does."""
    rng = np.random.default_rng([args.seed, 4])
    sample = zipf_sampler(args.vocab, 1.1, args.seed + 2)
    out = []
    for _ in range(args.responses):
        parts, n = [], 0
        while n < args.response_tokens:
            fresh = sample(rng, int(rng.integers(8, 41))).astype(np.int64)
            k = int(rng.integers(8, 65))
            a = int(rng.integers(0, corpus.shape[0] - k))
            copied = np.asarray(corpus[a : a + k]).astype(np.int64)
            copied = copied[copied != SEP]
            mask = rng.random(copied.shape[0]) < 0.02
            copied[mask] = rng.integers(0, args.vocab, int(mask.sum()))
            parts += [fresh, copied]
            n += len(fresh) + len(copied)
        out.append(np.concatenate(parts)[: args.response_tokens])
    return out


def evict(folder: Path) -> bool:
    """Drop ``folder``'s files from the page cache (``posix_fadvise`` DONTNEED: clean pages
    only, no root needed), so the next read comes from disk; False where the OS refuses."""
    import os

    ok = True
    for f in Path(folder).rglob("*"):
        if f.is_file():
            fd = os.open(f, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError:
                ok = False
            finally:
                os.close(fd)
    return ok


def _trace_process(index_dir: Path, ids: np.ndarray, extra: list[str]) -> tuple[float, dict]:
    """``copyscope trace INDEX --ids … --plain`` in a fresh process: its wall seconds, and its
    CPU seconds (user + system) and the number of lines it printed."""
    line = " ".join(map(str, ids.tolist()))
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "copyscope", "trace", str(index_dir), "--ids", line, "--plain",
         *extra],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime
    return wall, {"cpu_seconds": cpu, "stdout_lines": proc.stdout.count("\n")}


OLMOTRACE = ["--max-span-density", "0.05", "--rank-spans-by", "unigram_logprob_sum",
             "--docs-per-span", "10"]  # fmt: skip
"""OLMoTrace's span settings (allenai/infinigram-api): a density cap of 0.05 ranked by the
spans' unigram log-probability sum, one source in each of up to 10 documents."""


def cmd_trace(args) -> dict:
    """``copyscope trace`` of model-like responses (:func:`make_responses`) against the index
    of a kept run (``--reuse``): per response, a fresh process with the index's files evicted
    from the page cache (cold), a fresh process with them cached (warm process), and the trace
    alone in one process that has the index open (warm); with copyscope's defaults (spans of
    at least 8 tokens, 3 sources each) and OLMoTrace's span settings. Every span's count and
    first source are checked against a scan of the stream for ``--spot-checks`` spans."""
    from copyscope.index import Index
    from copyscope.index.query import trace
    from copyscope.index.spans import SpanOptions

    work = args.reuse
    if work is None or not (work / "build.json").exists():
        raise SystemExit("trace: expected --reuse FOLDER of a `run --keep-workdir` (build.json)")
    built = json.loads((work / "build.json").read_text())
    out = work / "index"
    corpus = np.load(work / "train.npy", mmap_mode="r")
    responses = make_responses(corpus, args)
    result = {**built, "responses": len(responses), "response_tokens": args.response_tokens}
    for name, extra, options in (
        ("default", [], SpanOptions()),
        ("olmotrace", OLMOTRACE, SpanOptions(None, 0.05, "unigram_logprob_sum", 10)),
    ):
        cold, warm_process, cold_cpu, warm_process_cpu = [], [], [], []
        for ids in responses[: args.process_responses]:
            evicted = evict(out)
            wall, info = _trace_process(out, ids, extra)
            cold.append(wall)
            cold_cpu.append(info["cpu_seconds"])
            wall, info = _trace_process(out, ids, extra)
            warm_process.append(wall)
            warm_process_cpu.append(info["cpu_seconds"])
        index = Index(out)
        trace(index, None, responses[0], 8, 3, options)  # compile the kernels
        warm, warm_cpu, spans = [], [], []
        for ids in responses:
            t0, c0 = time.perf_counter(), time.process_time()
            found = trace(index, None, ids, 8, 3, options)
            warm.append(time.perf_counter() - t0)
            warm_cpu.append(time.process_time() - c0)
            spans.append(found["spans"])
        checks = bad = 0
        rng = np.random.default_rng([args.seed, 5])
        for i in rng.permutation(len(responses))[: args.spot_checks]:
            if not spans[i]:
                continue
            sp = spans[i][int(rng.integers(len(spans[i])))]
            gram = responses[i][sp["start"] : sp["end"]]
            hits = np.flatnonzero(np.asarray(corpus) == gram[0])
            for j in range(1, len(gram)):
                hits = hits[hits + j < corpus.shape[0]]
                hits = hits[np.asarray(corpus[hits + j]) == gram[j]]
            checks += 1
            bad += int(len(hits) != sp["count"])
        result[name] = {
            "options": " ".join(extra) or "copyscope defaults (--min-len 8 --limit 3)",
            "page_cache_evicted": evicted,
            "cold_process_seconds_median": round(float(np.median(cold)), 3),
            "cold_process_seconds_max": round(float(np.max(cold)), 3),
            "cold_process_cpu_seconds_median": round(float(np.median(cold_cpu)), 3),
            "warm_process_seconds_median": round(float(np.median(warm_process)), 3),
            "warm_process_cpu_seconds_median": round(float(np.median(warm_process_cpu)), 3),
            "warm_trace_seconds_median": round(float(np.median(warm)), 4),
            "warm_trace_seconds_max": round(float(np.max(warm)), 4),
            "warm_trace_cpu_seconds_median": round(float(np.median(warm_cpu)), 4),
            "spans_per_response_median": float(np.median([len(s) for s in spans])),
            "span_counts_checked": checks,
            "span_count_mismatches": bad,
        }
        del index
    result["mismatches"] = [
        n for n in ("default", "olmotrace") if result[n]["span_count_mismatches"]
    ]
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, func in (("curve", cmd_curve), ("run", cmd_run)):
        f = sub.add_parser(name)
        f.set_defaults(func=func)
        f.add_argument("--tokens", type=parse_size, default=10**7, help="corpus size")
        f.add_argument("--query-tokens", type=parse_size, default=200_000)
        f.add_argument("--repeats", type=int, default=3, help="timed repeats (median)")
        f.add_argument("--spot-checks", type=int, default=30, help="brute-force positions")
        f.add_argument("--vocab", type=int, default=50_000)
        f.add_argument("--seed", type=int, default=0)
        f.add_argument("--workdir", type=Path, default=None, help="parent of the work folder")
        f.add_argument("--out", type=Path, help="also write the JSON result here")
    sub.choices["curve"].add_argument("--shards", type=int, nargs="+", default=[1, 4, 16])
    run = sub.choices["run"]
    run.add_argument("--shard-tokens", type=parse_size, default=2 * 10**8)
    run.add_argument("--keep-workdir", action="store_true", help="keep corpus and index")
    run.add_argument(
        "--reuse",
        type=Path,
        help="work folder of an earlier run with --keep-workdir: time its queries again "
        "(its build figures come from its build.json)",
    )
    tr = sub.add_parser("trace", help="copyscope trace of model-like responses, cold and warm")
    tr.set_defaults(func=cmd_trace)
    tr.add_argument("--reuse", type=Path, required=True, help="work folder of `run --keep-workdir`")
    tr.add_argument("--responses", type=int, default=50, help="responses traced in process")
    tr.add_argument("--process-responses", type=int, default=5,
                    help="of them, traced in fresh processes (cold and warm)")  # fmt: skip
    tr.add_argument("--response-tokens", type=int, default=450, help="tokens per response")
    tr.add_argument("--spot-checks", type=int, default=10, help="span counts scanned")
    tr.add_argument("--vocab", type=int, default=50_000)
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--out", type=Path, help="also write the JSON result here")
    args = p.parse_args(argv)
    result = {"command": " ".join(sys.argv), **args.func(args)}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0 if not result["mismatches"] else 1


if __name__ == "__main__":
    sys.exit(main())
