"""A researcher's own benchmarks (``analysis.membership.benchmarks``,
:mod:`copyscope.membership.own_benchmarks`), audited as Li (2023) audits a benchmark: per
benchmark and model, Li's mean NLL of the items between the corpus's memorised and clean
baselines (copyscope's normalised position beside it, as for the planted set) and the NLL
differences in nats; with membership labels also the detector table (AUC, TPR at low FPR,
margin over the blind baselines, :func:`copyscope.report.membership.detector_table`), labels 1
as members. Without labels there is no ground truth: scores and placement only, and the tables
and ``summary.md`` say so.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..membership.own_benchmarks import read_benchmark
from ..membership.placement import placement_table
from ..stats import bootstrap_difference_ci
from . import fmt
from .jobs import Input, Output, Params
from .membership import detector_table, reference_model, with_blind, with_reference

NAME = "own-benchmarks"
HELP = "Li's placement and the detectors on a researcher's own benchmarks"
INPUTS = {
    "scores": Input(
        ("MODEL", "BENCHMARK"),
        "per-item and baseline scores of a model (.csv)",
        files=lambda p: (
            p.own_pairs, [p.own_benchmark_file(m, b) for m, b in p.own_pairs]
        ),
    ),
    # the rule input "files" ("items" names a method of Snakemake's input list)
    "files": Input(
        ("BENCHMARK", "FORMAT"),
        "the benchmark's own JSONL file (for the blind baselines)",
        files=lambda p: (
            [(b, spec["format"]) for b, spec in p.own_benchmarks.items()],
            [spec["path"] for spec in p.own_benchmarks.values()],
        ),
        flag="items",
    ),
}
OUTPUTS = {
    "scores": Output(
        "tables/own_benchmark_scores.csv",
        "every item's and baseline passage's scores under every model (.csv)",
        "own_benchmarks",
        "li",
    ),
    "placement": Output(
        "tables/own_benchmark_placement.csv",
        "Li's mean NLL per set and copyscope's normalised position (.csv)",
        "own_benchmarks",
        "li",
    ),
    "nll_delta": Output(
        "tables/own_benchmark_nll_delta.csv",
        "differences of Li's mean NLLs between the sets, with bootstrap CIs (.csv)",
        "own_benchmarks",
        "li",
    ),
    "detectors": Output(
        "tables/own_benchmark_detectors.csv",
        "detector metrics on the labelled benchmarks (members = label 1; one with a single label class: a row per model saying why it has no detector) (.csv)",
        "own_benchmarks",
        "li",
    ),
}
SHOWN_WITH = "own_benchmarks"  # its files are in the HTML report only with own benchmarks
PARAMS = Params(
    "the config block analysis.membership",
    of=lambda p: p.membership,
)
SUMMARY_TABLES = ("own_benchmark_placement", "own_benchmark_nll_delta", "own_benchmark_detectors")

LABEL_SET = "labels"
"""The detector table's label set name for a benchmark's own labels."""

CONTRASTS = (
    ("clean - benchmark", "clean", "benchmark"),
    ("benchmark - memorised", "benchmark", "memorised"),
    ("clean - memorised", "clean", "memorised"),
    ("non-members - members", "benchmark_label_0", "benchmark_label_1"),
)
"""``(name, set a, set b)``: mean NLL of a minus that of b (positive = b more familiar)."""

EMPTY = {
    "scores": ["model", "benchmark", "format", "set", "id", "label", "li_nll"],
    "placement": [
        "benchmark", "format", "labelled", "model", "set", "n", "mean_nll", "mean_nll_lo", "mean_nll_hi",
        "position", "position_lo", "position_hi",
    ],
    "nll_delta": ["benchmark", "labelled", "model", "contrast", "delta", "delta_lo", "delta_hi", "n_a", "n_b"],
    "detectors": ["benchmark", "model", "label_set", "detector", "n_members", "n_nonmembers", "auc", "reason"],
}  # fmt: skip

NO_DETECTOR = "none"
"""The ``detector`` of a labelled benchmark's row that says why it has no detector (its
``reason``, :func:`no_detector_reason`)."""


def nll_sets(g: pd.DataFrame) -> dict[str, np.ndarray]:
    """Li's per-sample NLLs of one model's rows of one benchmark: ``clean``, ``benchmark``,
    with labels ``benchmark_label_1`` / ``benchmark_label_0``, and ``memorised``; empty sets
    left out."""
    bench = g[g["set"] == "benchmark"]
    nll = {"clean": g.loc[g["set"] == "clean", "li_nll"].to_numpy()}
    nll["benchmark"] = bench["li_nll"].to_numpy()
    if bench["label"].notna().all():
        for k in (1, 0):
            nll[f"benchmark_label_{k}"] = bench.loc[bench["label"] == k, "li_nll"].to_numpy()
    nll["memorised"] = g.loc[g["set"] == "memorised", "li_nll"].to_numpy()
    return {k: v for k, v in nll.items() if len(v)}


def _labelled(g: pd.DataFrame) -> bool:
    return bool(g.loc[g["set"] == "benchmark", "label"].notna().all())


def placement_rows(scores: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per benchmark and model, :func:`copyscope.membership.placement.placement_table` of
    :func:`nll_sets`."""
    rows = []
    for (bench, model), g in scores.groupby(["benchmark", "model"], sort=False):
        head = {"benchmark": bench, "format": g["format"].iloc[0], "labelled": _labelled(g)}
        for r in placement_table(nll_sets(g), n_boot=n_boot, seed=seed):
            rows.append({**head, "model": model, **r})
    return pd.DataFrame(rows, columns=EMPTY["placement"])


