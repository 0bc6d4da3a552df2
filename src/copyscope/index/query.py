"""What the user commands ``query``, ``trace`` and ``count`` compute and print.

An index records the tokenizer it was built with in ``index.json`` (``tokenizer_dir`` relative
to the index, ``tokenizer_kind``); :func:`open_index` loads it through the tokenizer registry.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .core import Index, maximal_spans


def open_index(index_dir, tokenizer_dir=None, tokenizer_kind: str | None = None):
    """(index, tokenizer or ``None``): the tokenizer given, else the one in ``index.json``;
    its kind is ``tokenizer_kind``, else the manifest's ``tokenizer_kind``, else ``bpe``.

    An index that recorded its tokenizer's fingerprint (``tokenizer_sha256``) refuses another
    tokenizer, and a recorded tokenizer directory that is gone (an index copied elsewhere) is
    an error saying which tokenizer to pass.
    """
    from ..tokenize import load

    index = Index(index_dir)
    m = index.manifest
    directory = tokenizer_dir
    if directory is None and m.get("tokenizer_dir"):
        directory = index.path / m["tokenizer_dir"]
        if not directory.exists():
            raise InputError(
                index.path / "index.json",
                f"its tokenizer {m.get('tokenizer')!r} (kind {m.get('tokenizer_kind')}"
                f"{_fingerprint_hint(m)}) was at {directory}, which does not exist (index copied "
                "or moved?): pass --tokenizer DIR with that tokenizer, or --ids",
            )
    if directory is None:
        return index, None
    tokenizer = load(tokenizer_kind or m.get("tokenizer_kind", "bpe"), directory)
    recorded = m.get("tokenizer_sha256")
    if recorded and tokenizer.fingerprint() != recorded:
        raise InputError(
            directory,
            f"not the tokenizer this index was built with (fingerprint "
            f"{tokenizer.fingerprint()[:12]}): pass --tokenizer DIR with the index's tokenizer "
            f"{m.get('tokenizer')!r} (kind {m.get('tokenizer_kind')}{_fingerprint_hint(m)})",
        )
    return index, tokenizer


def _fingerprint_hint(manifest: dict) -> str:
    sha = manifest.get("tokenizer_sha256")
    return f", fingerprint {sha[:12]}" if sha else ""


def query_ids(tokenizer, text: str | None, ids: str | None, index_dir) -> np.ndarray:
    """The query's token ids: ``ids`` (comma or space separated) if given, else ``text``
    encoded with ``tokenizer`` (an error naming ``index_dir`` when there is none)."""
    if ids is not None:
        return np.array([int(x) for x in ids.replace(",", " ").split()], dtype=np.int64)
    if tokenizer is None:
        raise InputError(
            index_dir, "no tokenizer recorded in index.json: pass --tokenizer or --ids"
        )
    return tokenizer.encode(text)


def pieces(tokenizer, ids) -> list[str]:
    """Each id decoded on its own (the id itself without a tokenizer)."""
    if tokenizer is None:
        return [str(i) for i in ids]
    return [tokenizer.decode([i]) for i in ids]


def query_rows(index: Index, tokenizer, ids: np.ndarray) -> list[dict]:
    """Per position t: the token id, its piece, L_t (longest suffix ending at t that occurs in
    the index) and C_t (its number of occurrences)."""
    L, C = index.longest_matches([ids])[0]
    return [
        {"t": t, "token": int(i), "piece": p, "L": int(x), "C": int(c)}
        for t, (i, p, x, c) in enumerate(zip(ids, pieces(tokenizer, ids), L, C, strict=True))
    ]


def format_query_table(rows: list[dict]) -> str:
    """The rows of :func:`query_rows` as an aligned text table."""
    lines = [f"{'t':>4} {'token':>8}  {'piece':<16} {'L_t':>5} {'C_t':>10}"]
    for r in rows:
        lines.append(f"{r['t']:>4} {r['token']:>8}  {r['piece']!r:<16} {r['L']:>5} {r['C']:>10}")
    return "\n".join(lines)


def trace(index: Index, tokenizer, ids: np.ndarray, min_len: int, limit: int) -> dict:
    """The maximal copied spans of ``ids`` (L_t-runs of at least ``min_len`` tokens, see
    :func:`maximal_spans`): ``pieces``, ``covered`` (per token: inside a span), ``joiner`` (shown
    between pieces) and per span ``start``, ``end``, ``count`` (occurrences in the index),
    ``where`` (up to ``limit`` ``doc@offset`` sources) and ``snippet`` (its text)."""
    L, _ = index.longest_matches([ids])[0]
    spans = maximal_spans(L, min_len)
    parts = pieces(tokenizer, ids)
    covered = np.zeros(len(ids), bool)
    for s, e in spans:
        covered[s:e] = True
    joiner = tokenizer.joiner if tokenizer is not None else " "
    found = [
        {
            "start": s,
            "end": e,
            "count": index.count(ids[s:e]),
            "where": [f"{doc}@{off}" for doc, _, off in index.locate(ids[s:e], limit)],
            "snippet": joiner.join(parts[s:e]).replace("\n", "⏎"),
        }
        for s, e in spans
    ]
    return {"pieces": parts, "covered": covered, "joiner": joiner, "spans": found}


def print_trace(result: dict, min_len: int, plain: bool = False) -> None:
    """Print a :func:`trace`: the text with copied spans highlighted, then one line per span."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, force_terminal=None if not plain else False)
    text = Text()
    for p, c in zip(result["pieces"], result["covered"], strict=True):
        text.append(p + result["joiner"], style="bold black on yellow" if c else "")
    console.print(text)
    console.print(
        f"\n{len(result['spans'])} maximal copied span(s) of ≥ {min_len} tokens "
        f"({result['covered'].mean():.0%} of tokens covered):"
    )
    for sp in result["spans"]:
        console.print(
            f"  [{sp['start']}:{sp['end']}) len {sp['end'] - sp['start']}, {sp['count']} "
            f"occurrence(s): {sp['snippet'][:80]!r}\n      in {', '.join(sp['where'])}"
        )
