"""Shared fixtures of the scorecard's tests (tests/report/findings/): the findings,
calibration and power parameters, the decision shortcut, and the synthetic tables and per-item
data that several papers' tests build on."""

from __future__ import annotations

import numpy as np
import pandas as pd

from copyscope.index import Index, build_index
from copyscope.report import calibration as C
from copyscope.report import findings as F
from support.index import stream_of

FAILS, HOLDS, UNCLEAR = F.FAILS, F.HOLDS, F.UNCLEAR


FINDINGS = {
    "n_max": 6,
    "n_small": 2,
    "novelty_source": "natural",
    "pure_decoding": "pure",
    "raven_decoding": "k40",
    "raven_small_max": 2,
    "raven_large_min": 3,
    "raven_n_max": 4,
    "alpha": 0.05,
    "permutation_seed": 0,
    "rho_min": 0.8,
    "trend_min_points": 3,
    "min_distinct": 10,
    "min_tokens": 20,
    "min_texts": 20,
    "prompt_length_margin": 0.25,
    "source_margin": 0.1,
    "syntax_margin": 0.1,
    "well_formed_margin": 0.03,
    "local_units": ["labeled_arc", "dependency_role", "labeled_path_3"],
    "structure_units": ["pos_sequence", "dependency_structure"],
    "coverage_effect": 0.41,
    "coverage_human_min": 0.175,
    "style_effect": 0.011,
    "creativity_effect": 0.311,
}


PARAMS = {
    "findings": FINDINGS,
    "sampling": {
        "prompt_length": 8,
        "prompt_length_decodings": ["pure"],
        "prompt_length_models": ["big"],
        "decodings": {
            "pure": {"kind": "sample", "temperature": 1.0},
            "cold": {"kind": "sample", "temperature": 0.5},
            "colder": {"kind": "sample", "temperature": 0.2},
            "k10": {"kind": "sample", "temperature": 1.0, "top_k": 10},
            "k40": {"kind": "sample", "temperature": 1.0, "top_k": 40},
            "greedy": {"kind": "greedy"},
            "beam_2": {"kind": "beam", "num_beams": 2},
        },
    },
    "models": {
        "evaluator": "big",
        "evaluators": {"big": "small"},
        "zoo": {
            "big": {"kind": "gpt2", "n_layer": 2, "n_embd": 64},
            "small": {"kind": "gpt2", "n_layer": 1, "n_embd": 32},
            "lstm": {"kind": "lstm", "n_layer": 3, "n_embd": 512},
        },
    },
    "analysis": {"syntax": {"template_headline_n": 6}},
    "timing": {"window": 0.1},
}


FAMILY = {
    "pure": "pure",
    "cold": "temperature",
    "colder": "temperature",
    "k10": "top-k",
    "k40": "top-k",
    "greedy": "greedy",
    "beam_2": "beam",
    "reference": "human",
    "contaminated": "human",
}


def decide(claim: str, params=PARAMS, **tables) -> F.Finding:
    return F.CLAIMS[claim](tables, params)


def with_findings(**changes) -> dict:
    return {**PARAMS, "findings": {**FINDINGS, **changes}}


def curves(sets: dict[tuple[str, str], dict[int, float]], half=0.02, source="natural", **extra):
    """novelty_samples rows: (model, decoding) → {n: novelty}, ±half intervals, one source."""
    rows = []
    for (model, dec), values in sets.items():
        for n, v in values.items():
            rows.append(
                {"model": model, "decoding": dec, "family": FAMILY[dec], "prompt_length": 8}
                | {"n": n, "novelty": v, "novelty_lo": v - half, "novelty_hi": v + half}
                | {"source": source, "distinct": 100}
                | extra
            )
    return pd.DataFrame(rows)


def novelty_texts(table: pd.DataFrame, texts=40, ngrams=1000, spread=65) -> pd.DataFrame:
    """novelty_texts rows of each (source, model, decoding) of a novelty_samples table at the
    main prompt length (8): ``texts`` texts of ``ngrams`` n-grams at every n, novel
    round(v · ngrams) ± ``spread`` in turn (less near 0 and 1), so each set's pooled
    novelty(n) is v and a difference of 0.01 is not significant, one of 0.05 is."""
    t = table[table["prompt_length"] == 8]
    t = t if "source" in t.columns else t.assign(source="all")
    rows = []
    for (source, model, dec), g in t.groupby(["source", "model", "decoding"], sort=False):
        values = dict(zip(g["n"], g["novelty"], strict=True))
        for i in range(texts):
            row = {"source": source, "model": model, "decoding": dec, "text": i}
            for n, v in values.items():
                k = round(v * ngrams)
                d = min(spread, k, ngrams - k)
                row |= {f"novel_{n}": k + (d if i % 2 else -d), f"ngrams_{n}": ngrams}
            rows.append(row)
    return pd.DataFrame(rows)


