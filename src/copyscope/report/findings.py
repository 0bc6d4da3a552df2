"""Findings scorecard: each claim of the papers, as the paper states it, decided from this run's
tables.

A claim is one small pure function ``(tables, params) -> (measured, verdict)`` registered in
:data:`CLAIMS` with :func:`claim`: the paper's claim in one sentence, where the paper makes it,
the conditions it holds under (models, decoding, baseline, data), and a ``setting`` note where
copyscope's configuration differs from the paper's in a way that predicts another outcome. The
function reads the named tables (``tables[name]`` is ``results/tables/<name>.csv``), computes
its numbers and applies an explicit rule whose text is the ``rule`` column. Verdicts are
``holds``, ``does not hold``, ``mixed`` (some models hold, others do not), ``inconclusive`` or
``not tested here`` (the run does not reproduce a condition the claim depends on — decoding,
baseline, what counts as training data, the models compared —, :class:`NotTested`, counted
apart from ``inconclusive``); each model's verdict is the ``per_model`` column; claims from
outside the five papers are marked ``related`` and listed apart. Nothing is written by hand.

The rules follow three principles:

* **"does not hold" needs an interval that excludes the paper's effect**, not only a null
  result: an interval on the wrong side of zero, or, where the paper gives an effect size
  (``findings.*_effect``), an interval whose upper bound lies below it (:func:`effect_verdict`);
* **a claimed absence of an effect holds only when an interval bounds it**: every difference's
  interval lies within a margin (``findings.*_margin``, :func:`equivalence_verdict`);
* **nothing is decided from too little**: a trend needs ``findings.trend_min_points`` points,
  and a sample set with fewer than ``findings.min_distinct`` distinct generated texts (100
  identical greedy continuations of an empty prompt are one sample) is left out.

A claim whose table is not an output of the run, or whose table holds no rows it can decide on,
stays a row, ``inconclusive`` with ``not measured: …`` in ``measured``, so the scorecard always
has the same rows. Claims evaluated per model (or per decoding, per n …) combine their parts
with :func:`combine`: ``holds`` only when every part holds, ``does not hold`` only when every
part does not hold, ``mixed`` when some parts hold and others do not.

Papers: Merrill, Smith & Elazar 2024, "Evaluating n-Gram Novelty of Language Models Using
Rusty-DAWG" (EMNLP); McCoy et al. 2023, "How Much Do Language Models Copy From Their Training
Data? Evaluating Linguistic Novelty in Text Generation Using RAVEN" (TACL); Shaib et al. 2024,
"Detection and Measurement of Syntactic Templates in Generated Text" (EMNLP); Li 2023,
"Estimating Contamination via Perplexity"; Carlini et al. 2023, "Quantifying Memorization
Across Neural Language Models" (ICLR); Shi et al. 2024, "Detecting Pretraining Data from Large
Language Models" (ICLR, Min-K% Prob); Chang et al. 2023, "Speak, Memory: An Archaeology of
Books Known to ChatGPT/GPT-4" (EMNLP); Zhang et al. 2024 (the literature-memorization study:
name cloze on English and French books with open LLMs, OLMo/Dolma).
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
from ..lazy import lazy_module
from ..stats import (
    bootstrap_set_means,
    percentile_interval,
    permutation_tails,
    pooled_ratio_permutation_test,
)
from .jobs import Input, Output, Params, declared_tables, tables

TABLES: set[str] = set()
"""Every table name a claim reads."""


def claimed_tables() -> list[str]:
    """:data:`TABLES` in the order the analyses declare them (the order of the findings job's
    ``--table`` flags); a name no analysis writes is an error."""
    declared = declared_tables()
    unknown = sorted(TABLES - set(declared))
    if unknown:
        raise KeyError(f"claims read tables no analysis writes: {unknown}")
    return [t for t in declared if t in TABLES]


NAME = "findings"
HELP = "scorecard: each claim of the papers, stated with its conditions, decided by a rule"
INPUTS = {
    "table": Input(
        ("NAME",),
        "a table (.csv) the claims read, under its file name without .csv (e.g. novelty_samples)",
        files=tables(claimed_tables),
    ),
}
OUTPUTS = {
    "csv": Output("findings.csv", "the scorecard (.csv)", "findings", "findings"),
    "md": Output("findings.md", "the scorecard (.md)", "findings", "findings"),
}
PARAMS = Params(
    "the config blocks findings, analysis (syntax), sampling, models (zoo, evaluator, "
    "evaluators) and corpus (inject), unscored: the <model>/<decoding> sets left out "
    "(generations from outside), and ground_truth: false when the run has no training-data "
    "ground truth (only pretrained models, nothing planted; NO_GROUND_TRUTH claims only)",
    of=lambda p: {
        "findings": p.config["findings"],
        "analysis": {"syntax": p.config["analysis"]["syntax"]},
        "sampling": p.config["sampling"],
        **p.unscored(),
        # a trained model or planted text: the training data is known
        "ground_truth": bool(p.trained) or p.plants,
        "models": p.evaluators(),
    },
)

HOLDS, FAILS, UNCLEAR = "holds", "does not hold", "inconclusive"
MIXED = "mixed"
"""The verdict of a claim some of whose parts (models) hold and others do not hold."""
NOT_TESTED = "not tested here"
"""The verdict of a claim whose paper's conditions (decoding, baseline, what counts as
training data, the models compared) this run does not reproduce: it is not decided, and it is
counted apart from ``inconclusive`` (a decided-upon question without a clear answer)."""
VERDICTS = (HOLDS, FAILS, MIXED, UNCLEAR, NOT_TESTED)
"""Every verdict, in the order the scorecard counts them."""
MERRILL = "Merrill et al. 2024"
RAVEN = "McCoy et al. 2023"
SHAIB = "Shaib et al. 2024"
LI = "Li 2023"
CARLINI = "Carlini et al. 2023"
SHI = "Shi et al. 2024"
CHANG = "Chang et al. 2023"
ZHANG = "Zhang et al. 2024"
BROWN_XU = "Brown et al. 2020; Xu et al. 2025"  # GPT-3's 13-gram rule, infini-gram mini's
LU = "Lu et al. 2024"  # the Creativity Index ("AI as Humanity's Salieri", ICLR 2025)
EXACT_MAX = 8  # rank_test: exact permutation p-values up to this many points ...
N_PERMUTATIONS = 20000  # ... else from this many random permutations
QUALITY_PERMUTATIONS = 2000  # novelty-quality: random regroupings of the texts
NOVELTY_PERMUTATIONS = 5000  # novelty(n) vs human rows: random regroupings of two sets' texts
CREATIVITY_BOOTSTRAP = 2000  # human-more-creative: resamples of the relative excess's interval
# imported at first use: the workflow reads this module's claims on every start (copyscope.lazy)
stats = lazy_module("scipy.stats")


@dataclass(frozen=True)
class Finding:
    """One row of the scorecard."""

    id: str
    claim: str
    paper: str
    where: str
    conditions: str
    setting: str
    measured: str
    rule: str
    verdict: str
    per_model: str = ""  # each model's (or part's) verdict: "a: holds; b: does not hold"
    related: bool = False  # a claim from outside the five papers (listed apart, not counted)


Tables = Mapping[str, pd.DataFrame]
ClaimFunction = Callable[[Tables, Mapping], Finding]
CLAIMS: dict[str, ClaimFunction] = {}
"""The claim registry, id → claim function, in scorecard order."""


class NotMeasured(Exception):
    """The run's tables hold no rows a claim can be decided on (the message says why)."""


class NotTested(Exception):
    """The run does not reproduce a condition the claim depends on (the message says which):
    the claim's verdict is :data:`NOT_TESTED`."""


# --------------------------------------------------------------------------- decision helpers
def compare(a: Sequence[float], b: Sequence[float]) -> int:
    """+1 if interval ``a = (value, low, high)`` lies wholly above ``b``, −1 if wholly below,
    0 if the intervals overlap or a bound is missing (NaN)."""
    (_, alo, ahi), (_, blo, bhi) = a, b
    if any(not np.isfinite(v) for v in (alo, ahi, blo, bhi)):
        return 0
    return 1 if alo > bhi else -1 if ahi < blo else 0


ZERO = (0.0, 0.0, 0.0)


def combine(verdicts: Sequence[str]) -> str:
    """Verdict of a claim from the verdicts of its parts (models, sets, pairs): ``holds`` if
    every part holds, ``does not hold`` if every part does not hold, ``mixed`` if some part
    holds and some part does not hold (the parts disagree: each is shown in the row), else
    ``inconclusive`` (also when there are no parts). Symmetric on purpose: with m parts
    decided separately, "does not hold when *some* part does not" would add the parts' false
    "does not hold" rates (≈ m × the nominal rate on a null; 8% measured for two models at
    5%), while requiring every part keeps the claim's false-verdict rate at the part's; a
    ``mixed`` verdict is neither, and the null calibration counts it as a false verdict."""
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    if verdicts and all(v == FAILS for v in verdicts):
        return FAILS
    if (HOLDS in verdicts and FAILS in verdicts) or MIXED in verdicts:
        return MIXED
    return UNCLEAR


def per_model(models: Sequence[str], verdicts: Sequence[str]) -> str:
    """Each model's verdict (:func:`combine` of its parts' verdicts, ``models[i]`` naming the
    model of part i), in order of first appearance: ``"a: holds; b: does not hold"``."""
    by: dict[str, list[str]] = {}
    for m, v in zip(models, verdicts, strict=True):
        by.setdefault(str(m), []).append(v)
    return "; ".join(f"{m}: {combine(vs)}" for m, vs in by.items())


def decided(
    parts: list[str], verdicts: list[str], reason: str, models: Sequence[str] | None = None
) -> tuple[str, str, str]:
    """A claim's ``(measured, verdict, per model)`` from its per-model (or per-group) parts and
    verdicts (:func:`combine`; ``models`` names each part's model, :func:`per_model`);
    NotMeasured with ``reason`` when no group could be decided."""
    if not verdicts:
        raise NotMeasured(reason)
    return "; ".join(parts), combine(verdicts), per_model(models or [], verdicts if models else [])


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


def every_verdict(signs: Sequence[int], want: int) -> str:
    """Verdict of a claim that holds *at every* point (every n, every unit) from interval
    comparisons: ``holds`` if at least one comparison is ``want`` and none is ``-want``;
    ``does not hold`` if any is ``-want`` (an interval that excludes the claimed direction at
    that point refutes "at every"); else ``inconclusive``."""
    if -want in signs:
        return FAILS
    return HOLDS if want in signs else UNCLEAR


def effect_verdict(v: Sequence[float], paper_effect: float | None = None) -> str:
    """Verdict on a difference ``v = (value, low, high)`` that the paper claims is positive:
    ``holds`` if the interval lies wholly above 0; ``does not hold`` if it lies wholly below 0,
    or, where the paper reports an effect size ``paper_effect`` (> 0), if its upper bound lies
    below that size (the interval excludes an effect as large as the paper's); else
    ``inconclusive`` (also for a missing bound)."""
    _, lo, hi = v
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return UNCLEAR
    if lo > 0:
        return HOLDS
    if hi < 0 or (paper_effect is not None and hi < paper_effect):
        return FAILS
    return UNCLEAR


def negated(v: Sequence[float]) -> tuple[float, float, float]:
    """``−v`` of an interval ``(value, low, high)``: ``(−value, −high, −low)``."""
    return -float(v[0]), -float(v[2]), -float(v[1])


def equivalence_verdict(deltas: Sequence[Sequence[float]], margin: float) -> str:
    """Verdict of a claimed *absence* of an effect from differences ``(value, low, high)``:
    ``holds`` if every interval lies within ``[−margin, margin]`` (the effect is bounded);
    ``does not hold`` if some interval lies wholly outside it (a clear effect); else
    ``inconclusive`` (also with no differences or a missing bound)."""
    if not deltas or any(not (np.isfinite(lo) and np.isfinite(hi)) for _, lo, hi in deltas):
        return UNCLEAR
    if any(lo > margin or hi < -margin for _, lo, hi in deltas):
        return FAILS
    if all(-margin <= lo and hi <= margin for _, lo, hi in deltas):
        return HOLDS
    return UNCLEAR


