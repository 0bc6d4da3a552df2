"""What the user commands ``query``, ``trace`` and ``count`` compute and print.

An index records the tokenizer it was built with in ``index.json`` (``tokenizer_dir`` relative
to the index, ``tokenizer_kind``); :func:`index_tokenizer` loads it through the tokenizer
registry (the index itself is opened by :func:`copyscope.index.open`).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import unicodedata
from pathlib import Path

import numpy as np

from ..errors import CopyscopeError, InputError, check_all
from ..io import json_object, read_lines, read_text_file
from . import open as _open
from .core import Index, maximal_spans
from .spans import OFF, SpanOptions, logprob_sum, select_spans, unigram_logprob


def open_with_tokenizer(
    path, tokenizer_dir=None, tokenizer_kind: str | None = None, token_dtype: str | None = None
):
    """(index, tokenizer or ``None``): :func:`copyscope.index.open` of ``path`` (a folder or
    its ``index.json``, or an infini-gram index folder with its ``token_dtype`` where its
    files leave it open) and its :func:`index_tokenizer`."""
    index = _open(path, token_dtype=token_dtype)
    return index, index_tokenizer(index, tokenizer_dir, tokenizer_kind)


def index_tokenizer(index, tokenizer_dir=None, tokenizer_kind: str | None = None):
    """The tokenizer of an opened index, or ``None``: the tokenizer given, else the one in
    ``index.json``; its kind is ``tokenizer_kind``, else the manifest's ``tokenizer_kind``,
    else ``bpe``.

    An index that recorded its tokenizer's fingerprint (``tokenizer_sha256``) refuses another
    tokenizer, and a recorded tokenizer directory that is gone (an index copied elsewhere) is
    an error saying which tokenizer to pass.
    """
    from ..tokenize import load

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
        return None
    if tokenizer_kind is not None:
        tokenizer = load(tokenizer_kind, directory, "--tokenizer-kind")
    else:
        try:
            tokenizer = load(m.get("tokenizer_kind", "bpe"), directory)
        except CopyscopeError as exc:
            if tokenizer_dir is None or not m.get("tokenizer"):
                raise
            # --tokenizer DIR of another kind (the Moses words for a BPE index): name the
            # index's own tokenizer, not what its kind's loader missed
            raise InputError(
                directory,
                f"not the tokenizer this index was built with (it does not load as kind "
                f"{m.get('tokenizer_kind')}): pass --tokenizer DIR with the index's tokenizer "
                f"{m.get('tokenizer')!r} (kind {m.get('tokenizer_kind')}{_fingerprint_hint(m)}), "
                "or drop --tokenizer",
            ) from exc
    recorded = m.get("tokenizer_sha256")
    if recorded and tokenizer.fingerprint() != recorded:
        raise InputError(
            directory,
            f"not the tokenizer this index was built with (fingerprint "
            f"{tokenizer.fingerprint()[:12]}): pass --tokenizer DIR with the index's tokenizer "
            f"{m.get('tokenizer')!r} (kind {m.get('tokenizer_kind')}{_fingerprint_hint(m)})",
        )
    return tokenizer


def _fingerprint_hint(manifest: dict) -> str:
    sha = manifest.get("tokenizer_sha256")
    return f", fingerprint {sha[:12]}" if sha else ""


def read_text(path) -> str:
    """The text in the file ``path`` (UTF-8: a byte that is not is named by its line,
    :func:`copyscope.io.read_text_file`), or standard input for ``-``."""
    if str(path) == "-":
        return sys.stdin.read()
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found (expected a UTF-8 text file, or - for stdin)")
    return read_text_file(path)


def read_batch(path, text_field: str = "text", id_field: str = "id") -> list[tuple[str, str]]:
    """(id, text) of every text of a batch file: ``.jsonl`` (one JSON object per line with
    ``text_field`` and, optionally, ``id_field``; blank lines skipped) or any other file as
    plain text, one text per line; ids default to the 1-based line number. A file is read
    with :func:`copyscope.io.read_lines`: every bad line is named at once."""
    if str(path) == "-":
        lines = [(f"-:{i}", i, t) for i, t in enumerate(sys.stdin.read().splitlines(), start=1)]
    else:
        if not Path(path).is_file():  # the same message as --file
            raise InputError(path, "file not found (expected a UTF-8 text file, or - for stdin)")
        lines = read_lines(path, lambda where, i, line: (where, i, line), blank=True)
    if not str(path).endswith((".jsonl", ".json")):
        return [(str(i), line) for _, i, line in lines]

    def record(line: tuple[str, int, str]) -> tuple[str, str]:
        where, i, text = line
        row = json_object(text, where)
        if not isinstance(row.get(text_field), str):
            raise InputError(where, f"expected an object with a string {text_field!r}")
        return str(row.get(id_field, i)), row[text_field]

    return check_all([x for x in lines if x[2].strip()], record)


def parse_ids(text: str, tokenizer=None, source: str = "--ids") -> np.ndarray:
    """Token ids written as integers separated by commas or spaces, each in the tokenizer's
    range [0, max_id] (without a tokenizer, the index checks them against its separator)."""
    words = text.replace(",", " ").split()
    bad = next((w for w in words if not w.lstrip("+-").isdigit()), None)
    if bad is not None:
        raise InputError(
            source, f"expected integer token ids separated by commas or spaces, found {bad!r}"
        )
    values = [int(w) for w in words]
    top = tokenizer.max_id if tokenizer is not None else int(np.iinfo(np.int64).max)
    wrong = next((v for v in values if v < 0 or v > top), None)
    if wrong is not None:
        what = f"tokenizer {tokenizer.kind!r} (ids 0..{top})" if tokenizer else "int64 ids"
        raise InputError(source, f"token id {wrong} is outside the range of {what}")
    if not values:
        raise InputError(source, "no token ids given: nothing to look up")
    return np.array(values, dtype=np.int64)


def query_inputs(a, tokenizer, index_dir) -> list[tuple[str | None, np.ndarray]]:
    """(id, token ids) of every query of the parsed arguments ``a``: ``--ids``, ``--text``,
    ``--file`` (one text; id ``None``) or ``--batch`` (one per text). A single text without
    tokens is an error; a batch keeps it as an empty query."""
    if a.ids is not None:
        return [(None, parse_ids(a.ids, tokenizer))]
    if tokenizer is None:
        from .infinigram import is_infinigram

        if is_infinigram(index_dir):
            raise InputError(
                index_dir,
                "an infini-gram index records no tokenizer: pass --tokenizer DIR (with "
                "--tokenizer-kind) of the tokenizer it was built with, or --ids",
            )
        raise InputError(
            index_dir, "no tokenizer recorded in index.json: pass --tokenizer or --ids"
        )
    if getattr(a, "tags", None) is not None:
        if tokenizer.name != "pos":
            raise InputError(
                index_dir,
                f"a POS-tag index (tokenizer kind pos) for --tags, found {tokenizer.kind!r}",
            )
        return [(None, tokenizer.encode(a.tags))]
    if a.batch is not None:
        items = read_batch(a.batch, a.text_field, a.id_field)
        return [(i, tokenizer.encode(t)) for i, t in items]
    text = a.text if a.text is not None else read_text(a.file)
    ids = tokenizer.encode(text)
    if ids.size == 0:
        source = "--text" if a.text is not None else a.file
        raise InputError(source, "the text is empty (no tokens): nothing to look up")
    return [(None, ids)]


def printable(text: str) -> str:
    """``text`` with control and format characters other than the line break escaped
    (``\\x1b``, ``\\u200b``), so printing a piece never moves the cursor or recolours."""
    return "".join(
        c if c == "\n" or unicodedata.category(c) not in ("Cc", "Cf") else repr(c)[1:-1]
        for c in text
    )


def pieces(tokenizer, ids) -> list[str]:
    """Each id on its own, printable (:func:`printable`; the id itself without a tokenizer)."""
    if tokenizer is None:
        return [str(i) for i in ids]
    return [printable(tokenizer.piece(int(i))) for i in ids]


def query_rows(index: Index, tokenizer, ids: np.ndarray) -> list[dict]:
    """Per position t: the token id, its piece, L_t (longest suffix ending at t that occurs in
    the index) and C_t (its number of occurrences)."""
    L, C = index.longest_matches([ids])[0]
    return [
        {"t": t, "token": int(i), "piece": p, "L": int(x), "C": int(c)}
        for t, (i, p, x, c) in enumerate(zip(ids, pieces(tokenizer, ids), L, C, strict=True))
    ]


def batch_rows(
    index: Index, tool: str, items, min_len: int = 8, options: SpanOptions = OFF
) -> list[dict]:
    """One row per query of ``items`` ((id, token ids)): ``tokens`` and, for ``query``,
    ``mean_L`` and ``max_L`` (mean and largest L_t); for ``count``, ``count`` (occurrences of
    the whole text); for ``trace``, ``spans`` (the spans shown: :func:`traced_spans`) and
    ``covered`` (share of tokens inside one). An empty query gets empty values."""
    return _batch(index, tool, items, min_len, options)[0]


def _batch(index: Index, tool: str, items, min_len: int, options: SpanOptions):
    """:func:`batch_rows`, the matches (not for ``count``) and, for ``trace``, each text's
    :func:`traced_spans` (so that :func:`trace_batch_rows` computes them once)."""
    matches = index.longest_matches([ids for _, ids in items]) if tool != "count" else None
    counts = index.count_many([ids for _, ids in items]) if tool == "count" else None
    rows, traced = [], []
    for k, (name, ids) in enumerate(items):
        row: dict = {"id": name, "tokens": int(len(ids))}
        empty = len(ids) == 0
        if tool == "count":
            row["count"] = None if empty else int(counts[k])
        elif tool == "query":
            L = matches[k][0]
            row["mean_L"] = None if empty else float(L.mean())
            row["max_L"] = None if empty else int(L.max())
        else:
            traced.append(traced_spans(index, ids, *matches[k], min_len, options))
            spans = traced[-1][0]
            row["spans"] = len(spans)
            row["covered"] = None if empty else sum(e - s for s, e in spans) / len(ids)
        rows.append(row)
    return rows, matches, traced


def format_rows(rows: list[dict], fmt: str) -> str:
    """Rows as ``csv`` (header from the first row's keys; empty values empty), ``json`` (one
    list) or ``table`` (aligned columns)."""
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False)
    columns = list(rows[0]) if rows else []
    cells = [[_cell(r[c]) for c in columns] for r in rows]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(cells)
        return buf.getvalue().rstrip("\n")
    widths = [max([len(c)] + [len(row[j]) for row in cells]) for j, c in enumerate(columns)]
    lines = [" ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))]
    lines += [" ".join(x.rjust(w) for x, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return printable(str(value)).replace("\n", "\\n")


def query_output(index: Index, tokenizer, items, fmt: str, batch: bool) -> str:
    """What ``query`` prints: one row per text of a batch (:func:`batch_rows`), else one row
    per token of the one query (:func:`query_rows`), in the format ``fmt``."""
    if batch:
        return format_rows(batch_rows(index, "query", items), fmt)
    rows = query_rows(index, tokenizer, items[0][1])
    return format_query_table(rows) if fmt == "table" else format_rows(rows, fmt)


def format_query_table(rows: list[dict]) -> str:
    """The rows of :func:`query_rows` as an aligned text table."""
    lines = [f"{'t':>4} {'token':>8}  {'piece':<16} {'L_t':>5} {'C_t':>10}"]
    for r in rows:
        piece = "'" + r["piece"].replace("\n", "\\n") + "'"
        lines.append(f"{r['t']:>4} {r['token']:>8}  {piece:<16} {r['L']:>5} {r['C']:>10}")
    return "\n".join(lines)


def token_logprobs(index: Index, ids) -> np.ndarray:
    """The unigram log-probability ln(c/N) of every token of ``ids`` from the index's own
    counts (:func:`~copyscope.index.spans.unigram_logprob`; one batched count of the distinct
    ids)."""
    ids = np.asarray(ids, dtype=np.int64)
    distinct, where = np.unique(ids, return_inverse=True)
    counts = index.count_many(distinct.reshape(-1, 1))
    return unigram_logprob(counts, index.n_tokens)[where.reshape(-1)]


def traced_spans(
    index: Index, ids, L, C, min_len: int, options: SpanOptions = OFF
) -> tuple[list[tuple[int, int]], list[float] | None]:
    """The spans a trace shows, in text order, and their unigram log-probability sums (when
    ranked by them, else ``None``): the maximal copied spans of at least ``min_len`` tokens
    (:func:`maximal_spans` of L_t; the span ending at t occurs C_t times) that
    :func:`~copyscope.index.spans.select_spans` keeps under ``options``."""
    spans = maximal_spans(L, min_len)
    sums = None
    if options.needs_logprobs:
        logp = token_logprobs(index, ids) if spans else np.zeros(0)
        sums = [logprob_sum(logp, s, e) for s, e in spans]
    if not options.filters:
        return spans, sums
    keep = select_spans(spans, [int(C[e - 1]) for _, e in spans], len(ids), options, sums)
    return [spans[i] for i in keep], None if sums is None else [sums[i] for i in keep]


def trace(
    index: Index,
    tokenizer,
    ids: np.ndarray,
    min_len: int,
    limit: int,
    options: SpanOptions = OFF,
) -> dict:
    """The copied spans of ``ids`` shown (:func:`traced_spans`: the maximal L_t-runs of at
    least ``min_len`` tokens, filtered by ``options``): ``pieces``, ``covered`` (per token:
    inside a span), ``joiner`` (shown between pieces) and per span the
    :func:`span_details`."""
    L, C = index.longest_matches([ids])[0]
    spans, sums = traced_spans(index, ids, L, C, min_len, options)
    parts = pieces(tokenizer, ids)
    covered = np.zeros(len(ids), bool)
    for s, e in spans:
        covered[s:e] = True
    joiner = tokenizer.joiner if tokenizer is not None else " "
    found = span_details(index, ids, spans, parts, joiner, limit, options.docs_per_span, sums)
    return {"pieces": parts, "covered": covered, "joiner": joiner, "spans": found}


def span_details(
    index: Index, ids, spans, parts, joiner: str, limit: int, docs: int | None = None, sums=None
) -> list[dict]:
    """Per span [s, e) of ``ids``: ``start``, ``end``, ``count`` (occurrences in the index),
    ``where`` (``doc@offset`` sources: the first ``limit`` occurrences, or with ``docs`` one
    occurrence in each of up to ``docs`` documents, :meth:`Index.locate_documents`),
    ``snippet`` (its pieces joined) and, given ``sums``, ``unigram_logprob_sum``; counts and
    sources of all spans in one batched call each."""
    ngrams = [ids[s:e] for s, e in spans]
    counts = index.count_many(ngrams)
    if docs is None:
        where = index.locate_many(ngrams, limit)
    else:
        where = index.locate_documents(ngrams, docs)
    out = [
        {
            "start": s,
            "end": e,
            "count": int(c),
            "where": [f"{doc}@{off}" for doc, _, off in w],
            "snippet": joiner.join(parts[s:e]).replace("\n", "⏎"),
        }
        for (s, e), c, w in zip(spans, counts, where, strict=True)
    ]
    for row, x in zip(out, sums if sums is not None else [], strict=False):
        row["unigram_logprob_sum"] = x
    return out


def trace_batch_rows(
    index: Index, tokenizer, items, min_len: int, limit: int, options: SpanOptions = OFF
) -> list[dict]:
    """``trace --batch --format json``: the rows of :func:`batch_rows` (``spans`` is the
    number of spans), each with the text itself, for the explorer page to show: ``pieces``,
    ``joiner``, ``L`` (L_t per token) and ``copied`` (:func:`span_details` of every span
    shown)."""
    rows, matches, traced = _batch(index, "trace", items, min_len, options)
    joiner = tokenizer.joiner if tokenizer is not None else " "
    for k, (row, (_, ids)) in enumerate(zip(rows, items, strict=True)):
        L = matches[k][0]
        spans, sums = traced[k]
        parts = pieces(tokenizer, ids)
        row["pieces"] = parts
        row["joiner"] = joiner
        row["L"] = [int(x) for x in L]
        row["copied"] = span_details(
            index, ids, spans, parts, joiner, limit, options.docs_per_span, sums
        )
    return rows


def print_trace(
    result: dict, min_len: int, plain: bool = False, options: SpanOptions = OFF
) -> None:
    """Print a :func:`trace`: the text with copied spans highlighted, then one line per span
    (the options that are on named in the heading)."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, markup=False, force_terminal=False if plain else None)
    text = Text()
    for p, c in zip(result["pieces"], result["covered"], strict=True):
        text.append(p + result["joiner"], style="bold black on yellow" if c else "")
    console.print(text)
    chosen = options.describe()
    console.print(
        f"\n{len(result['spans'])} maximal copied span(s) of ≥ {min_len} tokens"
        + (f", {chosen}" if chosen else "")
        + f" ({result['covered'].mean():.0%} of tokens covered):"
    )
    for sp in result["spans"]:
        rarity = (
            f", unigram log-prob sum {sp['unigram_logprob_sum']:.2f}"
            if "unigram_logprob_sum" in sp
            else ""
        )
        console.print(
            f"  [{sp['start']}:{sp['end']}) len {sp['end'] - sp['start']}, {sp['count']} "
            f"occurrence(s){rarity}: {sp['snippet'][:80]!r}\n      in {', '.join(sp['where'])}"
        )
