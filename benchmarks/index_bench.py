"""Benchmark of the copyscope suffix-array index against every peer, on the same data, in one run.

For every corpus size the script generates a seeded synthetic corpus (Zipf token ids, documents
of varying length each followed by the separator 65535, ~10% of them exact duplicates of earlier
documents), four query mixes for the longest-match kind and a set of n-grams (n = 1..32, half corpus
windows, half fresh Zipf text) for the count kind.  Every measurement runs in its own child process (this script with a hidden
sub-command), so that the peak RSS of each tool is measured alone:

* ``build`` / ``query``   copyscope ``build_index``; ``Index.longest_matches`` (L_t, C_t) per
  mix; ``Index.count_many`` on calls of ``--count-batch`` n-grams (as the analyses ask) and
  ``Index.count`` one n-gram per call (on the first ``--single-ngrams``);
* ``count_cli``           ``python -m copyscope count INDEX --ids ...``, one n-gram in a fresh
  process (what a user pays per ad-hoc count): median wall and CPU seconds;
* ``sais``                pydivsufsort SA + Kasai LCP on the same reversed stream;
* ``rdawg``               rusty-dawg 0.2.2 CDAWG: build + fill_counts, L_t/C_t per token
  (``transition_and_count``, as its authors query it) and n-gram counts;
* ``tg_build`` / ``tg_query``   tokengrams 0.3.3 ``MemmapIndex``: build, ``count`` and
  ``positions`` per n-gram;
* ``ig_build`` / ``ig_query``   infini-gram 2.6.0: its indexing entry point
  (``python -m infini_gram.indexing`` on pre-tokenized shards), ``count`` per n-gram and its
  ∞-gram query ``infgram_prob``, whose ``suffix_len``/``prompt_cnt`` are L_t/C_t (one call per
  position, on the first ``--infini-lc-tokens`` tokens of each mix);
* ``ig_copyscope``        copyscope on infini-gram's own index folder as it is
  (``copyscope.index.open`` of ``ig/``: its tokenized/table/offset files, memory-mapped):
  L_t/C_t of every position of every mix, ``count_many`` in calls of ``--count-batch``; and
  ``python -m copyscope query IG --ids ...`` in a fresh process (its cold start).

Query mixes (L_t/C_t), each timed separately (median of ``--repeats``): ``fresh`` (new Zipf
text), ``copied`` (corpus excerpts with 0.5–10% of their tokens mutated), ``pipeline`` (calls of
``--pipeline-texts`` × ``--pipeline-len`` tokens, the size of one sample set; half copied, half
fresh) and ``large`` (one call of ``--mix-tokens`` tokens, half copied, half fresh).

Answers are cross-checked: L_t/C_t of copyscope against rusty-dawg at every position and against
infini-gram on its sample, and copyscope on infini-gram's index against copyscope's own at every
position; n-gram counts of copyscope, rusty-dawg, tokengrams and infini-gram
against each other and against a brute-force scan for ``--brute-ngrams`` n-grams per n (positions
too, for tokengrams).  The first mismatch of each check is printed and the exit status is 1.
Results: markdown tables on stdout, one PASS/FAIL line per target, JSON in ``--out``.

Usage::

    python benchmarks/index_bench.py --sizes 1e6 1e7
    python benchmarks/index_bench.py --sizes 1e8 --repeats 1 --peers sais
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import importlib.util
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
TASKS = ("build", "query", "sais", "rdawg", "tg_build", "tg_query", "ig_build", "ig_query",
         "ig_copyscope")  # fmt: skip
PEERS = ("sais", "rdawg", "tokengrams", "infinigram")
MIXES = ("fresh", "copied", "pipeline", "large")
MB = 1024 * 1024

# targets (issue 12)
MAX_BUILD_RATIO = 1.3  # copyscope build / pydivsufsort SA+LCP
MAX_BYTES_PER_TOKEN = 7.0
FIXED_BYTES = 16 * 1024  # allowed size-independent overhead (.npy headers, meta.json)
RSS_SLACK_MB = 300  # query peak RSS <= index size + this
MIN_SPEEDUP = 10.0  # copyscope query tok/s / rusty-dawg tok/s, per mix
MIN_COUNT_SPEEDUP = 2.0  # copyscope batched counts/s / the fastest peer's (issue 24)
MAX_COUNT_CLI_SECONDS = 0.5  # wall seconds of one `copyscope count` in a fresh process
MIN_IG_SPEEDUP = 10.0  # copyscope L_t/C_t on infini-gram's index / infini-gram's fastest (issue 38)
MIN_IG_COUNT_SPEEDUP = 2.0  # copyscope batched counts on infini-gram's index / its count
PEER_COUNTS = {"rdawg": "rusty-dawg", "tokengrams": "tokengrams", "infinigram": "infini-gram"}


# ----------------------------------------------------------------------------- utilities
def log(msg: str) -> None:
    """Print a progress message with a timestamp to stderr."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB: VmHWM of /proc/self/status (the high-water
    mark of this program's memory), else ru_maxrss.  Linux keeps ru_maxrss across fork and exec,
    so in a child process it is at least the parent's RSS at the fork; the tasks run in child
    processes of a parent that holds the corpus, so ru_maxrss would report the parent's size."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
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


class Excerpts:
    """Draws corpus excerpts of one length from single documents (longer documents more often,
    in proportion to their number of start positions) and mutates a share of their tokens."""

    def __init__(self, corpus: np.ndarray, length: int, vocab: int):
        seps = np.flatnonzero(corpus == SEP)
        self.starts = np.concatenate([[0], seps[:-1] + 1])
        self.lens = seps - self.starts
        self.docs = np.flatnonzero(self.lens >= length)
        if self.docs.size == 0:
            raise SystemExit(f"no document has {length} tokens; use a shorter query length")
        weights = (self.lens[self.docs] - length + 1).astype(np.float64)
        self.p = weights / weights.sum()
        self.corpus, self.length, self.vocab = corpus, length, vocab

    def draw(self, rng: np.random.Generator, mutation_rate: float) -> np.ndarray:
        """One excerpt whose tokens are each replaced by a uniform id with ``mutation_rate``."""
        d = self.docs[rng.choice(self.docs.size, p=self.p)]
        a = self.starts[d] + rng.integers(self.lens[d] - self.length + 1)
        q = self.corpus[a : a + self.length].copy()
        mask = rng.random(self.length) < mutation_rate
        q[mask] = rng.integers(0, self.vocab, int(mask.sum()))
        return q


def mix_texts(kind: str, n_texts: int, rng, zipf: ZipfSource, excerpts: Excerpts, args) -> list:
    """``n_texts`` query texts: ``fresh`` Zipf text, ``copied`` excerpts (mutation rate drawn
    uniformly from [--mutation-min, --mutation-max] per text) or ``half`` (alternating)."""
    out = []
    for i in range(n_texts):
        copied = kind == "copied" or (kind == "half" and i % 2 == 0)
        if copied:
            out.append(excerpts.draw(rng, rng.uniform(args.mutation_min, args.mutation_max)))
        else:
            out.append(zipf.sample(rng, excerpts.length))
    return out


