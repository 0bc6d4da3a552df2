"""Li 2023, "Estimating Contamination via Perplexity", and the memorization and
contamination claims decided beside it (the membership and memorization analyses): Carlini et
al. 2023 (extraction grows with duplication), Shi et al. 2024 (Min-K% Prob beats the loss),
Brown et al. 2020 with Xu et al. 2025 (n-gram lookup finds the contaminated items), these
three related claims. Each claim with its nulls (permuted copies, membership labels, planted
labels) and known positives (the planted ladder, the planted contamination items)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...membership.evaluate import fast_metrics, paired_auc_difference
from ...stats import clopper_pearson, newcombe, separation_permutation_test, trend_test, wilson
from .. import membership as membership_report
from ..membership import nll_delta_rows
from ..memorization import memorization_table
from .core import (
    BROWN_XU,
    CARLINI,
    FAILS,
    HOLDS,
    LI,
    SHI,
    UNCLEAR,
    NotTested,
    Null,
    Positive,
    Tables,
    ci,
    ci_of,
    claim,
    decided,
    effect_verdict,
    g,
)
from .data import projected_sizes


def permuted_copies(rng, data, params):
    """The ladder's per-passage extraction results with their copy counts permuted over the
    passages of each model (controls included)."""
    if data.extraction is None or not len(data.extraction):
        return None
    frame = data.extraction.copy()
    for _, idx in frame.groupby("model", sort=False).groups.items():
        frame.loc[idx, "copies"] = rng.permutation(frame.loc[idx, "copies"].to_numpy())
    m = params["analysis"]["memorization"]
    return {"memorization": memorization_table(frame, m["bootstrap"], m["seed"])}


def ladder_resample(rng, data, params, size):
    """Builder: ``size`` passages per rung (and controls) of each model's ladder, drawn with
    replacement."""
    if data.extraction is None or not len(data.extraction):
        return None
    parts = []
    for _, grp in data.extraction.groupby(["model", "copies"], sort=False):
        parts.append(grp.iloc[rng.integers(len(grp), size=size)])
    m = params["analysis"]["memorization"]
    return {"memorization": memorization_table(pd.concat(parts), m["bootstrap"], m["seed"])}


def ladder_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The planted ladder resampled per rung: extraction grows with planted copies in the run
    (projected to larger sizes too: which budget would power the rule at the run's effect)."""
    if data.extraction is None or not len(data.extraction):
        return []
    per = int(data.extraction.groupby(["model", "copies"]).size().max())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("planted ladder", ladder_resample, HOLDS, sizes, per)]


@claim(
    "extraction-duplication",
    "Extraction grows with the number of times a sequence is duplicated in training",
    CARLINI,
    "§4 (Fig. 1b)",
    "GPT-Neo 125M–6B on the Pile; 50-token prefix, greedy decoding, extractable = the next 50 "
    "tokens reproduced exactly",
    ("memorization",),
    "per model: the exact trend test of the extraction rate over the rungs (the never-planted "
    "controls, copies = 0, then each rung in order of copies; the exact Cochran–Armitage "
    "test of the per-passage outcomes, scores = rung rank): holds if the rate grows with the "
    "copies with one-sided p < {alpha}/2, does not hold if it falls with p < {alpha}/2, else "
    "inconclusive; the claim holds if every model holds, does not hold if every model does not",
    setting="planted passages (the ladder) instead of naturally duplicated ones; prompt and "
    "suffix of analysis.memorization tokens; each rung's rate is shown with its exact "
    "(Clopper–Pearson) 95% interval",
    related=True,
    nulls=(Null("permuted copies", permuted_copies),),
    positives=ladder_positives,
)
def extraction_duplication(tables: Tables, params: Mapping):
    """Carlini et al. 2023: the more often a passage occurs in training, the more often
    greedy decoding from its prefix reproduces it exactly."""
    alpha = params["findings"]["alpha"]
    mem = tables["memorization"]
    parts, verdicts, models = [], [], []
    for model, rows in mem.groupby("model", sort=False):
        rows = rows.sort_values("copies")
        if not (rows["copies"] == 0).any() or not (rows["copies"] > 0).any():
            continue
        n = rows["n"].astype(int).to_numpy()
        k = np.rint(rows["extraction_rate"].to_numpy() * n).astype(int)
        up, down = trend_test(range(len(rows)), n, k)
        verdict = HOLDS if up < alpha / 2 else FAILS if down < alpha / 2 else UNCLEAR
        steps = ", ".join(
            f"{'control' if c == 0 else int(c)}: {kk}/{nn} = {ci(clopper_pearson(kk, nn))}"
            for c, kk, nn in zip(rows["copies"], k, n, strict=True)
        )
        parts.append(f"{model}: {steps}; trend p↑ = {g(up)}, p↓ = {g(down)} → {verdict}")
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with both control and planted passages", models)