HUMAN = {1: 0.3, 2: 0.4, 3: 0.5, 4: 0.8, 5: 0.9, 6: 0.95}


def completion(in_training: list[float], not_in: list[float], tokens=100) -> pd.DataFrame:
    rows = [
        {"model": "m", "curve": curve, "x": x, "loss": v, "tokens": tokens}
        for curve, values in (("in training", in_training), ("not in training", not_in))
        for x, v in enumerate(values, 1)
    ]
    return pd.DataFrame(rows)


CALIBRATION_COLUMNS = [
    "claim", "null", "draws", "holds", "does_not_hold", "inconclusive", "false_rate", "false_rate_lo",
    "false_rate_hi",
]  # fmt: skip


CAL_PARAMS = {
    **PARAMS,
    "findings": {**PARAMS["findings"], "calibration": {"draws": 30, "seed": 0}},
    "novelty": {
        "n_max": 10,
        "bootstrap": 200,
        "seed": 0,
        "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
    },
    "analysis": {
        **PARAMS["analysis"],
        "memorization": {"bootstrap": 200, "seed": 0},
        "membership": {"bootstrap": 200, "seed": 0},
    },
}


def human_tokens(windows=120, length=40, seed=1) -> pd.DataFrame:
    """Per-token L_t of ``windows`` human continuations, i.i.d. across windows (a true null
    for any split), at the main prompt length."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(windows):
        L = np.minimum(rng.geometric(0.35, size=length), np.arange(1, length + 1))
        rows.append(
            pd.DataFrame({"text": w, "window": w, "prompt_length": 8, "t": range(length), "L": L})
        )
    return pd.concat(rows, ignore_index=True)


def data(**kw) -> C.Data:
    base = {
        "tokens": human_tokens(),
        "words": None,
        "quality": None,
        "corpus_size": 10**6,
        "extraction": None,
        "membership": None,
    }
    return C.Data(**(base | kw))


def ladder_results(copies=(0, 1, 16, 256), per=20, seed=0) -> pd.DataFrame:
    """Per-passage extraction results whose exact extraction grows with the copies."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in copies:
        p = {0: 0.0, 1: 0.0, 16: 0.3, 256: 0.9}[c]
        for i in range(per):
            e = int(rng.random() < p)
            rows.append({"model": "m", "passage": f"p{c}-{i}", "copies": c, "exact": e}
                        | {"match_fraction": e, "lcp": 32 * e})  # fmt: skip
    return pd.DataFrame(rows)


def verdict_rule(table: str, statistic, cut: float = 0.0):
    """A deliberately bad rule: ``holds`` when ``statistic(tables[table])`` exceeds ``cut``,
    ``does not hold`` otherwise — a point estimate, no interval, so it always decides."""

    def rule(tables, params):
        v = F.HOLDS if statistic(tables[table]) > cut else F.FAILS
        return F.Finding("bad", "", "", "", "", "", "", "", v)

    return rule