def make_mixes(corpus: np.ndarray, zipf: ZipfSource, args) -> dict[str, list[list[np.ndarray]]]:
    """The four query mixes as lists of calls (each call a list of texts, ~--mix-tokens each).

    ``fresh``, ``copied`` and ``large`` are one call of --mix-tokens / --query-len texts;
    ``pipeline`` is calls of --pipeline-texts texts of --pipeline-len tokens (half copied).
    """
    rng = np.random.default_rng([args.seed, corpus.shape[0], 2])
    long_texts = Excerpts(corpus, args.query_len, zipf.vocab)
    short_texts = Excerpts(corpus, args.pipeline_len, zipf.vocab)
    n_long = max(1, args.mix_tokens // args.query_len)
    per_call = args.pipeline_texts * args.pipeline_len
    n_calls = max(1, args.mix_tokens // per_call)
    return {
        "fresh": [mix_texts("fresh", n_long, rng, zipf, long_texts, args)],
        "copied": [mix_texts("copied", n_long, rng, zipf, long_texts, args)],
        "pipeline": [
            mix_texts("half", args.pipeline_texts, rng, zipf, short_texts, args)
            for _ in range(n_calls)
        ],
        "large": [mix_texts("half", n_long, rng, zipf, long_texts, args)],
    }


def save_mix(calls: list[list[np.ndarray]], path: Path) -> None:
    """Store a mix as flat uint16 tokens, text offsets and the first text of every call."""
    texts = [t for call in calls for t in call]
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64)
    call_starts = np.concatenate([[0], np.cumsum([len(c) for c in calls])]).astype(np.int64)
    np.savez(path, flat=np.concatenate(texts).astype(np.uint16), offsets=offsets, calls=call_starts)


def load_mix(path: Path) -> list[list[np.ndarray]]:
    """Inverse of :func:`save_mix`."""
    z = np.load(path)
    flat, off, calls = z["flat"], z["offsets"], z["calls"]
    texts = [flat[off[i] : off[i + 1]] for i in range(len(off) - 1)]
    return [texts[calls[c] : calls[c + 1]] for c in range(len(calls) - 1)]


def mix_offsets(path: Path) -> np.ndarray:
    """Text offsets of a stored mix (positions of the flat answer arrays)."""
    return np.load(path)["offsets"]


def make_ngrams(corpus: np.ndarray, zipf: ZipfSource, args) -> list[np.ndarray]:
    """--ngrams-per-n n-grams for every n = 1..--max-n, alternately a window of the corpus
    (never across a separator, so its count is ≥ 1) and fresh Zipf text (mostly absent from
    the corpus for larger n)."""
    rng = np.random.default_rng([args.seed, corpus.shape[0], 3])
    out = []
    for n in range(1, args.max_n + 1):
        fresh = zipf.sample(rng, n * args.ngrams_per_n)
        for i in range(args.ngrams_per_n):
            if i % 2 == 0:
                while True:
                    a = int(rng.integers(corpus.shape[0] - n + 1))
                    g = corpus[a : a + n]
                    if not np.any(g == SEP):
                        break
            else:
                g = fresh[i * n : (i + 1) * n]
            out.append(np.array(g, dtype=np.uint16))
    return out


def save_ngrams(ngrams: list[np.ndarray], path: Path) -> None:
    """Store n-grams as flat uint16 tokens plus offsets."""
    offsets = np.concatenate([[0], np.cumsum([len(g) for g in ngrams])]).astype(np.int64)
    np.savez(path, flat=np.concatenate(ngrams).astype(np.uint16), offsets=offsets)


def load_ngrams(path: Path) -> list[np.ndarray]:
    """Inverse of :func:`save_ngrams`."""
    z = np.load(path)
    flat, off = z["flat"], z["offsets"]
    return [flat[off[i] : off[i + 1]] for i in range(len(off) - 1)]


def brute_positions(corpus: np.ndarray, ngram: np.ndarray) -> np.ndarray:
    """Start positions of every occurrence of ``ngram`` in ``corpus`` by a direct scan: the
    positions holding its first token, narrowed token by token."""
    n = len(ngram)
    cand = np.flatnonzero(corpus[: corpus.shape[0] - n + 1] == ngram[0])
    for k in range(1, n):
        cand = cand[corpus[cand + k] == ngram[k]]
    return cand


def brute_sample(ngrams: list[np.ndarray], args) -> np.ndarray:
    """Indices of the n-grams checked by brute force: the first --brute-ngrams of every n."""
    per_n = args.ngrams_per_n
    return np.array(
        [n * per_n + i for n in range(args.max_n) for i in range(min(args.brute_ngrams, per_n))],
        dtype=np.int64,
    )


# ----------------------------------------------------------------------------- child tasks
def params(folder: Path) -> dict:
    """The run's settings that the child tasks need (written by the parent)."""
    return json.loads((folder / "params.json").read_text())


def timed_repeats(fn, repeats: int, label: str, unit: int, what: str) -> list[float]:
    """Run ``fn`` ``repeats`` times; wall seconds of each run (logged as ``unit``/s)."""
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        log(f"  {label} repeat {r + 1}/{repeats}: {unit / times[-1]:,.0f} {what}/s")
    return times


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
    """copyscope longest_matches (L_t, C_t) per mix, one call per stored call, and Index.count
    per n-gram: tokens/s and n-grams/s (median of repeats)."""
    import numba

    from copyscope.index import Index

    t0 = time.perf_counter()
    idx = Index(folder / "index")
    open_seconds = time.perf_counter() - t0
    # warm-up, timed apart: the first call of a process loads the compiled kernels and derives
    # the in-memory tables; 2,048 fresh and 2,048 copied tokens run both search paths once
    t0 = time.perf_counter()
    copied = np.asarray(idx.shards[0].tokens[:2048]).astype(np.int64)
    fresh = np.random.default_rng(0).integers(0, int(idx.shards[0].meta["alphabet_size"]), 2048)
    idx.longest_matches([fresh, copied[copied != SEP]])
    idx.count_many([np.array([1, 2]), fresh[:40]])
    prepare_seconds = time.perf_counter() - t0
    mixes = {}
    for mix in MIXES:
        calls = load_mix(folder / f"mix-{mix}.npz")
        n = sum(len(t) for call in calls for t in call)
        results = []

        def run(calls=calls, results=results):
            results[:] = [idx.longest_matches(call) for call in calls]

        times = timed_repeats(run, args.repeats, f"copyscope {mix}", n, "tok")
        length = np.concatenate([m.length for m in results])
        np.save(folder / f"cs_{mix}_L.npy", length)
        np.save(folder / f"cs_{mix}_C.npy", np.concatenate([m.count for m in results]))
        mixes[mix] = {
            "seconds": times,
            "tokens_per_s": n / statistics.median(times),
            "n_query_tokens": n,
            "calls": len(calls),
            "tokens_per_call": n / len(calls),
            "mean_L": float(length.mean()),
            "p90_L": float(np.percentile(length, 90)),
            "max_L": int(length.max()),
        }
    ngrams = load_ngrams(folder / "ngrams.npz")
    p = params(folder)
    # calls of --count-batch n-grams of mixed n, in a seeded order (as an analysis asks)
    order = np.random.default_rng(0).permutation(len(ngrams))
    calls = [
        [ngrams[i] for i in order[a : a + p["count_batch"]]]
        for a in range(0, len(ngrams), p["count_batch"])
    ]
    counts = np.zeros(len(ngrams), dtype=np.int64)

    def count_all():
        counts[order] = np.concatenate([idx.count_many(call) for call in calls])

    times = timed_repeats(count_all, args.repeats, "copyscope count", len(ngrams), "n-gram")
    np.save(folder / "cs_counts.npy", counts)
    single = [ngrams[i] for i in order[: p["single_ngrams"]]]
    one_by_one: list[int] = []

    def count_each():
        one_by_one[:] = [idx.count(g) for g in single]

    s_times = timed_repeats(count_each, args.repeats, "copyscope count (1/call)", len(single), "n")
    if one_by_one != counts[order[: len(single)]].tolist():
        raise SystemExit("copyscope Index.count differs from Index.count_many")
    return {
        "mixes": mixes,
        "count_seconds": times,
        "ngrams_per_s": len(ngrams) / statistics.median(times),
        "count_calls": len(calls),
        "single_ngrams_per_s": len(single) / statistics.median(s_times),
        "open_seconds": open_seconds,
        "prepare_seconds": prepare_seconds,
        "index_bytes": dir_bytes(folder / "index"),
        "numba_threads": numba.get_num_threads(),
        "peak_rss_mb": peak_rss_mb(),
    }


def task_sais(folder: Path, args) -> dict:
    """pydivsufsort SA + Kasai LCP of the reversed corpus (what copyscope indexes)."""
    import pydivsufsort

    rev = np.ascontiguousarray(np.load(folder / "corpus.npy")[::-1])
    times = []
    sa = lcp = None
    for r in range(args.repeats):
        sa = lcp = None
        t0 = time.perf_counter()
        sa = pydivsufsort.divsufsort(rev)
        lcp = pydivsufsort.kasai(rev, sa)
        times.append(time.perf_counter() - t0)
        log(f"  pydivsufsort repeat {r + 1}/{args.repeats}: {times[-1]:.2f} s")
    cs_sa = np.load(folder / "index" / "shard-000" / "sa.npy", mmap_mode="r")
    return {
        "seconds": times,
        "median_seconds": statistics.median(times),
        "sa_equals_copyscope": bool(np.array_equal(sa, cs_sa)),
        "array_bytes": int(sa.nbytes + lcp.nbytes + rev.nbytes),
        "peak_rss_mb": peak_rss_mb(),
    }


def rdawg_matches(cdawg, calls: list[list[np.ndarray]]) -> tuple[list[int], list[int]]:
    """rusty-dawg's L_t and C_t of every token of every text, one Python call per token."""
    step, count, initial = cdawg.transition_and_count, cdawg.get_suffix_count, cdawg.get_initial
    lengths: list[int] = []
    counts: list[int] = []
    for call in calls:
        for q in call:
            cs = initial()
            for tok in q.tolist():
                cs = step(cs, tok)
                lengths.append(cs.get_length())
                counts.append(count(cs))
    return lengths, counts


def rdawg_count(cdawg, ngram: list[int]) -> int:
    """Occurrences of an n-gram in rusty-dawg's CDAWG: its count if reading the n-gram from the
    initial state matches all n tokens, else 0."""
    cs = cdawg.get_initial()
    for tok in ngram:
        cs = cdawg.transition_and_count(cs, tok)
    return cdawg.get_suffix_count(cs) if cs.get_length() == len(ngram) else 0


def task_rdawg(folder: Path, args) -> dict:
    """rusty-dawg CDAWG: build + fill_counts, L_t/C_t per mix (per-token Python loop, median of
    repeats) and n-gram counts."""
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
    mixes = {}
    for mix in MIXES:
        calls = load_mix(folder / f"mix-{mix}.npz")
        n = sum(len(t) for call in calls for t in call)
        out: list = []

        def run(calls=calls, out=out):
            out[:] = rdawg_matches(cdawg, calls)

        times = timed_repeats(run, args.repeats, f"rusty-dawg {mix}", n, "tok")
        np.save(folder / f"rd_{mix}_L.npy", np.array(out[0], dtype=np.int64))
        np.save(folder / f"rd_{mix}_C.npy", np.array(out[1], dtype=np.int64))
        mixes[mix] = {"seconds": times, "tokens_per_s": n / statistics.median(times)}
    ngrams = [g.tolist() for g in load_ngrams(folder / "ngrams.npz")]
    counts: list[int] = []

    def count_all():
        counts[:] = [rdawg_count(cdawg, g) for g in ngrams]

    times = timed_repeats(count_all, args.repeats, "rusty-dawg count", len(ngrams), "n-gram")
    np.save(folder / "rd_counts.npy", np.array(counts, dtype=np.int64))
    return {
        "build_seconds": build_seconds,
        "mixes": mixes,
        "ngrams_per_s": len(ngrams) / statistics.median(times),
        "nodes": int(cdawg.node_count()),
        "edges": int(cdawg.edge_count()),
        "import_seconds": import_seconds,
        "rss_after_import_mb": rss_after_import,
        "peak_rss_mb": peak_rss_mb(),
    }


def import_tokengrams():
    """tokengrams' compiled extension.  The package's ``__init__`` also imports its Hugging Face
    dataset helper (which needs ``datasets``, not installed here), so the extension module is
    loaded on its own from the installed package folder."""
    spec = importlib.util.find_spec("tokengrams")
    if spec is None:
        raise SystemExit("tokengrams==0.3.3 is not installed (requirements-bench.txt)")
    folder = Path(spec.submodule_search_locations[0])
    path = next(folder.glob("tokengrams.*.so"))
    loader = importlib.machinery.ExtensionFileLoader("tokengrams", str(path))
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location("tokengrams", path, loader=loader)
    )
    loader.exec_module(module)
    return module