def _contamination_items(texts: pd.DataFrame, planted: np.ndarray) -> pd.DataFrame:
    """Item rows with the given planted labels, ``copies`` 0 on the unplanted ones (the
    per-copy contrasts follow the labels)."""
    return texts.assign(planted=planted, copies=np.where(planted == 1, 1, 0))


def permuted_placement(rng, data, params):
    """The contamination set's per-item NLLs (Li's) with the planted labels permuted among its
    items, per model: the NLL contrasts the placement rule reads
    (:func:`copyscope.report.membership.nll_delta_rows`); no set can be more familiar."""
    if data.membership is None or not len(data.membership):
        return None
    m = params["analysis"]["membership"]
    bench = data.membership[data.membership["set"] == "contamination"]
    parts = [
        _contamination_items(grp, rng.permutation(grp["planted"].to_numpy().astype(int)))
        for _, grp in bench.groupby("model", sort=False)
    ]
    if not parts:
        return None
    texts = pd.concat(parts, ignore_index=True)
    return {"membership_nll_delta": membership_report.nll_delta_rows(texts, m["bootstrap"],
                                                                     m["seed"])}  # fmt: skip


def contamination_resample(rng, data, params, size):
    """Builder: ``size`` planted and ``size`` unplanted items of each model's contamination
    set, drawn with replacement: planted items were seen in training, so Li's placement rule
    must find them more familiar."""
    if data.membership is None or not len(data.membership):
        return None
    bench = data.membership[data.membership["set"] == "contamination"]
    parts = [grp.iloc[rng.integers(len(grp), size=size)]
             for _, grp in bench.groupby(["model", "planted"], sort=False)]  # fmt: skip
    if not parts:
        return None
    m = params["analysis"]["membership"]
    texts = pd.concat(parts, ignore_index=True)
    return {"membership_nll_delta": nll_delta_rows(texts, m["bootstrap"], m["seed"])}


