"""Speed of the contamination lookup (``copyscope report contamination``): a benchmark of
``--items`` items looked up in an index of N tokens, for every N of ``--sizes``.

For each size the script writes a seeded synthetic corpus of N words (Zipf-distributed over a
vocabulary of ``--vocab`` pseudo-words, documents of 2,000 words) and builds the two indexes
the lookup asks: a word index (one token per word, ids by a fixed vocabulary) and the
byte-level index of the text (:func:`copyscope.membership.contamination.build_byte_index`).
The benchmark has ``--items`` items of ``--item-words`` words, half cut from the corpus (dirty
by both rules), half fresh Zipf text. Timed (wall and CPU seconds, median of ``--repeats``):

* ``build_words`` / ``build_bytes``: building each index (once);
* ``lookup``: :func:`copyscope.membership.contamination.lookup_rows` of every item (the word
  index asked twice, as the token and the word index, and the byte index once; encoding and
  the per-item measures included), in a process that has already loaded the kernels (one
  warm-up call first);
* ``query_words`` / ``query_bytes``: the index calls alone (``Index.longest_matches`` of every
  item).

Every item cut from the corpus must come out dirty under both rules and every fresh item
clean under the character rule, else the exit status is 1. Results: a markdown table on
stdout and JSON in ``--out``.

Usage::

    python benchmarks/contamination_bench.py --sizes 1e6 1e7
    python benchmarks/contamination_bench.py --sizes 1e8 --bytes-max 2e8  # 4.9 GB byte index
    python benchmarks/contamination_bench.py --sizes 1e8                  # its word index only
"""

from __future__ import annotations

import argparse
import json
import math
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
from copyscope.membership import contamination as cm  # noqa: E402
from timing import timed, zipf_ids  # noqa: E402

PARAMS = {"ngram": 13, "ngram_unit": "words", "chars": 50, "char_share": 0.8}
DOC_WORDS = 2000


class Words:
    """Whitespace words → ids of a fixed vocabulary (an unknown word: an id outside it)."""

    def __init__(self, vocab: list[str]):
        self.ids = {w: i for i, w in enumerate(vocab)}
        self.unknown = len(vocab)

    def encode(self, text: str) -> np.ndarray:
        get, unknown = self.ids.get, self.unknown
        return np.fromiter((get(w, unknown) for w in text.split()), dtype=np.int64)


def vocabulary(n: int, rng) -> list[str]:
    """``n`` distinct pseudo-words of 2 to 9 lower-case letters."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    out, seen = [], set()
    while len(out) < n:
        w = "".join(rng.choice(letters, size=int(rng.integers(2, 10))))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out








def one_size(n_tokens: int, args, tmp: Path) -> dict:
    rng = np.random.default_rng(args.seed)
    vocab = vocabulary(args.vocab, rng)
    words = np.array(vocab)
    ids = zipf_ids(n_tokens, args.vocab, rng)
    docs = [" ".join(words[ids[a : a + DOC_WORDS]]) for a in range(0, n_tokens, DOC_WORDS)]
    half = args.items // 2
    starts = rng.integers(0, n_tokens - args.item_words, size=half)
    dirty = [" ".join(words[ids[s : s + args.item_words]]) for s in starts]
    # a cut item must not cross a document boundary
    dirty = [
        " ".join(words[ids[s - s % DOC_WORDS : s - s % DOC_WORDS + args.item_words]])
        if s % DOC_WORDS + args.item_words > DOC_WORDS
        else t
        for s, t in zip(starts, dirty, strict=True)
    ]
    fresh = [" ".join(words[zipf_ids(args.item_words, args.vocab, rng)]) for _ in range(half)]
    items = dirty + fresh
    tok = Words(vocab)
    stream = [tok.encode(d) for d in docs]
    sep = np.iinfo(np.uint16 if args.vocab < 65535 else np.uint32)
    flat = np.concatenate([np.append(s, sep.max) for s in stream]).astype(sep.dtype)
    _, build_words, cpu_words = timed(lambda: cindex.build_index(flat, tmp / "words"))
    flat = stream = None  # memory for the byte index
    text_bytes = sum(len(d.encode()) + 1 for d in docs)
    word_index = cindex.open(tmp / "words")
    queries = [tok.encode(t) for t in items]
    word_index.longest_matches(queries[:4])  # warm-up: the kernels load
    _, q_words, _ = timed(lambda: word_index.longest_matches(queries), args.repeats)
    head = {"tokens": n_tokens, "text_bytes": text_bytes, "items": len(items),
            "item_words": args.item_words, "build_words_s": build_words,
            "build_words_cpu_s": cpu_words, "word_index_bytes": word_index.manifest["bytes_on_disk"],
            "query_words_s": q_words}  # fmt: skip
    if n_tokens > args.bytes_max:  # the word index alone: the byte index would not fit here
        found = word_index.longest_matches(queries).split_lengths()
        ok = all(cm.dirty_ngram(cm.window_hits(L, 13)) for L in found[:half])
        return {**head, "ok": ok, "bytes": "skipped (--bytes-max)"}
    _, build_bytes, cpu_bytes = timed(lambda: cm.build_byte_index(docs, tmp / "bytes"))
    docs = None
    byte_index = cindex.open(tmp / "bytes")
    pair = (word_index, tok)
    rows, lookup, cpu_lookup = timed(
        lambda: cm.lookup_rows(items, pair, pair, byte_index, PARAMS), args.repeats
    )
    bq = [cm.utf8_ids(t) for t in items]
    _, q_bytes, _ = timed(lambda: byte_index.longest_matches(bq), args.repeats)
    ok = all(r["dirty_ngram"] and r["dirty_chars"] for r in rows[:half]) and not any(
        r["dirty_chars"] for r in rows[half:]
    )
    return {
        **head,
        "build_bytes_s": build_bytes,
        "build_bytes_cpu_s": cpu_bytes,
        "byte_index_bytes": byte_index.manifest["bytes_on_disk"],
        "lookup_s": lookup,
        "lookup_cpu_s": cpu_lookup,
        "query_bytes_s": q_bytes,
        "dirty_found": sum(r["dirty_chars"] for r in rows[:half]),
        "fresh_flagged_ngram": sum(r["dirty_ngram"] for r in rows[half:]),
        "ok": ok,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7], help="corpus tokens")
    ap.add_argument("--items", type=int, default=1000, help="benchmark items")
    ap.add_argument("--item-words", type=int, default=64, help="words per item")
    ap.add_argument("--vocab", type=int, default=50000, help="vocabulary size")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats (median)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the corpus and items")
    ap.add_argument("--bytes-max", type=float, default=3e7,
                    help="above this many tokens only the word index is built and queried "
                    "(the byte index takes 7 bytes per byte of text, ~50 per token)")  # fmt: skip
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
    print("| tokens | text MB | build words s | build bytes s | byte index MB | lookup s "
          f"({args.items} items) | word query s | byte query s | check |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        b = {k: r.get(k, math.nan) for k in ("build_bytes_s", "byte_index_bytes", "lookup_s",
                                             "query_bytes_s")}  # fmt: skip
        print(f"| {r['tokens']:.0e} | {r['text_bytes'] / 1e6:.1f} | {r['build_words_s']:.1f} | "
              f"{b['build_bytes_s']:.1f} | {b['byte_index_bytes'] / 1e6:.0f} | "
              f"{b['lookup_s']:.2f} | {r['query_words_s']:.3f} | {b['query_bytes_s']:.3f} | "
              f"{'PASS' if r['ok'] else 'FAIL'} |")  # fmt: skip
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