def task_tg_build(folder: Path, args) -> dict:
    """tokengrams MemmapIndex.build from the raw uint16 token file (written untimed, it is the
    tool's input format): seconds (median of repeats), peak RSS, bytes/token on disk."""
    tg = import_tokengrams()
    tokens, table = folder / "tg" / "tokens.bin", folder / "tg" / "table.idx"
    tokens.parent.mkdir(exist_ok=True)
    np.load(folder / "corpus.npy").tofile(tokens)
    times = []
    for r in range(args.repeats):
        table.unlink(missing_ok=True)
        t0 = time.perf_counter()
        tg.MemmapIndex.build(str(tokens), str(table), vocab=2**16, verbose=False)
        times.append(time.perf_counter() - t0)
        log(f"  tokengrams build repeat {r + 1}/{args.repeats}: {times[-1]:.2f} s")
    n = tokens.stat().st_size // 2
    return {
        "seconds": statistics.median(times),
        "all_seconds": times,
        "bytes_on_disk": dir_bytes(folder / "tg"),
        "bytes_per_token": dir_bytes(folder / "tg") / n,
        "peak_rss_mb": peak_rss_mb(),
    }


def task_tg_query(folder: Path, args) -> dict:
    """tokengrams count and positions of every n-gram (median of repeats); the number of
    positions of every n-gram and the positions of the brute-force sample are kept for the
    cross-check (not all positions: they would inflate the peak RSS)."""
    tg = import_tokengrams()
    index = tg.MemmapIndex(str(folder / "tg" / "tokens.bin"), str(folder / "tg" / "table.idx"))
    ngrams = [g.tolist() for g in load_ngrams(folder / "ngrams.npz")]
    sample = set(np.load(folder / "brute_sample.npy").tolist())
    counts: list[int] = []
    n_positions: list[int] = []
    kept: dict[int, np.ndarray] = {}

    def count_all():
        counts[:] = [index.count(g) for g in ngrams]

    def positions_all():
        n_positions.clear()
        for i, g in enumerate(ngrams):
            p = index.positions(g)
            n_positions.append(len(p))
            if i in sample:
                kept[i] = np.sort(np.array(p, dtype=np.int64))

    c_times = timed_repeats(count_all, args.repeats, "tokengrams count", len(ngrams), "n-gram")
    p_times = timed_repeats(positions_all, args.repeats, "tokengrams positions", len(ngrams), "n")
    np.save(folder / "tg_counts.npy", np.array(counts, dtype=np.int64))
    np.save(folder / "tg_npositions.npy", np.array(n_positions, dtype=np.int64))
    found = [kept[i] for i in sorted(kept)]
    np.savez(
        folder / "tg_positions.npz",
        flat=np.concatenate(found) if found else np.zeros(0, np.int64),
        offsets=np.concatenate([[0], np.cumsum([len(p) for p in found])]).astype(np.int64),
    )
    return {
        "ngrams_per_s": len(ngrams) / statistics.median(c_times),
        "positions_ngrams_per_s": len(ngrams) / statistics.median(p_times),
        "positions_total": int(sum(n_positions)),
        "peak_rss_mb": peak_rss_mb(),
    }


