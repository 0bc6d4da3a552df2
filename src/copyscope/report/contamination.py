"""Benchmark contamination looked up in the training data
(:mod:`copyscope.membership.contamination` for the definitions and sources).

Every item of the planted contamination set (``corpus.inject.contamination``: its planted and
unplanted items, and the memorised and clean baseline passages) and of every own benchmark
(``analysis.membership.benchmarks``, each item formatted into one text as the perplexity audit
scores it, :func:`copyscope.membership.own_benchmarks.format_item`) is looked up in the
training split: in the trained models' tokens (the token index), in Moses words (the run's
word index) and in characters (a byte-level index of the training text that this job builds,
:func:`copyscope.membership.contamination.build_byte_index`). Tables:

* ``contamination_items`` — per item: the share of its n-gram windows found (tokens, words),
  of its character windows found, its longest match in each unit, both dirty flags
  (``dirty_ngram``: GPT-3's any-13-gram rule; ``dirty_chars``: infini-gram mini's 80%-of-50-
  character-windows rule) and ``dirty`` by the configured rule
  (``analysis.contamination.rule``);
* ``contamination_rates`` — per benchmark and group (planted set: planted, unplanted,
  memorised, clean; own benchmark: all items, and label 1 / label 0 with labels; and per
  format over every own benchmark of that format), per rule: the dirty rate with its 95%
  Wilson interval;
* ``contamination_known`` — the known answers: per rule, on the planted set (planted items
  positive, unplanted negative; the memorised and clean baselines as a second pair) and on
  every labelled own benchmark (label 1 positive): true and false positives and negatives,
  the false-negative and false-positive rates with their 95% Wilson intervals, and precision.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import read_json, read_jsonl, write_csv
from ..membership import contamination as cm
from . import fmt
from .jobs import Input, Output, Params, fixed

log = logging.getLogger(__name__)

NAME = "contamination"
HELP = "benchmark contamination looked up in the training data (13-gram and 50-character rules)"
INPUTS = {
    "train": Input(
        ("SPLIT",),
        "corpus train.jsonl (the training text of the byte-level index)",
        files=fixed("train", "corpus/train.jsonl"),
    ),
    "token_index": Input(
        ("UNIT",),
        "the token index of the trained models' tokenizer (its folder; records its tokenizer)",
        files=lambda p: (["tokens"], [p.index_file(p.model_tok)]),
        directory=True,
    ),
    "word_index": Input(
        ("UNIT",),
        "the run's word index (its folder)",
        files=lambda p: (["words"], [p.index_file(p.word_index)]),
        directory=True,
    ),
    "word_tokenizer": Input(
        ("UNIT",),
        "the Moses word tokenizer of the word index (its folder)",
        files=lambda p: (["words"], [f"{p.results}/tokenizers/{p.words}"]),
    ),
    "manifest": Input(
        ("SPLIT",),
        "corpus manifest.json (the planted contamination set, corpus.inject.contamination)",
        files=fixed("corpus", "corpus/manifest.json", when="contamination"),
    ),
    # the rule input "files" ("items" names a method of Snakemake's input list)
    "files": Input(
        ("BENCHMARK", "FORMAT"),
        "an own benchmark's JSONL file (analysis.membership.benchmarks)",
        files=lambda p: (
            [(b, spec["format"]) for b, spec in p.own_benchmarks.items()],
            [spec["path"] for spec in p.own_benchmarks.values()],
        ),
        flag="items",
    ),
}
OUTPUTS = {  # "items" names a method of Snakemake's output list: the per-item table is "table"
    "table": Output(
        "tables/contamination_items.csv",
        "per item: n-gram and character windows found, longest matches, dirty flags (.csv)",
        "contamination",
        "related",
    ),
    "rates": Output(
        "tables/contamination_rates.csv",
        "dirty rate per benchmark, group and rule with Wilson 95 percent intervals (.csv)",
        "contamination",
        "related",
    ),
    "known": Output(
        "tables/contamination_known.csv",
        "known answers: false-negative and false-positive rates per rule (.csv)",
        "contamination",
        "related",
    ),
    "fig": Output(
        "figures/contamination.png",
        "figure: share of 50-character windows found per item, dirty rates per group (.png)",
        "contamination",
        "related",
    ),
}
PARAMS = Params(
    "the config block analysis.contamination",
    of=lambda p: p.config["analysis"]["contamination"],
)
SUMMARY_TABLES = ("contamination_rates", "contamination_known")

PLANTED = "(planted)"
"""The benchmark name of the planted contamination set (not a valid own benchmark name)."""
BY_FORMAT = "(own, by format)"
"""The benchmark name of the rows that pool every own benchmark of one format."""

ITEM_COLUMNS = ["benchmark", "format", "set", "group", "id", "label", "copies",
                *cm.COLUMNS, "dirty"]  # fmt: skip
RATE_COLUMNS = ["benchmark", "format", "group", "rule", "n", "dirty", "rate", "rate_lo", "rate_hi"]
KNOWN_COLUMNS = [
    "benchmark", "positive", "negative", "rule", "tp", "fn", "fp", "tn",
    "fnr", "fnr_lo", "fnr_hi", "fpr", "fpr_lo", "fpr_hi", "recall", "precision",
]  # fmt: skip
KNOWN_PAIRS = {
    PLANTED: (("planted", "unplanted"), ("memorised", "clean")),
    "own": (("label 1", "label 0"),),
}
"""The (positive group, negative group) pairs of the known-answer table: for the planted set
planted vs unplanted items and memorised vs clean baseline passages; for a labelled own
benchmark label 1 vs label 0."""


def rule_label(rule: str, params: Mapping) -> str:
    """A rule's name with the run's n, window and share (e.g. ``13-gram overlap (words)``)."""
    if rule == "ngram":
        return f"{params['ngram']}-gram overlap ({params['ngram_unit']})"
    return f"{params['char_share']:.0%} of {params['chars']}-char windows"


def planted_items(manifest: Mapping, where: str) -> list[dict]:
    """The texts of the planted contamination set (:func:`copyscope.membership.stage.
    contamination_texts`) as items: ``group`` planted / unplanted for the set's items,
    memorised / clean for the baselines; ``label`` 1 for text in training."""
    from ..membership.stage import contamination_texts

    out = []
    for t in contamination_texts(manifest, where):
        if t["set"] == "contamination":
            group = "planted" if t["planted"] else "unplanted"
        else:
            group = t["set"]
        out.append(
            {
                "benchmark": PLANTED,
                "format": "text",
                "set": t["set"],
                "group": group,
                "id": str(t["id"]),
                "label": int(t["planted"]),
                "copies": int(t["copies"]),
                "text": t["text"],
            }
        )
    return out


def own_items(files) -> list[dict]:
    """The items of every own benchmark ``(benchmark, format, path)``
    (:func:`copyscope.membership.own_benchmarks.read_benchmark`): ``group`` ``label 1`` /
    ``label 0`` with labels, ``all`` without."""
    from ..membership.own_benchmarks import read_benchmark

    out = []
    for bench, form, path in files:
        rows, labelled = read_benchmark(path, form)
        for r in rows:
            label = r.get("label") if labelled else None
            group = f"label {label}" if labelled else "all"
            out.append(
                {
                    "benchmark": bench,
                    "format": form,
                    "set": "benchmark",  # an own benchmark's item
                    "group": group,
                    "id": r["id"],
                    "label": label,
                    "copies": None,
                    "text": r["text"],
                }
            )
    return out


def lookup_table(items: list[dict], token, word, byte_index, params: Mapping) -> pd.DataFrame:
    """:data:`ITEM_COLUMNS` of every item (:func:`copyscope.membership.contamination.
    lookup_rows`), ``dirty`` the flag of the configured rule."""
    if not items:
        return pd.DataFrame(columns=ITEM_COLUMNS)
    rows = cm.lookup_rows([i["text"] for i in items], token, word, byte_index, params)
    frame = pd.DataFrame(
        [{k: v for k, v in i.items() if k != "text"} | r for i, r in zip(items, rows, strict=True)]
    )
    frame["dirty"] = frame[f"dirty_{params['rule']}"]
    frame["label"] = frame["label"].astype("Int64")
    frame["copies"] = frame["copies"].astype("Int64")
    return frame[ITEM_COLUMNS]


def _rate_rows(g: pd.DataFrame, head: dict) -> list[dict]:
    rows = []
    for rule in cm.RULES:
        k, n = int(g[f"dirty_{rule}"].sum()), len(g)
        rate, lo, hi = cm.dirty_rate(k, n)
        rows.append({**head, "rule": rule, "n": n, "dirty": k, "rate": rate, "rate_lo": lo, "rate_hi": hi})
    return rows


def rates_table(items: pd.DataFrame) -> pd.DataFrame:
    """:data:`RATE_COLUMNS`: per benchmark and group, and per benchmark over all its items
    (group ``all``, where it has more than one group besides the planted set's baselines),
    and per format pooled over the own benchmarks (benchmark :data:`BY_FORMAT`), per rule:
    the dirty rate with its 95% Wilson interval."""
    rows = []
    for bench, b in items.groupby("benchmark", sort=False):
        head = {"benchmark": bench, "format": b["format"].iloc[0]}
        groups = list(dict.fromkeys(b["group"]))
        for group in groups:
            rows += _rate_rows(b[b["group"] == group], {**head, "group": group})
        if bench != PLANTED and groups != ["all"]:
            rows += _rate_rows(b, {**head, "group": "all"})
    own = items[items["benchmark"] != PLANTED]
    for form, f in own.groupby("format", sort=False):
        rows += _rate_rows(f, {"benchmark": BY_FORMAT, "format": form, "group": "all"})
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def known_rows(items: pd.DataFrame) -> pd.DataFrame:
    """:data:`KNOWN_COLUMNS`: per pair of :data:`KNOWN_PAIRS` present and per rule, the
    confusion counts (dirty = flagged positive), the false-negative rate (positives not
    flagged) and the false-positive rate (negatives flagged) with 95% Wilson intervals,
    recall and precision (NaN when nothing is flagged)."""
    rows = []
    for bench, b in items.groupby("benchmark", sort=False):
        for pos, neg in KNOWN_PAIRS[PLANTED if bench == PLANTED else "own"]:
            p, q = b[b["group"] == pos], b[b["group"] == neg]
            if not len(p) or not len(q):
                continue
            for rule in cm.RULES:
                tp, fp = int(p[f"dirty_{rule}"].sum()), int(q[f"dirty_{rule}"].sum())
                fn, tn = len(p) - tp, len(q) - fp
                fnr, fnr_lo, fnr_hi = cm.dirty_rate(fn, len(p))
                fpr, fpr_lo, fpr_hi = cm.dirty_rate(fp, len(q))
                rows.append(
                    {
                        "benchmark": bench,
                        "positive": pos,
                        "negative": neg,
                        "rule": rule,
                        "tp": tp,
                        "fn": fn,
                        "fp": fp,
                        "tn": tn,
                        "fnr": fnr,
                        "fnr_lo": fnr_lo,
                        "fnr_hi": fnr_hi,
                        "fpr": fpr,
                        "fpr_lo": fpr_lo,
                        "fpr_hi": fpr_hi,
                        "recall": tp / len(p),
                        "precision": tp / (tp + fp) if tp + fp else float("nan"),
                    }
                )
    return pd.DataFrame(rows, columns=KNOWN_COLUMNS)


def figure(items: pd.DataFrame, rates: pd.DataFrame, params: Mapping, path) -> None:
    """Left: each item's share of its character windows found, one row per benchmark group
    (the dotted line: the character rule's threshold; filled markers: dirty by the n-gram
    rule). Right: the dirty rate of each group under both rules with 95% Wilson intervals."""
    import matplotlib.pyplot as plt

    from .. import plotting
    from .figures import not_measured

    if not len(items):
        not_measured(path, "no planted contamination set and no own benchmark")
        return
    plotting.setup()
    keys = list(dict.fromkeys(zip(items["benchmark"], items["group"], strict=True)))
    names = [f"{b}: {g}" if b != PLANTED else f"planted set: {g}" for b, g in keys]
    colors = plotting.set_colors([g for _, g in keys])
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, 1.4 + 0.45 * len(keys)), sharey=True, width_ratios=(3, 2)
    )
    rng = np.random.default_rng(0)
    for y, (bench, group) in enumerate(keys):
        g = items[(items["benchmark"] == bench) & (items["group"] == group)]
        jitter = y + rng.uniform(-0.18, 0.18, len(g))
        color = colors[group]
        flagged = g["dirty_ngram"].to_numpy(dtype=bool)
        left.scatter(g["char_share"][flagged], jitter[flagged], s=18, color=color)
        left.scatter(g["char_share"][~flagged], jitter[~flagged], s=18, facecolors="none",
                     edgecolors=color)  # fmt: skip
    left.axvline(params["char_share"], color="0.4", ls=":", lw=1)
    left.set_xlim(-0.03, 1.03)
    left.set_xlabel(
        f"share of the item's {params['chars']}-character windows found in training\n"
        f"(filled: some {params['ngram']}-gram in {params['ngram_unit']} found)",
        fontsize=9,
    )
    markers = {"ngram": "o", "chars": "s"}
    for k, rule in enumerate(cm.RULES):
        r = rates[(rates["rule"] == rule) & (rates["benchmark"] != BY_FORMAT)]
        r = r.set_index(["benchmark", "group"])
        ys, xs, err = [], [], [[], []]
        for y, key in enumerate(keys):
            if key in r.index:
                row = r.loc[key]
                ys.append(y + (k - 0.5) * 0.3)
                xs.append(row["rate"])
                err[0].append(row["rate"] - row["rate_lo"])
                err[1].append(row["rate_hi"] - row["rate"])
        right.errorbar(xs, ys, xerr=err, fmt=markers[rule], color="0.25" if k else "0.55",
                       capsize=3, label=rule_label(rule, params))  # fmt: skip
    right.set_xlim(-0.03, 1.03)
    right.set_xlabel("dirty rate (95% Wilson interval)", fontsize=9)
    # the rules' key just above the right panel (below it, it floated under the x label by a share
    # of the panel's height: far below a tall figure)
    right.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    left.set_yticks(range(len(keys)), names, fontsize=8)
    left.invert_yaxis()
    fig.suptitle("Benchmark items looked up in the training data", fontsize=11)
    plotting.save(fig, path)


def byte_index_of(train_path, folder) -> tuple:
    """The byte-level index of the training documents of ``train_path`` built under
    ``folder`` (opened), with its build seconds and bytes on disk (logged)."""
    from ..index import open as open_index

    docs = list(read_jsonl(train_path))
    t0 = time.perf_counter()
    manifest = cm.build_byte_index([d["text"] for d in docs], Path(folder) / "bytes",
                                   [d.get("id", i) for i, d in enumerate(docs)])  # fmt: skip
    seconds = time.perf_counter() - t0
    log.info(
        "byte index of %d documents, %d bytes: built in %.2f s, %d bytes on disk",
        len(docs), manifest["n_tokens"], seconds, manifest["bytes_on_disk"],
    )  # fmt: skip
    return open_index(Path(folder) / "bytes"), seconds, manifest["bytes_on_disk"]


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Look every item up in the three indexes; write the three tables and the figure."""
    from ..errors import InputError
    from ..index import open as open_index
    from ..index.query import open_with_tokenizer
    from ..tokenize import load

    items = [it for _, path in inputs["manifest"]
             for it in planted_items(read_json(path), str(path))]  # fmt: skip
    items += own_items(inputs["items"])
    frame = pd.DataFrame(columns=ITEM_COLUMNS)
    if items:
        token_dir = inputs["token_index"][0][1]
        index, tokenizer = open_with_tokenizer(token_dir)
        if tokenizer is None:
            raise InputError(token_dir, "expected an index that records its tokenizer (index.json)")
        word_index = open_index(inputs["word_index"][0][1])
        # the word index may be the joined stream, which records no tokenizer
        words = load("moses", inputs["word_tokenizer"][0][1])
        with tempfile.TemporaryDirectory(dir=Path(out["table"]).parent) as tmp:
            byte_index, _, _ = byte_index_of(inputs["train"][0][1], tmp)
            frame = lookup_table(items, (index, tokenizer), (word_index, words), byte_index, params)
            del byte_index
    rates = rates_table(frame)
    write_csv(out["table"], frame)
    write_csv(out["rates"], rates)
    write_csv(out["known"], known_rows(frame))
    figure(frame, rates, params, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The dirty rate of every benchmark group under both rules, and the known answers: the
    false-negative and false-positive rates on the planted set and the labelled own
    benchmarks (``params``: the summary's, with the config block ``analysis``)."""
    rates, known = tables["contamination_rates"], tables["contamination_known"]
    if not len(rates):
        return []
    params = params["analysis"]["contamination"]  # the summary job's params: the config blocks
    lines = [
        "",
        "## Benchmark contamination looked up in the training data",
        "",
        f"Dirty rate (95% Wilson interval) by {rule_label('ngram', params)} (GPT-3) and by "
        f"{rule_label('chars', params)} found (infini-gram mini); the configured rule is "
        f"`{params['rule']}`:",
        "",
    ]
    for (bench, group), g in rates.groupby(["benchmark", "group"], sort=False):
        name = "planted set" if bench == PLANTED else bench
        if bench == BY_FORMAT:
            name = f"own benchmarks of format {g['format'].iloc[0]}"
        parts = [
            f"{r.rule} {r.dirty}/{r.n} = {fmt(r.rate, 2)} [{fmt(r.rate_lo, 2)}, {fmt(r.rate_hi, 2)}]"
            for r in g.itertuples()
        ]
        lines.append(f"- {name}, {group}: " + "; ".join(parts) + ".")
    if len(known):
        lines += ["", "Known answers (false negatives: positives not flagged; false positives: "
                  "negatives flagged):", ""]  # fmt: skip
        for r in known.itertuples():
            name = "planted set" if r.benchmark == PLANTED else r.benchmark
            lines.append(
                f"- {name}, {r.positive} vs {r.negative}, {r.rule}: FNR {r.fn}/{r.tp + r.fn} = "
                f"{fmt(r.fnr, 2)} [{fmt(r.fnr_lo, 2)}, {fmt(r.fnr_hi, 2)}], FPR "
                f"{r.fp}/{r.fp + r.tn} = {fmt(r.fpr, 2)} [{fmt(r.fpr_lo, 2)}, {fmt(r.fpr_hi, 2)}]."
            )
    return lines
