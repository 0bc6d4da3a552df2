"""Findings scorecard: each qualitative claim of the papers, decided from this run's tables.

A claim is one small pure function ``(tables, params) -> Finding`` registered in
:data:`CLAIMS`: it reads the named tables (``tables[name]`` is ``results/tables/<name>.csv``),
computes its numbers and applies an explicit rule — comparisons of 95% bootstrap intervals
(:func:`compare`), rank correlations (:func:`rank_test`) or a sign test — whose text is the
``rule`` column. Verdicts are ``holds``, ``does not hold`` or ``inconclusive``; nothing is
written by hand. A claim whose table is not an output of the run (e.g. a config without the
decodings or the analysis it needs) is kept as a row, ``inconclusive`` with the reason
``not measured: …`` in ``measured``, so the scorecard always has the same rows.

Claims evaluated per model (or per decoding family, per n …) combine their parts with
:func:`combine`: ``holds`` only when every part holds.

Papers: Merrill, Smith & Elazar 2024, "Evaluating n-Gram Novelty of Language Models Using
Rusty-DAWG" (EMNLP); McCoy et al. 2023, "How Much Do Language Models Copy From Their Training
Data? Evaluating Linguistic Novelty in Text Generation Using RAVEN" (TACL); Carlini et al.
2023, "Quantifying Memorization Across Neural Language Models" (ICLR); Shaib et al. 2024,
"Detection and Measurement of Syntactic Templates in Generated Text" (EMNLP).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import write_csv, write_text

NAME = "findings"
HELP = "scorecard: each qualitative claim of the papers, decided from the tables by a rule"
INPUTS = {
    "table": (
        ("NAME",),
        "a table (.csv) the claims read, under its file name without .csv (e.g. novelty_samples)",
    )
}
OUTPUTS = {"csv": "the scorecard (.csv)", "md": "the scorecard (.md)"}
PARAMS = "the config blocks findings, analysis (syntax), sampling and models (zoo, evaluator)"

HOLDS, FAILS, UNCLEAR = "holds", "does not hold", "inconclusive"
MERRILL = "Merrill et al. 2024"
RAVEN = "McCoy et al. 2023"
CARLINI = "Carlini et al. 2023"
SHAIB = "Shaib et al. 2024"
EXACT_MAX = 8  # rank_test: exact permutation p-values up to this many points ...
N_PERMUTATIONS = 20000  # ... else from this many random permutations


@dataclass(frozen=True)
class Finding:
    """One row of the scorecard."""

    id: str
    claim: str
    paper: str
    measured: str
    rule: str
    verdict: str


Tables = Mapping[str, pd.DataFrame]
ClaimFunction = Callable[[Tables, Mapping], Finding]
CLAIMS: dict[str, ClaimFunction] = {}
"""The claim registry, id → claim function, in scorecard order."""
TABLES: set[str] = set()
"""Every table name a claim reads."""


# --------------------------------------------------------------------------- decision helpers
def compare(a: Sequence[float], b: Sequence[float]) -> int:
    """+1 if interval ``a = (value, low, high)`` lies wholly above ``b``, −1 if wholly below,
    0 if the intervals overlap or a bound is missing (NaN)."""
    (_, alo, ahi), (_, blo, bhi) = a, b
    if any(not np.isfinite(v) for v in (alo, ahi, blo, bhi)):
        return 0
    return 1 if alo > bhi else -1 if ahi < blo else 0


def combine(verdicts: Sequence[str]) -> str:
    """Verdict of a claim from the verdicts of its parts: ``holds`` if every part holds,
    ``does not hold`` if some part does not hold and none holds, else ``inconclusive`` (also
    when there are no parts)."""
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    if FAILS in verdicts and HOLDS not in verdicts:
        return FAILS
    return UNCLEAR


def decided(parts: list[str], verdicts: list[str], reason: str) -> tuple[str, str]:
    """A claim's ``(measured, verdict)`` from its per-model (or per-group) parts and verdicts
    (:func:`combine`); NotMeasured with ``reason`` when no group could be decided."""
    if not verdicts:
        raise NotMeasured(reason)
    return "; ".join(parts), combine(verdicts)


def signs_verdict(signs: Sequence[int], want: int) -> str:
    """Verdict from interval comparisons (:func:`compare`) that should all be ``want``:
    ``holds`` if at least one is ``want`` and none is ``-want``, ``does not hold`` in the
    mirror case, else ``inconclusive``."""
    hits = {s for s in signs if s}
    if hits == {want}:
        return HOLDS
    if hits == {-want}:
        return FAILS
    return UNCLEAR


def ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of ``x``, ties getting their average rank (as Spearman's ρ uses them)."""
    return pd.Series(np.asarray(x, dtype=float)).rank(method="average").to_numpy()