def children_peak_rss_mb() -> float:
    """Largest peak RSS of any finished child process (and their waited-for children), MiB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def infini_input(corpus: np.ndarray, folder: Path) -> None:
    """infini-gram's pre-tokenized shard: ``tokenized.0`` holds every document preceded by
    the separator 0xFFFF (copyscope's stream has it after each document, so both streams have
    the same n-grams and the same length), ``offset.0`` the byte offset of every document."""
    folder.mkdir(parents=True, exist_ok=True)
    docs_start = np.concatenate([[0], np.flatnonzero(corpus == SEP)[:-1] + 1])
    stream = np.concatenate([[SEP], corpus[:-1]]).astype(np.uint16)
    stream.tofile(folder / "tokenized.0")
    (2 * docs_start).astype(np.uint64).tofile(folder / "offset.0")


def task_ig_build(folder: Path, args) -> dict:
    """infini-gram's indexing entry point on the pre-tokenized shard (its tokenize step skips
    existing shards): seconds (median of repeats), peak RSS of the indexer's processes,
    bytes/token on disk."""
    p = params(folder)
    save = folder / "ig"
    infini_input(np.load(folder / "corpus.npy"), save)
    (folder / "ig_raw").mkdir(exist_ok=True)  # --data_dir must exist; nothing to tokenize
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    cmd = [sys.executable, "-m", "infini_gram.indexing", "--data_dir", str(folder / "ig_raw")]
    cmd += ["--save_dir", str(save), "--token_dtype", "u16", "--cpus", str(p["infini_cpus"])]
    cmd += ["--mem", str(p["infini_mem"]), "--ulimit", str(hard)]
    times = []
    for r in range(args.repeats):
        (save / "table.0").unlink(missing_ok=True)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0 or "went wrong" in proc.stdout or not (save / "table.0").exists():
            raise SystemExit(f"infini-gram indexing failed:\n{proc.stdout}\n{proc.stderr}")
        log(f"  infini-gram build repeat {r + 1}/{args.repeats}: {times[-1]:.2f} s")
    n = (save / "tokenized.0").stat().st_size // 2
    return {
        "seconds": statistics.median(times),
        "all_seconds": times,
        "cpus": p["infini_cpus"],
        "bytes_on_disk": dir_bytes(save),
        "bytes_per_token": dir_bytes(save) / n,
        "peak_rss_mb": max(peak_rss_mb(), children_peak_rss_mb()),
    }


def infini_matches(engine, texts: list[np.ndarray]) -> tuple[list[int], list[int]]:
    """L_t and C_t from infini-gram's ∞-gram query: ``infgram_prob(prompt, ·)`` reports the
    longest suffix of ``prompt`` found in the corpus (``suffix_len``) and its count
    (``prompt_cnt``).  Since L_t ≤ L_{t-1} + 1, the prompt is the last L_{t-1} + 1 tokens."""
    lengths: list[int] = []
    counts: list[int] = []
    for q in texts:
        q = q.tolist()
        prev = 0
        for t in range(len(q)):
            r = engine.infgram_prob(prompt_ids=q[t - prev : t + 1], cont_id=0)
            prev = r["suffix_len"]
            lengths.append(prev)
            counts.append(r["prompt_cnt"])
    return lengths, counts


def creativity_lengths(rs: list[int]) -> np.ndarray:
    """L_t from infini-gram's ``creativity`` answer: ``rs[i]`` is the end of the longest span
    starting at i that occurs in the corpus (forward matching statistics, non-decreasing), so
    the longest suffix of text[:t+1] that occurs starts at the first i with rs[i] ≥ t + 1."""
    rs = np.asarray(rs, dtype=np.int64)
    ends = np.arange(1, rs.shape[0] + 1)
    return ends - np.searchsorted(rs, ends, side="left")


def first_texts(calls: list[list[np.ndarray]], limit: int) -> list[np.ndarray]:
    """The first whole texts of a mix holding at most ``limit`` tokens (at least one text)."""
    out, total = [], 0
    for t in (t for call in calls for t in call):
        if out and total + len(t) > limit:
            break
        out.append(t)
        total += len(t)
    return out


def task_ig_query(folder: Path, args) -> dict:
    """infini-gram count per n-gram and L_t/C_t (∞-gram query) on the first
    --infini-lc-tokens tokens of every mix: n-grams/s and tokens/s (median of repeats)."""
    from infini_gram.engine import InfiniGramEngine

    p = params(folder)
    # eos_token_id must be < vocab_size ≤ 65535; it is unused by the queries measured here
    engine = InfiniGramEngine(index_dir=str(folder / "ig"), eos_token_id=SEP - 1, vocab_size=SEP)
    mixes = {}
    for mix in MIXES:
        texts = first_texts(load_mix(folder / f"mix-{mix}.npz"), p["infini_lc_tokens"])
        n = sum(len(t) for t in texts)
        out: list = []

        def run(texts=texts, out=out):
            out[:] = infini_matches(engine, texts)

        times = timed_repeats(run, args.repeats, f"infini-gram {mix}", n, "tok")
        np.save(folder / f"ig_{mix}_L.npy", np.array(out[0], dtype=np.int64))
        np.save(folder / f"ig_{mix}_C.npy", np.array(out[1], dtype=np.int64))
        rs: list = []

        def run_creativity(texts=texts, rs=rs):
            rs[:] = [engine.creativity(input_ids=q.tolist())["rs"] for q in texts]

        c_times = timed_repeats(run_creativity, args.repeats, f"creativity {mix}", n, "tok")
        np.save(folder / f"igc_{mix}_L.npy", np.concatenate([creativity_lengths(r) for r in rs]))
        mixes[mix] = {
            "seconds": times,
            "tokens_per_s": n / statistics.median(times),
            "creativity_tokens_per_s": n / statistics.median(c_times),
            "n_query_tokens": n,
        }
    ngrams = [g.tolist() for g in load_ngrams(folder / "ngrams.npz")]
    results: list[dict] = []

    def count_all():
        results[:] = [engine.count(input_ids=g) for g in ngrams]

    times = timed_repeats(count_all, args.repeats, "infini-gram count", len(ngrams), "n-gram")
    np.save(folder / "ig_counts.npy", np.array([r["count"] for r in results], dtype=np.int64))
    return {
        "mixes": mixes,
        "ngrams_per_s": len(ngrams) / statistics.median(times),
        "approximate_counts": int(sum(bool(r["approx"]) for r in results)),
        "peak_rss_mb": peak_rss_mb(),
    }


def task_ig_copyscope(folder: Path, args) -> dict:
    """copyscope on infini-gram's index folder as it is (``copyscope.index.open``): L_t/C_t of
    every position of every mix (one call per stored call) and ``count_many`` in calls of
    --count-batch n-grams: tokens/s and n-grams/s (median of repeats)."""
    import copyscope.index

    t0 = time.perf_counter()
    idx = copyscope.index.open(folder / "ig")
    open_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()  # warm-up: loads the compiled kernels
    sample = np.asarray(idx.shards[0].tokens[1:2049]).astype(np.int64)
    idx.longest_matches([sample[sample != SEP]])
    idx.count_many([np.array([1, 2]), sample[:40]])
    prepare_seconds = time.perf_counter() - t0
    mixes = {}
    for mix in MIXES:
        calls = load_mix(folder / f"mix-{mix}.npz")
        n = sum(len(t) for call in calls for t in call)
        results: list = []

        def run(calls=calls, results=results):
            results[:] = [idx.longest_matches(call) for call in calls]

        times = timed_repeats(run, args.repeats, f"copyscope on infini-gram {mix}", n, "tok")
        np.save(folder / f"csig_{mix}_L.npy", np.concatenate([m.length for m in results]))
        np.save(folder / f"csig_{mix}_C.npy", np.concatenate([m.count for m in results]))
        mixes[mix] = {"seconds": times, "tokens_per_s": n / statistics.median(times)}
    ngrams = load_ngrams(folder / "ngrams.npz")
    batch = params(folder)["count_batch"]
    order = np.random.default_rng(0).permutation(len(ngrams))
    calls = [[ngrams[i] for i in order[a : a + batch]] for a in range(0, len(ngrams), batch)]
    counts = np.zeros(len(ngrams), dtype=np.int64)

    def count_all():
        counts[order] = np.concatenate([idx.count_many(call) for call in calls])

    times = timed_repeats(count_all, args.repeats, "copyscope count on infini-gram", len(ngrams),
                          "n-gram")  # fmt: skip
    np.save(folder / "csig_counts.npy", counts)
    return {
        "mixes": mixes,
        "ngrams_per_s": len(ngrams) / statistics.median(times),
        "open_seconds": open_seconds,
        "prepare_seconds": prepare_seconds,
        "pointer_bytes": idx.manifest["pointer_bytes"],
        "peak_rss_mb": peak_rss_mb(),
    }


IG_COLD = """
import sys, time
t0 = time.perf_counter()
from infini_gram.engine import InfiniGramEngine
engine = InfiniGramEngine(index_dir=sys.argv[1], eos_token_id=65534, vocab_size=65535)
print(engine.count(input_ids=[int(x) for x in sys.argv[2].split(",")])["count"])
"""


def fresh_runs(cmd: list[str], env: dict, repeats: int) -> tuple[list[float], list[float], str]:
    """Wall and CPU seconds of ``cmd`` in a fresh process, ``repeats`` times after one untimed
    run (which warms the page cache), and what it printed."""
    walls, cpus, out = [], [], ""
    for r in range(repeats + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:4])} failed ({proc.returncode}): {proc.stderr}")
        out = proc.stdout
        if r:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus, out


def ig_cold_start(folder: Path, args) -> dict:
    """``copyscope query IG --ids ... --format json`` (L_t/C_t of a 32-token corpus excerpt) on
    infini-gram's index folder in a fresh process, beside infini-gram's own fresh-process
    count (import, engine, one count): median wall and CPU seconds; the answers checked."""
    corpus = np.load(folder / "corpus.npy", mmap_mode="r")
    a = next(i for i in range(corpus.shape[0]) if not np.any(corpus[i : i + 32] == SEP))
    ids = ",".join(str(int(t)) for t in corpus[a : a + 32])
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    cmd = [sys.executable, "-m", "copyscope", "query", str(folder / "ig"), "--ids", ids]
    walls, cpus, out = fresh_runs([*cmd, "--format", "json"], env, args.repeats)
    rows = json.loads(out)
    log(f"  copyscope query on infini-gram (fresh process): {statistics.median(walls):.2f} s")
    g = np.array([int(x) for x in ids.split(",")][:4])
    ig_walls, ig_cpus, ig_out = fresh_runs(
        [sys.executable, "-c", IG_COLD, str(folder / "ig"), ",".join(map(str, g))],
        env,
        args.repeats,
    )
    return {
        "ids": ids,
        "L": [r["L"] for r in rows],
        "C": [r["C"] for r in rows],
        "wall_seconds": statistics.median(walls),
        "cpu_seconds": statistics.median(cpus),
        "infinigram_count_wall_seconds": statistics.median(ig_walls),
        "infinigram_count_cpu_seconds": statistics.median(ig_cpus),
        "infinigram_count": int(ig_out.strip()),
        "expected_count": len(brute_positions(np.asarray(corpus), g)),
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


def count_cli(folder: Path, args) -> dict:
    """``python -m copyscope count INDEX --ids ...`` on one corpus n-gram, each run a fresh
    process (after one untimed run that warms the page cache): median wall and CPU seconds
    (user + system) over --repeats runs, and the count it printed."""
    corpus = np.load(folder / "corpus.npy", mmap_mode="r")
    a = next(i for i in range(corpus.shape[0]) if not np.any(corpus[i : i + 4] == SEP))
    ids = ",".join(str(int(t)) for t in corpus[a : a + 4])  # the corpus's first 4-gram
    cmd = [sys.executable, "-m", "copyscope", "count", str(folder / "index"), "--ids", ids]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    walls, cpus, printed = [], [], None
    for r in range(args.repeats + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"copyscope count failed ({proc.returncode}): {proc.stderr.strip()}")
        printed = int(proc.stdout.strip())
        if r:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    log(f"  copyscope count (fresh process): {statistics.median(walls):.2f} s wall")
    expect = len(brute_positions(np.asarray(corpus), np.array([int(x) for x in ids.split(",")])))
    return {
        "ids": ids,
        "count": printed,
        "expected": expect,
        "wall_seconds": statistics.median(walls),
        "cpu_seconds": statistics.median(cpus),
        "all_wall_seconds": walls,
    }


# ----------------------------------------------------------------------------- comparison
TOOL_NAMES = {
    "cs": "copyscope",
    "rd": "rusty-dawg",
    "tg": "tokengrams",
    "ig": "infini-gram",
    "igc": "infini-gram creativity",
    "csig": "copyscope on infini-gram's index",
    "bf": "brute force",
}


def first_difference(a: np.ndarray, b: np.ndarray) -> int | None:
    """Index of the first position where two answer arrays differ (their common prefix: a peer
    may answer only the first positions of a mix), or None."""
    n = min(len(a), len(b))
    bad = np.flatnonzero(a[:n] != b[:n])
    return int(bad[0]) if bad.size else None


def lc_mismatch(folder: Path, mix: str, peer: str) -> dict | None:
    """First position of ``mix`` where the peer's L_t or C_t differs from copyscope's."""
    cs_L, cs_C = np.load(folder / f"cs_{mix}_L.npy"), np.load(folder / f"cs_{mix}_C.npy")
    pe_L = np.load(folder / f"{peer}_{mix}_L.npy")
    if (folder / f"{peer}_{mix}_C.npy").exists():
        pe_C = np.load(folder / f"{peer}_{mix}_C.npy")
        check = f"L_t/C_t {TOOL_NAMES[peer]} vs copyscope, mix {mix}"
    else:  # a peer answering L_t only
        pe_C = cs_C[: len(pe_L)]
        check = f"L_t {TOOL_NAMES[peer]} vs copyscope, mix {mix}"
    if len(pe_L) == 0 or len(pe_L) > len(cs_L) or len(pe_L) != len(pe_C):
        return {"check": check, "error": f"{len(pe_L)} answers for {len(cs_L)} positions"}
    if peer in ("rd", "csig") and len(pe_L) != len(cs_L):
        return {"check": check, "error": f"{len(pe_L)} answers for {len(cs_L)} positions"}
    diff = [
        i for i in (first_difference(cs_L, pe_L), first_difference(cs_C, pe_C)) if i is not None
    ]
    if not diff:
        return None
    flat = min(diff)
    offsets = mix_offsets(folder / f"mix-{mix}.npz")
    text = int(np.searchsorted(offsets, flat, side="right") - 1)
    n_bad = int(np.count_nonzero((cs_L[: len(pe_L)] != pe_L) | (cs_C[: len(pe_C)] != pe_C)))
    return {
        "check": check,
        "n_mismatching_positions": n_bad,
        "text": text,
        "position": flat - int(offsets[text]),
        "copyscope": [int(cs_L[flat]), int(cs_C[flat])],
        TOOL_NAMES[peer]: [int(pe_L[flat]), int(pe_C[flat])],
    }


def count_mismatch(folder: Path, tool: str, ref: str, indices: np.ndarray | None = None):
    """First n-gram whose count by ``tool`` differs from ``ref``'s (``indices``: the n-grams
    that ``tool``'s answers belong to, when it answered only a sample)."""
    a = np.load(folder / f"{tool}_counts.npy")
    b = np.load(folder / f"{ref}_counts.npy")
    b = b if indices is None else b[indices]
    check = f"n-gram counts {TOOL_NAMES[tool]} vs {TOOL_NAMES[ref]}"
    if a.shape != b.shape:
        return {"check": check, "error": f"{a.shape[0]} answers for {b.shape[0]} n-grams"}
    i = first_difference(a, b)
    if i is None:
        return None
    g = int(i if indices is None else indices[i])
    ngram = load_ngrams(folder / "ngrams.npz")[g]
    return {
        "check": check,
        "n_mismatching_ngrams": int(np.count_nonzero(a != b)),
        "ngram": g,
        "n": len(ngram),
        "tokens": ngram.tolist(),
        TOOL_NAMES[tool]: int(a[i]),
        TOOL_NAMES[ref]: int(b[i]),
    }


