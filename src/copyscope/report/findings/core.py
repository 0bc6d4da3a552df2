"""The scorecard's machinery: the verdicts, a claim and its registry, the decision helpers
every paper's claims share (interval comparisons, combining parts), and the table selection
they read through.

A claim is one :class:`Claim`, registered with :func:`claim` in its paper's module
(:mod:`copyscope.report.findings.merrill`, …): the statement, where the paper makes it, its
conditions, copyscope's setting, the rule, the decision function, its nulls (:class:`Null`,
drawn by the null calibration) and its known positives (:class:`Positive`, drawn by the power
analysis). :data:`CLAIMS` is the registry, in scorecard order: the order of the paper modules
(:mod:`copyscope.report.findings.registry`), then the order of the claims in each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...stats import pooled_ratio_permutation_test, rank_test
from ..dynamics import COLUMNS as DYNAMICS_COLUMNS  # noqa: F401  (the paper modules' import)
from ..jobs import declared_tables

HOLDS, FAILS, UNCLEAR = "holds", "does not hold", "inconclusive"
MIXED = "mixed"
"""The verdict of a claim some of whose parts (models) hold and others do not hold."""
NOT_TESTED = "not tested here"
"""The verdict of a claim whose paper's conditions (decoding, baseline, what counts as
training data, the models compared) this run does not reproduce: it is not decided, and it is
counted apart from ``inconclusive`` (a decided-upon question without a clear answer)."""
VERDICTS = (HOLDS, FAILS, MIXED, UNCLEAR, NOT_TESTED)
"""Every verdict, in the order the scorecard counts them."""
BOTH = (HOLDS, FAILS)
"""The false verdicts of a null on which the effect is 0 by construction (:class:`Null`)."""
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
JAGIELSKI = "Jagielski et al. 2023"  # "Measuring Forgetting of Memorized Training Examples"
NOVELTY_PERMUTATIONS = 5000  # novelty(n) vs human rows: random regroupings of two sets' texts

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


class NotMeasured(Exception):
    """The run's tables hold no rows a claim can be decided on (the message says why)."""


class NotTested(Exception):
    """The run does not reproduce a condition the claim depends on (the message says which):
    the claim's verdict is :data:`NOT_TESTED`."""


Tables = Mapping[str, pd.DataFrame]


@dataclass(frozen=True)
class Null:
    """A null of a claim's rule: tables drawn from the run's own data on which the claim
    cannot be true (halves of the human text, permuted labels, shuffled counts). ``build(rng,
    data, params)`` returns the claim's input tables for one draw
    (:class:`copyscope.report.findings.data.Data`), or None when the run has no data for it.
    ``false`` are the verdicts the claim cannot deserve there: both ``holds`` and ``does not
    hold`` (:data:`BOTH`) where the effect is 0 by construction; for a claimed *absence* of an
    effect (an equivalence rule) on a null whose effect is exactly the margin, ``holds`` alone
    (``does not hold`` is right there), and on a null without effect, ``does not hold`` alone;
    for a rule whose ``does not hold`` also means "an interval below the paper's effect size"
    (:func:`effect_verdict` with a paper effect), ``holds`` alone on a null without effect,
    where an effect smaller than the paper's is the truth."""

    name: str
    build: Callable
    false: tuple[str, ...] = BOTH


@dataclass(frozen=True)
class Positive:
    """A known positive of a claim's rule at this run: ``build(rng, data, params, size)``
    resamples an experiment of ``size`` in which the answer is known (None without data), on
    which the rule must reach the verdict ``right``; it is measured at ``sizes``, the run's
    own size being ``observed`` (larger sizes are projections)."""

    name: str
    build: Callable
    right: str
    sizes: Sequence[int]
    observed: int