def rank_test(x: Sequence[float], y: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """Spearman's ρ of (x, y) (Pearson correlation of the ranks) and its two-sided permutation
    p-value P(|ρ*| ≥ |ρ|) over permutations of y: exact (all of them) for up to
    :data:`EXACT_MAX` points, else from :data:`N_PERMUTATIONS` random permutations drawn with
    ``seed`` (p = (1 + hits) / (1 + draws)). (NaN, NaN) for fewer than two points or a
    constant x or y; with two points ρ = ±1 and p = 1."""
    rx, ry = ranks(x), ranks(y)
    if len(rx) < 2 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return math.nan, math.nan
    rx, ry = rx - rx.mean(), ry - ry.mean()
    rho = float(rx @ ry / np.linalg.norm(rx) / np.linalg.norm(ry))
    if len(rx) <= EXACT_MAX:
        perms = np.array(list(itertools.permutations(ry)))
    else:
        rng = np.random.default_rng(seed)
        perms = np.array([rng.permutation(ry) for _ in range(N_PERMUTATIONS)])
    rhos = perms @ rx / np.linalg.norm(perms, axis=1) / np.linalg.norm(rx)
    hits = int(np.sum(np.abs(rhos) >= abs(rho) - 1e-9))
    if len(rx) <= EXACT_MAX:
        return rho, hits / len(perms)
    return rho, (1 + hits) / (1 + len(perms))


def sign_test(k: int, m: int) -> float:
    """Two-sided exact binomial p-value of k successes in m trials with p = 1/2:
    min(1, 2 · P(X ≤ min(k, m − k))); NaN for m = 0."""
    if m == 0:
        return math.nan
    tail = sum(math.comb(m, i) for i in range(min(k, m - k) + 1)) / 2**m
    return min(1.0, 2 * tail)


def p_verdict(rho: float, p: float, want: int, alpha: float) -> str:
    """``holds`` if ρ has the sign ``want`` with p < alpha, ``does not hold`` if it has the
    opposite sign with p < alpha, else ``inconclusive``."""
    if not (np.isfinite(rho) and np.isfinite(p)) or p >= alpha or rho == 0:
        return UNCLEAR
    return HOLDS if np.sign(rho) == want else FAILS


def trend_verdict(points: pd.DataFrame, x: str, want: int, rho_min: float) -> tuple[str, float]:
    """Does ``value`` move with ``x`` in the direction ``want`` (+1 up, −1 down)? Spearman ρ
    over the points and the intervals of the two extreme points (lowest and highest x):
    ``holds`` if want·ρ ≥ rho_min and the extremes' intervals differ in that direction,
    ``does not hold`` if want·ρ ≤ −rho_min and they differ the other way, else
    ``inconclusive``. ``points`` has columns ``x``, value, ci_low, ci_high; returns (verdict, ρ).
    """
    p = points.sort_values(x)
    rho, _ = rank_test(p[x], p["value"])
    if len(p) < 2 or not np.isfinite(rho):
        return UNCLEAR, rho
    ends = compare(_ci(p.iloc[-1]), _ci(p.iloc[0]))
    if want * rho >= rho_min - 1e-9 and ends == want:
        return HOLDS, rho
    if want * rho <= -rho_min + 1e-9 and ends == -want:
        return FAILS, rho
    return UNCLEAR, rho


def _ci(row) -> tuple[float, float, float]:
    return float(row["value"]), float(row["ci_low"]), float(row["ci_high"])


def g(x: float) -> str:
    """A number for the scorecard: 3 significant digits, ``n/a`` for NaN."""
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.3g}"


def ci(v: Sequence[float]) -> str:
    """``value [low, high]``."""
    return f"{g(v[0])} [{g(v[1])}, {g(v[2])}]"


def n_range(ns: Sequence[int]) -> str:
    """A set of n as text: ``{}``, ``{5}``, ``{5, 6, 8}``."""
    return "{" + ", ".join(str(int(n)) for n in sorted(ns)) + "}"


class NotMeasured(Exception):
    """The run's tables hold no rows a claim can be decided on (the message says why)."""


# --------------------------------------------------------------------------- the registry
def claim(id: str, text: str, paper: str, tables: Sequence[str], rule: str):
    """Register a decision function ``(tables, params) -> (measured, verdict)`` as the claim
    ``id`` (one-line ``text`` of ``paper``), reading ``tables``; ``rule`` is the text of its
    decision rule, formatted with the config's ``findings`` block. The registered claim
    function returns a :class:`Finding`; a missing table or :class:`NotMeasured` gives
    ``inconclusive`` with ``not measured: <reason>``."""

    def register(decide):
        def finding(tabs: Tables, params: Mapping) -> Finding:
            r = rule.format(**params["findings"])
            missing = [t for t in tables if t not in tabs]
            try:
                if missing:
                    raise NotMeasured(f"no {', '.join(missing)} table in this run")
                measured, verdict = decide(tabs, params)
            except NotMeasured as exc:
                measured, verdict = f"not measured: {exc}", UNCLEAR
            return Finding(id, text, paper, measured, r, verdict)

        finding.__doc__ = decide.__doc__
        finding.__name__ = decide.__name__
        CLAIMS[id] = finding
        TABLES.update(tables)
        return finding

    return register