def positions_mismatch(folder: Path) -> dict | None:
    """First n-gram of the brute-force sample whose tokengrams positions differ from the scan's,
    or whose number of tokengrams positions differs from its tokengrams count."""
    check = "n-gram positions tokengrams vs brute force"
    npos, counts = np.load(folder / "tg_npositions.npy"), np.load(folder / "tg_counts.npy")
    i = first_difference(npos, counts)
    if i is not None or npos.shape != counts.shape:
        return {"check": check, "error": f"n-gram {i}: {npos[i]} positions, count {counts[i]}"}
    sample = np.load(folder / "brute_sample.npy")
    tg, bf = np.load(folder / "tg_positions.npz"), np.load(folder / "bf_positions.npz")
    for k, g in enumerate(sample.tolist()):
        a = tg["flat"][tg["offsets"][k] : tg["offsets"][k + 1]]
        b = bf["flat"][bf["offsets"][k] : bf["offsets"][k + 1]]
        if not np.array_equal(a, b):
            return {
                "check": check,
                "ngram": g,
                "tokengrams": a[:5].tolist(),
                "brute force": b[:5].tolist(),
                "n_positions": [len(a), len(b)],
            }
    return None


def cross_checks(folder: Path, peers: list[str]) -> list[dict]:
    """Every answer cross-check of one size: the first mismatch of each failing check."""
    out = []
    sample = np.load(folder / "brute_sample.npy")
    out.append(count_mismatch(folder, "bf", "cs", sample))
    if "rdawg" in peers:
        out += [lc_mismatch(folder, mix, "rd") for mix in MIXES]
        out.append(count_mismatch(folder, "rd", "cs"))
    if "infinigram" in peers:
        out += [lc_mismatch(folder, mix, peer) for peer in ("ig", "igc") for mix in MIXES]
        out.append(count_mismatch(folder, "ig", "cs"))
        out += [lc_mismatch(folder, mix, "csig") for mix in MIXES]  # every position
        out.append(count_mismatch(folder, "csig", "cs"))
    if "tokengrams" in peers:
        out.append(count_mismatch(folder, "tg", "cs"))
        out.append(positions_mismatch(folder))
    return [m for m in out if m is not None]