@dataclass(frozen=True)
class Claim:
    """One claim of the scorecard, all in one place (:func:`claim` registers it): ``text``
    states the claim of ``paper`` as the paper does, at ``where`` (section, figure), under
    ``conditions``; ``setting`` says where copyscope's default differs in a way that predicts
    another outcome; ``related`` marks a claim from outside the five papers (another paper, or
    the authors' code rather than their text), listed apart. ``decide(tables, params)`` reads
    ``tables`` and returns ``(measured, verdict[, per model])``; ``rule`` is the text of its
    decision rule, formatted with the config's ``findings`` block. ``nulls`` are its
    :class:`Null` s (the null calibration, :mod:`copyscope.report.calibration`);
    ``positives(data, index, params, shared)`` lists its :class:`Positive` s this run has data
    for (the power analysis, :mod:`copyscope.report.power`; ``shared`` caches what several
    positives build once); ``ground_truth`` False: decided without training-data ground truth
    (a run of pretrained models only, nothing planted, keeps it)."""

    id: str
    text: str
    paper: str
    where: str
    conditions: str
    tables: tuple[str, ...]
    rule: str
    decide: Callable
    setting: str = ""
    related: bool = False
    nulls: tuple[Null, ...] = ()
    positives: Callable | None = None
    ground_truth: bool = True

    def __call__(self, tabs: Tables, params: Mapping) -> Finding:
        """The claim decided on ``tabs``: a :class:`Finding`; a missing table or
        :class:`NotMeasured` gives ``inconclusive`` with ``not measured: <reason>``;
        :class:`NotTested` (a condition of the claim that the run does not reproduce) gives
        ``not tested here`` with ``not tested here: <reason>``."""
        r = self.rule.format(**params["findings"])
        missing = [t for t in self.tables if t not in tabs]
        per = ""
        try:
            if missing:
                raise NotMeasured(f"no {', '.join(missing)} table in this run")
            measured, verdict, *rest = self.decide(tabs, params)
            per = rest[0] if rest else ""
        except NotMeasured as exc:
            measured, verdict = f"not measured: {exc}", UNCLEAR
        except NotTested as exc:
            measured, verdict = f"{NOT_TESTED}: {exc}", NOT_TESTED
        shown = self.setting.format(**params["findings"])
        return Finding(
            self.id, self.text, self.paper, self.where, self.conditions, shown, measured, r,
            verdict, per, self.related,
        )  # fmt: skip

    def known_positives(self, data, index, params: Mapping, shared: dict) -> list[Positive]:
        """Its :class:`Positive` s this run has data for (none without ``positives``)."""
        return [] if self.positives is None else self.positives(data, index, params, shared)


CLAIMS: dict[str, Claim] = {}
"""The claim registry, id → :class:`Claim`, in scorecard order."""


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
    nulls: Sequence[Null] = (),
    positives: Callable | None = None,
    ground_truth: bool = True,
):
    """Register a decision function ``(tables, params) -> (measured, verdict[, per model])``
    as the :class:`Claim` ``id`` with the rest of its description (the fields of
    :class:`Claim`); the decorated name is the claim."""

    def register(decide) -> Claim:
        if id in CLAIMS:
            raise ValueError(f"claim {id!r} registered twice")
        c = Claim(id, text, paper, where, conditions, tuple(tables), rule, decide, setting,
                  related, tuple(nulls), positives, ground_truth)  # fmt: skip
        CLAIMS[id] = c
        TABLES.update(tables)
        return c

    return register


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
    ends = compare(ci_of(p.iloc[-1]), ci_of(p.iloc[0]))
    if want * rho >= rho_min - 1e-9 and ends == want:
        return HOLDS, rho
    if want * rho <= -rho_min + 1e-9 and ends == -want:
        return FAILS, rho
    return UNCLEAR, rho


def ci_of(row, value: str = "value", lo: str = "", hi: str = ""):
    """(value, low, high) of a table row: ``row[value]`` and its interval ``row[lo]``,
    ``row[hi]`` (default: ``<value>_lo``, ``<value>_hi``, the tables' interval columns)."""
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