def planted_item_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The contamination set's planted and unplanted items resampled: the planted ones were
    trained on (projected to larger sizes too)."""
    if data.membership is None or not (data.membership["set"] == "contamination").any():
        return []
    bench = data.membership[data.membership["set"] == "contamination"]
    per = int(bench.groupby(["model", "planted"]).size().min())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("planted contamination items", contamination_resample, HOLDS, sizes, per)]


@claim(
    "benchmark-placement",
    "Contaminated benchmark text has lower perplexity than clean text of the same kind, "
    "placing it toward the memorised baseline",
    LI,
    "§3–4 (placement between a memorised and a clean baseline)",
    "real benchmarks (reading comprehension, summarisation: significant memorisation; "
    "multiple choice: no clear evidence) against memorised and clean baselines of the same "
    "source and format",
    ("membership_nll_delta",),
    "per model, the known-answer version: the contamination set's unplanted items' mean NLL minus its "
    "planted items' (Li's per-item mean token NLL, nats), with its 95% bootstrap CI; holds if "
    "the CI lies wholly above 0, does not hold if wholly below 0, else inconclusive; the "
    "normalised position (clean − set)/(clean − memorised) is reported as a description only; "
    "the claim holds if every model holds, does not hold if every model does not",
    setting="a contamination set cut from held-out plays and planted (corpus.inject.contamination), "
    "not a real benchmark: the category claims need the real-material configurations",
    nulls=(Null("permuted membership", permuted_placement),),
    positives=planted_item_positives,
)
def benchmark_placement(tables: Tables, params: Mapping):
    """Li (2023): contaminated items have lower perplexity, near the memorised baseline."""
    t = tables["membership_nll_delta"]
    t = t[t["contrast"] == "unplanted - planted"]
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        d = ci_of(r, "delta", "delta_lo", "delta_hi")
        if not np.isfinite(d[0]):
            continue
        verdict = effect_verdict(d)
        verdicts.append(verdict)
        models.append(r["model"])
        parts.append(
            f"{r['model']}: unplanted − planted NLL {ci(d)} nats "
            f"({int(r['n_a'])} vs {int(r['n_b'])} items) → {verdict}"
        )
    return decided(parts, verdicts, "no model with planted and unplanted items", models)


FORMATS = {"qa": "reading comprehension", "summarization": "summarisation",
           "multiple_choice": "multiple choice"}  # fmt: skip
"""The own-benchmark formats of Li's three benchmark kinds
(:data:`copyscope.membership.own_benchmarks.FORMATS`) → the paper's names."""
FORMAT_PERMUTATIONS = 5000
"""Random regroupings of each permutation test of the per-format row
(:func:`copyscope.stats.separation_permutation_test`): a p-value to about ±0.003 at 0.05."""


def _labelled_items(scores: pd.DataFrame | None) -> pd.DataFrame | None:
    """The items (set ``benchmark``) of the own benchmarks of Li's formats whose items all
    carry a label and both labels occur (per benchmark), labels as integers; None unless a
    multiple-choice benchmark and a reading-comprehension or summarisation one are among them
    (the claim's comparison)."""
    if scores is None or not len(scores):
        return None
    items = scores[(scores["set"] == "benchmark") & scores["format"].isin(list(FORMATS))]
    labelled = items.groupby("benchmark")["label"].apply(lambda x: x.notna().all() and x.nunique() == 2)
    items = items[items["benchmark"].isin(labelled[labelled].index)]
    formats = set(items["format"])
    if "multiple_choice" not in formats or not formats & {"qa", "summarization"}:
        return None
    return items.assign(label=items["label"].astype(int))


def _permute_labels(items: pd.DataFrame, rng, formats) -> pd.DataFrame:
    """``items`` with the labels of the benchmarks of ``formats`` permuted among the items of
    each (model, benchmark)."""
    out = items.copy()
    chosen = out["format"].isin(list(formats))
    for _, idx in out[chosen].groupby(["model", "benchmark"], sort=False).groups.items():
        out.loc[idx, "label"] = rng.permutation(out.loc[idx, "label"].to_numpy())
    return out


def permuted_format_labels(rng, data, params):
    """The labelled items of the own benchmarks of Li's formats with their labels permuted
    within each (model, benchmark): no format separates members from non-members, so no
    format is separated more than another."""
    items = _labelled_items(data.own_scores)
    if items is None:
        return None
    return {"own_benchmark_scores": _permute_labels(items, rng, FORMATS)}


def mc_labels_permuted(rng, data, params, size):
    """Builder: ``size`` members and ``size`` non-members of every labelled benchmark drawn
    with replacement (per model), the multiple-choice items' labels then permuted: those
    items cannot be separated, so the reading-comprehension and summarisation items the run
    separates are separated more."""
    items = _labelled_items(data.own_scores)
    if items is None:
        return None
    drawn = pd.concat([g.iloc[rng.integers(len(g), size=size)]
                       for _, g in items.groupby(["model", "benchmark", "label"], sort=False)],
                      ignore_index=True)  # fmt: skip
    return {"own_benchmark_scores": _permute_labels(drawn, rng, ("multiple_choice",))}