def describe_mismatch(n_tokens: int, mm: dict) -> str:
    """A one-line error message for a failed cross-check."""
    details = ", ".join(f"{k}: {v}" for k, v in mm.items() if k != "check")
    return f"ERROR at {n_tokens:,} tokens: {mm['check']} differ; first: {details}"


# ----------------------------------------------------------------------------- one size
def brute_force(corpus: np.ndarray, ngrams: list[np.ndarray], folder: Path, args) -> dict:
    """Counts and positions of the brute-force sample by a direct scan of the corpus."""
    sample = brute_sample(ngrams, args)
    t0 = time.perf_counter()
    found = [brute_positions(corpus, ngrams[i]) for i in sample]
    seconds = time.perf_counter() - t0
    np.save(folder / "brute_sample.npy", sample)
    np.save(folder / "bf_counts.npy", np.array([len(p) for p in found], dtype=np.int64))
    np.savez(
        folder / "bf_positions.npz",
        flat=np.concatenate(found).astype(np.int64) if found else np.zeros(0, np.int64),
        offsets=np.concatenate([[0], np.cumsum([len(p) for p in found])]).astype(np.int64),
    )
    return {"n_ngrams": int(sample.size), "ngrams_per_s": sample.size / max(seconds, 1e-9)}


def bench_size(n_tokens: int, root: Path, zipf: ZipfSource, args) -> dict:
    """Generate data for one corpus size and run all measurements and cross-checks on it."""
    folder = root / size_label(n_tokens)
    folder.mkdir(parents=True)
    log(f"=== {size_label(n_tokens)} tokens: generating corpus, query mixes and n-grams")
    t0 = time.perf_counter()
    corpus, corpus_stats = make_corpus(n_tokens, zipf, args)
    mixes = make_mixes(corpus, zipf, args)
    for mix, calls in mixes.items():
        save_mix(calls, folder / f"mix-{mix}.npz")
    ngrams = make_ngrams(corpus, zipf, args)
    save_ngrams(ngrams, folder / "ngrams.npz")
    np.save(folder / "corpus.npy", corpus)
    (folder / "params.json").write_text(
        json.dumps(
            {
                k: getattr(args, k)
                for k in (
                    "infini_cpus",
                    "infini_mem",
                    "infini_lc_tokens",
                    "count_batch",
                    "single_ngrams",
                )
            }  # fmt: skip
        )
    )
    brute = brute_force(corpus, ngrams, folder, args)
    query_stats = {
        mix: {
            "calls": len(calls),
            "texts": sum(len(c) for c in calls),
            "tokens": int(sum(len(t) for c in calls for t in c)),
        }
        for mix, calls in mixes.items()
    }
    query_stats["ngrams"] = {"n": len(ngrams), "max_n": args.max_n}
    del corpus, mixes, ngrams
    log(
        f"generated in {time.perf_counter() - t0:.1f} s: {corpus_stats['n_docs']} documents "
        f"({corpus_stats['n_duplicate_docs']} duplicates)"
    )
    res = {"n_tokens": n_tokens, "corpus": corpus_stats, "queries": query_stats, "brute": brute}
    res["loadavg_before"] = os.getloadavg()  # other load on the machine skews the timings
    res["build"] = run_child("build", folder, args)
    res["query"] = run_child("query", folder, args)
    res["count_cli"] = count_cli(folder, args)
    if "sais" in args.peers:
        res["sais"] = run_child("sais", folder, args)
        if not res["sais"]["sa_equals_copyscope"]:
            log("WARNING: pydivsufsort's suffix array differs from copyscope's sa.npy")
    if "rdawg" in args.peers:
        res["rdawg"] = run_child("rdawg", folder, args)
    if "tokengrams" in args.peers:
        res["tokengrams"] = run_child("tg_build", folder, args)
        res["tokengrams"].update(query=run_child("tg_query", folder, args))
    if "infinigram" in args.peers:
        res["infinigram"] = run_child("ig_build", folder, args)
        res["infinigram"].update(query=run_child("ig_query", folder, args))
        res["infinigram"]["copyscope"] = run_child("ig_copyscope", folder, args)
        res["infinigram"]["cold"] = ig_cold_start(folder, args)
    res["loadavg_after"] = os.getloadavg()
    res["mismatches"] = cross_checks(folder, args.peers)
    cli = res["count_cli"]
    if cli["count"] != cli["expected"]:
        res["mismatches"].append(
            {"check": "copyscope count (fresh process) vs brute force", "ids": cli["ids"]}
            | {"got": cli["count"], "expected": cli["expected"]}
        )
    cold = res.get("infinigram", {}).get("cold")
    if cold:
        from copyscope.index import Index

        ids = np.array([int(x) for x in cold["ids"].split(",")])
        L, C = Index(folder / "index").longest_matches([ids])[0]
        if [cold["L"], cold["C"]] != [L.tolist(), C.tolist()] or (
            cold["infinigram_count"] != cold["expected_count"]
        ):
            res["mismatches"].append(
                {"check": "copyscope query on infini-gram's index (fresh process) vs own index"}
            )
    res["match"] = not res["mismatches"]
    if not args.keep_workdir:
        shutil.rmtree(folder)  # free the disk space before the next size
    return res


# ----------------------------------------------------------------------------- report
def derived(res: dict) -> dict:
    """Ratios and limits used by the tables and the targets (None when not measured)."""
    q, b = res["query"], res["build"]
    out = {
        "rss_limit_mb": q["index_bytes"] / MB + RSS_SLACK_MB,
        "build_ratio": None,
        "speedup": dict.fromkeys(MIXES),
    }
    if "sais" in res:
        out["build_ratio"] = b["seconds"] / res["sais"]["median_seconds"]
    peers = peer_count_rates(res)
    out["count_speedup"] = res["query"]["ngrams_per_s"] / max(peers.values()) if peers else None
    if "rdawg" in res:
        out["speedup"] = {
            mix: q["mixes"][mix]["tokens_per_s"] / res["rdawg"]["mixes"][mix]["tokens_per_s"]
            for mix in MIXES
        }
    out["ig_speedup"], out["ig_count_speedup"] = dict.fromkeys(MIXES), None
    ig = res.get("infinigram")
    if ig and "copyscope" in ig:
        out["ig_speedup"] = {
            mix: ig["copyscope"]["mixes"][mix]["tokens_per_s"] / ig_fastest(ig, mix)
            for mix in MIXES
        }
        out["ig_count_speedup"] = ig["copyscope"]["ngrams_per_s"] / ig["query"]["ngrams_per_s"]
    return out


def ig_fastest(ig: dict, mix: str) -> float:
    """infini-gram's fastest L_t/C_t rate on a mix, tokens/s: its ∞-gram query (one
    ``infgram_prob`` per position, prompt = the last L_{t-1} + 1 tokens: L_t and C_t) or
    ``creativity`` (one call per text: L_t only, so with the count C_t needs it is slower
    still), whichever is faster."""
    m = ig["query"]["mixes"][mix]
    return max(m["tokens_per_s"], m["creativity_tokens_per_s"])


def peer_count_rates(res: dict) -> dict[str, float]:
    """n-gram counts/s of every peer measured at one size (one n-gram per call: none of them
    has a batched count)."""
    out = {}
    if "rdawg" in res:
        out["rdawg"] = res["rdawg"]["ngrams_per_s"]
    for k in ("tokengrams", "infinigram"):
        if k in res:
            out[k] = res[k]["query"]["ngrams_per_s"]
    return out


