"""``copyscope index …`` (stage commands) and the user commands ``query``, ``trace``, ``count``::

copyscope index build TOKENS.npy OUT_DIR [--shard-tokens N]
copyscope index verify INDEX_DIR
copyscope query INDEX --text "..."      # per-token L_t and C_t (or --file PATH, - for stdin)
copyscope trace INDEX --text "..."      # maximal copied spans and where they come from
copyscope count INDEX --text "..."      # occurrences of the whole text as one n-gram
copyscope count results/index/pos --tags "DT JJ NN"   # a POS n-gram in a POS-tag index
copyscope query INDEX --batch texts.jsonl --format csv   # one row per text
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ..clikit import add_command, add_group

log = logging.getLogger("copyscope")


def cmd_build(a):
    from .build import build_index_from_files, tokenizer_entry

    tok = a.tokenizer and tokenizer_entry(
        a.tokenizer, a.tokenizer_name, a.tokenizer_kind, Path(a.out) / "index.json"
    )
    m = build_index_from_files(a.tokens, a.out, a.meta, a.join_documents, a.shard_tokens, tok)
    keys = ("n_tokens", "n_docs", "bytes_per_token", "shards")
    print(json.dumps({k: m[k] for k in keys}, indent=2))


def cmd_verify(a):
    from ..errors import InputError
    from .verify import verify_index, verify_problems

    rows = verify_index(a.index)
    for path, status in rows:
        label, _, why = status.partition(": ")  # DAMAGED: what is wrong with the file
        print(f"{label:<12} {path}" + (f" ({why})" if why else ""))
    problem = verify_problems(rows)
    if problem:
        raise InputError(a.index, problem)
    log.info("%s: all %d files match their recorded sha256", a.index, len(rows))


def cmd_plan(a):
    from ..io import read_json, write_json
    from .build import plan_shards

    plan = plan_shards(read_json(a.meta)["doc_lengths"], a.shard_tokens)
    write_json(a.out, plan)
    log.info("%d shard(s) of at most %d tokens", len(plan["shards"]), a.shard_tokens)


def cmd_shard(a):
    from .build import build_planned_shard

    m = build_planned_shard(a.tokens, a.meta, a.plan, a.shard, a.out)
    log.info(
        "%s: %d tokens, %.2f bytes/token, %.2f s",
        a.shard,
        m["n_tokens"],
        m["bytes_per_token"],
        m["build_seconds"]["total"],
    )


def cmd_manifest(a):
    from .build import planned_shard_dirs, tokenizer_entry, write_manifest

    tok = a.tokenizer and tokenizer_entry(a.tokenizer, a.tokenizer_name, a.tokenizer_kind, a.out)
    m = write_manifest(a.out, planned_shard_dirs(a.plan, a.shards), tok or {})
    log.info("%s: %d shard(s), %d tokens", a.out, len(m["shards"]), m["n_tokens"])


def cmd_link(a):
    from .build import link_index, link_infinigram, tokenizer_entry

    tok = tokenizer_entry(a.tokenizer, a.tokenizer_name, a.tokenizer_kind, a.out)
    if a.format == "infini-gram":
        m = link_infinigram(a.index, a.out, tok, a.token_dtype)
        how = f"checked the infini-gram index {a.index}"
    else:
        m = link_index(a.index, a.out, tok)
        how = f"verified {a.index} ({len(m['shards'])} shard(s))"
    log.info("%s: %s (%d tokens) and linked it", a.out, how, m["n_tokens"])


def cmd_shard_matches(a):
    from .fanout import shard_matches_file

    m = shard_matches_file(a.shard, a.queries, a.out)
    log.info("%s: L_t/C_t of %d query tokens", a.shard, len(m.length))


def cmd_merge_matches(a):
    from .fanout import merge_matches_files

    m = merge_matches_files(a.index, a.parts, a.out)
    log.info("%s: %d shard(s) merged, %d query tokens", a.out, len(a.parts), len(m.length))


def cmd_query(a):
    from .query import open_with_tokenizer, query_inputs, query_output

    index, tok = open_with_tokenizer(a.index, a.tokenizer, a.tokenizer_kind, a.token_dtype)
    items = query_inputs(a, tok, a.index)
    fmt = "json" if a.json else a.format
    print(query_output(index, tok, items, fmt, batch=a.batch is not None))


def cmd_count(a):
    from .query import batch_rows, format_rows, open_with_tokenizer, query_inputs

    index, tok = open_with_tokenizer(a.index, a.tokenizer, a.tokenizer_kind, a.token_dtype)
    items = query_inputs(a, tok, a.index)
    if a.batch is not None:
        print(format_rows(batch_rows(index, "count", items), a.format))
    else:
        print(index.count(items[0][1]))


def cmd_trace(a):
    from . import query as q
    from .spans import SpanOptions

    opts = SpanOptions(a.max_span_count, a.max_span_density, a.rank_spans_by, a.docs_per_span)
    index, tok = q.open_with_tokenizer(a.index, a.tokenizer, a.tokenizer_kind, a.token_dtype)
    items = q.query_inputs(a, tok, a.index)
    if a.batch is not None and a.format == "json":  # with the texts: the explorer opens it
        rows = q.trace_batch_rows(index, tok, items, a.min_len, a.limit, opts)
        print(q.format_rows(rows, "json"))
    elif a.batch is not None:
        print(q.format_rows(q.batch_rows(index, "trace", items, a.min_len, opts), a.format))
    else:
        result = q.trace(index, tok, items[0][1], a.min_len, a.limit, opts)
        q.print_trace(result, a.min_len, a.plain, opts)


def add_span_options(parser, limit_flag: str = "--limit") -> None:
    """The span options of ``trace`` and ``explore`` (:mod:`copyscope.index.spans`, after
    OLMoTrace): every one off by default, which lists every maximal span as before."""
    from .spans import RANKINGS

    parser.add_argument(
        "--max-span-count",
        type=int,
        metavar="F",
        help="only spans found at most F times in the index: the rare ones (OLMoTrace's "
        "maximum frequency; default: every count)",
    )
    parser.add_argument(
        "--max-span-density",
        type=float,
        metavar="D",
        help="at most ceil(D x tokens) spans per text, the best by --rank-spans-by "
        "(OLMoTrace uses 0.05; default: no cap)",
    )
    parser.add_argument(
        "--rank-spans-by",
        choices=RANKINGS,
        default="length",
        help="which spans the density cap keeps: the longest (length, default) or those whose "
        "tokens are rarest in the index (unigram_logprob_sum: the lowest sum of ln(count/N) "
        "over the span's tokens; the sum is shown with each span)",
    )
    parser.add_argument(
        "--docs-per-span",
        type=int,
        metavar="N",
        help=f"list one occurrence in each of up to N different documents per span, instead "
        f"of the first {limit_flag} occurrences (default: off)",
    )


def _add_query_args(parser) -> None:
    parser.add_argument(
        "index",
        help="index directory (holding index.json) or its index.json, or an infini-gram index "
        "folder (tokenized.*, table.*, offset.*)",
    )
    one = parser.add_mutually_exclusive_group(required=True)
    one.add_argument("--text", help="the query text (encoded with the index's tokenizer)")
    one.add_argument(
        "--file", metavar="PATH", help="read the query text from a UTF-8 file (- for stdin)"
    )
    one.add_argument("--ids", help="the query as token ids, comma or space separated")
    one.add_argument(
        "--tags", help='the query as POS tags, e.g. "DT JJ NN" (an index of tokenizer kind pos)'
    )
    one.add_argument(
        "--batch",
        metavar="PATH",
        help="many texts, one result row each: .jsonl (one object per line) or plain text "
        "(one text per line); - for stdin (plain text)",
    )
    parser.add_argument(
        "--text-field", default="text", help="--batch .jsonl: the key of the text (default text)"
    )
    parser.add_argument(
        "--id-field",
        default="id",
        help="--batch .jsonl: the key of the row id (default id; else the line number)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="output format of the rows (default table)",
    )
    parser.add_argument(
        "--tokenizer", metavar="DIR", help="tokenizer directory (default: the one in index.json)"
    )
    parser.add_argument(
        "--tokenizer-kind",
        metavar="KIND",
        help="kind of --tokenizer, e.g. bpe, moses (default: the one in index.json, else bpe)",
    )
    parser.add_argument(
        "--token-dtype",
        choices=("u8", "u16", "u32"),
        help="an infini-gram index: its token width (default: the one its file sizes imply)",
    )


def register_tools(sub) -> None:
    """The user commands ``query``, ``trace`` and ``count`` (top level)."""
    for name, func, help_text in (
        ("query", cmd_query, "per-token non-novel suffix length L_t and count C_t"),
        ("trace", cmd_trace, "highlight maximal copied spans and the documents they come from"),
        ("count", cmd_count, "occurrences of the text (as one n-gram)"),
    ):
        f = sub.add_parser(name, help=help_text, description=help_text)
        _add_query_args(f)
        f.set_defaults(func=func)
    sub.choices["query"].add_argument(
        "--json", action="store_true", help="the same as --format json"
    )
    trace_parser = sub.choices["trace"]
    trace_parser.add_argument(
        "--min-len", type=int, default=8, help="shortest span shown, in tokens (default 8)"
    )
    trace_parser.add_argument(
        "--limit", type=int, default=3, help="source occurrences shown per span (default 3; or --docs-per-span)"
    )
    add_span_options(trace_parser)
    trace_parser.add_argument("--plain", action="store_true", help="no colours")


def register(sub) -> None:
    g = add_group(sub, "index", "suffix-array index: plan, shards, manifest; whole-index build")
    f = add_command(g, "build", cmd_build, "build a complete index from a token stream")
    f.add_argument("tokens", help="token stream (.npy, uint16/uint32, documents + separators)")
    f.add_argument("out", help="index directory to write (shards and index.json)")
    f.add_argument("--meta", help="tokenized split metadata (.json) with document ids")
    f.add_argument(
        "--join-documents",
        action="store_true",
        help="index the documents as one stream (RAVEN: n-grams may cross documents)",
    )
    f.add_argument(
        "--shard-tokens", type=int, help="at most this many tokens per shard (default: one shard)"
    )
    _add_tokenizer_record(f)
    f = add_command(
        g, "verify", cmd_verify, "check the sha256 of every file of an index (after copying it)"
    )
    f.add_argument("index", help="index directory (holding index.json) or one shard directory")
    f = add_command(g, "plan", cmd_plan, "split the training stream into shards (plan.json)")
    f.add_argument("--meta", required=True, help="tokenized split metadata (.json)")
    f.add_argument(
        "--shard-tokens", type=int, required=True, help="at most this many tokens per shard"
    )
    f.add_argument("--out", required=True, help="the plan to write (.json)")
    f = add_command(g, "shard", cmd_shard, "build one shard of the plan")
    f.add_argument("--tokens", required=True, help="token stream of the split (.npy)")
    f.add_argument("--meta", required=True, help="tokenized split metadata (.json)")
    f.add_argument("--plan", required=True, help="shard plan (.json, from index plan)")
    f.add_argument("--shard", required=True, help="name of the shard in the plan (shard-NNN)")
    f.add_argument("--out", required=True, help="shard directory to write")
    f = add_command(g, "manifest", cmd_manifest, "write index.json listing the built shards")
    f.add_argument("--plan", required=True, help="shard plan (.json, from index plan)")
    f.add_argument("--shards", nargs="+", required=True, help="every shard directory of the plan")
    f.add_argument("--out", required=True, help="the manifest to write (index.json)")
    _add_tokenizer_record(f)
    f = add_command(
        g,
        "link",
        cmd_link,
        "verify an index built elsewhere and write a manifest that uses it (workflow: "
        "tokenizers.<name>.index)",
    )
    f.add_argument("--index", required=True, help="the index directory built elsewhere")
    f.add_argument("--out", required=True, help="the manifest to write (index.json)")
    f.add_argument(
        "--format",
        choices=("copyscope", "infini-gram"),
        default="copyscope",
        help="the index's format (default copyscope; infini-gram: its folder of tokenized.*, "
        "table.*, offset.* files)",
    )
    f.add_argument(
        "--token-dtype",
        choices=("u8", "u16", "u32"),
        help="an infini-gram index: its token width (default: the one its file sizes imply)",
    )
    _add_tokenizer_record(f, required=True)
    f = add_command(
        g, "shard-matches", cmd_shard_matches, "L_t/C_t of a query set against one shard (fan-out)"
    )
    f.add_argument("--shard", required=True, metavar="DIR", help="one shard directory")
    f.add_argument("--queries", required=True, help="the text set's queries (.npz)")
    f.add_argument("--out", required=True, help="the shard's matches to write (.npz)")
    f = add_command(
        g, "merge-matches", cmd_merge_matches, "merge per-shard matches exactly (fan-out)"
    )
    f.add_argument("--index", required=True, metavar="DIR", help="the index the shards form")
    f.add_argument("--parts", nargs="+", required=True, help="every shard's matches (.npz)")
    f.add_argument("--out", required=True, help="the merged matches to write (.npz)")


def _add_tokenizer_record(parser, required: bool = False) -> None:
    """The flags naming the tokenizer an index records (for ``query``, ``trace``, ``count``)."""
    parser.add_argument(
        "--tokenizer",
        metavar="DIR",
        required=required,
        help="tokenizer directory the token ids come from",
    )
    parser.add_argument(
        "--tokenizer-name", default="tokenizer", help="its name under tokenizers: in the config"
    )
    parser.add_argument(
        "--tokenizer-kind", default="bpe", help="its kind (bpe, moses, hf:<dir>, …)"
    )