def nll_delta_rows(scores: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per benchmark and model, each contrast of :data:`CONTRASTS` whose sets exist:
    ``delta`` = mean NLL of a − that of b (nats) with its 95% bootstrap interval (each set
    resampled independently), and the set sizes."""
    rows = []
    for (bench, model), g in scores.groupby(["benchmark", "model"], sort=False):
        nll = nll_sets(g)
        for name, a, b in CONTRASTS:
            if a not in nll or b not in nll:
                continue
            d, lo, hi = bootstrap_difference_ci(nll[a], nll[b], n_boot=n_boot, seed=seed)
            rows.append(
                {"benchmark": bench, "labelled": _labelled(g), "model": model, "contrast": name,
                 "delta": d, "delta_lo": lo, "delta_hi": hi, "n_a": len(nll[a]), "n_b": len(nll[b])}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=EMPTY["nll_delta"])


def as_texts(g: pd.DataFrame) -> pd.DataFrame:
    """One labelled benchmark's rows in the planted set's text-table shape (``planted`` = the
    label) for :func:`copyscope.report.membership.detector_table`."""
    out = g.copy()
    out["planted"] = out["label"].astype(int)
    out["copies"] = 0
    return out


def detector_rows(scores: pd.DataFrame, items: Mapping, params: Mapping) -> pd.DataFrame:
    """The detector table of every labelled benchmark (members = label 1; the label set is
    :data:`LABEL_SET`; the memorised-vs-clean baseline set is the planted set's, not repeated
    here): every score, the reference ratio against the reference model (with two or more
    models) and the blind baselines on the items' texts (``items``: benchmark → its file's
    rows, :func:`copyscope.membership.own_benchmarks.read_benchmark`)."""
    n_boot, seed = params["bootstrap"], params["seed"]
    frames = []
    for bench, g in scores.groupby("benchmark", sort=False):
        if not _labelled(g):
            continue
        why = _one_class_rows(bench, g)
        if len(why):
            frames.append(why)
            continue
        t = as_texts(g)
        if t["model"].nunique() > 1:
            t = with_reference(t, reference_model(t, params.get("reference")))
        docs = [{"set": "benchmark", "id": str(r["id"]), "text": r["text"]} for r in items[bench]]
        t["id"] = t["id"].astype(str)
        t = with_blind(t, docs, seed)
        d = detector_table(t, n_boot, seed)
        if len(d):
            d = d[d["label_set"] == "planted"].assign(label_set=LABEL_SET)
            frames.append(d.assign(benchmark=bench, reason=""))
    if not frames:
        return pd.DataFrame(columns=EMPTY["detectors"])
    out = pd.concat([f for f in frames if len(f)], ignore_index=True)
    first = ["benchmark", *[c for c in out.columns if c not in ("benchmark", "reason")]]
    return out[[*first, "reason"]]


def _one_class_rows(bench: str, g: pd.DataFrame) -> pd.DataFrame:
    """One row per model of a labelled benchmark whose labels are all of one class (detector
    :data:`NO_DETECTOR`, the class sizes and the reason); none when both classes have
    items."""
    rows = []
    for model, m in g[g["set"] == "benchmark"].groupby("model", sort=False):
        n1, n0 = int((m["label"] == 1).sum()), int((m["label"] == 0).sum())
        if min(n1, n0) == 0:
            rows.append(
                {"benchmark": bench, "model": model, "label_set": LABEL_SET,
                 "detector": NO_DETECTOR, "n_members": n1, "n_nonmembers": n0,
                 "reason": no_detector_reason(n1, n0)}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=EMPTY["detectors"])


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """The tables of every own benchmark (empty tables without any)."""
    if not inputs["scores"]:
        for name, columns in EMPTY.items():
            write_csv(out[name], pd.DataFrame(columns=columns))
        return
    scores = pd.concat([pd.read_csv(p) for _, _, p in inputs["scores"]], ignore_index=True)
    scores["label"] = scores["label"].astype("Int64")
    items = {b: read_benchmark(p, f)[0] for b, f, p in inputs["items"]}
    n_boot, seed = params["bootstrap"], params["seed"]
    write_csv(out["scores"], scores)
    write_csv(out["placement"], placement_rows(scores, n_boot, seed))
    write_csv(out["nll_delta"], nll_delta_rows(scores, n_boot, seed))
    write_csv(out["detectors"], detector_rows(scores, items, params))


def no_detector_reason(n_members: int, n_nonmembers: int) -> str:
    """Why a labelled benchmark with ``n_members`` items of label 1 and ``n_nonmembers`` of
    label 0 has no detector: ``""`` when both classes have items; else its labels are all of
    one class, and a detector's AUC and TPR need members and non-members."""
    if min(n_members, n_nonmembers) > 0:
        return ""
    return (
        f"no detector: its labels are all of one class ({n_members} label 1, "
        f"{n_nonmembers} label 0), a detector needs members and non-members"
    )


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per own benchmark and model: the items' mean NLL between the baselines, the position
    and the two NLL differences; with labels the AUC of loss and Min-K% (20%); without, the
    statement that there is no ground truth."""
    place = tables["own_benchmark_placement"]
    if not len(place):
        return []
    delta, det = tables["own_benchmark_nll_delta"], tables["own_benchmark_detectors"]
    lines = [
        "",
        "## Own benchmarks (Li 2023's placement)",
        "",
        "Li's mean NLL (nats) of the items against the corpus's memorised and clean baselines, "
        "copyscope's normalised position (0 = clean, 1 = memorised) and NLL differences "
        "(95% CIs):",
        "",
    ]
    for (bench, model), g in place.groupby(["benchmark", "model"], sort=False):
        s = g.set_index("set")
        b = s.loc["benchmark"]
        parts = [
            f"items {fmt(b.mean_nll)} [{fmt(b.mean_nll_lo)}, {fmt(b.mean_nll_hi)}] (n = {int(b.n)})",
            *(
                f"{k} {fmt(s.loc[k, 'mean_nll'])}"
                for k in ("memorised", "clean")
                if k in s.index
            ),
            f"position {fmt(b.position, 2)} [{fmt(b.position_lo, 2)}, {fmt(b.position_hi, 2)}]",
        ]
        d = delta[(delta["benchmark"] == bench) & (delta["model"] == model)]
        parts += [
            f"{r.contrast} {fmt(r.delta, 2)} [{fmt(r.delta_lo, 2)}, {fmt(r.delta_hi, 2)}] nats"
            for r in d.itertuples()
            if r.contrast in ("clean - benchmark", "benchmark - memorised", "non-members - members")
        ]
        labelled = bool(g["labelled"].iloc[0])
        if labelled:
            e = det[(det["benchmark"] == bench) & (det["model"] == model)]
            for name in ("loss", "min_k_20"):
                r = e[e["detector"] == name]
                if len(r):
                    parts.append(f"AUC {name} {fmt(r['auc'].iloc[0], 2)}")
            parts += e.loc[e["detector"] == NO_DETECTOR, "reason"].tolist()
        else:
            parts.append("no membership labels: no ground truth, scores and placement only")
        fmt_name = g["format"].iloc[0]
        lines.append(f"- {bench} ({fmt_name}), {model}: " + "; ".join(parts) + ".")
    return lines