def difference_bounds(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Bounds on ``a − b`` from two independent intervals: ``(a − b, a_low − b_high,
    a_high − b_low)``; each 95% interval covers its value, so both do with probability at
    least 90%, and then the difference lies within these bounds."""
    return (
        float(a[0]) - float(b[0]),
        float(a[1]) - float(b[2]),
        float(a[2]) - float(b[1]),
    )


def wilson(k: int, n: int) -> tuple[float, float, float]:
    """The proportion k/n with its 95% Wilson score interval (NaNs for n = 0)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return k / n, float(ci.low), float(ci.high)


def clopper_pearson(k: int, n: int) -> tuple[float, float, float]:
    """The proportion k/n with its exact (Clopper–Pearson) 95% interval (NaNs for n = 0).
    Unlike a bootstrap over n binary outcomes, it does not collapse to [0, 0] when k = 0."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="exact")
    return k / n, float(ci.low), float(ci.high)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """The difference of proportions k1/n1 − k2/n2 with Newcombe's (1998, method 10) 95%
    hybrid score interval, built from the two Wilson intervals."""
    p1, l1, u1 = wilson(k1, n1)
    p2, l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


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


def trend_test(scores: Sequence[int], n: Sequence[int], k: Sequence[int]) -> tuple[float, float]:
    """Exact conditional test of a trend in proportions (the exact Cochran–Armitage /
    linear-by-linear association test; Agresti 2013, §5.8.3): groups with integer ``scores``
    (e.g. the rank of each ladder rung, controls 0) hold ``n`` passages of which ``k``
    succeed. Given the total K = Σk, under no association every choice of K successes among
    the N passages is equally likely (the outcomes permuted over the passages), and
    T = Σ score·k has the distribution computed exactly here by convolution over groups.
    Returns (P(T ≥ T_obs), P(T ≤ T_obs)): one-sided p-values for an increasing and a
    decreasing trend; (1, 1) when K is 0 or N (no outcome varies)."""
    scores = [int(s) for s in scores]
    n, k = [int(v) for v in n], [int(v) for v in k]
    total, big = sum(k), sum(n)
    if total in (0, big):
        return 1.0, 1.0
    observed = sum(s * x for s, x in zip(scores, k, strict=True))
    # dist[(successes so far, T so far)] = number of ways (exact integers)
    dist: dict[tuple[int, int], int] = {(0, 0): 1}
    for s, m in zip(scores, n, strict=True):
        step: dict[tuple[int, int], int] = {}
        for (c, t), ways in dist.items():
            for x in range(min(m, total - c) + 1):
                key = (c + x, t + s * x)
                step[key] = step.get(key, 0) + ways * math.comb(m, x)
        dist = step
    final = {t: w for (c, t), w in dist.items() if c == total}
    norm = sum(final.values())
    up = sum(w for t, w in final.items() if t >= observed) / norm
    down = sum(w for t, w in final.items() if t <= observed) / norm
    return float(up), float(down)


def group_covariance(
    groups: np.ndarray, x: np.ndarray, xw: np.ndarray, y: np.ndarray, yw: np.ndarray, n_groups: int
) -> float:
    """Between-group covariance of two ratio means: each item i of group ``groups[i]`` adds
    ``x[i]`` over weight ``xw[i]`` to its group's mean X_g = Σx/Σxw and ``y[i]`` over ``yw[i]``
    to Y_g = Σy/Σyw; returns the unweighted covariance of (X_g, Y_g) over the groups."""
    X = np.bincount(groups, x, n_groups) / np.bincount(groups, xw, n_groups)
    Y = np.bincount(groups, y, n_groups) / np.bincount(groups, yw, n_groups)
    return float(np.mean((X - X.mean()) * (Y - Y.mean())))


def group_permutation_test(
    groups: Sequence, x, xw, y, yw, draws: int, seed: int
) -> tuple[float, float, float]:
    """Is there an association *between groups* beyond what the items carry? The statistic is
    :func:`group_covariance`; its null distribution comes from ``draws`` random reassignments
    of the group labels to the items (group sizes kept, seeded). Items whose own x and y are
    related make random groups covary too, so this is the test of a *group* effect (e.g. of
    the decoding method) that a correlation of group means is not. Returns (statistic,
    P(cov* ≤ cov), P(cov* ≥ cov)) with p = (1 + hits) / (1 + draws)."""
    codes, _ = pd.factorize(pd.Series(list(groups)), sort=True)
    n_groups = int(codes.max()) + 1
    arrays = [np.asarray(v, dtype=float) for v in (x, xw, y, yw)]
    observed = group_covariance(codes, *arrays, n_groups)
    rng = np.random.default_rng(seed)
    # all regroupings at once: row r's labels offset by r·n_groups, one bincount per sum
    perms = rng.permuted(np.tile(codes, (draws, 1)), axis=1)
    flat = (perms + n_groups * np.arange(draws)[:, None]).ravel()
    x, xw, y, yw = (
        np.bincount(flat, np.tile(v, draws), draws * n_groups).reshape(draws, n_groups)
        for v in arrays
    )
    X, Y = x / xw, y / yw
    null = np.mean((X - X.mean(1, keepdims=True)) * (Y - Y.mean(1, keepdims=True)), axis=1)
    upper, lower = permutation_tails(null, observed, 1e-12 * max(1.0, abs(observed)))
    return observed, lower, upper


def z_signs(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], alpha: float) -> list[int]:
    """Simultaneous comparisons of paired intervals ``a[j]``, ``b[j]`` (each ``(value, low,
    high)``, a 95% interval): +1 where a lies above b, −1 below, 0 otherwise, such that all
    comparisons together err with probability at most ``alpha`` (Bonferroni over the k
    pairs, α/2 per direction). Each standard error is read off the interval's half-width on
    the side facing the other value (÷ 1.96, so skewed bootstrap intervals are used on the
    side that matters) and z = (a − b) / √(se_a² + se_b²) is compared to Φ⁻¹(1 − α/(2k))."""
    k = len(a)
    if not k:
        return []
    crit = float(stats.norm.isf(alpha / (2 * k)))
    out = []
    for (va, la, ha), (vb, lb, hb) in zip(a, b, strict=True):
        if not all(np.isfinite(v) for v in (va, la, ha, vb, lb, hb)):
            out.append(0)
            continue
        d = va - vb
        se_a = (va - la) if d > 0 else (ha - va)
        se_b = (hb - vb) if d > 0 else (vb - lb)
        se = math.hypot(se_a, se_b) / 1.959964
        if d == 0:
            out.append(0)
        elif se == 0:
            out.append(int(np.sign(d)))
        else:
            out.append(int(np.sign(d)) if abs(d) / se > crit else 0)
    return out


def p_verdict(rho: float, p: float, want: int, alpha: float) -> str:
    """``holds`` if ρ has the sign ``want`` with p < alpha, ``does not hold`` if it has the
    opposite sign with p < alpha (a test that excludes the claimed direction), else
    ``inconclusive``."""
    if not (np.isfinite(rho) and np.isfinite(p)) or p >= alpha or rho == 0:
        return UNCLEAR
    return HOLDS if np.sign(rho) == want else FAILS


def trend_verdict(
    points: pd.DataFrame, x: str, want: int, rho_min: float, min_points: int
) -> tuple[str, float]:
    """Does ``value`` move with ``x`` in the direction ``want`` (+1 up, −1 down)? Spearman ρ
    over the points and the intervals of the two extreme points (lowest and highest x):
    ``holds`` if want·ρ ≥ rho_min and the extremes' intervals differ in that direction,
    ``does not hold`` if want·ρ ≤ −rho_min and they differ the other way, else
    ``inconclusive`` — always with fewer than ``min_points`` points (two points give ρ = ±1
    whatever they are). ``points`` has columns ``x``, value, value_lo, value_hi; returns
    (verdict, ρ)."""
    p = points.sort_values(x)
    rho, _ = rank_test(p[x], p["value"])
    if len(p) < max(2, min_points) or not np.isfinite(rho):
        return UNCLEAR, rho
    ends = compare(_ci(p.iloc[-1]), _ci(p.iloc[0]))
    if want * rho >= rho_min - 1e-9 and ends == want:
        return HOLDS, rho
    if want * rho <= -rho_min + 1e-9 and ends == -want:
        return FAILS, rho
    return UNCLEAR, rho


def _ci(row, value: str = "value", lo: str = "", hi: str = ""):
    return float(row[value]), float(row[lo or f"{value}_lo"]), float(row[hi or f"{value}_hi"])


def g(x: float) -> str:
    """A number for the scorecard: 3 significant digits, ``n/a`` for NaN."""
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.3g}"


def ci(v: Sequence[float]) -> str:
    """``value [low, high]``."""
    return f"{g(v[0])} [{g(v[1])}, {g(v[2])}]"


def n_range(ns: Sequence[int]) -> str:
    """A set of n as text: ``{}``, ``{5}``, ``{5, 6, 8}``."""
    return "{" + ", ".join(str(int(n)) for n in sorted(ns)) + "}"


# --------------------------------------------------------------------------- the registry
def claim(
    id: str,
    text: str,
    paper: str,
    where: str,
    conditions: str,
    tables: Sequence[str],
    rule: str,
    setting: str = "",
    related: bool = False,
):
    """Register a decision function ``(tables, params) -> (measured, verdict[, per model])``
    as the claim ``id``: ``text`` states the claim of ``paper`` as the paper does, at ``where``
    (section, figure), under ``conditions``; ``setting`` says where copyscope's default
    differs in a way that predicts another outcome; ``related`` marks a claim from outside the
    five papers (another paper, or the authors' code rather than their text), listed apart.
    It reads ``tables``; ``rule`` is the text of its decision rule, formatted with the
    config's ``findings`` block. The registered claim function returns a :class:`Finding`; a
    missing table or :class:`NotMeasured` gives ``inconclusive`` with ``not measured:
    <reason>``; :class:`NotTested` (a condition of the claim that the run does not reproduce)
    gives ``not tested here`` with ``not tested here: <reason>``."""

    def register(decide):
        def finding(tabs: Tables, params: Mapping) -> Finding:
            r = rule.format(**params["findings"])
            missing = [t for t in tables if t not in tabs]
            per = ""
            try:
                if missing:
                    raise NotMeasured(f"no {', '.join(missing)} table in this run")
                measured, verdict, *rest = decide(tabs, params)
                per = rest[0] if rest else ""
            except NotMeasured as exc:
                measured, verdict = f"not measured: {exc}", UNCLEAR
            except NotTested as exc:
                measured, verdict = f"{NOT_TESTED}: {exc}", NOT_TESTED
            shown = setting.format(**params["findings"])
            return Finding(
                id, text, paper, where, conditions, shown, measured, r, verdict, per, related
            )

        finding.__doc__ = decide.__doc__
        finding.__name__ = decide.__name__
        CLAIMS[id] = finding
        TABLES.update(tables)
        return finding

    return register


# --------------------------------------------------------------------------- table selection
def _main(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows at the main prompt length (``sampling.prompt_length``)."""
    return table[table["prompt_length"] == params["sampling"]["prompt_length"]]


def _source(table: pd.DataFrame, source: str) -> pd.DataFrame:
    """The rows of ``source`` (``all``: matched against the whole training split; ``natural``:
    against its text before any planting) of a novelty table; a table without a ``source``
    column has ``all`` rows only."""
    if "source" not in table.columns:
        if source == "all":
            return table
        raise NotMeasured(f"no {source!r} rows (source column) in the novelty tables")
    return table[table["source"] == source]


def _enough(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows of the models' sample sets with at least ``findings.min_distinct`` distinct
    generated texts (column ``distinct``, where the table has it), and every human row (true
    continuations, distinct by construction)."""
    if "distinct" not in table.columns:
        return table
    enough = table["distinct"].fillna(0) >= params["findings"]["min_distinct"]
    return table[enough | (table["model"] == "human")]


def _set(table: pd.DataFrame, model: str, decoding: str) -> pd.DataFrame:
    return table[(table["model"] == model) & (table["decoding"] == decoding)]


def _models(table: pd.DataFrame) -> list[str]:
    """The models of a table in table order, without the human reference."""
    return [m for m in pd.unique(table["model"]) if m != "human"]


def _novelty_vs_human(
    table: pd.DataFrame,
    counts: pd.DataFrame,
    params: Mapping,
    decodings: Sequence[str],
    ns: Sequence[int],
    want: int,
    human: str = "reference",
    value: str = "novelty",
) -> tuple[list[str], list[str], list[str]]:
    """Each model's novelty(n) under each decoding of ``decodings`` (that it was sampled
    under) against the human set ``human/<human>``, at each n of ``ns``: parts, verdicts
    (:func:`every_verdict` with ``want``) and models, one per (model, decoding).

    Each pair of sets is compared by a permutation test of the difference in pooled
    novelty(n) (:func:`copyscope.stats.pooled_ratio_permutation_test`: the two sets' texts,
    their novel and all n-grams from ``counts`` (columns model, decoding, text, novel_n,
    ngrams_n), regrouped :data:`NOVELTY_PERMUTATIONS` times, sizes kept, seeded with
    ``findings.permutation_seed``), two-sided at every n, Bonferroni over the n's of every
    set of the claim (each side of each n at ``findings.alpha`` / (2 · sets · n's)), so neither
    the many n's of one curve nor the several sets of one claim multiply its false verdicts.
    Exact under exchangeable texts: z scores from two bootstrap intervals erred too often
    where a few texts hold most of the copied n-grams (RAVEN's n ≥ 7 on halves of 50 human
    texts; Merrill's constrained decodings). ``table`` (shown: its value and 95% interval at
    the first n) has columns model, decoding, n, ``value``, ``value_lo``, ``value_hi``."""
    f = params["findings"]
    table = table.rename(columns={value: "value", f"{value}_lo": "value_lo", f"{value}_hi": "value_hi"})
    h = _set(table, "human", human).set_index("n")
    texts_h = _set(counts, "human", human)
    if not len(h) or not len(texts_h):
        raise NotMeasured(f"no human/{human} rows")
    sets = []
    for model in _models(table):
        for decoding in decodings:
            rows = _set(table, model, decoding).set_index("n")
            texts = _set(counts, model, decoding)
            both = [
                n
                for n in ns
                if n in rows.index and n in h.index and f"novel_{n}" in counts.columns
            ]
            if both and len(texts):
                sets.append((model, decoding, rows, texts, both))
    parts, verdicts = [], []
    for model, decoding, rows, texts, both in sets:
        level = f["alpha"] / (2 * len(sets) * len(both))
        novel, ngrams = [f"novel_{n}" for n in both], [f"ngrams_{n}" for n in both]
        _, up, down = pooled_ratio_permutation_test(
            texts[novel], texts[ngrams], texts_h[novel], texts_h[ngrams],
            draws=NOVELTY_PERMUTATIONS, seed=f["permutation_seed"],
        )  # fmt: skip
        signs = {n: 1 if u < level else -1 if d < level else 0
                 for n, u, d in zip(both, up, down, strict=True)}  # fmt: skip
        verdict = every_verdict(list(signs.values()), want)
        verdicts.append(verdict)
        n0 = both[0]
        parts.append(
            f"{model} {decoding}: novelty({n0}) {ci(_ci(rows.loc[n0]))} vs human/{human} "
            f"{ci(_ci(h.loc[n0]))} ({len(texts)} vs {len(texts_h)} texts, smallest p↑ "
            f"{g(_smallest(up))}, p↓ {g(_smallest(down))} against {g(level)}); above at n ∈ "
            f"{n_range([n for n, s in signs.items() if s > 0])}, below at n ∈ "
            f"{n_range([n for n, s in signs.items() if s < 0])} → {verdict}"
        )
    return parts, verdicts, [m for m, *_ in sets]


TOKEN_N_MIN = 2  # the rules' texts say "2..": a test checks they agree
"""The smallest n of the novelty rows in model tokens (Merrill et al.'s): novelty(1) of BPE
tokens says only whether a vocabulary entry occurs in training, which every token a model
trained here can write does (its tokenizer was fit on that text), so n = 1 measures the
tokenizer, not copying; RAVEN's rows count words, where n = 1 is a novel word."""


def token_ns(n_max: int) -> range:
    """The n of a novelty row in model tokens: :data:`TOKEN_N_MIN`..``n_max``."""
    return range(TOKEN_N_MIN, n_max + 1)


def _smallest(p: np.ndarray) -> float:
    """The smallest finite p-value of ``p``, NaN if none."""
    p = np.asarray(p, dtype=float)
    return float(p[np.isfinite(p)].min()) if np.isfinite(p).any() else float("nan")


def model_size(spec: Mapping) -> int | None:
    """Non-embedding parameters 12 · n_layer · n_embd² of a ``gpt2`` model spec (Kaplan et
    al. 2020), the ordering of "larger"; None for other kinds (LSTM, pretrained), which are
    not compared by size."""
    if spec.get("kind") != "gpt2":
        return None
    return 12 * int(spec["n_layer"]) * int(spec["n_embd"]) ** 2


def evaluator_of(model: str, params: Mapping) -> str:
    """The model that scores ``model``'s samples: ``models.evaluators[model]``, else
    ``models.evaluator``."""
    m = params["models"]
    return (m.get("evaluators") or {}).get(model, m["evaluator"])


# --------------------------------------------------------------------------- Merrill et al.
MERRILL_PURE = (
    "Pythia 70M–12B trained on the Pile; pure (naive) sampling, 1,000 new tokens; baseline: the "
    "Pile's validation text, which duplicates training n-grams (less novel than the no-"
    "duplication lower bound for n > 20); n = 1..100"
)


@claim(
    "pure-more-novel-than-validation",
    "With pure sampling, LM text is more novel than held-out validation text at every n",
    MERRILL,
    "Fig. 1 (left), §3",
    MERRILL_PURE,
    ("novelty_samples", "novelty_texts"),
    "pure sampling ({pure_decoding}) of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, model tokens, matched against the "
    "{novelty_source} training text: at each n in 2..{n_max} (n = 1 of BPE tokens is left out: "
    "every token occurs in the training text its tokenizer was fit on) the difference in pooled "
    "novelty(n) is tested by regrouping the two sets' texts (" + str(NOVELTY_PERMUTATIONS) + " "
    "random regroupings, sizes kept; two-sided, all n of all models at once, Bonferroni over "
    "every model's n's, α = {alpha}); a model holds if it is above at some n and below at none, "
    "does not hold if it is below at some n (an interval excluding 'more novel' there), else "
    "inconclusive; the claim holds if every model holds, does not hold if every model does not",
    setting="copyscope's held-out plays are clean (they share no planted or split-crossing "
    "text with training), unlike the Pile's validation set: the authors' own explanation "
    "predicts that pure samples are NOT more novel than a clean baseline, so 'does not hold' "
    "here is the explanation's prediction (next row: the contaminated baseline)",
)
def pure_more_novel_than_validation(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 1 (left): pure samples are more novel than validation text."""
    f = params["findings"]
    t = _main(_source(tables["novelty_samples"], f["novelty_source"]), params)
    counts = _source(tables["novelty_texts"], f["novelty_source"])
    parts, verdicts, models = _novelty_vs_human(
        t, counts, params, [f["pure_decoding"]], token_ns(f["n_max"]), 1
    )
    return decided(parts, verdicts, "no pure-sampling rows at the main prompt length", models)


@claim(
    "pure-vs-contaminated-baseline",
    "The authors' explanation of Fig. 1: validation text that duplicates training n-grams is "
    "less novel than pure samples, so against a contaminated held-out baseline pure samples "
    "are more novel at every n",
    MERRILL,
    "§3 (on Fig. 1 left)",
    MERRILL_PURE,
    ("novelty_samples", "novelty_texts"),
    "as the row above, against the true continuations of windows from held-out plays whose "
    "excerpts are planted in training (human/contaminated, corpus.inject.excerpts), matched "
    "against all training text (planted included); holds if every model is above at some n in "
    "2..{n_max} and below at none, does not hold if every model is below at some n; the clean "
    "baseline's comparison is reported beside it",
    setting="the contamination is planted (a share of the speeches of a few held-out plays, "
    "copied 1–16 times), not the Pile's natural train–validation overlap",
)
def pure_vs_contaminated_baseline(tables: Tables, params: Mapping):
    """Merrill et al. 2024 §3: the order of pure samples and validation text depends on the
    validation text duplicating training n-grams."""
    f = params["findings"]
    t = _main(_source(tables["novelty_samples"], "all"), params)
    counts = _source(tables["novelty_texts"], "all")
    ns, pure = token_ns(f["n_max"]), [f["pure_decoding"]]
    parts, verdicts, models = _novelty_vs_human(
        t, counts, params, pure, ns, 1, human="contaminated"
    )
    try:
        clean, _, _ = _novelty_vs_human(t, counts, params, pure, ns, 1)
        parts += [f"[clean baseline, all text: {p}]" for p in clean]
    except NotMeasured:
        pass
    return decided(parts, verdicts, "no human/contaminated or no pure-sampling rows", models)


@claim(
    "larger-less-novel",
    "Larger models generate less novel text than smaller ones (same decoding)",
    MERRILL,
    "Fig. 1 (left)",
    "Pythia 70M, 160M, 410M, 1B, 1.4B, 2.8B, 6.9B, 12B (one training run on the Pile); pure "
    "sampling",
    ("nnsl_samples",),
    "pure sampling ({pure_decoding}), main prompt length, {novelty_source} training text; the "
    "gpt2 models of models.zoo ordered by 12·n_layer·n_embd² (other kinds are not compared): "
    "for each pair of consecutive sizes, holds if the larger model's mean L_t 95% CI lies above "
    "the smaller's (less novel), does not hold if below, else inconclusive; the claim holds if "
    "every pair holds",
    setting="two GPT-2 sizes two orders of magnitude smaller than Pythia's, trained on ~1M "
    "tokens; McCoy et al. (RAVEN §5, Fig. 3) found the size effect inconsistent across GPT-2 "
    "sizes",
)
def larger_less_novel(tables: Tables, params: Mapping):
    """Merrill et al. 2024: larger LMs generate less novel text (higher mean L_t)."""
    f = params["findings"]
    t = _enough(_main(_source(tables["nnsl_samples"], f["novelty_source"]), params), params)
    t = t[t["decoding"] == f["pure_decoding"]].rename(columns={"mean_nnsl": "value", "mean_nnsl_lo": "value_lo", "mean_nnsl_hi": "value_hi"})
    zoo = params["models"]["zoo"]
    sized = sorted(
        (model_size(zoo[m]), m) for m in _models(t) if m in zoo and model_size(zoo[m]) is not None
    )
    pairs = [(a, b) for a, b in itertools.pairwise(sized) if b[0] > a[0]]
    if not pairs:
        raise NotMeasured("fewer than two gpt2 models of different sizes with pure sampling")
    row = {m: t[t["model"] == m].iloc[0] for _, m in sized}
    parts, verdicts, labels = [], [], []
    for (_, small), (_, large) in pairs:
        s = compare(_ci(row[large]), _ci(row[small]))
        verdicts.append(HOLDS if s > 0 else FAILS if s < 0 else UNCLEAR)
        labels.append(f"{large} vs {small}")
        parts.append(
            f"mean L_t {large} {ci(_ci(row[large]))} vs {small} {ci(_ci(row[small]))} "
            f"→ {verdicts[-1]}"
        )
    return decided(parts, verdicts, "no pair of sizes", labels)


CONSTRAINT = {"temperature": "temperature", "top-k": "top_k", "top-p": "top_p"}
"""Sampling family → its parameter (a smaller value constrains the decoding more)."""
UNCONSTRAINED = {"temperature": 1.0, "top_k": math.inf, "top_p": 1.0}
"""The value of each parameter that pure sampling has."""


def _constraint_parts(rows: pd.DataFrame, params: Mapping):
    """(text, verdict) per decoding family of one model's rows (``value`` = mean L_t), after
    (pure sampling's mean L_t, None) when the model has pure sampling."""
    f = params["findings"]
    decodings = params["sampling"]["decodings"]
    pure = rows[rows["decoding"] == f["pure_decoding"]]
    parts = []
    for fam, key in CONSTRAINT.items():
        sub = rows[rows["family"] == fam]
        if not len(sub) or not len(pure):
            continue
        pts = pd.concat([sub, pure.iloc[:1]])
        pts["x"] = [
            UNCONSTRAINED[key] if d == f["pure_decoding"] else float(decodings[d][key])
            for d in pts["decoding"]
        ]
        if len(pts) < f["trend_min_points"]:
            continue  # two points give ρ = ±1 whatever they are: no trend is decided
        verdict, rho = trend_verdict(pts, "x", -1, f["rho_min"], f["trend_min_points"])
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
    "Less stochastic decoding (smaller k or p, lower temperature, beam search) decreases novelty",
    MERRILL,
    "Fig. 2, §4",
    "Pythia-12B; top-k, top-p and temperature grids, greedy and beam search (beam 8: 3% novel "
    "10-grams vs 71% at temperature 0.5)",
    ("nnsl_samples",),
    "mean L_t (95% CI), main prompt length, {novelty_source} training text, per model: within "
    "each sampling family with at least {trend_min_points} decodings (pure sampling counted as "
    "temperature 1, k = ∞, p = 1) Spearman ρ between the parameter and mean L_t; a family holds "
    "if ρ ≤ −{rho_min} and the most constrained decoding's CI lies above the least "
    "constrained's (does not hold: ρ ≥ {rho_min} and below; else inconclusive); greedy and "
    "each beam decoding hold if their CI lies above pure sampling's (does not hold: below); "
    "sets with fewer than {min_distinct} distinct texts are left out; the claim holds if every "
    "family of every model holds, does not hold if every one does not",
)
def constrained_less_novel(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 2: more constrained decoding decreases novelty (raises L_t)."""
    f = params["findings"]
    nnsl = _enough(_main(_source(tables["nnsl_samples"], f["novelty_source"]), params), params)
    nnsl = nnsl.rename(columns={"mean_nnsl": "value", "mean_nnsl_lo": "value_lo", "mean_nnsl_hi": "value_hi"})
    texts, verdicts, models = [], [], []
    for model in _models(nnsl):
        parts = _constraint_parts(nnsl[nnsl["model"] == model], params)
        if len(parts) > 1:
            texts.append(f"{model}: " + ", ".join(t for t, _ in parts))
            verdicts += [v for _, v in parts if v is not None]
            models += [model for _, v in parts if v is not None]
    if not verdicts:
        raise NotMeasured("no model has pure sampling and a more constrained decoding")
    return "; ".join(texts), combine(verdicts), per_model(models, verdicts)


@claim(
    "constrained-small-n-below-validation",
    "Constrained decoding (greedy, beam search) makes small n-grams less novel than "
    "validation text",
    MERRILL,
    "Fig. 2, §4",
    "Pythia-12B; greedy and beam decoding against the Pile's validation text",
    ("novelty_samples", "novelty_texts"),
    "greedy and beam decodings of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, {novelty_source} training text: at each "
    "n in 2..{n_small} the difference in pooled novelty(n) is tested by regrouping the two "
    "sets' texts (" + str(NOVELTY_PERMUTATIONS) + " random regroupings, sizes kept; two-sided, "
    "all n of all sets at once, Bonferroni over every set's n's, α = {alpha}); a set holds if "
    "it is below "
    "human at some n and above at none, does not hold if above at some n; sets with fewer than "
    "{min_distinct} distinct texts are left out; the claim holds if every set holds, does not hold if every set does not",
)
def constrained_small_n_below_validation(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 2: greedy and beam text reuses short n-grams more than
    validation text does."""
    f = params["findings"]
    t = _enough(_main(_source(tables["novelty_samples"], f["novelty_source"]), params), params)
    constrained = list(pd.unique(t.loc[t["family"].isin(["greedy", "beam"]), "decoding"]))
    counts = _source(tables["novelty_texts"], f["novelty_source"])
    ns = token_ns(f["n_small"])
    parts, verdicts, models = _novelty_vs_human(t, counts, params, constrained, ns, -1)
    return decided(parts, verdicts, "no greedy or beam sets with enough distinct texts", models)


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
    "The loss of the token completing an n-gram of validation text is lower when that n-gram "
    "occurs in training, across n",
    MERRILL,
    "Fig. 1 (right)",
    "Pythia models on the Pile's validation text; per-token loss grouped by n",
    ("completion_loss",),
    "per model, over the n-gram lengths x where both curves have at least {min_tokens} tokens: "
    "k of m points have the lower loss on the in-training curve; two-sided sign test "
    "(binomial, p = 1/2): holds if k > m/2 with p < {alpha}, does not hold if k < m/2 with "
    "p < {alpha}, else inconclusive; the claim holds if every model holds, "
    "does not hold if every model does not",
)
def completion_loss_in_training(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 1 (right): tokens that complete an n-gram seen in training have
    a lower loss than tokens that complete a novel n-gram of the same length."""
    f = params["findings"]
    parts, verdicts, models = [], [], []
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
        models.append(model)
    return decided(
        parts,
        verdicts,
        f"no model has both curves with ≥ {f['min_tokens']} tokens per point",
        models,
    )


@claim(
    "completion-loss-frequency",
    "For a fixed n-gram length, n-grams that occur more often in training are completed with "
    "lower loss",
    MERRILL,
    "released analysis code (loss by training frequency)",
    "Pythia on the Pile's validation text; tokens with L_t = L for fixed L, bucketed by "
    "log10 count",
    ("completion_loss_slope",),
    "per model and n-gram length L with at least {min_tokens} tokens from at least {min_texts} "
    "texts: the slope of token loss on log10 C_t over the tokens with L_t = L, with its 95% "
    "bootstrap CI over texts; every "
    "(model, L) at once (z from the 95% CIs, Bonferroni over the (model, L), α = {alpha}): a "
    "(model, L) holds if the slope is below 0, does not hold if above 0, else inconclusive; "
    "the claim holds if every (model, L) holds, does not hold if every (model, L) does not",
    setting="the papers' text does not state this; it is what the authors' analysis code plots",
    related=True,
)
def completion_loss_frequency(tables: Tables, params: Mapping):
    """Merrill et al. 2024 (analysis code): for a fixed length L, more frequent training
    n-grams are completed with lower loss (negative slope of loss on log10 count)."""
    f, t = params["findings"], tables["completion_loss_slope"]
    t = t[(t["tokens"] >= f["min_tokens"]) & (t["texts"] >= f["min_texts"])]
    t = t[np.isfinite(t["slope"].astype(float))]
    slopes = [_ci(r, "slope", "slope_lo", "slope_hi") for _, r in t.iterrows()]
    # all (model, L) at once: four 95% intervals would err one in ten times together
    signs = z_signs(slopes, [ZERO] * len(slopes), f["alpha"])
    parts, verdicts, models = [], [], []
    for (_, r), v, sign in zip(t.iterrows(), slopes, signs, strict=True):
        verdict = HOLDS if sign < 0 else FAILS if sign > 0 else UNCLEAR
        parts.append(
            f"{r['model']} L={int(r['n'])}: slope {ci(v)} nats per decade "
            f"({int(r['tokens'])} tokens, {int(r['texts'])} texts) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(r["model"])
    return decided(
        parts,
        verdicts,
        f"no length L with ≥ {f['min_tokens']} tokens from ≥ {f['min_texts']} texts and a slope",
        models,
    )


# --------------------------------------------------------------------------- McCoy et al.
RAVEN_NGRAM = (
    "LSTM, Transformer and Transformer-XL trained on Wikitext-103, GPT-2 (WebText); Moses "
    "words; duplication w.r.t. training ∪ context; baseline: the true continuations of the "
    "prompts"
)
RAVEN_NATURAL = (
    "matched, as Merrill et al.'s rows are, against the {novelty_source} training text "
    "(findings.novelty_source; natural: the training text before any planting) ∪ context: "
    "the papers' training data holds no planted passages"
)


RAVEN_SOURCES = {"natural": "natural", "all": "union"}
"""``findings.novelty_source`` → the RAVEN source its n-gram rows read: the natural training
text ∪ context (as Merrill et al.'s rows match natural text only), or all training text ∪
context."""


def raven_source(params: Mapping) -> str:
    """The RAVEN source of the n-gram rows (:data:`RAVEN_SOURCES` of
    ``findings.novelty_source``)."""
    return RAVEN_SOURCES[params["findings"]["novelty_source"]]


def _raven_rows(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows of :func:`raven_source` of a RAVEN table (column ``source``; a text table
    without it holds ``union`` rows only)."""
    source = raven_source(params)
    if "source" not in table.columns:
        if source == "union":
            return table
        raise NotMeasured(f"no {source!r} rows (source column) in the RAVEN tables")
    if not (table["source"] == source).any() and len(table):
        raise NotMeasured(f"no {source!r} rows in the RAVEN tables (re-run report raven)")
    return table[table["source"] == source]


def _raven_curves(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """raven_summary (the source of :func:`raven_source`, main prompt length) as long rows:
    model, decoding, family, n, novelty, novelty_lo, novelty_hi."""
    t = _enough(_main(_raven_rows(table, params), params), params)
    rows = []
    for _, r in t.iterrows():
        for n in range(1, params["findings"]["raven_n_max"] + 1):
            if f"novelty_{n}" in t.columns:
                rows.append(
                    {
                        "model": r["model"],
                        "decoding": r["decoding"],
                        "family": r["family"],
                        "n": n,
                        "novelty": r[f"novelty_{n}"],
                        "novelty_lo": r[f"novelty_{n}_lo"],
                        "novelty_hi": r[f"novelty_{n}_hi"],
                    }
                )
    cols = ["model", "decoding", "family", "n", "novelty", "novelty_lo", "novelty_hi"]
    return pd.DataFrame(rows, columns=cols)


def _raven_vs_human(
    tables: Tables, params: Mapping, decoding_key: str, lo: int, hi: int, sign: int
) -> tuple[str, str]:
    """A RAVEN n-gram row: the samples of decoding ``findings[decoding_key]`` of each model
    against human/reference at n in lo..hi (:func:`_novelty_vs_human`: texts regrouped, from
    ``raven_text_novelty``), ``sign`` the claimed side (−1 below, +1 above). Bootstrap
    intervals compared as z scores erred here in 13 of 200 draws of the null calibration's
    human halves at n ≥ 7, where a few texts hold most of the copied n-grams."""
    decoding = params["findings"][decoding_key]
    t = _raven_curves(tables["raven_summary"], params)
    counts = _raven_rows(tables["raven_text_novelty"], params)
    parts, verdicts, models = _novelty_vs_human(
        t, counts, params, [decoding], range(lo, hi + 1), sign
    )
    return decided(parts, verdicts, f"no {decoding} samples in the RAVEN summary", models)


@claim(
    "raven-top40-small-n",
    "With top-40 sampling, models are less novel than the human baseline for small n (n < 6)",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; top-40 sampling (Wikitext: 6% novel bigrams vs 2–3% for the models)",
    ("raven_summary", "raven_text_novelty"),
    "the {raven_decoding} samples of each model vs human/reference, RAVEN's word novelty "
    "({novelty_source} training text ∪ context), main prompt length: at each n in "
    "1..{raven_small_max}, the "
    "difference in pooled novelty(n) tested by regrouping the two sets' texts "
    "(" + str(NOVELTY_PERMUTATIONS) + " random regroupings, sizes kept; two-sided, Bonferroni "
    "over every model's n's, α = {alpha}); a model holds if below at some n and above at "
    "none, does not hold if above at some n; the claim holds if every model holds, does not "
    "hold if every model does not",
    setting=RAVEN_NATURAL,
)
def raven_top40_small_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: top-40 samples reuse short n-grams more than human text."""
    f = params["findings"]
    return _raven_vs_human(tables, params, "raven_decoding", 1, f["raven_small_max"], -1)


@claim(
    "raven-top40-large-n",
    "With top-40 sampling, models are more novel than the human baseline for n > 6",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; top-40 sampling",
    ("raven_summary", "raven_text_novelty"),
    "as the row above at each n in {raven_large_min}..{raven_n_max}: a model holds if above "
    "human at some n and below at none, does not hold if below at some n",
    setting=RAVEN_NATURAL,
)
def raven_top40_large_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: for larger n, top-40 samples are more novel than human text."""
    f = params["findings"]
    return _raven_vs_human(
        tables, params, "raven_decoding", f["raven_large_min"], f["raven_n_max"], 1
    )


@claim(
    "raven-pure-every-n",
    "With pure sampling, models are more novel than the human baseline at every n",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; pure sampling",
    ("raven_summary", "raven_text_novelty"),
    "the {pure_decoding} samples of each model vs human/reference, RAVEN's word novelty "
    "({novelty_source} training text ∪ context), main prompt length, n in 1..{raven_n_max} "
    "(the texts regrouped, all n at once, as above): a model holds if above at some n and "
    "below at none, does not hold if below at some n; the claim holds if every model holds, "
    "does not hold if every model does not",
    setting=RAVEN_NATURAL,
)
def raven_pure_every_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: pure samples are more novel than human text at every n."""
    f = params["findings"]
    return _raven_vs_human(tables, params, "pure_decoding", 1, f["raven_n_max"], 1)


@claim(
    "lstm-less-novel-small-n",
    "The LSTM is less novel than the Transformer for small n (recurrence)",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; LSTM vs Transformer of Wikitext-103, top-40 sampling",
    ("raven_summary",),
    "the {raven_decoding} samples of each lstm model vs each gpt2 model of models.zoo, RAVEN's "
    "word novelty ({novelty_source} training text ∪ context), main prompt length, n in "
    "1..{raven_small_max}: a pair "
    "holds if the LSTM is below at some n and above at none, does not hold if above at some n; "
    "the claim holds if every pair holds, does not hold if every pair does not; not tested "
    "here without an lstm and a gpt2 model in models.zoo",
    setting=RAVEN_NATURAL,
)
def lstm_less_novel_small_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: the recurrent LSTM copies short n-grams more than the
    Transformer."""
    f, zoo = params["findings"], params["models"]["zoo"]
    kinds = {s.get("kind") for s in zoo.values()}
    if not {"lstm", "gpt2"} <= kinds:
        raise NotTested(
            f"models.zoo has no {'lstm' if 'lstm' not in kinds else 'gpt2'} model: the claim "
            "compares a recurrent LSTM with a Transformer trained on the same text"
        )
    t = _raven_curves(tables["raven_summary"], params)
    t = t[t["decoding"] == f["raven_decoding"]]
    present = set(t["model"])
    lstms = [m for m, s in zoo.items() if s.get("kind") == "lstm" and m in present]
    gpts = [m for m, s in zoo.items() if s.get("kind") == "gpt2" and m in present]
    parts, verdicts, models = [], [], []
    ns = range(1, f["raven_small_max"] + 1)
    for lstm, gpt in itertools.product(lstms, gpts):
        a = t[t["model"] == lstm].set_index("n").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
        b = t[t["model"] == gpt].set_index("n").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
        signs = {
            n: compare(_ci(a.loc[n]), _ci(b.loc[n])) for n in ns if n in a.index and n in b.index
        }
        if not signs:
            continue
        verdict = every_verdict(list(signs.values()), -1)
        verdicts.append(verdict)
        models.append(f"{lstm} vs {gpt}")
        parts.append(
            f"{lstm} vs {gpt}: below at n ∈ {n_range([n for n, s in signs.items() if s < 0])}, "
            f"above at n ∈ {n_range([n for n, s in signs.items() if s > 0])} → {verdict}"
        )
    return decided(
        parts, verdicts, f"no lstm and gpt2 model both sampled with {f['raven_decoding']}", models
    )


@claim(
    "novelty-quality",
    "Decoding methods trade novelty against quality: decodings that produce more novel text "
    "produce text of lower quality (higher perplexity under a different model)",
    RAVEN,
    "§5, Fig. 2",
    "12 decodings (top-k, top-p, temperature grids, pure sampling); quality = perplexity under "
    "another model (GPT-2 scored the Wikitext models, Transformer-XL scored GPT-2)",
    ("raven_summary", "raven_texts"),
    "per model, across its decodings at the main prompt length (training ∪ context), only sets "
    "scored by an evaluator other than the model itself (models.evaluator / "
    "models.evaluators) with at least {min_distinct} distinct texts, from at least "
    "{trend_min_points} decodings: the covariance over the decodings of the truncated "
    "duplication score (higher = less novel) and the evaluator's mean NLL, tested against "
    "random reassignments of the decoding labels to the texts (a permutation test of a "
    "decoding effect: texts that copy more are also easier to predict, so random groups of "
    "texts covary too, and a correlation of decoding means alone cannot tell them apart); "
    "holds if the covariance is negative with one-sided p < {alpha}/(2m), does not hold if "
    "positive with p < {alpha}/(2m) (Bonferroni over the m models decided), else "
    "inconclusive; Spearman's ρ of the decoding means is reported beside it; the claim holds "
    "if every model holds",
)
def novelty_quality(tables: Tables, params: Mapping):
    """McCoy et al. 2023 Fig. 2: more novel decodings give higher perplexity under a
    different evaluator model."""
    f = params["findings"]
    r = tables["raven_summary"]
    r = _enough(_main(r[(r["source"] == "union") & (r["model"] != "human")], params), params)
    if "evaluator" in r.columns:
        r = r[r["evaluator"] != r["model"]]
    else:
        r = r[r["model"].map(lambda m: evaluator_of(m, params) != m).astype(bool)]
    texts = tables["raven_texts"]
    groups = []
    for model, rows in r.groupby("model", sort=False):
        t = texts[(texts["model"] == model) & texts["decoding"].isin(rows["decoding"])]
        t = t[t["score_tokens"] > 0]
        if t["decoding"].nunique() >= f["trend_min_points"]:
            groups.append((model, rows, t))
    level = f["alpha"] / (2 * max(1, len(groups)))  # per direction, Bonferroni over the models
    parts, verdicts, models = [], [], []
    for model, rows, t in groups:
        cov, lower, upper = group_permutation_test(
            t["decoding"], t["score_sum"], t["score_tokens"], t["nll_sum"], t["nll_tokens"],
            QUALITY_PERMUTATIONS, f["permutation_seed"],
        )  # fmt: skip
        verdict = HOLDS if lower < level else FAILS if upper < level else UNCLEAR
        rho, _ = rank_test(rows["truncated_score"], rows["perplexity"])
        ev = (
            rows["evaluator"].iloc[0]
            if "evaluator" in rows.columns
            else evaluator_of(model, params)
        )
        parts.append(
            f"{model} (scored by {ev}): covariance {g(cov)} (p↓ = {g(lower)}, p↑ = {g(upper)}, "
            f"{t['decoding'].nunique()} decodings, {len(t)} texts), ρ of the means = {g(rho)} "
            f"→ {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(
        parts,
        verdicts,
        f"no model with ≥ {f['trend_min_points']} decodings scored by another model",
        models,
    )


@claim(
    "prompt-length-no-effect",
    "Prompt length has no clear effect on the novelty of the generated text",
    RAVEN,
    "supplementary materials (prompt length)",
    RAVEN_NGRAM + "; prompts of several lengths",
    ("raven_contrasts",),
    "per (model, decoding) of the prompt-length study: the paired difference of RAVEN's "
    "truncated duplication score (training ∪ context) between each prompt length and the main "
    "one, with its 95% bootstrap CI over windows; prompt lengths whose samples have fewer than "
    "{min_distinct} distinct texts are left out; a set holds (no large effect) if every CI lies "
    "within ±{prompt_length_margin} (copyscope's margin: the paper gives no size for \"no "
    "clear effect\"), does not hold if some CI lies wholly outside it, else inconclusive; the "
    "claim holds if every set holds, does not hold if every set does not",
    setting="Merrill et al.'s Fig. 3 varies training-text prompts for beam search and states no "
    "trend either; neither paper claims that novelty falls with prompt length; the margin "
    "±{prompt_length_margin} on the truncated score (1..5) is copyscope's, not a number of the "
    "paper, so \"holds\" reads \"no effect larger than copyscope's margin\"",
)
def prompt_length_no_effect(tables: Tables, params: Mapping):
    """McCoy et al. 2023 (supplement): prompt length has no clear effect on novelty."""
    f = params["findings"]
    c = tables["raven_contrasts"]
    c = c[(c["kind"] == "prompt_length") & (c["model"] != "human")]
    enough = (c["distinct_a"].fillna(0) >= f["min_distinct"]) & (
        c["distinct_b"].fillna(0) >= f["min_distinct"]
    )
    left_out = c[~enough]
    parts, verdicts, models = [], [], []
    for (model, decoding), rows in c[enough].groupby(["model", "decoding"], sort=False):
        deltas = [_ci(r, "delta", "delta_lo", "delta_hi") for _, r in rows.iterrows()]
        verdict = equivalence_verdict(deltas, f["prompt_length_margin"])
        verdicts.append(verdict)
        models.append(model)
        diffs = ", ".join(
            f"{r['a']} − {r['b']}: {ci(_ci(r, 'delta', 'delta_lo', 'delta_hi'))}"
            for _, r in rows.iterrows()
        )
        parts.append(f"{model} {decoding}: {diffs} → {verdict}")
    for _, r in left_out.iterrows():
        parts.append(
            f"{r['model']} {r['decoding']} {r['a']} vs {r['b']}: left out "
            f"({int(r['distinct_a'])} and {int(r['distinct_b'])} distinct texts)"
        )
    return decided(
        parts, verdicts, "no set of the prompt-length study with enough distinct texts", models
    )


@claim(
    "train-vs-union",
    "Results barely change when only training-set duplication is counted instead of "
    "training ∪ context",
    RAVEN,
    "supplementary materials (sources of duplication)",
    RAVEN_NGRAM + "; the paper's main decodings",
    ("raven_contrasts",),
    "per model under {pure_decoding} and {raven_decoding}, main prompt length: the paired "
    "difference of the truncated duplication score, training ∪ context minus training only, "
    "with its 95% bootstrap CI; holds (no large effect) if every CI lies within "
    "±{source_margin} (copyscope's margin: the paper gives no size for \"barely change\"), "
    "does not hold if some CI lies wholly outside it, else inconclusive",
    setting="the margin ±{source_margin} on the truncated score (1..5) is copyscope's, not a "
    "number of the paper, so \"holds\" reads \"no effect larger than copyscope's margin\"",
)
def train_vs_union(tables: Tables, params: Mapping):
    """McCoy et al. 2023 (supplement): copying from the context adds little to copying from
    training."""
    f = params["findings"]
    c = tables["raven_contrasts"]
    c = c[(c["kind"] == "source") & (c["model"] != "human")]
    c = c[c["decoding"].isin([f["pure_decoding"], f["raven_decoding"]])]
    parts, verdicts, models = [], [], []
    for model, rows in c.groupby("model", sort=False):
        deltas = [_ci(r, "delta", "delta_lo", "delta_hi") for _, r in rows.iterrows()]
        verdict = equivalence_verdict(deltas, f["source_margin"])
        verdicts.append(verdict)
        models.append(model)
        diffs = ", ".join(
            f"{r['decoding']} {ci(_ci(r, 'delta', 'delta_lo', 'delta_hi'))}"
            for _, r in rows.iterrows()
        )
        parts.append(f"{model}: union − train {diffs} → {verdict}")
    return decided(
        parts, verdicts, "no union-vs-training contrast for the compared decodings", models
    )


def _unit_signs(model: pd.DataFrame, human: pd.DataFrame, units: Sequence[str]) -> dict:
    """unit → (:func:`compare` of the model's novelty interval with the human one, model
    interval, human interval), for the units with generated occurrences in both."""
    m = model[model["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    h = human[human["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    return {
        u: (compare(_ci(m.loc[u]), _ci(h.loc[u])), _ci(m.loc[u]), _ci(h.loc[u]))
        for u in units
        if u in m.index and u in h.index
    }


def _unit_names(signs: dict, want: int) -> str:
    return "{" + ", ".join(u for u, (s, _, _) in signs.items() if s == want) + "}"


@claim(
    "syntax-local-less-novel",
    "Local syntactic structure (dependency arcs, roles) of model text is far less novel than "
    "the baseline's, while whole-sentence structure differs little",
    RAVEN,
    "§6, Table 1, Fig. 5",
    "top-40 sampling; Wikitext-103 models and GPT-2; benepar constituency and Stanford "
    "Dependencies parses; baseline: the true continuations",
    ("syntax_novelty",),
    "the {raven_decoding} samples of each model vs human/reference, 95% CIs of syntactic "
    "novelty (bootstrap over passages): local units {local_units} hold if the model is below "
    "human at some unit and above at none (does not hold: above at some and below at none); "
    "whole-sentence units {structure_units} hold if every unit's difference (bounded by the two "
    "CIs) lies within ±{syntax_margin} (no large difference; copyscope's margin: the paper "
    "gives no size for \"little difference\") (does not hold: some unit's bounds lie wholly "
    "outside); "
    "a model holds if both parts hold and does not hold if either does not; the claim holds if "
    "every model holds",
    setting="the margin ±{syntax_margin} on whole-sentence novelty is copyscope's, not a "
    "number of the paper; parses come from spaCy (ClearNLP labels for English, UD for French; no "
    "constituency: the dependency-tree structure stands in for it); arcs and roles contain "
    "words, and small BPE models write "
    "non-words, which inflates their novelty (RAVEN §7: 96% of GPT-2's novel words are "
    "well-formed)",
)
def syntax_local_less_novel(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §6: generated text is less syntactically novel than human text in
    local structure, while sentence-level structure is about as novel."""
    f = params["findings"]
    t = tables["syntax_novelty"]
    human = _set(t, "human", "reference")
    if not len(human):
        raise NotMeasured("no human/reference rows in the syntactic novelty table")
    parts, verdicts, models = [], [], []
    for model in _models(t):
        rows = _set(t, model, f["raven_decoding"])
        local = _unit_signs(rows, human, f["local_units"])
        whole = _unit_signs(rows, human, f["structure_units"])
        if not local or not whole:
            continue
        local_v = signs_verdict([s for s, _, _ in local.values()], -1)
        whole_v = equivalence_verdict(
            [difference_bounds(a, b) for _, a, b in whole.values()], f["syntax_margin"]
        )
        verdict = FAILS if FAILS in (local_v, whole_v) else combine([local_v, whole_v])
        verdicts.append(verdict)
        models.append(model)
        spread = ", ".join(f"{u} {g(a[0])} vs {g(b[0])}" for u, (_, a, b) in whole.items())
        parts.append(
            f"{model} {f['raven_decoding']}: local below human at {_unit_names(local, -1)}, "
            f"above at {_unit_names(local, 1)} → {local_v}; whole-sentence {spread} → {whole_v}; "
            f"→ {verdict}"
        )
    return decided(
        parts, verdicts, f"no {f['raven_decoding']} set with local and whole-sentence units", models
    )


# --------------------------------------------------------------------------- Shaib et al.
def greedy_decodings(params: Mapping) -> list[str]:
    """The decodings of ``sampling.decodings`` of kind ``greedy``, in config order."""
    decodings = params["sampling"]["decodings"]
    return [d for d, spec in decodings.items() if spec.get("kind") == "greedy"]


@claim(
    "more-templates",
    "Models produce templated text at a higher rate than human references",
    SHAIB,
    "§4–5, Table 3 (e.g. Rotten Tomatoes: 95% of model outputs contain an n = 6 template vs 38% "
    "of human texts)",
    "downstream tasks (summarisation of news, reviews, …) with instruction-tuned and open "
    "models, greedy decoding (Table 3; Table 1: sampling lowers the template rate, OLMo-7B "
    "greedy 100% vs sampled 73–77%); templates = the top-100 POS n-grams of a set",
    ("templates",),
    "greedy decoding of each model vs human/reference at the headline n "
    "(analysis.syntax.template_headline_n): the difference in template rate (share of texts "
    "with a template), tested by regrouping the pooled texts (each regrouped set's templates "
    "recomputed: a set's templates are chosen from its own texts, which a binomial interval "
    "ignores); holds if higher with one-sided p < {alpha}/2, does not hold if lower with "
    "p < {alpha}/2, else inconclusive; Newcombe's 95% interval, templates per token and CR-POS "
    "are reported, and pure sampling ({pure_decoding}) beside it as a described extra (it does "
    "not decide); a greedy set whose texts average fewer words than n is left out (it cannot "
    "hold a template: greedy decoding of a small model can loop on blank lines); not tested "
    "here without greedy samples; the claim holds if every model holds, does not hold if "
    "every model does not",
    setting="free continuation of held-out text (in the default: play text, by small models "
    "trained here), not task outputs of large instruction-tuned models",
)
def more_templates(tables: Tables, params: Mapping):
    """Shaib et al. 2024 (Table 3, greedy decoding): model outputs contain templates more often
    than human text."""
    f = params["findings"]
    n = params["analysis"]["syntax"]["template_headline_n"]
    t = tables["templates"]
    t = t[t["n"] == n]
    if not len(t):
        raise NotMeasured("no template rows at the headline n")
    greedy = greedy_decodings(params)
    if not t["decoding"].isin(greedy).any():
        raise NotTested(
            "no greedy samples in the templates table: Shaib et al. compare model outputs with "
            "human references under greedy decoding (Table 3), and sampling lowers the "
            "template rate (Table 1)"
        )
    human = _set(t, "human", "reference")
    if not len(human):
        raise NotMeasured("no human/reference templates at the headline n")
    if not {"p_up", "p_down"} <= set(t.columns):
        raise NotMeasured("no p_up, p_down columns in templates")
    h = human.iloc[0]
    half = f["alpha"] / 2

    def describe(m) -> tuple[str, float, float]:
        km, nm = round(float(m["template_rate"]) * int(m["texts"])), int(m["texts"])
        kh, nh = round(float(h["template_rate"]) * int(h["texts"])), int(h["texts"])
        d = newcombe(km, nm, kh, nh)
        up, down = float(m["p_up"]), float(m["p_down"])
        return (
            f"template rate {g(m['template_rate'])} vs human {g(h['template_rate'])}, "
            f"difference {ci(d)}, regrouping p↑ = {g(up)}, p↓ = {g(down)}; per token "
            f"{g(m['templates_per_token'])} vs {g(h['templates_per_token'])}, CR-POS "
            f"{g(m['cr_pos'])} vs {g(h['cr_pos'])}",
            up,
            down,
        )

    parts, verdicts, models, left_out = [], [], [], []
    for model in _models(t):
        rows = t[(t["model"] == model) & t["decoding"].isin(greedy)]
        if not len(rows):
            continue
        m = rows.iloc[0]
        if "words" in m.index and float(m["words"]) < n * float(m["texts"]):
            left_out.append(
                f"{model} {m['decoding']}: left out ({int(m['words'])} words in "
                f"{int(m['texts'])} texts, fewer than {n} a text)"
            )
            continue
        text, up, down = describe(m)
        verdict = HOLDS if up < half else FAILS if down < half else UNCLEAR
        pure = _set(t, model, f["pure_decoding"])
        extra = ""
        if len(pure):
            extra = f" [{f['pure_decoding']}, not deciding: {describe(pure.iloc[0])[0]}]"
        verdicts.append(verdict)
        models.append(model)
        parts.append(f"{model} {m['decoding']} n={n}: {text} → {verdict}{extra}")
    reason = "; ".join(left_out) or "no greedy template rows at the headline n"
    return decided(parts + left_out, verdicts, reason, models)


TEMPLATE_COVERAGE = "template_coverage"
"""The per-set template coverage table (templates vs random non-template POS n-grams, Shaib
et al. §6.2): read where present, to describe §6.2's contrast beside the templates-in-training
row (it does not decide it)."""
TABLES.add(TEMPLATE_COVERAGE)
PAPER_HUMAN_COVERAGE = 0.35
"""Shaib et al. (abstract): 35% of the templates of human text are found in the pre-training
data's most common POS n-grams."""


@claim(
    "templates-in-training",
    "Templates in model text are found in the pre-training data far more often than "
    "templates in human text (76% vs 35%)",
    SHAIB,
    "Abstract (§6.2, Fig. 4 contrasts OLMo's templates, 75%, with random non-template POS "
    "6-grams, 34%)",
    "OLMo and other open models with known pre-training data; the 50K most common POS "
    "6-grams of a 10B-token tagged Dolma sample, a list against which human text's templates "
    "are found about a third of the time (35%)",
    ("template_coverage_delta",),
    "pure sampling ({pure_decoding}) of each model: coverage of its templates within the "
    "training split's most frequent POS n-grams minus the coverage of human/reference's "
    "templates, with its 95% bootstrap CI; decided only where the human arm's coverage is "
    "comparable to the paper's 35% (at least {coverage_human_min}): below it the list of "
    "training n-grams is so short that human text finds almost nothing there and the "
    "paper's contrast cannot be made (not tested here); holds if the CI lies wholly above 0, "
    "does not hold if it lies wholly below 0 or below the paper's difference of "
    "{coverage_effect}, else inconclusive; §6.2's contrast (the model's templates against as "
    "many random non-template POS n-grams of its texts, Mann–Whitney U on their training "
    "ranks) is reported beside it; the claim holds if every model holds, does not hold if "
    "every model does not",
    setting="the training split is small (~1M tokens), so its list of frequent POS n-grams (the "
    "paper's 50K scaled to the training words, at least 100) is short",
)
def templates_in_training(tables: Tables, params: Mapping):
    """Shaib et al. 2024 (abstract; §6.2): model templates are found in the training data more
    often than human text's templates are; decided only where the human arm's coverage is
    comparable to the paper's (``findings.coverage_human_min``)."""
    f = params["findings"]
    t = tables["template_coverage_delta"]
    t = t[t["decoding"] == f["pure_decoding"]]
    t = t[np.isfinite(t["delta"].astype(float))]
    if not len(t):
        raise NotMeasured("no pure-sampling coverage compared with human")
    human = float(t["coverage_human"].iloc[0])
    if not human >= f["coverage_human_min"]:
        raise NotTested(
            f"the human arm's templates are found among the training split's top "
            f"{int(t['cut'].iloc[0])} POS {int(t['n'].iloc[0])}-grams {g(human)} of the time, "
            f"against the paper's {PAPER_HUMAN_COVERAGE} (decided from "
            f"{f['coverage_human_min']}): the list is too short to make the paper's contrast"
        )
    cov = tables.get(TEMPLATE_COVERAGE)
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        d = _ci(r, "delta", "delta_lo", "delta_hi")
        verdict = effect_verdict(d, f["coverage_effect"])
        verdicts.append(verdict)
        models.append(r["model"])
        extra = ""
        if cov is not None and {"coverage_non_templates", "p_value"} <= set(cov.columns):
            c = _set(cov, r["model"], r["decoding"])
            if len(c):
                c = c.iloc[0]
                extra = (
                    f" [§6.2: templates {g(c['coverage_templates'])} vs non-templates "
                    f"{g(c['coverage_non_templates'])}, Mann–Whitney p = {g(c['p_value'])}]"
                )
        parts.append(
            f"{r['model']}: coverage {g(r['coverage_model'])} vs human "
            f"{g(r['coverage_human'])} (n = {int(r['n'])}, top {int(r['cut'])}), difference "
            f"{ci(d)} → {verdict}{extra}"
        )
    return decided(parts, verdicts, "no pure-sampling coverage compared with human", models)


@claim(
    "pos-exceeds-exact",
    "Style (POS) memorization exceeds exact memorization: a style-only share of "
    "continuations reproduces the training text's POS sequence but not its words",
    SHAIB,
    "§8 (6.4% ± 0.7 vs 5.3% ± 0.6 of sampled repeated 100-grams)",
    "OLMo-7B prompted with 50 tokens of frequently repeated training 100-grams, greedy "
    "decoding; higher in every frequency bucket",
    ("style_memorization",),
    "per model, over every passage with at least one training copy (the ladder's planted "
    "passages and repeated training n-grams; analysis.style): the style-only share = POS "
    "sequence reproduced minus words reproduced (exact memorization is contained in POS "
    "memorization), as k style-only passages of n with its exact (Clopper–Pearson) 95% "
    "interval; holds if it lies wholly above 0, does not hold if its upper bound lies below the "
    "paper's excess of {style_effect}, else inconclusive; the claim holds if every model holds, "
    "does not hold if every model does not",
    setting="short prompts and continuations (analysis.style) of small models",
)
def pos_exceeds_exact(tables: Tables, params: Mapping):
    """Shaib et al. 2024 §8: prompted with repeated training text, models reproduce its POS
    sequence more often than its exact words."""
    f = params["findings"]
    t = tables["style_memorization"]
    t = t[(t["source"] == "all") & (t["stratum"] == "repeated")]
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        n = int(r["n"])
        if n == 0:
            continue
        k = max(0, round(float(r["pos_minus_exact"]) * n))
        d = clopper_pearson(k, n)
        verdict = effect_verdict(d, f["style_effect"])
        verdicts.append(verdict)
        models.append(r["model"])
        parts.append(
            f"{r['model']} ({n} passages): exact {g(r['exact_rate'])}, POS {g(r['pos_rate'])}, "
            f"style-only {k} of {n} = {ci(d)} → {verdict}"
        )
    return decided(parts, verdicts, "no passage with a training copy", models)


# --------------------------------------------------------------------------- memorization
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
)
def benchmark_placement(tables: Tables, params: Mapping):
    """Li (2023): contaminated items have lower perplexity, near the memorised baseline."""
    t = tables["membership_nll_delta"]
    t = t[t["contrast"] == "unplanted - planted"]
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        d = _ci(r, "delta", "delta_lo", "delta_hi")
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
        v = _ci(r.loc["min_k_20"], "delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi")
        verdict = effect_verdict(v)
        text = f"loss {g(r.at['loss', 'auc'])}, min_k_20 {g(r.at['min_k_20', 'auc'])}, ΔAUC {ci(v)}"
        if "reference" in r.index:
            ref = _ci(r.loc["reference"], "delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi")
            text += f"; reference {g(r.at['reference', 'auc'])}, ΔAUC {ci(ref)}"
        parts.append(f"{model}: AUC {text} → {verdict}")
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with Min-K% and loss AUCs on planted items", models)


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
)
def contamination_lookup(tables: Tables, params: Mapping):
    """Brown et al. (2020), Xu et al. (2025): overlap rules flag contaminated items."""
    from .contamination import PLANTED

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


# --------------------------------------------------------------------------- name cloze
@claim(
    "cloze-training-plays",
    "Name cloze accuracy reveals memorised books: models fill in character names far more "
    "often for books they have seen",
    CHANG,
    "§3–4",
    "GPT-4 and ChatGPT, instruction prompt, 100 passages per book of 571 English novels; "
    "accuracy tracks web popularity",
    ("membership_cloze_excerpts",),
    "per model: the case-insensitive top-1 accuracy pooled over the items of the training "
    "plays against that of the fully held-out plays, tested by permuting the training / "
    "held-out labels over those plays (whole plays: a play's items share its familiarity; the "
    "test of the excerpt row below): holds if higher with one-sided p < {alpha}/2, does not "
    "hold if lower with p < {alpha}/2, else inconclusive (95% CIs over plays reported); the "
    "claim holds if every model holds, does not hold if every model does not",
    setting="base models trained here rank the play's speaker names by likelihood (copyscope's "
    "adaptation of the instruction prompt)",
    related=True,
)
def cloze_training_plays(tables: Tables, params: Mapping):
    """Chang et al. (2023): name cloze accuracy is high on books in training (the training
    plays' ``train`` row of ``membership_cloze_excerpts`` against its ``held-out`` row, with the
    play-permutation p-values :func:`copyscope.report.name_cloze.play_difference_p`)."""
    t = tables["membership_cloze_excerpts"]
    if not {"p_up", "p_down"} <= set(t.columns):
        raise NotMeasured("no p_up, p_down columns in membership_cloze_excerpts")
    half = params["findings"]["alpha"] / 2
    acc = ("acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi")
    parts, verdicts, models = [], [], []
    for model, rows in t.groupby("model", sort=False):
        train, held = rows[rows["group"] == "train"], rows[rows["group"] == "held-out"]
        if not len(train) or not len(held) or not int(train["items"].iloc[0]):
            continue
        train, held = train.iloc[0], held.iloc[0]
        up, down = float(train["p_up"]), float(train["p_down"])
        if not (np.isfinite(up) and np.isfinite(down)):
            continue
        verdict = HOLDS if up < half else FAILS if down < half else UNCLEAR
        parts.append(
            f"{model}: training plays {ci(_ci(train, *acc))} ({int(train['items'])} items, "
            f"{_plays(train)}) vs held-out {ci(_ci(held, *acc))} ({int(held['items'])} items, "
            f"{_plays(held)}), play-permutation p↑ = {g(up)}, p↓ = {g(down)} → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(
        parts, verdicts, "no model with cloze items on training and held-out plays", models
    )


ZHANG_OLMO = (
    "OLMo checkpoints with Dolma (known training data); English and French books; excerpts "
    "found on the web"
)


@claim(
    "cloze-excerpts",
    "Excerpts of a book in the training data produce some name cloze memorization even when "
    "the full text is not in training",
    ZHANG,
    "OLMo/Dolma analysis",
    ZHANG_OLMO,
    ("membership_cloze_excerpts",),
    "per model: the case-insensitive accuracy on the plays whose excerpts are the most exposed "
    "(the highest copy count of corpus.inject.excerpts: the claim is that excerpts can suffice, "
    "and a pooled test over the copy counts averages in excerpts seen once, which this rule's "
    "power measurement found undecidable) against that of fully held-out plays, tested by "
    "permuting the excerpt / held-out labels over those plays (whole plays: a play's items "
    "are not independent, and a bootstrap over a few excerpt plays is too narrow): holds if "
    "higher with one-sided p < {alpha}/2, does not hold if lower with p < {alpha}/2, else "
    "inconclusive (95% CIs over plays; every excerpt play pooled is reported beside it); the "
    "claim holds if every model holds, does not hold if every model does not",
    setting="excerpts are planted speeches of held-out plays, copied a known number of times",
)
def cloze_excerpts(tables: Tables, params: Mapping):
    """Zhang et al. 2024: excerpts alone raise name cloze accuracy (at the highest exposure)."""
    t = tables["membership_cloze_excerpts"]
    parts, verdicts, models = [], [], []
    if not {"p_up", "p_down"} <= set(t.columns):
        raise NotMeasured("no p_up, p_down columns in membership_cloze_excerpts")
    half = params["findings"]["alpha"] / 2
    acc = ("acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi")
    for model, rows in t.groupby("model", sort=False):
        held, ex = rows[rows["group"] == "held-out"], rows[rows["group"] == "excerpt"]
        if not len(held) or not len(ex) or not ex["copies"].notna().any():
            continue
        top, held = ex.loc[ex["copies"].idxmax()], held.iloc[0]
        up, down = float(top["p_up"]), float(top["p_down"])
        verdict = HOLDS if up < half else FAILS if down < half else UNCLEAR
        pooled = rows[rows["group"] == "excerpt-pooled"]
        beside = (f"; every excerpt play pooled {ci(_ci(pooled.iloc[0], *acc))}"
                  if len(pooled) else "")  # fmt: skip
        parts.append(
            f"{model}: excerpt plays at {g(top['copies'])} copies {ci(_ci(top, *acc))} "
            f"({int(top['items'])} items, {_plays(top)}) vs held-out {ci(_ci(held, *acc))} "
            f"({int(held['items'])} items, {_plays(held)}), play-permutation p↑ = {g(up)}, "
            f"p↓ = {g(down)} → {verdict}{beside}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with excerpt and held-out cloze items", models)


def _plays(row) -> str:
    return f"{int(row['plays'])} plays" if "plays" in row.index else "plays unknown"


@claim(
    "cloze-excerpt-copies",
    "Memorization rises with a book's presence on the web (popularity)",
    ZHANG,
    "popularity analysis",
    ZHANG_OLMO + "; popularity measured by web presence",
    ("membership_cloze_trend",),
    "per model: Spearman ρ over items between correct (case-insensitive) and the number of "
    "planted copies of the item's play's excerpts (0 for fully held-out plays), tested by "
    "permuting the copy counts over the plays (whole plays: a play's items are not "
    "independent); holds if ρ > 0 with two-sided p < {alpha}, does not hold if ρ < 0 with "
    "p < {alpha}, else inconclusive (the 95% bootstrap CI over items is reported); the claim "
    "holds if every model holds, does not hold if every model does not",
    setting="popularity is stood in for by the planted copy count of a play's excerpts",
)
def cloze_excerpt_copies(tables: Tables, params: Mapping):
    """Zhang et al. 2024: the more often a work's text is on the web, the more it is
    memorised."""
    t = tables["membership_cloze_trend"]
    if "p_value" not in t.columns:
        raise NotMeasured("no p_value column in membership_cloze_trend (re-run report membership)")
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        v = _ci(r, "rho", "rho_lo", "rho_hi")
        if not np.isfinite(v[0]):
            continue
        verdict = p_verdict(v[0], float(r["p_value"]), +1, params["findings"]["alpha"])
        parts.append(
            f"{r['model']}: ρ = {ci(v)} ({int(r['items'])} items), play-permutation "
            f"p = {g(r['p_value'])} → {verdict}"
        )
        verdicts.append(verdict)
        models.append(r["model"])
    return decided(parts, verdicts, "no model with a copy-count trend", models)


@claim(
    "cloze-overlap-correlation",
    "A continuation (n-gram overlap) test agrees with name cloze accuracy across books "
    "(a positive correlation; the pilot found r = 0.77 over four books)",
    ZHANG,
    "pilot study",
    "ChatGPT, four books with known cloze accuracy (\"should be interpreted with caution\"); an "
    "unpublished novel as the never-seen baseline; with four points the 95% interval of r is "
    "roughly [−0.74, 0.99], so the pilot gives a direction, not an effect size",
    ("membership_cloze_summary",),
    "per model: Pearson r across training plays only (so membership alone cannot make it "
    "positive) between name cloze accuracy (case-insensitive) and the continuation overlap's "
    "match fraction, with its 95% bootstrap CI; holds if the CI lies wholly above 0 (r > 0), "
    "does not hold if it lies wholly below 0, else inconclusive (0.77 is not an effect to "
    "exclude: its own interval over four books reaches below 0); the claim holds if every "
    "model holds, does not hold if every model does not",
    setting="few training plays (corpus.split), so r has a wide interval",
)
def cloze_overlap_correlation(tables: Tables, params: Mapping):
    """Zhang et al. (2024)'s pilot: continuation overlap and name cloze accuracy agree
    across books."""
    s = tables["membership_cloze_summary"]
    s = s[s["split"] == "train"] if "split" in s.columns else s
    parts, verdicts, models = [], [], []
    for model, rows in s.groupby("model", sort=False):
        r = rows.iloc[0]
        v = _ci(r, "r_overlap", "r_overlap_lo", "r_overlap_hi")
        if not np.isfinite(v[0]):
            continue
        verdict = effect_verdict(v)
        plays = f", {int(r['r_plays'])} plays" if "r_plays" in r.index else ""
        parts.append(f"{model}: r = {ci(v)}{plays} → {verdict}")
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with r across at least 3 training plays", models)


# --------------------------------------------------------------------------- Lu et al.
def relative_excess(a, b, n_boot: int, seed: int) -> tuple[float, float, float]:
    """``mean(a) / mean(b) − 1`` of two independent sets of per-text values (how much higher
    a's mean is, as a share of b's) with its seeded 95% percentile bootstrap interval, each set
    resampled on its own (:func:`copyscope.stats.bootstrap_set_means`); NaN where a mean of
    b is not positive. Example: a [3, 3], b [2, 2] → (0.5, 0.5, 0.5)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma, mb = bootstrap_set_means([a, b], n_boot, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.where(mb > 0, ma / np.where(mb > 0, mb, 1.0) - 1, np.nan)
        value = a.mean() / b.mean() - 1 if b.mean() > 0 else math.nan
    if np.isnan(reps).all():
        return float(value), math.nan, math.nan
    lo, hi = percentile_interval(reps, omit_nan=True)
    return float(value), float(lo), float(hi)


@claim(
    "human-more-creative",
    "Human text is more creative than model text: the Creativity Index (the share of a text's "
    "words in no span of at least L words found in the reference corpus, summed over L = "
    "5..12) of human authors is far higher than that of LLMs (66.2% higher on average)",
    LU,
    "abstract, §3 (human authors vs LLMs; 52.2% higher for novels, 31.1% for poetry, 115.3% "
    "for speeches, exact matches)",
    "professional human writing (novel snippets, modern poems, speech transcripts) against "
    "LLM text written for the same prompts by sampling (not greedy or beam search), both "
    "matched verbatim against web corpora (Dolma, RedPajama, the Pile) with the human texts' "
    "own exact copies removed from the corpus",
    ("creativity_texts",),
    "the {pure_decoding} samples of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, Moses words matched against the "
    "{novelty_source} training text: the difference in mean Creativity Index (human minus "
    "model) tested by regrouping the two sets' texts (" + str(NOVELTY_PERMUTATIONS) + " "
    "random regroupings, sizes kept), one-sided at {alpha}/(2m) each way (Bonferroni over the "
    "m models decided); a model holds if the human text is higher, does not hold if the "
    "model's is higher, or if the 95% bootstrap interval of the human excess (human mean / "
    "model mean − 1) lies below the paper's smallest domain gap of {creativity_effect} "
    "(poetry), else inconclusive; not tested here without {pure_decoding} samples of kind "
    "sample (the paper compares sampled LLM text); the claim holds if every model holds, does "
    "not hold if every model does not",
    setting="copyscope's reference corpus is the models' own training split (the paper's is "
    "web text standing in for unknown training data), its human text held-out play "
    "continuations and its models small ones trained here, not instruction-tuned LLMs",
    related=True,
)
def human_more_creative(tables: Tables, params: Mapping):
    """Lu et al. (2024): human authors' Creativity Index is far higher than LLMs'."""
    f = params["findings"]
    decoding = f["pure_decoding"]
    spec = params["sampling"]["decodings"].get(decoding, {})
    t = tables["creativity_texts"]
    t = _source(t, f["novelty_source"])
    if not len(t):
        raise NotMeasured("no texts in creativity_texts")
    if spec.get("kind") != "sample" or not (t["decoding"] == decoding).any():
        raise NotTested(
            f"no {decoding} samples of kind sample in creativity_texts: Lu et al. compare "
            "sampled LLM text with human writing, and constrained decoding (greedy, beam) "
            "copies more"
        )
    human = _set(t, "human", "reference")["index"].to_numpy(float)
    if not len(human):
        raise NotMeasured("no human/reference texts in creativity_texts")
    sets = [(m, _set(t, m, decoding)["index"].to_numpy(float)) for m in _models(t)]
    sets = [(m, x) for m, x in sets if len(x)]
    level = f["alpha"] / (2 * max(1, len(sets)))
    parts, verdicts, models = [], [], []
    for model, x in sets:
        _, up, down = pooled_ratio_permutation_test(
            human[:, None], np.ones((len(human), 1)), x[:, None], np.ones((len(x), 1)),
            draws=NOVELTY_PERMUTATIONS, seed=f["permutation_seed"],
        )  # fmt: skip
        up, down = float(up[0]), float(down[0])
        excess = relative_excess(human, x, CREATIVITY_BOOTSTRAP, f["permutation_seed"])
        below = np.isfinite(excess[2]) and excess[2] < f["creativity_effect"]
        verdict = HOLDS if up < level else FAILS if down < level or below else UNCLEAR
        parts.append(
            f"{model} {decoding}: index {g(x.mean())} vs human {g(human.mean())} ({len(x)} vs "
            f"{len(human)} texts), human excess {ci(excess)}, regrouping p↑ = {g(up)}, p↓ = "
            f"{g(down)} against {g(level)} → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, f"no model with {decoding} samples", models)


# --------------------------------------------------------------------------- outputs
CALIBRATION = "findings_calibration"
"""The null calibration table (:mod:`copyscope.report.calibration`): no claim reads it, the
scorecard shows each rule's measured false-verdict rate from it."""
TABLES.add(CALIBRATION)


def calibration_columns(ids: Sequence[str], cal: pd.DataFrame | None) -> pd.DataFrame:
    """Per claim id, its worst null of the calibration table ``cal``: ``null_false_rate``
    (the largest false-verdict rate, NaN when the rule has no null in this run) and
    ``calibration`` (that rate with its 95% interval, the null and its draws)."""
    rate, text = [], []
    for i in ids:
        rows = pd.DataFrame() if cal is None else cal[cal["claim"] == i]
        if not len(rows):
            rate.append(math.nan)
            text.append("no null in this run")
            continue
        w = rows.loc[rows["false_rate"].idxmax()]
        rate.append(float(w["false_rate"]))
        if "not_tested" in w.index and int(w["not_tested"]) == int(w["draws"]):
            text.append(f"not tested on {w['null']} ({int(w['draws'])} draws)")
            continue
        text.append(
            f"{w['false_rate']:.1%} [{w['false_rate_lo']:.1%}, {w['false_rate_hi']:.1%}] on "
            f"{w['null']} ({int(w['draws'])} draws)"
        )
    return pd.DataFrame({"null_false_rate": rate, "calibration": text})


POWER = "findings_power"
"""The power table (:mod:`copyscope.report.power`): the scorecard shows each rule's power on
its known positives at the largest measured size."""
TABLES.add(POWER)


def power_column(ids: Sequence[str], power: pd.DataFrame | None) -> pd.Series:
    """Per claim id: its power on each known positive at the run's own size (the largest
    measured one not above the ``observed`` column, where the table has it), and the smallest
    projected size that reaches 0.8 where the run's size does not (``planted ladder: 0.32 at
    8; 0.8 from 32 (projected)``) or that no projected size does (``planted ladder: 0 at 12;
    below 0.8 even at 32 (projected)``: the effect, not the sample size, is what is missing),
    or ``no known positive in this run``."""
    out = []
    for i in ids:
        rows = None if power is None else power[power["claim"] == i]
        parts = []
        for positive, sizes in [] if rows is None else rows.groupby("positive", sort=False):
            own = sizes
            if "observed" in sizes.columns:
                own = sizes[sizes["size"] <= sizes["observed"]]
                own = own if len(own) else sizes
            top = own.loc[own["size"].idxmax()]
            text = f"{positive}: {g(top['power'])} at {int(top['size'])}"
            beyond = sizes[(sizes["size"] > top["size"]) & (sizes["power"] >= 0.8)]
            largest = int(sizes["size"].max())
            if top["power"] < 0.8 and len(beyond):
                text += f"; 0.8 from {int(beyond['size'].min())} (projected)"
            elif top["power"] < 0.8 and largest > top["size"]:
                # more of the same does not power it: the effect, not the sample, is missing
                text += f"; below 0.8 even at {largest} (projected)"
            parts.append(text)
        out.append("; ".join(parts) or "no known positive in this run")
    return pd.Series(out, name="power")


NO_GROUND_TRUTH = ("more-templates", "cloze-overlap-correlation")
"""The claims decided without training-data ground truth: generations against the human
continuations of the same prompts (templates), and name cloze accuracy against continuation
overlap across plays. Every other claim needs the model's training data (novelty, copying and
completion loss against the training index; planted passages, excerpts, the ladder, the
contamination set; training vs held-out plays)."""
NO_GROUND_TRUTH_NOTE = (
    "This run has no training-data ground truth (only pretrained models, whose training data "
    "is unknown, and nothing planted): the scorecard carries only the claims that need none "
    f"({', '.join(NO_GROUND_TRUTH)}); the index is a reference text, not the models' training "
    "data."
)


def scored_claims(params: Mapping) -> list[str]:
    """The claim ids of the scorecard: every registered claim, or with
    ``params["ground_truth"]`` false (no trained model, nothing planted) those of
    :data:`NO_GROUND_TRUTH`."""
    if params.get("ground_truth", True):
        return list(CLAIMS)
    return [c for c in CLAIMS if c in NO_GROUND_TRUTH]


def scorecard(tables: Tables, params: Mapping) -> pd.DataFrame:
    """Every claim of :func:`scored_claims` decided on ``tables``: one row per claim, in
    registry order, with the columns of :class:`Finding`, each rule's measured false-verdict
    rate on its nulls (:func:`calibration_columns`, from the ``findings_calibration`` table)
    and its power on known positives (:func:`power_column`, from ``findings_power``)."""
    rows = [asdict(CLAIMS[c](tables, params)) for c in scored_claims(params)]
    card = pd.DataFrame(rows, columns=[f.name for f in fields(Finding)])
    cal = calibration_columns(list(card["id"]), tables.get(CALIBRATION))
    return pd.concat([card, cal, power_column(list(card["id"]), tables.get(POWER))], axis=1)


def cell(text: str) -> str:
    """``text`` as one markdown table cell: ``|`` escaped, newlines as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def verdict_counts(card: pd.DataFrame) -> str:
    """The count of each verdict of ``card``'s rows (every verdict of :data:`VERDICTS`, ``not
    tested here`` apart from ``inconclusive``): ``holds: 3, does not hold: 0, …``."""
    counts = card["verdict"].value_counts()
    return ", ".join(f"{v}: {int(counts.get(v, 0))}" for v in VERDICTS) + "."


def verdict_cell(row) -> str:
    """The verdict of a scorecard row in bold, with each model's verdict beside it where the
    models' verdicts differ (a model that refutes is never hidden under ``inconclusive``) and,
    in a scorecard over seeds (column ``per_seed``), each seed's verdict."""
    text = f"**{row.verdict}**"
    for column, label in (("per_model", ""), ("per_seed", "seeds ")):
        per = str(getattr(row, column, "") or "")
        if column == "per_seed" and per and per != "nan":
            text += f" ({label}{per})"
        elif per and per != "nan" and len({p.rsplit(": ", 1)[-1] for p in per.split("; ")}) > 1:
            text += f" ({per})"
    return text


def _is_related(card: pd.DataFrame) -> pd.Series:
    if "related" not in card.columns:
        return pd.Series(False, index=card.index)
    return card["related"].astype(str).str.lower().isin(["true", "1"])


def _table(card: pd.DataFrame, numbers: Sequence[str]) -> list[str]:
    lines = [
        "| # | claim | paper | verdict | measured | false verdicts on nulls | power |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in zip(numbers, card.itertuples(), strict=True):
        lines.append(
            f"| {i} | {cell(r.claim)} ({cell(r.where)}) | {cell(r.paper)} | "
            f"{cell(verdict_cell(r))} | {cell(r.measured)} | {cell(r.calibration)} | "
            f"{cell(r.power)} |"
        )
    return lines


def row_numbers(card: pd.DataFrame) -> list[str]:
    """The number of each row of ``card`` in the markdown: 1, 2, … for the five papers' claims
    and R1, R2, … for the related claims, each in registry order."""
    related = _is_related(card).tolist()
    own, other, out = 0, 0, []
    for r in related:
        if r:
            other += 1
            out.append(f"R{other}")
        else:
            own += 1
            out.append(str(own))
    return out


def markdown(card: pd.DataFrame, note: str = "") -> str:
    """The scorecard as markdown: a count of the verdicts of the five papers' claims, their
    table (claim with where the paper makes it, paper, verdict with each model's where they
    differ, measured), the related claims (from outside the five papers) in a section and
    count of their own, and, per claim, its conditions, copyscope's setting and the rule;
    ``note``, when given, is a paragraph after the title."""
    related = _is_related(card)
    numbers = row_numbers(card)
    own = [n for n, r in zip(numbers, related, strict=True) if not r]
    other = [n for n, r in zip(numbers, related, strict=True) if r]
    lines = [
        "# Findings scorecard",
        "",
        *([note, ""] if note else []),
        "Each row is a claim of the papers as the paper states it, decided from this run's "
        "tables by the rule listed under the table (95% intervals over texts, passages or "
        'items). "does not hold" needs an interval that excludes the paper\'s effect; a claimed '
        "absence of an effect holds only within a stated margin. A claim is decided only where "
        "the run reproduces the conditions it depends on (decoding, baseline, what counts as "
        'training data, the models compared); otherwise it is "not tested here", with the '
        'reason, counted apart from "inconclusive". Where models disagree, the verdict is '
        '"mixed" or shows each model\'s verdict beside it.',
        "",
        verdict_counts(card[~related]),
        "",
        "The last two columns are the rule's measured false-verdict rate — how often it "
        "reaches a verdict on tables where the claim is false by construction (tables/"
        "findings_calibration.csv) — and its power: how often it reaches the right verdict on "
        "known positives, at the run's own sample size, with the projected size that would reach "
        "0.8 where it does not, or a note that no projected size does (then the effect is "
        "missing in this run, not the sample; tables/findings_power.csv).",
        "",
        *_table(card[~related], own),
    ]
    if related.any():
        lines += [
            "",
            "## Related claims",
            "",
            "Claims from outside the five papers (another paper, or the authors' analysis code "
            "rather than their text), decided by the same rules and not counted with the "
            "papers' claims above.",
            "",
            verdict_counts(card[related]),
            "",
            *_table(card[related], other),
        ]
    lines += ["", "## Conditions, setting and rules", ""]
    for i, r in zip(numbers, card.itertuples(), strict=True):
        lines.append(f"{i}. `{r.id}` — the paper's conditions: {r.conditions}.")
        if r.setting:
            lines.append(f"   - copyscope's setting: {r.setting}.")
        lines.append(f"   - rule: {r.rule}.")
    return "\n".join(lines) + "\n"


def without_unscored(tables: Mapping[str, pd.DataFrame], unscored) -> dict[str, pd.DataFrame]:
    """``tables`` without the rows of the sets named ``<model>/<decoding>`` in ``unscored``
    (generations from outside copyscope and their references): every claim is about
    copyscope's own models, trained (or used) with a known training text, against the
    held-out human baselines; a table without ``model`` and ``decoding`` columns is kept."""
    out = {}
    for name, t in tables.items():
        if unscored and {"model", "decoding"} <= set(t.columns):
            names = t["model"].astype(str) + "/" + t["decoding"].astype(str)
            t = t[~names.isin(list(unscored))].reset_index(drop=True)
        out[name] = t
    return out


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read the named tables, decide every claim, write the scorecard (.csv and .md); the
    sets of ``params["unscored"]`` are left out (:func:`without_unscored`)."""
    unknown = sorted({name for name, _ in inputs["table"]} - TABLES)
    if unknown:
        raise InputError(
            "--table",
            f"names of tables the claims read ({', '.join(sorted(TABLES))}), found {unknown}",
        )
    tables = {name: pd.read_csv(path) for name, path in inputs["table"]}
    card = scorecard(without_unscored(tables, params.get("unscored", ())), params)
    write_csv(out["csv"], card)
    note = "" if params.get("ground_truth", True) else NO_GROUND_TRUTH_NOTE
    write_text(out["md"], markdown(card, note))