def _main(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    return table[table["prompt_length"] == params["sampling"]["prompt_length"]]


def _pure(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """model → its rows of the first decoding (in table order) of the pure family; the human
    reference (model ``human``) under ``human``."""
    out = {}
    for model, rows in table.groupby("model", sort=False):
        fam = "human" if model == "human" else "pure"
        dec = rows.loc[rows["family"] == fam, "decoding"]
        if len(dec):
            out[model] = rows[rows["decoding"] == dec.iloc[0]]
    return out


def _versus_human(tables: Tables, params: Mapping, ns: Sequence[int], want: int):
    """Pure sampling of every model vs. human text at the main prompt length: novelty(n) at
    each n in ``ns`` compared by intervals (:func:`compare`), ``want`` = −1 for "less novel"."""
    pure = _pure(_main(tables["novelty_samples"], params))
    if "human" not in pure or len(pure) < 2:
        raise NotMeasured("no pure-sampling or no human rows at the main prompt length")
    human = pure.pop("human").set_index("n")
    parts, verdicts = [], []
    for model, rows in pure.items():
        rows = rows.set_index("n").rename(columns={"novelty": "value"})
        both = [n for n in ns if n in rows.index and n in human.index]
        h = human.rename(columns={"novelty": "value"})
        signs = {n: compare(_ci(rows.loc[n]), _ci(h.loc[n])) for n in both}
        verdict = signs_verdict(list(signs.values()), want)
        verdicts.append(verdict)
        if not both:
            parts.append(f"{model}: no n in range → {verdict}")
            continue
        n0 = both[0]
        parts.append(
            f"{model}: novelty({n0}) {ci(_ci(rows.loc[n0]))} vs human {ci(_ci(h.loc[n0]))}; "
            f"below at n ∈ {n_range([n for n, s in signs.items() if s < 0])}, "
            f"above at n ∈ {n_range([n for n, s in signs.items() if s > 0])} → {verdict}"
        )
    return "; ".join(parts), combine(verdicts)


# --------------------------------------------------------------------------- the claims
@claim(
    "less-novel-large-n",
    "LM text is less novel than human text for large n",
    MERRILL,
    ("novelty_samples",),
    "pure sampling of each model vs. held-out human text, main prompt length, model tokens: "
    "at each n in {n_large}..{n_large_max} compare the 95% CIs of novelty(n); a model holds if "
    "it is below human with non-overlapping CIs at some n and above at none (does not hold: "
    "the mirror case; else inconclusive); the claim holds if every model holds",
)
def less_novel_large_n(tables: Tables, params: Mapping):
    """Merrill et al.: for n > 4, LM-generated text is less novel than human-written text."""
    f = params["findings"]
    return _versus_human(tables, params, range(f["n_large"], f["n_large_max"] + 1), -1)


@claim(
    "more-novel-small-n",
    "LM text is more novel than human text for small n",
    MERRILL,
    ("novelty_samples",),
    "as above for n in 1..{n_small}: a model holds if it is above human with non-overlapping "
    "95% CIs at some n and below at none; the claim holds if every model holds",
)
def more_novel_small_n(tables: Tables, params: Mapping):
    """Merrill et al.: for small n, LM-generated text is more novel than human-written text."""
    return _versus_human(tables, params, range(1, params["findings"]["n_small"] + 1), +1)


def model_size(spec: Mapping) -> int | None:
    """Non-embedding parameters 12 · n_layer · n_embd² of a ``gpt2`` model spec (Kaplan et
    al. 2020), the ordering of "larger"; None for other kinds (LSTM, pretrained), which are
    not compared by size."""
    if spec.get("kind") != "gpt2":
        return None
    return 12 * int(spec["n_layer"]) * int(spec["n_embd"]) ** 2


@claim(
    "larger-less-novel",
    "larger models are less novel (same decoding)",
    MERRILL,
    ("nnsl_samples",),
    "pure sampling, main prompt length; the gpt2 models of models.zoo ordered by "
    "12·n_layer·n_embd² (other kinds are not compared): for each pair of consecutive sizes, "
    "holds if the larger model's mean L_t 95% CI lies above the smaller's (less novel), does "
    "not hold if below, else inconclusive; the claim holds if every pair holds",
)
def larger_less_novel(tables: Tables, params: Mapping):
    """Merrill et al.: larger LMs generate less novel text (higher mean non-novel suffix
    length L_t)."""
    pure = _pure(_main(tables["nnsl_samples"], params))
    zoo = params["models"]["zoo"]
    sized = sorted(
        (model_size(zoo[m]), m) for m in pure if m in zoo and model_size(zoo[m]) is not None
    )
    pairs = [(a, b) for a, b in itertools.pairwise(sized) if b[0] > a[0]]
    if not pairs:
        raise NotMeasured("fewer than two gpt2 models of different sizes with pure sampling")
    row = {m: pure[m].rename(columns={"mean_nnsl": "value"}).iloc[0] for _, m in sized}
    parts, verdicts = [], []
    for (_, small), (_, large) in pairs:
        s = compare(_ci(row[large]), _ci(row[small]))
        verdicts.append(HOLDS if s > 0 else FAILS if s < 0 else UNCLEAR)
        parts.append(
            f"mean L_t {large} {ci(_ci(row[large]))} vs {small} {ci(_ci(row[small]))} "
            f"→ {verdicts[-1]}"
        )
    return "; ".join(parts), combine(verdicts)


CONSTRAINT = {"temperature": "temperature", "top-k": "top_k", "top-p": "top_p"}
"""Sampling family → its parameter (a smaller value constrains the decoding more)."""
UNCONSTRAINED = {"temperature": 1.0, "top_k": math.inf, "top_p": 1.0}
"""The value of each parameter that pure sampling has."""


def _constraint_parts(rows: pd.DataFrame, decodings: Mapping, rho_min: float):
    """(text, verdict) per decoding family of one model's rows (``value`` = mean L_t), after
    (pure sampling's mean L_t, None) when the model has pure sampling."""
    pure = rows[rows["family"] == "pure"]
    parts = []
    for fam, key in CONSTRAINT.items():
        sub = rows[rows["family"] == fam]
        if not len(sub) or not len(pure):
            continue
        pts = pd.concat([sub, pure.iloc[:1]])
        pts["x"] = [
            UNCONSTRAINED[key] if f == "pure" else float(decodings[d][key])
            for d, f in zip(pts["decoding"], pts["family"], strict=True)
        ]
        verdict, rho = trend_verdict(pts, "x", -1, rho_min)
        parts.append((f"{fam} ρ = {g(rho)} ({len(pts)} decodings) → {verdict}", verdict))
    for fam in ("greedy", "beam"):
        for _, r in rows[rows["family"] == fam].iterrows():
            if len(pure):
                s = compare(_ci(r), _ci(pure.iloc[0]))
                verdict = HOLDS if s > 0 else FAILS if s < 0 else UNCLEAR
                parts.append((f"{r['decoding']} {ci(_ci(r))} → {verdict}", verdict))
    if len(pure):
        parts.insert(0, (f"pure {ci(_ci(pure.iloc[0]))}", None))
    return parts


@claim(
    "constrained-less-novel",
    "more constrained decoding (lower temperature, smaller k or p, greedy, beam) is less novel",
    MERRILL,
    ("nnsl_samples",),
    "mean L_t (95% CI), main prompt length, per model: within each sampling family (with pure "
    "sampling as temperature 1, k = ∞, p = 1) Spearman ρ between the parameter and mean L_t; "
    "a family holds if ρ ≤ −{rho_min} and the most constrained decoding's CI lies above the "
    "least constrained's (does not hold: ρ ≥ {rho_min} and below; else inconclusive); greedy "
    "and each beam decoding hold if their CI lies above pure sampling's (does not hold: "
    "below); the claim holds if every family of every model holds",
)
def constrained_less_novel(tables: Tables, params: Mapping):
    """Merrill et al.: more constrained decoding strategies decrease novelty (raise L_t)."""
    nnsl = _main(tables["nnsl_samples"], params).rename(columns={"mean_nnsl": "value"})
    decodings, rho_min = params["sampling"]["decodings"], params["findings"]["rho_min"]
    texts, verdicts = [], []
    for model, rows in nnsl[nnsl["model"] != "human"].groupby("model", sort=False):
        parts = _constraint_parts(rows, decodings, rho_min)
        if len(parts) > 1:
            texts.append(f"{model}: " + ", ".join(t for t, _ in parts))
            verdicts += [v for _, v in parts if v is not None]
    if not verdicts:
        raise NotMeasured("no model has pure sampling and a more constrained decoding")
    return "; ".join(texts), combine(verdicts)


@claim(
    "prompt-length",
    "novelty decreases with prompt length (the prompt-length study's decodings)",
    MERRILL,
    ("nnsl_samples",),
    "for each model and decoding of the prompt-length study: Spearman ρ between prompt length "
    "and mean L_t; holds if ρ ≥ {rho_min} and the longest prompt's 95% CI lies above the "
    "shortest's (does not hold: ρ ≤ −{rho_min} and below; else inconclusive); the claim holds "
    "if every (model, decoding) holds",
)
def prompt_length(tables: Tables, params: Mapping):
    """Merrill et al. Fig. 3 (prompt length), stated as: generations after longer prompts are
    less novel (higher mean L_t)."""
    s = params["sampling"]
    models = s.get("prompt_length_models") or [params["models"]["evaluator"]]
    nnsl = tables["nnsl_samples"].rename(columns={"mean_nnsl": "value"})
    parts, verdicts = [], []
    for (model, decoding), rows in nnsl.groupby(["model", "decoding"], sort=False):
        if model not in models or decoding not in s["prompt_length_decodings"] or len(rows) < 2:
            continue
        verdict, rho = trend_verdict(rows, "prompt_length", +1, params["findings"]["rho_min"])
        lo, hi = rows.sort_values("prompt_length").iloc[[0, -1]].to_dict("records")
        parts.append(
            f"{model} {decoding}: ρ = {g(rho)}, mean L_t {ci(_ci(lo))} at {lo['prompt_length']} "
            f"vs {ci(_ci(hi))} at {hi['prompt_length']} tokens → {verdict}"
        )
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model and decoding sampled at two or more prompt lengths")


def _curves(table: pd.DataFrame, min_tokens: int) -> dict[str, pd.DataFrame]:
    """model → completion-loss rows, one column per curve (``in training``, ``not in
    training``), indexed by x, only the points with at least ``min_tokens`` tokens."""
    t = table[table["tokens"] >= min_tokens]
    return {
        m: rows.pivot_table(index="x", columns="curve", values="loss")
        for m, rows in t.groupby("model", sort=False)
    }


@claim(
    "completion-loss-in-training",
    "completion loss is lower where the model completes an n-gram seen in training",
    MERRILL,
    ("completion_loss",),
    "per model, over the n-gram lengths x where both curves have at least {min_tokens} tokens: "
    "k of m points have the lower loss on the in-training curve; two-sided sign test "
    "(binomial, p = 1/2): holds if k > m/2 with p < {alpha}, does not hold if k < m/2 with "
    "p < {alpha}, else inconclusive; the claim holds if every model holds",
)
def completion_loss_in_training(tables: Tables, params: Mapping):
    """Merrill et al. Fig. 1 (right): tokens that complete an n-gram seen in training have a
    lower loss than tokens that complete a novel n-gram of the same length."""
    f = params["findings"]
    parts, verdicts = [], []
    for model, c in _curves(tables["completion_loss"], f["min_tokens"]).items():
        if not {"in training", "not in training"} <= set(c.columns):
            continue
        both = c.dropna(subset=["in training", "not in training"])
        k, m = int((both["in training"] < both["not in training"]).sum()), len(both)
        p = sign_test(k, m)
        verdict = p_verdict(k - m / 2, p, +1, f["alpha"])
        gap = (both["not in training"] - both["in training"]).mean()
        parts.append(
            f"{model}: lower at {k} of {m} lengths (p = {g(p)}), mean gap {g(gap)} nats → {verdict}"
        )
        verdicts.append(verdict)
    return decided(
        parts, verdicts, f"no model has both curves with ≥ {f['min_tokens']} tokens per point"
    )


@claim(
    "completion-loss-length",
    "completion loss of n-grams seen in training falls with the n-gram's length",
    MERRILL,
    ("completion_loss",),
    "per model, the in-training curve at the lengths x with at least {min_tokens} tokens: "
    "Spearman ρ between x and loss (permutation p-value, exact up to 8 points); holds if ρ < 0 with "
    "p < {alpha}, does not hold if ρ > 0 with p < {alpha}, else inconclusive; the claim holds "
    "if every model holds",
)
def completion_loss_length(tables: Tables, params: Mapping):
    """Merrill et al. Fig. 1 (right): the longer the training n-gram a token completes, the
    lower its loss."""
    f = params["findings"]
    parts, verdicts = [], []
    for model, c in _curves(tables["completion_loss"], f["min_tokens"]).items():
        if "in training" not in c.columns:
            continue
        curve = c["in training"].dropna()
        rho, p = rank_test(curve.index, curve.to_numpy())
        verdict = p_verdict(rho, p, -1, f["alpha"])
        span = f"{g(curve.iloc[0])} at x = {curve.index[0]} to {g(curve.iloc[-1])} at x = "
        parts.append(
            f"{model}: ρ = {g(rho)} (p = {g(p)}, {len(curve)} lengths), loss {span}"
            f"{curve.index[-1]} → {verdict}"
            if len(curve)
            else f"{model}: no length with enough tokens → {verdict}"
        )
        verdicts.append(verdict)
    return decided(parts, verdicts, "no in-training completion-loss curve")


@claim(
    "novelty-quality",
    "more novel decodings have higher perplexity (novelty–quality tradeoff)",
    RAVEN,
    ("raven_summary",),
    "per model sampled under the whole decoding grid (sampling.grid_models; absent = every "
    "model), across its decodings at the main prompt length (training ∪ context): Spearman "
    "ρ between the truncated duplication score (higher = less novel) and the evaluator's "
    "perplexity (permutation p-value, exact up to 8 decodings); holds if ρ < 0 with p < {alpha}, does "
    "not hold if ρ > 0 with p < {alpha}, else inconclusive; the claim holds if every model holds",
)
def novelty_quality(tables: Tables, params: Mapping):
    """McCoy et al. (RAVEN) Fig. 2: decodings that produce more novel text produce text of
    lower quality (higher perplexity under the evaluator model)."""
    r = tables["raven_summary"]
    r = _main(r[(r["source"] == "union") & (r["model"] != "human")], params)
    grid = params["sampling"].get("grid_models")
    if grid is not None:
        r = r[r["model"].isin(grid)]
    parts, verdicts = [], []
    for model, rows in r.groupby("model", sort=False):
        rho, p = rank_test(rows["truncated_score"], rows["perplexity"])
        verdict = p_verdict(rho, p, -1, params["findings"]["alpha"])
        parts.append(f"{model}: ρ = {g(rho)} (p = {g(p)}, {len(rows)} decodings) → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model's samples in the RAVEN summary")


@claim(
    "extraction-duplication",
    "extraction rises with the number of copies in training (supercopying from duplication)",
    CARLINI,
    ("memorization",),
    "per model: the 95% CI of the extraction rate at the top rung (most copies) lies above the "
    "never-planted controls' (copies = 0) and no rung's CI lies wholly below a rung with fewer "
    "copies → holds; the top rung below the controls or such a significant drop → does not "
    "hold; else inconclusive; the claim holds if every model holds",
)
def extraction_duplication(tables: Tables, params: Mapping):
    """Carlini et al. 2023 (McCoy et al.'s supercopying): the more often a passage occurs in
    training, the more often greedy decoding from its prefix reproduces it exactly."""
    mem = tables["memorization"].rename(columns={"extraction_rate": "value"})
    parts, verdicts = [], []
    for model, rows in mem.groupby("model", sort=False):
        rows = rows.sort_values("copies")
        control, rungs = rows[rows["copies"] == 0], rows[rows["copies"] > 0]
        if not len(control) or not len(rungs):
            continue
        ladder = [_ci(r) for _, r in rows.iterrows()]
        drop = any(compare(b, a) < 0 for a, b in itertools.combinations(ladder, 2))
        top = compare(_ci(rungs.iloc[-1]), _ci(control.iloc[0]))
        verdict = HOLDS if top > 0 and not drop else FAILS if top < 0 or drop else UNCLEAR
        steps = ", ".join(f"{int(r['copies'])}: {ci(_ci(r))}" for _, r in rungs.iterrows())
        parts.append(f"{model}: control {ci(_ci(control.iloc[0]))}; {steps} → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model with both control and planted passages")


@claim(
    "completion-loss-frequency",
    "n-grams seen more often in training are completed with lower loss",
    MERRILL,
    ("completion_loss_frequency",),
    "per model and n-gram length L, over the round(log10 count) buckets with at least "
    "{min_tokens} tokens: Spearman ρ between log10 count and loss (permutation p-value, exact "
    "up to 8 buckets); holds if ρ < 0 with p < {alpha}, does not hold if ρ > 0 with p < {alpha}, else "
    "inconclusive; the claim holds if every (model, L) holds",
)
def completion_loss_frequency(tables: Tables, params: Mapping):
    """Merrill et al. (loss vs. frequency): for a fixed length L, the model completes training
    n-grams that occur more often with lower loss."""
    f, freq = params["findings"], tables["completion_loss_frequency"]
    # columns of tables/completion_loss_frequency.csv: n = the n-gram length L, tokens = count
    freq = freq[freq["tokens"] >= f["min_tokens"]]
    parts, verdicts = [], []
    for (model, L), rows in freq.groupby(["model", "n"], sort=False):
        rho, p = rank_test(rows["log10_count"], rows["loss"])
        verdict = p_verdict(rho, p, -1, f["alpha"])
        parts.append(f"{model} L={L}: ρ = {g(rho)} (p = {g(p)}, {len(rows)} buckets) → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, f"no frequency bucket with ≥ {f['min_tokens']} tokens")


LOCAL_UNITS = ("labeled_arc", "unlabeled_arc", "dependency_role")
"""RAVEN's local syntactic units; with the dependency paths of at most :data:`LOCAL_PATH_K` nodes."""
LOCAL_PATH_K = 3
STRUCTURE_UNITS = ("pos_sequence", "constituency_structure", "dependency_structure")
"""RAVEN's whole-sentence units (the dependency-tree structure is copyscope's substitute for
the constituency structure when the parser has no constituency)."""


def _pure_sets(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """model → its rows of its first pure-sampling decoding (``decoding_family`` ``pure``, in
    table order); the human reference under ``human``."""
    out = {}
    for model, rows in table.groupby("model", sort=False):
        fam = "human" if model == "human" else "pure"
        dec = rows.loc[rows["decoding_family"] == fam, "decoding"]
        if len(dec):
            out[model] = rows[rows["decoding"] == dec.iloc[0]]
    return out


def _versus_human_sets(table: pd.DataFrame, what: str) -> tuple[pd.DataFrame, dict]:
    """The human rows and model → pure-sampling rows of a syntax table; NotMeasured unless
    both exist."""
    pure = _pure_sets(table)
    if "human" not in pure or len(pure) < 2:
        raise NotMeasured(f"no pure-sampling or no human rows in the {what} table")
    return pure.pop("human"), pure


def _unit_signs(model: pd.DataFrame, human: pd.DataFrame, units: Sequence[str]) -> dict:
    """unit → :func:`compare` of the model's novelty interval with the human one, for the units
    with generated occurrences in both."""
    m = model[model["total"] > 0].set_index("unit").rename(columns={"novelty": "value"})
    h = human[human["total"] > 0].set_index("unit").rename(columns={"novelty": "value"})
    return {
        u: compare(_ci(m.loc[u]), _ci(h.loc[u])) for u in units if u in m.index and u in h.index
    }


def _unit_names(signs: dict, want: int) -> str:
    return "{" + ", ".join(u for u, s in signs.items() if s == want) + "}"


@claim(
    "syntax-local-less-novel",
    "LM text is less novel than human text in local syntax (arcs, roles, short paths) but as "
    "novel or more in whole-sentence structure",
    RAVEN,
    ("syntax_novelty",),
    "pure sampling of each model vs. human continuations, 95% CIs of syntactic novelty "
    "(bootstrap over passages): local units (labeled and unlabeled arcs, dependency roles, "
    f"labeled and unlabeled dependency paths of k ≤ {LOCAL_PATH_K} nodes) hold if the model is "
    "below human at some unit and above at none (does not hold: the mirror case); "
    "whole-sentence units (POS sequence, constituency or dependency-tree structure) hold if "
    "the model is below human at none (does not hold: below at some); a model holds if both "
    "parts hold and does not hold if either does not; the claim holds if every model holds",
)
def syntax_local_less_novel(tables: Tables, params: Mapping):
    """McCoy et al. (RAVEN) §6: generated text is less syntactically novel than human text for
    small, local structures, while its sentence-level structures are about as novel."""
    human, pure = _versus_human_sets(tables["syntax_novelty"], "syntactic novelty")
    paths = [
        f"{lab}_path_{k}" for lab in ("labeled", "unlabeled") for k in range(1, LOCAL_PATH_K + 1)
    ]
    parts, verdicts = [], []
    for model, rows in pure.items():
        local = _unit_signs(rows, human, [*LOCAL_UNITS, *paths])
        whole = _unit_signs(rows, human, STRUCTURE_UNITS)
        if not local or not whole:
            continue
        local_v = signs_verdict(list(local.values()), -1)
        whole_v = FAILS if -1 in whole.values() else HOLDS
        # both parts must hold; either failing refutes the claim for this model
        verdict = FAILS if FAILS in (local_v, whole_v) else combine([local_v, whole_v])
        verdicts.append(verdict)
        parts.append(
            f"{model}: local below human at {_unit_names(local, -1)}, above at "
            f"{_unit_names(local, 1)} → {local_v}; whole-sentence below at "
            f"{_unit_names(whole, -1)} → {whole_v}; → {verdict}"
        )
    return decided(parts, verdicts, "no model with local and whole-sentence units measured")


TEMPLATE_MEASURES = ("template_rate", "templates_per_token", "cr_pos")
"""Shaib et al.'s measures of template use (higher = more templated)."""


@claim(
    "more-templates",
    "LM text uses more syntactic templates than human text",
    SHAIB,
    ("templates",),
    "pure sampling of each model vs. human continuations, POS n-grams of the headline n "
    "(analysis.syntax.template_headline_n): holds if the model's template rate, "
    "templates-per-token and CR-POS are all higher than human's, does not hold if all lower, "
    "else inconclusive; the claim holds if every model holds",
)
def more_templates(tables: Tables, params: Mapping):
    """Shaib et al.: model outputs contain more templates (higher template rate and
    templates-per-token) and more compressible POS sequences (CR-POS) than human text."""
    n = params["analysis"]["syntax"]["template_headline_n"]
    t = tables["templates"]
    human, pure = _versus_human_sets(t[t["n"] == n], "templates")
    parts, verdicts = [], []
    for model, rows in pure.items():
        m, h = rows.iloc[0], human.iloc[0]
        diffs = [np.sign(float(m[c]) - float(h[c])) for c in TEMPLATE_MEASURES]
        verdict = (
            HOLDS if all(d > 0 for d in diffs) else FAILS if all(d < 0 for d in diffs) else UNCLEAR
        )
        verdicts.append(verdict)
        parts.append(
            f"{model} n={n}: "
            + ", ".join(f"{c} {g(m[c])} vs human {g(h[c])}" for c in TEMPLATE_MEASURES)
            + f" → {verdict}"
        )
    return decided(parts, verdicts, "no template measures of the headline n")


@claim(
    "templates-in-training",
    "templates are found among the training data's frequent POS n-grams more often than "
    "non-template POS n-grams",
    SHAIB,
    ("template_coverage",),
    "pure sampling of each model: holds if its templates' coverage within the training cut is "
    "higher and their median training rank lower (more frequent) than those of random "
    "non-template n-grams of the same texts, with a two-sided Mann–Whitney p < {alpha}; does "
    "not hold if both are the other way with p < {alpha}; else inconclusive; the claim holds if "
    "every model holds",
)
def templates_in_training(tables: Tables, params: Mapping):
    """Shaib et al. §6: a model's templates are far more often among the most frequent POS
    n-grams of the training data than other POS n-grams of its outputs are."""
    pure = _pure_sets(tables["template_coverage"])
    pure.pop("human", None)
    parts, verdicts = [], []
    for model, rows in pure.items():
        r = rows.iloc[0]
        more = float(r["coverage_templates"]) - float(r["coverage_non_templates"])
        rank = float(r["median_rank_non_templates"]) - float(r["median_rank_templates"])
        # +1 / -1 when coverage and median rank agree on a direction, else 0 (inconclusive)
        sign = float(np.sign(more)) if np.sign(more) == np.sign(rank) else 0.0
        verdict = p_verdict(sign, float(r["p_value"]), +1, params["findings"]["alpha"])
        verdicts.append(verdict)
        parts.append(
            f"{model}: coverage {g(r['coverage_templates'])} vs {g(r['coverage_non_templates'])} "
            f"(top {int(r['cut'])}), median rank {g(r['median_rank_templates'])} vs "
            f"{g(r['median_rank_non_templates'])}, p = {g(r['p_value'])} → {verdict}"
        )
    return decided(parts, verdicts, "no model's pure-sampling templates")


@claim(
    "pos-exceeds-exact",
    "POS (style) memorization exceeds exact memorization",
    SHAIB,
    ("style_memorization",),
    "per model, over every passage with at least one training copy (the ladder's planted "
    "passages and the repeated training n-grams; analysis.style): the paired difference "
    "mean(POS sequence reproduced − words reproduced) with its 95% bootstrap CI over passages; "
    "holds if the CI lies wholly above 0, does not hold if it lies wholly below 0 or every "
    "passage has the same two flags while some reproduce their tags (CI [0, 0]: no "
    "continuation reproduces the tags without the words), else inconclusive (also when no "
    "continuation reproduces its tags); the claim holds if every model holds",
)
def pos_exceeds_exact(tables: Tables, params: Mapping):
    """Shaib et al. 2024 §8: prompted with repeated training text, models reproduce its POS
    sequence far more often than its exact words (style is memorized beyond text)."""
    t = tables["style_memorization"]
    t = t[(t["source"] == "all") & (t["stratum"] == "repeated")]
    parts, verdicts = [], []
    for _, r in t.iterrows():
        d = _row_ci(r, "pos_minus_exact", "pos_minus_exact_ci_low", "pos_minus_exact_ci_high")
        if not np.isfinite(d[0]):
            continue
        if float(r["pos_rate"]) == 0.0:
            verdict = UNCLEAR  # no continuation reproduces even the tags: nothing to compare
        elif d[1] == d[2] == 0.0:
            verdict = FAILS
        else:
            verdict = signs_verdict([compare(d, (0.0, 0.0, 0.0))], 1)
        verdicts.append(verdict)
        parts.append(
            f"{r['model']} ({int(r['n'])} passages): exact {g(r['exact_rate'])}, POS "
            f"{g(r['pos_rate'])}, difference {ci(d)} → {verdict}"
        )
    return decided(parts, verdicts, "no passage with a training copy")


LI = "Li 2023"
SHI = "Shi et al. 2024"
CHANG = "Chang et al. 2023"
ZHANG = "Zhang et al. 2024"


def _row_ci(row, value: str, lo: str, hi: str) -> tuple[float, float, float]:
    return float(row[value]), float(row[lo]), float(row[hi])


@claim(
    "benchmark-placement",
    "a benchmark's planted items sit nearer the memorised baseline than its unplanted ones",
    LI,
    ("membership_placement",),
    "per model: copyscope's normalised position (clean − set) / (clean − memorised) of Li's "
    "mean NLLs (0 = clean, 1 = memorised); holds if the planted half's 95% CI lies wholly "
    "above the unplanted half's, does not hold if wholly below, else inconclusive; the claim "
    "holds if every model holds",
)
def benchmark_placement(tables: Tables, params: Mapping):
    """Li (2023): contaminated benchmark text lies near the memorised baseline in perplexity,
    clean benchmark text near the clean baseline."""
    t = tables["membership_placement"]
    parts, verdicts = [], []
    for model, rows in t.groupby("model", sort=False):
        r = rows.set_index("set")
        if not {"benchmark_planted", "benchmark_unplanted"} <= set(r.index):
            continue
        a, b = (_row_ci(r.loc[s], "position", "position_lo", "position_hi") for s in
                ("benchmark_planted", "benchmark_unplanted"))  # fmt: skip
        verdict = signs_verdict([compare(a, b)], 1)
        parts.append(f"{model}: planted {ci(a)} vs unplanted {ci(b)} → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model with planted and unplanted benchmark items")


@claim(
    "min-k-beats-loss",
    "Min-K% Prob and the reference-model ratio detect planted items better than plain loss",
    SHI,
    ("membership_detectors",),
    "per model, planted vs unplanted benchmark items: the AUC of Min-K% Prob (k = 20%) and of "
    "the reference ratio (where the model has a reference) minus the AUC of the loss on the "
    "same items, with its 95% paired bootstrap CI; holds if every compared difference's CI "
    "lies wholly above 0, does not hold if one lies wholly below 0 and none above, else "
    "inconclusive; the claim holds if every model holds",
)
def min_k_beats_loss(tables: Tables, params: Mapping):
    """Shi et al. (2024): Min-K% Prob and reference-calibrated scores beat the loss (PPL)
    as membership detectors."""
    d = tables["membership_detectors"]
    d = d[d["label_set"] == "planted"]
    parts, verdicts = [], []
    for model, rows in d.groupby("model", sort=False):
        r = rows.set_index("detector")
        if "loss" not in r.index:
            continue
        signs, text = [], [f"loss {g(r.at['loss', 'auc'])}"]
        for det in ("min_k_20", "reference"):
            if det in r.index:
                v = _row_ci(r.loc[det], "delta_auc_vs_loss", "delta_auc_lo", "delta_auc_hi")
                signs.append(compare(v, (0.0, 0.0, 0.0)))
                text.append(f"{det} {g(r.at[det, 'auc'])}, ΔAUC {ci(v)}")
        if not signs:
            continue
        fails = -1 in signs and 1 not in signs
        verdict = HOLDS if all(s > 0 for s in signs) else FAILS if fails else UNCLEAR
        parts.append(f"{model}: AUC " + "; ".join(text) + f" → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model with detector AUCs on planted items")


@claim(
    "cloze-training-plays",
    "name cloze accuracy is higher on plays in training than on held-out plays",
    CHANG,
    ("membership_cloze_summary",),
    "per model: the 95% CI of the case-insensitive top-1 accuracy over the items of training "
    "plays against that of held-out plays; holds if wholly above, does not hold if wholly "
    "below, else inconclusive; the claim holds if every model holds",
)
def cloze_training_plays(tables: Tables, params: Mapping):
    """Chang et al. (2023): models complete the names of books they were trained on far
    more often (name cloze as a membership test)."""
    s = tables["membership_cloze_summary"]
    parts, verdicts = [], []
    for model, rows in s.groupby("model", sort=False):
        r = rows.set_index("split")
        if not {"train", "valid"} <= set(r.index):
            continue
        a, b = (_row_ci(r.loc[x], "acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi")
                for x in ("train", "valid"))  # fmt: skip
        verdict = signs_verdict([compare(a, b)], 1)
        parts.append(f"{model}: training plays {ci(a)} vs held-out {ci(b)} → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model with cloze items on training and held-out plays")


@claim(
    "cloze-overlap-correlation",
    "continuation overlap correlates with name cloze accuracy across plays",
    ZHANG,
    ("membership_cloze_summary",),
    "per model: Pearson r across plays between name cloze accuracy (case-insensitive) and "
    "the continuation overlap's match fraction, with its 95% bootstrap CI; holds if the CI "
    "lies wholly above 0, does not hold if wholly below, else inconclusive; the claim holds "
    "if every model holds",
)
def cloze_overlap_correlation(tables: Tables, params: Mapping):
    """Zhang et al. (2024)'s pilot: continuation overlap and name cloze accuracy agree
    across books (r = 0.77)."""
    s = tables["membership_cloze_summary"]
    parts, verdicts = [], []
    for model, rows in s.groupby("model", sort=False):
        r = rows.iloc[0]
        v = _row_ci(r, "r_overlap", "r_lo", "r_hi")
        if not np.isfinite(v[0]):
            continue
        verdict = signs_verdict([compare(v, (0.0, 0.0, 0.0))], 1)
        parts.append(f"{model}: r = {ci(v)} → {verdict}")
        verdicts.append(verdict)
    return decided(parts, verdicts, "no model with r across at least 3 plays")


# --------------------------------------------------------------------------- outputs
def scorecard(tables: Tables, params: Mapping) -> pd.DataFrame:
    """Every registered claim decided on ``tables``: one row per claim, in registry order,
    with the columns of :class:`Finding`."""
    rows = [asdict(decide(tables, params)) for decide in CLAIMS.values()]
    return pd.DataFrame(rows, columns=[f.name for f in fields(Finding)])


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(card: pd.DataFrame) -> str:
    """The scorecard as markdown: a count of the verdicts, a table (claim, paper, verdict,
    measured) and the numbered rules."""
    counts = card["verdict"].value_counts()
    lines = [
        "# Findings scorecard",
        "",
        "Each row is a qualitative claim of the papers, decided from this run's tables by the "
        "rule listed under the table (95% bootstrap intervals over texts or passages).",
        "",
        ", ".join(f"{v}: {int(counts.get(v, 0))}" for v in (HOLDS, FAILS, UNCLEAR)) + ".",
        "",
        "| # | claim | paper | verdict | measured |",
        "|---|---|---|---|---|",
    ]
    for i, r in enumerate(card.itertuples(), 1):
        lines.append(
            f"| {i} | {_cell(r.claim)} | {_cell(r.paper)} | **{r.verdict}** | {_cell(r.measured)} |"
        )
    lines += ["", "## Rules", ""]
    lines += [f"{i}. `{r.id}`: {r.rule}." for i, r in enumerate(card.itertuples(), 1)]
    return "\n".join(lines) + "\n"


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read the named tables, decide every claim, write the scorecard (.csv and .md)."""
    unknown = sorted({name for name, _ in inputs["table"]} - TABLES)
    if unknown:
        raise InputError(
            "--table",
            f"names of tables the claims read ({', '.join(sorted(TABLES))}), found {unknown}",
        )
    tables = {name: pd.read_csv(path) for name, path in inputs["table"]}
    card = scorecard(tables, params)
    write_csv(out["csv"], card)
    write_text(out["md"], markdown(card))


TABLES.update({"completion_loss_slope", "template_coverage_delta", "raven_contrasts"})