def format_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The multiple-choice items' labels permuted (:func:`mc_labels_permuted`), where the run
    has labelled own benchmarks of Li's formats: "holds" is right where the run separates the
    other formats' members (projected to larger sizes too)."""
    items = _labelled_items(data.own_scores)
    if items is None:
        return []
    per = int(items.groupby(["model", "benchmark", "label"]).size().min())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("multiple-choice labels permuted", mc_labels_permuted, HOLDS, sizes, per)]


def _nll_of(items: pd.DataFrame, label: int) -> np.ndarray:
    return items.loc[items["label"] == label, "li_nll"].to_numpy(dtype=float)


def _counts(items: pd.DataFrame) -> str:
    """``members + non-members`` of one benchmark's items."""
    return f"{int((items['label'] == 1).sum())} + {int((items['label'] == 0).sum())}"


@claim(
    "format-memorisation",
    "Perplexity finds memorisation in reading-comprehension and summarisation benchmarks, but "
    "no clear evidence in multiple-choice ones",
    LI,
    "§4 (results by benchmark format)",
    "open LLMs (LLaMA and others) on real benchmarks of the three formats, each against "
    "memorised and clean baselines of the same source, format and length; the contamination "
    "of the benchmarks is inferred, not known",
    ("own_benchmark_scores",),
    "the known-answer version, with labelled own benchmarks (analysis.membership.benchmarks, "
    "label 1: in training) of formats qa (reading comprehension), summarization and "
    "multiple_choice: per model, each benchmark's separation = the mean NLL (Li's, nats) of "
    "its non-members minus its members; for each pair of a reading-comprehension or "
    "summarisation benchmark B and a multiple-choice benchmark M, permutation tests "
    f"({FORMAT_PERMUTATIONS} regroupings, findings.permutation_seed) of B's separation (its "
    "labels regrouped) and of B's minus M's (the residuals of a common separation with a "
    "level per benchmark permuted, Freedman & Lane): holds if B's separation and B's minus "
    "M's are both above 0 with one-sided p < {alpha}/2, does not hold if B's minus M's or "
    "B's separation is below 0 with p < {alpha}/2, else inconclusive; the claim holds if "
    "every pair of every model holds, does not hold if every one does not",
    setting="Li's benchmarks are real and their contamination inferred; here every format's "
    "members are known: \"holds\" says that a detector separates multiple-choice members less "
    "even when they are as contaminated (the paper's multiple-choice result may be the format's), "
    "\"does not hold\" that it separates them as well or better; corpus.inject.format_benchmarks "
    "plants one benchmark per format (items built from held-out passages, half of each planted "
    "as scored, the same copies in every format)",
    nulls=(Null("permuted labels", permuted_format_labels),),
    positives=format_positives,
)
def format_memorisation(tables: Tables, params: Mapping):
    """Li (2023) §4: reading comprehension and summarisation benchmarks show memorisation,
    multiple choice no clear evidence; decided where the run has labelled items of each
    format (known members), by permutation tests of the separation of members from
    non-members by format (:func:`copyscope.stats.separation_permutation_test`)."""
    items = _labelled_items(tables["own_benchmark_scores"])
    if items is None:
        raise NotTested(
            "no labelled items (known members and non-members) in both the multiple-choice and "
            "a reading-comprehension or summarisation format (analysis.membership.benchmarks "
            "with labels, or corpus.inject.format_benchmarks); the planted contamination set is play "
            "text of one format"
        )
    f = params["findings"]
    half = f["alpha"] / 2
    parts, verdicts, models = [], [], []
    for model, rows in items.groupby("model", sort=False):
        bench = dict(list(rows.groupby("benchmark", sort=False)))
        fmt = {b: g["format"].iloc[0] for b, g in bench.items()}
        for b in [b for b in bench if fmt[b] != "multiple_choice"]:
            for m in [m for m in bench if fmt[m] == "multiple_choice"]:
                (sb, up_b, down_b), (sm, *_), (t, up, down) = separation_permutation_test(
                    _nll_of(bench[b], 0), _nll_of(bench[b], 1),
                    _nll_of(bench[m], 0), _nll_of(bench[m], 1),
                    draws=FORMAT_PERMUTATIONS, seed=f["permutation_seed"],
                )  # fmt: skip
                if up_b < half and up < half:
                    verdict = HOLDS
                elif down < half or down_b < half:
                    verdict = FAILS
                else:
                    verdict = UNCLEAR
                parts.append(
                    f"{model}: {b} ({FORMATS[fmt[b]]}) {g(sb)} nats (p↑ {g(up_b)}, "
                    f"{_counts(bench[b])} items) vs {m} ({FORMATS['multiple_choice']}) {g(sm)} "
                    f"({_counts(bench[m])}), difference {g(t)} (p↑ {g(up)}, p↓ {g(down)}) → "
                    f"{verdict}"
                )
                verdicts.append(verdict)
                models.append(model)
    return decided(parts, verdicts, "no model with both formats", models)