# --------------------------------------------------------------------------- table selection
def main_rows(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows at the main prompt length (``sampling.prompt_length``)."""
    return table[table["prompt_length"] == params["sampling"]["prompt_length"]]


def source_rows(table: pd.DataFrame, source: str) -> pd.DataFrame:
    """The rows of ``source`` (``all``: matched against the whole training split; ``natural``:
    against its text before any planting) of a novelty table; a table without a ``source``
    column has ``all`` rows only."""
    if "source" not in table.columns:
        if source == "all":
            return table
        raise NotMeasured(f"no {source!r} rows (source column) in the novelty tables")
    return table[table["source"] == source]


def enough_rows(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows of the models' sample sets with at least ``findings.min_distinct`` distinct
    generated texts (column ``distinct``, where the table has it), and every human row (true
    continuations, distinct by construction)."""
    if "distinct" not in table.columns:
        return table
    enough = table["distinct"].fillna(0) >= params["findings"]["min_distinct"]
    return table[enough | (table["model"] == "human")]


DYNAMICS = "dynamics"
"""The training-dynamics table (``tables/dynamics.csv``, :mod:`copyscope.report.dynamics`): one
row per (model, checkpoint step, quantity, set) with ``value``, ``value_lo``, ``value_hi`` and
``n`` (items); empty when the run scored no checkpoint."""
NO_CHECKPOINTS = (
    "no checkpoint scored in this run (models.train.checkpoints, analysis.dynamics.enabled): "
    "the claim is about the training history"
)


def dynamics_rows(tables: Tables, quantity: str) -> pd.DataFrame:
    """The rows of ``quantity`` of the dynamics table (:data:`DYNAMICS`), in step order (the
    models in table order); :class:`NotTested` when the run scored no checkpoint (the table is
    empty)."""
    t = tables[DYNAMICS]
    if not len(t):
        raise NotTested(NO_CHECKPOINTS)
    return t[t["quantity"] == quantity].sort_values("step", kind="stable")


def at_step(rows: pd.DataFrame, model: str, name: str, step: int):
    """The row of set ``name`` of ``model`` at ``step`` of dynamics ``rows`` (None if none)."""
    hit = np.flatnonzero(
        (rows["model"].to_numpy() == model)
        & (rows["set"].to_numpy() == name)
        & (rows["step"].to_numpy() == step)
    )  # masks of plain arrays: the draws look rows up many times
    return rows.iloc[hit[0]] if len(hit) else None


def successes(row) -> tuple[int, int]:
    """``(k, n)`` of a dynamics row whose value is a share of ``n`` binary items (extraction,
    name cloze): ``k = round(value · n)``; (0, 0) without items."""
    n = 0 if row is None or not np.isfinite(float(row["n"])) else int(row["n"])
    if n == 0 or not np.isfinite(float(row["value"])):
        return 0, 0
    return round(float(row["value"]) * n), n


def share(k: int, n: int) -> str:
    """``k/n = share`` for the scorecard."""
    return f"{k}/{n} = {g(k / n)}" if n else "0/0"


def set_rows(table: pd.DataFrame, model: str, decoding: str) -> pd.DataFrame:
    return table[(table["model"] == model) & (table["decoding"] == decoding)]


def models_of(table: pd.DataFrame) -> list[str]:
    """The models of a table in table order, without the human reference."""
    return [m for m in pd.unique(table["model"]) if m != "human"]


def novelty_vs_human(
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
    table = table.rename(
        columns={value: "value", f"{value}_lo": "value_lo", f"{value}_hi": "value_hi"}
    )
    h = set_rows(table, "human", human).set_index("n")
    texts_h = set_rows(counts, "human", human)
    if not len(h) or not len(texts_h):
        raise NotMeasured(f"no human/{human} rows")
    sets = []
    for model in models_of(table):
        for decoding in decodings:
            rows = set_rows(table, model, decoding).set_index("n")
            texts = set_rows(counts, model, decoding)
            both = [
                n for n in ns if n in rows.index and n in h.index and f"novel_{n}" in counts.columns
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
            f"{model} {decoding}: novelty({n0}) {ci(ci_of(rows.loc[n0]))} vs human/{human} "
            f"{ci(ci_of(h.loc[n0]))} ({len(texts)} vs {len(texts_h)} texts, smallest p↑ "
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


def judge_of(params: Mapping) -> str | None:
    """The name of ``models.judge`` (a model outside the zoo that judges every set), or None."""
    return params["models"].get("judge")


def evaluator_of(model: str, params: Mapping) -> str:
    """The model that scores ``model``'s samples: ``models.judge`` when set, else
    ``models.evaluators[model]``, else ``models.evaluator``."""
    m = params["models"]
    return judge_of(params) or (m.get("evaluators") or {}).get(model, m["evaluator"])