def fmt(value, spec: str, suffix: str = "") -> str:
    """Format a number, or an en dash when it was not measured."""
    return "–" if value is None else f"{value:{spec}}{suffix}"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def tool_rows(res: dict) -> list[list[str]]:
    """One row per tool of one corpus size: build, memory, disk, both query kinds."""
    n, q, b = res["n_tokens"], res["query"], res["build"]
    sais, rd, tg, ig = (res.get(k) for k in ("sais", "rdawg", "tokengrams", "infinigram"))
    base = sais and sais["median_seconds"]

    def ratio(seconds):
        return fmt(seconds / base if base and seconds is not None else None, ".2f", "×")

    rows = [
        [
            "copyscope",
            f"{b['seconds']:.2f}",
            ratio(b["seconds"]),
            f"{b['peak_rss_mb']:.0f}",
            f"{q['peak_rss_mb']:.0f}",
            f"{b['bytes_per_token']:.2f}",
            f"{q['mixes']['large']['tokens_per_s']:,.0f}",
            f"{q['ngrams_per_s']:,.0f}",
        ]
    ]
    if sais:
        rows.append(
            ["pydivsufsort SA+LCP (in RAM)", f"{base:.2f}", "1.00×", f"{sais['peak_rss_mb']:.0f}"]
            + ["–", f"{sais['array_bytes'] / n:.2f}", "–", "–"]
        )
    if rd:
        rows.append(
            ["rusty-dawg CDAWG (in RAM)", f"{rd['build_seconds']:.2f}", ratio(rd["build_seconds"])]
            + [f"{rd['peak_rss_mb']:.0f}", "(same)", "–"]
            + [f"{rd['mixes']['large']['tokens_per_s']:,.0f}", f"{rd['ngrams_per_s']:,.0f}"]
        )
    if tg:
        rows.append(
            ["tokengrams MemmapIndex", f"{tg['seconds']:.2f}", ratio(tg["seconds"])]
            + [f"{tg['peak_rss_mb']:.0f}", f"{tg['query']['peak_rss_mb']:.0f}"]
            + [f"{tg['bytes_per_token']:.2f}", "–", f"{tg['query']['ngrams_per_s']:,.0f}"]
        )
    if ig:
        rows.append(
            [f"infini-gram ({ig['cpus']} cpu)", f"{ig['seconds']:.2f}", ratio(ig["seconds"])]
            + [f"{ig['peak_rss_mb']:.0f}", f"{ig['query']['peak_rss_mb']:.0f}"]
            + [f"{ig['bytes_per_token']:.2f}"]
            + [f"{ig['query']['mixes']['large']['tokens_per_s']:,.0f}"]
            + [f"{ig['query']['ngrams_per_s']:,.0f}"]
        )
    rows.append(["brute-force scan", "–", "–", "–", "–", "–", "–"])
    rows[-1].append(f"{res['brute']['ngrams_per_s']:,.0f}")
    return [[f"{n:,}", *row] for row in rows]


def tools_table(results: list[dict]) -> str:
    """Build, memory, disk and both query kinds, one row per (corpus size, tool)."""
    header = [
        "tokens",
        "tool",
        "build s",
        f"build / pydivsufsort (≤ {MAX_BUILD_RATIO}×)",
        "build peak RSS MB",
        "query peak RSS MB",
        f"bytes/token (≤ {MAX_BYTES_PER_TOKEN:g})",
        "L_t/C_t tok/s (large mix)",
        "n-gram counts/s",
    ]
    return table(header, [row for res in results for row in tool_rows(res)])


def mixes_table(results: list[dict]) -> str:
    """L_t/C_t throughput per query mix, one row per (corpus size, mix)."""
    header = [
        "tokens",
        "mix",
        "calls × tokens/call",
        "mean / p90 L_t",
        "copyscope tok/s",
        "rusty-dawg tok/s",
        f"ratio (≥ {MIN_SPEEDUP:g}×)",
        "infini-gram ∞-gram tok/s (tokens)",
        "infini-gram creativity tok/s (L_t only)",
    ]
    rows = []
    for res in results:
        d = derived(res)
        rd, ig = res.get("rdawg"), res.get("infinigram")
        for mix in MIXES:
            q = res["query"]["mixes"][mix]
            igm = ig and ig["query"]["mixes"][mix]
            rows.append(
                [
                    f"{res['n_tokens']:,}",
                    mix,
                    f"{q['calls']} × {q['tokens_per_call']:,.0f}",
                    f"{q['mean_L']:.1f} / {q['p90_L']:.0f}",
                    f"{q['tokens_per_s']:,.0f}",
                    fmt(rd and rd["mixes"][mix]["tokens_per_s"], ",.0f"),
                    fmt(d["speedup"][mix], ".1f", "×"),
                    "–" if not igm else f"{igm['tokens_per_s']:,.0f} ({igm['n_query_tokens']:,})",
                    fmt(igm and igm["creativity_tokens_per_s"], ",.0f"),
                ]
            )
    return table(header, rows)


def counts_table(results: list[dict]) -> str:
    """n-gram counts/s per (corpus size, tool): copyscope batched and one per call, every peer,
    the ratio to the fastest peer, and one count in a fresh process."""
    header = [
        "tokens",
        "tool",
        "n-grams",
        "counts/s (batched)",
        "counts/s (1 per call)",
        f"batched / fastest peer (≥ {MIN_COUNT_SPEEDUP:g}×)",
        f"fresh-process count, s wall / CPU (≤ {MAX_COUNT_CLI_SECONDS:g})",
    ]
    rows = []
    for res in results:
        n, q, cli = f"{res['n_tokens']:,}", res["query"], res["count_cli"]
        d = derived(res)
        rows.append(
            [
                n,
                "copyscope",
                f"{res['queries']['ngrams']['n']:,} (n ≤ {res['queries']['ngrams']['max_n']})",
                f"{q['ngrams_per_s']:,.0f} ({q['count_calls']} calls)",
                f"{q['single_ngrams_per_s']:,.0f}",
                fmt(d["count_speedup"], ".1f", "×"),
                f"{cli['wall_seconds']:.2f} / {cli['cpu_seconds']:.2f}",
            ]
        )
        for key, rate in peer_count_rates(res).items():
            rows.append([n, PEER_COUNTS[key], "(same)", "–", f"{rate:,.0f}", "–", "–"])
    return table(header, rows)


def infinigram_table(results: list[dict]) -> str:
    """copyscope on infini-gram's own index folder against infini-gram's engine on it: L_t/C_t
    per mix, batched counts, and one query in a fresh process."""
    header = [
        "tokens",
        "query",
        "copyscope on infini-gram's index",
        "copyscope on its own index",
        "infini-gram: ∞-gram (L_t, C_t) / creativity (L_t)",
        f"copyscope / infini-gram's fastest (≥ {MIN_IG_SPEEDUP:g}× L_t/C_t, "
        f"≥ {MIN_IG_COUNT_SPEEDUP:g}× counts)",
    ]
    rows = []
    for res in results:
        ig = res.get("infinigram")
        if not ig or "copyscope" not in ig:
            continue
        n, d, cs = f"{res['n_tokens']:,}", derived(res), ig["copyscope"]
        for mix in MIXES:
            m = ig["query"]["mixes"][mix]
            rows.append(
                [n, f"L_t/C_t, mix {mix} (tok/s)", f"{cs['mixes'][mix]['tokens_per_s']:,.0f}"]
                + [f"{res['query']['mixes'][mix]['tokens_per_s']:,.0f}"]
                + [f"{m['tokens_per_s']:,.0f} / {m['creativity_tokens_per_s']:,.0f}"]
                + [fmt(d["ig_speedup"][mix], ".1f", "×")]
            )
        rows.append(
            [n, "n-gram counts (counts/s)", f"{cs['ngrams_per_s']:,.0f} (batched)"]
            + [f"{res['query']['ngrams_per_s']:,.0f} (batched)"]
            + [f"{ig['query']['ngrams_per_s']:,.0f} (count, 1 per call)"]
            + [fmt(d["ig_count_speedup"], ".1f", "×")]
        )
        cold = ig.get("cold")
        if cold:
            rows.append(
                [n, "fresh process, s wall / CPU", "query of 32 tokens: "
                 f"{cold['wall_seconds']:.2f} / {cold['cpu_seconds']:.2f}"]
                + [f"count: {res['count_cli']['wall_seconds']:.2f} / "
                   f"{res['count_cli']['cpu_seconds']:.2f}"]
                + ["count (import, engine, 1 count): "
                   f"{cold['infinigram_count_wall_seconds']:.2f} / "
                   f"{cold['infinigram_count_cpu_seconds']:.2f}", "–"]
            )  # fmt: skip
    return table(header, rows)