def detector_rows(model: str, loss, mink, y, m: Mapping) -> list[dict]:
    """The two detector rows the Min-K% rule reads for one model's items (scores oriented
    higher = member, labels ``y``): the AUC of each, and Min-K%'s paired ΔAUC against the loss
    (:func:`copyscope.membership.evaluate.paired_auc_difference`, ``m`` the config block
    ``analysis.membership``), as the detector table has them."""
    d = paired_auc_difference(mink, loss, y, n_boot=m["bootstrap"], seed=m["seed"])
    base = {"model": model, "label_set": "planted"}
    return [
        base
        | {"detector": "loss", "auc": fast_metrics(loss, y)[0]}
        | dict(zip(membership_report.DELTA, (0.0, 0.0, 0.0), strict=True)),
        base
        | {"detector": "min_k_20", "auc": fast_metrics(mink, y)[0]}
        | dict(zip(membership_report.DELTA, d, strict=True)),
    ]


def contamination_groups(data) -> list[tuple[str, pd.DataFrame]]:
    """Each model's contamination-set items (model, rows), in the table's order."""
    bench = data.membership[data.membership["set"] == "contamination"]
    return list(bench.groupby("model", sort=False))


def permuted_membership(rng, data, params):
    """The contamination set's per-item loss and Min-K% Prob (k = 20%) with the planted labels
    permuted among its items, per model: the detector rows the Min-K% rule reads
    (:func:`detector_rows`)."""
    if data.membership is None or not len(data.membership):
        return None
    m = params["analysis"]["membership"]
    rows = []
    for model, grp in contamination_groups(data):
        y = rng.permutation(grp["planted"].to_numpy().astype(int))
        if y.min(initial=1) == 1 or y.max(initial=0) == 0:
            continue
        loss = membership_report._oriented(grp, "loss")
        mink = membership_report._oriented(grp, "min_k_20")
        rows += detector_rows(model, loss, mink, y, m)
    return {"membership_detectors": pd.DataFrame(rows)}


SHI_GAIN = 0.074
"""Shi et al. 2024's gain of Min-K% Prob over the earlier detectors on WikiMIA (abstract:
"a 7.4% improvement on WikiMIA over these previous methods"), read as AUC points; the loss is
one of those methods, so against it the gain is at least this."""


