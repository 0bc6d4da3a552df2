"""Speed of the Creativity Index (``copyscope report creativity``, Lu et al. 2024): ``--texts``
texts of ``--text-words`` words scored against a word index of N tokens, for every N of
``--sizes``.

For each size the script writes a seeded synthetic corpus of N word ids (Zipf(1.1) over a
vocabulary of ``--vocab``, documents of 2,000 words), builds its index (one token per word)
and scores the texts: half cut whole from the corpus (every word in a found span of the text's
length: index 0), half fresh Zipf text. Timed (wall and CPU seconds, median of ``--repeats``,
after one warm-up call that loads the kernels):

* ``build``: building the index (once);
* ``query``: ``Index.longest_matches`` of every text (the per-word longest match L_e, the
  index's suffix-array search: the cost);
* ``index``: the whole Creativity Index of every text, the query included: L-uniqueness for
  L = 5..12 (:func:`copyscope.novelty.creativity.l_uniqueness`) and its sum.

Every text cut from the corpus must score 0, and a text of ids outside the vocabulary (never
found) must score 8, else the exit status is 1. Results: a markdown table on stdout and JSON
in ``--out``.

Usage::

    python benchmarks/creativity_bench.py --sizes 1e6 1e7
    python benchmarks/creativity_bench.py --sizes 1e8 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from copyscope import index as cindex  # noqa: E402
from copyscope.novelty.creativity import LENGTHS, creativity_index, l_uniqueness  # noqa: E402
from timing import timed, zipf_ids  # noqa: E402

DOC_WORDS = 2000








def creativity(index, texts: list[np.ndarray]) -> np.ndarray:
    """The Creativity Index of each text against ``index`` (as the report computes it from
    words.parquet's longest matches)."""
    lengths = index.longest_matches(texts).split_lengths()
    return creativity_index(np.array([l_uniqueness(L) for L in lengths]))


def one_size(n_tokens: int, args, tmp: Path) -> dict:
    rng = np.random.default_rng(args.seed)
    ids = zipf_ids(n_tokens, args.vocab, rng)
    dtype = np.uint16 if args.vocab < 65535 else np.uint32
    sep = np.iinfo(dtype).max
    docs = [ids[a : a + DOC_WORDS] for a in range(0, n_tokens, DOC_WORDS)]
    flat = np.concatenate([np.append(d, sep) for d in docs]).astype(dtype)
    _, build, build_cpu = timed(lambda: cindex.build_index(flat, tmp / "words"))
    flat = None
    half, w = args.texts // 2, args.text_words
    # a cut text lies within one document
    starts = rng.integers(0, len(docs), size=half)
    cut = [docs[d][(o := int(rng.integers(0, len(docs[d]) - w + 1))) : o + w] for d in starts
           if len(docs[d]) >= w]  # fmt: skip
    fresh = [zipf_ids(w, args.vocab, rng) for _ in range(args.texts - len(cut))]
    texts = [t.astype(np.int64) for t in cut + fresh]
    index = cindex.open(tmp / "words")
    index.longest_matches(texts[:4])  # warm-up: the kernels load
    _, query, query_cpu = timed(lambda: index.longest_matches(texts), args.repeats)
    scores, whole, whole_cpu = timed(lambda: creativity(index, texts), args.repeats)
    never = creativity(index, [np.full(w, args.vocab + 1, dtype=np.int64)])[0]
    ok = bool((scores[: len(cut)] == 0).all() and never == len(LENGTHS))
    return {
        "tokens": n_tokens,
        "texts": len(texts),
        "text_words": w,
        "index_bytes": index.manifest["bytes_on_disk"],
        "build_s": build,
        "build_cpu_s": build_cpu,
        "query_s": query,
        "query_cpu_s": query_cpu,
        "index_s": whole,
        "index_cpu_s": whole_cpu,
        "fresh_mean_index": float(scores[len(cut) :].mean()),
        "cut_mean_index": float(scores[: len(cut)].mean()),
        "ok": ok,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7], help="corpus tokens")
    ap.add_argument("--texts", type=int, default=1000, help="texts scored")
    ap.add_argument("--text-words", type=int, default=256, help="words per text")
    ap.add_argument("--vocab", type=int, default=50000, help="vocabulary size")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats (median)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the corpus and texts")
    ap.add_argument("--tmp", default=None, help="folder for the indexes (default: the system's)")
    ap.add_argument("--out", default=None, help="JSON results file")
    args = ap.parse_args(argv)
    results = []
    for size in args.sizes:
        with tempfile.TemporaryDirectory(dir=args.tmp) as d:
            results.append(one_size(int(size), args, Path(d)))
        print(json.dumps(results[-1]), file=sys.stderr)
    print(f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")  # fmt: skip
    print(f"| tokens | index MB | build s | query s ({args.texts} texts) | Creativity Index s "
          "(query included) | mean index fresh / cut | check |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['tokens']:.0e} | {r['index_bytes'] / 1e6:.0f} | {r['build_s']:.1f} | "
              f"{r['query_s']:.3f} ({r['query_cpu_s']:.3f} CPU) | {r['index_s']:.3f} "
              f"({r['index_cpu_s']:.3f} CPU) | {r['fresh_mean_index']:.2f} / "
              f"{r['cut_mean_index']:.2f} | {'PASS' if r['ok'] else 'FAIL'} |")  # fmt: skip
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