def completion_tokens(texts=80, length=40, effect=1.0, slope=0.0, seed=0) -> pd.DataFrame:
    """Per-token L_t, C_t and loss of one model on ``texts`` held-out texts: a token that
    extends the previous match (it completes an n-gram seen in training) has its loss lowered
    by ``effect``; the loss falls by ``slope`` per decade of C_t."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(texts):
        L = np.ones(length, dtype=np.int64)  # a match grows by one or starts anew
        for t, grow in enumerate(rng.random(length - 1) < 0.7, start=1):
            L[t] = min(L[t - 1] + 1, 6) if grow else rng.integers(0, 3)
        C = 10 ** rng.uniform(0, 3, size=length)
        extends = np.r_[False, L[1:] == L[:-1] + 1]
        loss = 4 + rng.normal(0, 0.5, length) - effect * extends - slope * np.log10(C)
        rows.append(pd.DataFrame({"text": d, "window": d, "prompt_length": 8, "t": range(length),
                                  "L": L, "C": C, "loss": loss, "model": "m"}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


SYNTAX = {"template_headline_n": 3, "top_k": 5, "bootstrap": 200, "seed": 0}


def cloze_items(seed=0, per=8) -> pd.DataFrame:
    """Name cloze items of two models on 12 training, 12 held-out and 6 excerpt plays (copies
    1, 4, 16): training plays and excerpts with more copies are answered more often, and a
    training play's overlap tracks its accuracy."""
    rng = np.random.default_rng(seed)
    plays = [("train", 0, 0.5)] * 12 + [("valid", 0, 0.05)] * 12
    plays += [("excerpt", c, p) for c, p in ((1, 0.1), (4, 0.3), (16, 0.6)) for _ in range(2)]
    rows = []
    for model in ("a", "b"):
        for i, (split, copies, p) in enumerate(plays):
            q = np.clip(p + rng.normal(0, 0.25), 0, 1) if split == "train" else p
            for j in range(per * 3 if split == "train" else per):
                ok = int(rng.random() < q)
                rows.append({"model": model, "play": f"p{i}", "split": split,
                             "excerpt_copies": copies, "item": j, "n_candidates": 10,
                             "correct_insensitive": ok, "correct_sensitive": ok,
                             "match_fraction": q / 2 + rng.normal(0, 0.01), "lcp": 0,
                             "exact": 0})  # fmt: skip
    return pd.DataFrame(rows)


POWER_PARAMS = {
    **CAL_PARAMS,
    "findings": {
        **CAL_PARAMS["findings"],
        "power": {"draws": 10, "seed": 0, "sizes": [5, 10], "copier_shares": [0.1, 0.5],
                  "copier_span": 8, "target": 0.8},
    },
}  # fmt: skip


def corpus(tmp_path, rng, docs=20, length=400, vocab=5000):
    documents = [rng.integers(0, vocab, size=length) for _ in range(docs)]
    build_index(stream_of(documents), tmp_path / "idx")
    return documents, Index(tmp_path / "idx")


def human_tokens_with_ids(rng, windows=40, length=40):
    rows = []
    for w in range(windows):
        ids = rng.integers(6000, 9000, size=length)
        rows.append(pd.DataFrame({"text": w, "window": w, "prompt_length": 8,
                                  "t": range(length), "id": ids, "L": 0}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


STEPS = (2, 6, 13, 32, 75, 178, 422, 1000)
"""Checkpoint steps of a synthetic dynamics table: copyscope.lm.checkpoints.checkpoint_steps(8,
1000); with a timing window of 0.1 the late window starts after step 900 (the last checkpoint
before it: 422), the early one ends at step 100 (the first checkpoint after it: 178)."""


def share_rows(quantity: str, curves: dict, model="m", steps=STEPS) -> pd.DataFrame:
    """Dynamics rows of shares of binary items: ``curves`` set → one (k, n) per step (or one
    for every step), each row k/n with its Wilson interval."""
    from copyscope.stats import wilson

    rows = []
    for name, points in curves.items():
        points = points if isinstance(points, list) else [points] * len(steps)
        for step, (k, n) in zip(steps, points, strict=True):
            v, lo, hi = wilson(k, n)
            rows.append({"model": model, "step": step, "quantity": quantity, "set": name,
                         "value": v, "value_lo": lo, "value_hi": hi, "n": n})  # fmt: skip
    return pd.DataFrame(rows)


def ppl_rows(template, other, model="m", steps=STEPS, rel=(0.1, 0.03), n=(300, 3000)):
    """Dynamics template_ppl rows: ``template`` and ``other`` perplexities (a value per step or
    one for every step), intervals ±``rel`` (log scale: value · e^(∓rel))."""
    rows = []
    for name, values, r, m in (("template tokens", template, rel[0], n[0]),
                               ("other tokens", other, rel[1], n[1])):  # fmt: skip
        values = values if isinstance(values, list) else [values] * len(steps)
        for step, v in zip(steps, values, strict=True):
            rows.append({"model": model, "step": step, "quantity": "template_ppl", "set": name,
                         "value": v, "value_lo": v * np.exp(-r), "value_hi": v * np.exp(r),
                         "n": m})  # fmt: skip
    return pd.DataFrame(rows)