def planted_min_k_gain(gain: float):
    """Builder: per model, ``size`` planted and ``size`` unplanted contamination-set items drawn
    with replacement; the loss keeps the run's scores, and Min-K% Prob is the loss with each
    planted item, with probability q, moved above every unplanted one, q = gain / (1 − AUC of
    the loss on the drawn items) (capped at 1): Min-K%'s AUC exceeds the loss's by ``gain`` in
    expectation (a moved item wins every pair, the others keep theirs). Scores are their ranks
    (the AUCs do not change)."""
    from scipy.stats import rankdata

    def build(rng, data, params, size):
        if data.membership is None or not len(data.membership):
            return None
        m = params["analysis"]["membership"]
        rows = []
        for model, grp in contamination_groups(data):
            y_all = grp["planted"].to_numpy().astype(int)
            pos, neg = np.flatnonzero(y_all == 1), np.flatnonzero(y_all == 0)
            if not len(pos) or not len(neg):
                continue
            pick = np.concatenate([rng.choice(pos, size), rng.choice(neg, size)])
            y = y_all[pick]
            loss = rankdata(membership_report._oriented(grp, "loss")[pick])
            auc = fast_metrics(loss, y)[0]
            q = min(1.0, gain / (1.0 - auc)) if auc < 1 else 0.0
            mink = loss.copy()
            mink[(y == 1) & (rng.random(y.size) < q)] = loss.size + 1.0
            rows += detector_rows(model, loss, mink, y, m)
        return {"membership_detectors": pd.DataFrame(rows)}

    return build


def min_k_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """:data:`SHI_GAIN` planted on the run's contamination items, at the run's items per class
    (the fewest of any model) and projected sizes."""
    if data.membership is None or not (data.membership["set"] == "contamination").any():
        return []
    bench = data.membership[data.membership["set"] == "contamination"]
    counts = bench.groupby(["model", "planted"]).size()
    if counts.index.get_level_values("planted").nunique() < 2:
        return []
    per = int(counts.min())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive(f"Shi et al.'s gain planted (ΔAUC {SHI_GAIN:g})",
                     planted_min_k_gain(SHI_GAIN), HOLDS, sizes, per)]  # fmt: skip


@claim(
    "min-k-beats-loss",
    "Min-K% Prob detects training members better than the loss (perplexity)",
    SHI,
    "§5, Table 1 (WikiMIA)",
    "WikiMIA (Wikipedia events after vs before the models' cut-off) with Pythia, GPT-NeoX, "
    "LLaMA, OPT; k = 20%",
    ("membership_detectors",),
    "per model, planted vs unplanted contamination-set items: the AUC of Min-K% Prob (k = 20%) "
    "minus the AUC of the loss on the same items, with its 95% paired bootstrap CI; holds if "
    "it lies wholly above 0, does not hold if wholly below 0, else inconclusive; the reference "
    "ratio is reported; the claim holds if every model holds, "
    "does not hold if every model does not",
    setting="planted passages of a few dozen words, a few items per class",
    related=True,
    nulls=(Null("permuted membership", permuted_membership),),
    positives=min_k_positives,
)
def min_k_beats_loss(tables: Tables, params: Mapping):
    """Shi et al. (2024): Min-K% Prob beats the loss as a membership detector."""
    d = tables["membership_detectors"]
    d = d[d["label_set"] == "planted"]
    parts, verdicts, models = [], [], []
    for model, rows in d.groupby("model", sort=False):
        r = rows.set_index("detector")
        if "loss" not in r.index or "min_k_20" not in r.index:
            continue
        v = ci_of(r.loc["min_k_20"], "delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi")
        verdict = effect_verdict(v)
        text = f"loss {g(r.at['loss', 'auc'])}, min_k_20 {g(r.at['min_k_20', 'auc'])}, ΔAUC {ci(v)}"
        if "reference" in r.index:
            ref = ci_of(r.loc["reference"], "delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi")
            text += f"; reference {g(r.at['reference', 'auc'])}, ΔAUC {ci(ref)}"
        parts.append(f"{model}: AUC {text} → {verdict}")
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with Min-K% and loss AUCs on planted items", models)