def answers_table(results: list[dict]) -> str:
    """Which cross-checks ran and whether every answer agreed."""
    rows = []
    for res in results:
        checks = ["brute-force counts"]
        checks += ["rusty-dawg L_t/C_t + counts"] * ("rdawg" in res)
        checks += ["infini-gram L_t/C_t, creativity L_t (samples) + counts"] * ("infinigram" in res)
        checks += ["copyscope on infini-gram's index: L_t/C_t (every position), counts, a "
                   "fresh-process query"] * ("copyscope" in res.get("infinigram", {}))  # fmt: skip
        checks += ["tokengrams counts + positions"] * ("tokengrams" in res)
        bad = "; ".join(m["check"] for m in res["mismatches"])
        rows.append([f"{res['n_tokens']:,}", ", ".join(checks), "yes" if res["match"] else bad])
    return table(["tokens", "answers cross-checked against copyscope", "identical"], rows)


def check(name, limit, results, get, ok, spec) -> dict:
    """PASS/FAIL/SKIP of one target over the sizes, with the per-size values."""
    per_size = {}
    status = "SKIP"
    for res in results:
        d = derived(res)
        value = get(res, d)
        if value is None:
            continue
        passed = bool(ok(value, res, d))
        per_size[size_label(res["n_tokens"])] = {"value": value, "pass": passed}
        status = "FAIL" if not passed or status == "FAIL" else "PASS"
    return {"target": name, "limit": limit, "status": status, "per_size": per_size, "spec": spec}


def evaluate_targets(results: list[dict]) -> list[dict]:
    """PASS/FAIL/SKIP of every target of issue 12, with the per-size values."""
    out = [
        check(
            "build ratio vs pydivsufsort",
            f"≤ {MAX_BUILD_RATIO}×",
            results,
            lambda r, d: d["build_ratio"],
            lambda v, r, d: v <= MAX_BUILD_RATIO,
            ".2f",
        ),
        check(
            "bytes/token",
            f"≤ {MAX_BYTES_PER_TOKEN:g} (+ {FIXED_BYTES // 1024} KiB fixed overhead per index)",
            results,
            lambda r, d: r["build"]["bytes_per_token"],
            lambda v, r, d: (
                r["build"]["bytes_on_disk"] <= MAX_BYTES_PER_TOKEN * r["n_tokens"] + FIXED_BYTES
            ),
            ".4f",
        ),
        check(
            "query peak RSS",
            f"≤ index size + {RSS_SLACK_MB} MB",
            results,
            lambda r, d: r["query"]["peak_rss_mb"],
            lambda v, r, d: v <= d["rss_limit_mb"],
            ".0f",
        ),
    ]
    for mix in MIXES:
        out.append(
            check(
                f"query speedup vs rusty-dawg, mix {mix}",
                f"≥ {MIN_SPEEDUP:g}×",
                results,
                lambda r, d, mix=mix: d["speedup"][mix],
                lambda v, r, d: v >= MIN_SPEEDUP,
                ".1f",
            )
        )
    out.append(
        check(
            "batched n-gram counts vs the fastest peer",
            f"≥ {MIN_COUNT_SPEEDUP:g}×",
            results,
            lambda r, d: d["count_speedup"],
            lambda v, r, d: v >= MIN_COUNT_SPEEDUP,
            ".1f",
        )
    )
    for mix in MIXES:
        out.append(
            check(
                f"L_t/C_t on infini-gram's index vs infini-gram's fastest, mix {mix}",
                f"≥ {MIN_IG_SPEEDUP:g}×",
                results,
                lambda r, d, mix=mix: d["ig_speedup"][mix],
                lambda v, r, d: v >= MIN_IG_SPEEDUP,
                ".1f",
            )
        )
    out.append(
        check(
            "batched n-gram counts on infini-gram's index vs infini-gram's count",
            f"≥ {MIN_IG_COUNT_SPEEDUP:g}×",
            results,
            lambda r, d: d["ig_count_speedup"],
            lambda v, r, d: v >= MIN_IG_COUNT_SPEEDUP,
            ".1f",
        )
    )
    out.append(
        check(
            "copyscope count in a fresh process (wall s)",
            f"≤ {MAX_COUNT_CLI_SECONDS:g} s",
            results,
            lambda r, d: r["count_cli"]["wall_seconds"],
            lambda v, r, d: v <= MAX_COUNT_CLI_SECONDS,
            ".2f",
        )
    )
    out.append(
        check(
            "answers identical (L_t/C_t and n-gram counts, every peer and brute force)",
            "all cross-checks",
            results,
            lambda r, d: r["match"],
            lambda v, r, d: v,
            "",
        )
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
    names = ("copyscope", "numpy", "numba", "PySAIS", "pydivsufsort", "rusty-dawg")
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        **{name: package_version(name) for name in (*names, "tokengrams", "infini-gram")},
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
    p.add_argument(
        "--mix-tokens",
        type=int,
        default=1_000_000,
        help="query tokens of every mix; fresh, copied and large are one call (default 1e6)",
    )
    p.add_argument("--query-len", type=int, default=1000, help="tokens per text (default 1000)")
    p.add_argument("--pipeline-texts", type=int, default=100, help="texts per pipeline call")
    p.add_argument("--pipeline-len", type=int, default=128, help="tokens per pipeline text")
    p.add_argument(
        "--mutation-min", type=float, default=0.005, help="lowest mutation rate of an excerpt"
    )
    p.add_argument(
        "--mutation-max", type=float, default=0.10, help="highest mutation rate of an excerpt"
    )
    p.add_argument("--max-n", type=int, default=32, help="n-grams of n = 1..max-n (default 32)")
    p.add_argument(
        "--ngrams-per-n", type=int, default=3200, help="n-grams counted per n (default 3200)"
    )
    p.add_argument(
        "--count-batch", type=int, default=1000, help="n-grams per count_many call (default 1000)"
    )
    p.add_argument(
        "--single-ngrams",
        type=int,
        default=10_000,
        help="n-grams counted one per call (Index.count) beside the batched calls",
    )
    p.add_argument(
        "--brute-ngrams", type=int, default=10, help="n-grams per n checked by brute force"
    )
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
        "--peers",
        nargs="*",
        choices=PEERS,
        default=list(PEERS),
        help="peers to run beside copyscope (default: all; none: copyscope alone)",
    )
    p.add_argument("--no-reference", action="store_true", help="same as --peers with no name")
    p.add_argument(
        "--infini-lc-tokens",
        type=int,
        default=3_000,
        help="tokens per mix queried through infini-gram's one-call-per-position ∞-gram query",
    )
    p.add_argument(
        "--infini-cpus",
        type=int,
        default=1,
        help="infini-gram indexing --cpus (default 1: with more it breaks on tiny corpora)",
    )
    p.add_argument("--infini-mem", type=int, default=4, help="infini-gram indexing --mem (GiB)")
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
    counts = (args.mix_tokens, args.query_len, args.pipeline_texts, args.pipeline_len)
    counts += (args.max_n, args.ngrams_per_n, args.repeats, args.infini_lc_tokens)
    counts += (args.count_batch, args.single_ngrams)
    if min(counts) < 1 or args.brute_ngrams < 0:
        p.error("token, text, n-gram and repeat counts must be positive")
    if not 0 <= args.mutation_min <= args.mutation_max <= 1:
        p.error("expected 0 ≤ --mutation-min ≤ --mutation-max ≤ 1")
    if args.no_reference:
        args.peers = []
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for every size, print the tables and targets, write the JSON; exit
    status 1 if any answer differs between the tools."""
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
    tables = {
        "tools": tools_table(results),
        "mixes": mixes_table(results),
        "counts": counts_table(results),
        "infinigram": infinigram_table(results),
        "answers": answers_table(results),
    }
    print("\n\n".join(tables.values()))
    print()
    print(target_lines(targets))
    report = {
        "command": [Path(sys.argv[0]).name, *argv],
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "environment": environment(),
        "workdir": str(root),
        "results": results,
        "targets": targets,
        "tables": tables,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    log(f"wrote {args.out}")

    return exit_status(results, args.out)


def exit_status(results: list[dict], out: Path) -> int:
    """1 (after printing the first mismatch to stderr) if any cross-check failed, else 0."""
    bad = [(r["n_tokens"], m) for r in results for m in r["mismatches"]]
    if not bad:
        return 0
    print(describe_mismatch(*bad[0]), file=sys.stderr)
    if len(bad) > 1:
        print(f"({len(bad) - 1} more failed cross-checks in {out})", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