def permuted_contamination(rng, data, params):
    """The planted contamination set's looked-up items (``contamination_items``) with the
    planted / unplanted labels permuted among them: each rule flags the same share of both
    groups in expectation, so neither verdict is right."""
    from .. import contamination as contamination_report

    planted = planted_lookup_items(data)
    if planted is None:
        return None
    planted = planted.copy()
    planted["group"] = rng.permutation(planted["group"].to_numpy())
    return {"contamination_known": contamination_report.known_rows(planted)}


def planted_lookup_items(data) -> pd.DataFrame | None:
    """The planted contamination set's looked-up items of the two groups the rule compares
    (``contamination_items``: planted, unplanted), or None without both."""
    from .. import contamination as contamination_report

    items = data.contamination
    if items is None:
        return None
    planted = items[
        (items["benchmark"] == contamination_report.PLANTED)
        & items["group"].isin(["planted", "unplanted"])
    ]
    return planted if planted["group"].nunique() == 2 else None


def lookup_resample(rng, data, params, size):
    """Builder: ``size`` planted and ``size`` unplanted items of the planted contamination set
    drawn with replacement, with their lookups: the planted items are copied whole into
    training, so both overlap rules must flag them more often than the held-out ones."""
    from .. import contamination as contamination_report

    items = planted_lookup_items(data)
    if items is None:
        return None
    parts = [grp.iloc[rng.integers(len(grp), size=size)]
             for _, grp in items.groupby("group", sort=False)]  # fmt: skip
    return {"contamination_known": contamination_report.known_rows(pd.concat(parts))}


def lookup_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The planted contamination set's items resampled (the planted ones are in training), at
    the run's items per group (the fewer) and projected sizes."""
    items = planted_lookup_items(data)
    if items is None:
        return []
    per = int(items.groupby("group").size().min())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("planted contamination items", lookup_resample, HOLDS, sizes, per)]


@claim(
    "contamination-lookup",
    "Exact overlap with the training data detects contaminated benchmark items: an item with "
    "a 13-gram in the training data (GPT-3), or with at least 80% of its 50-character windows "
    "in it (infini-gram mini), is dirty",
    BROWN_XU,
    "GPT-3 §4 and Appendix C; infini-gram mini §5 (benchmark contamination bulletin)",
    "public benchmarks against web-scale pre-training corpora, whose items' membership is not "
    "known",
    ("contamination_known",),
    "per rule (the n-gram rule and the character-window rule of analysis.contamination, "
    "copyscope.membership.contamination), the planted contamination set's planted items "
    "(positives) against its unplanted items (negatives): the share of positives flagged minus "
    "the share of negatives flagged with Newcombe's 95% interval; a rule holds if it lies wholly "
    "above 0, does not hold if wholly below 0, else inconclusive; the false-negative and "
    "false-positive rates with 95% Wilson intervals are reported; the claim holds if both "
    "rules hold, does not hold if both do not",
    setting="the planted items are copied whole into training and the unplanted ones are "
    "held-out play text: a known answer, not a real benchmark",
    related=True,
    nulls=(Null("permuted planted labels", permuted_contamination),),
    positives=lookup_positives,
)
def contamination_lookup(tables: Tables, params: Mapping):
    """Brown et al. (2020), Xu et al. (2025): overlap rules flag contaminated items."""
    from ..contamination import PLANTED

    k = tables["contamination_known"]
    k = k[(k["benchmark"] == PLANTED) & (k["positive"] == "planted")]
    parts, verdicts = [], []
    for r in k.itertuples():
        pos, neg = int(r.tp + r.fn), int(r.fp + r.tn)
        d = newcombe(int(r.tp), pos, int(r.fp), neg)
        verdict = effect_verdict(d)
        parts.append(
            f"{r.rule}: FNR {int(r.fn)}/{pos} = {ci(wilson(int(r.fn), pos))}, FPR "
            f"{int(r.fp)}/{neg} = {ci(wilson(int(r.fp), neg))}, flagged share planted − "
            f"unplanted {ci(d)} → {verdict}"
        )
        verdicts.append(verdict)
    return decided(parts, verdicts, "no planted contamination set in this run")
