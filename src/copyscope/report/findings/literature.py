"""The literature-memorization paper (Zhang et al. 2024: name cloze on English and French
books with open LLMs) and Chang et al. 2023's name cloze (a related claim): each claim with its
nulls (the play labels or the continuation overlap permuted over whole plays) and known
positives (the excerpt plays, the training plays)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd

from ...corpus.timing import SPREAD, set_name, timed_windows
from ...stats import permuted_counts, proportions_contrast, wilson
from .. import name_cloze
from ..name_cloze import cloze_excerpt_rows
from .core import (
    CHANG,
    DYNAMICS,
    DYNAMICS_COLUMNS,
    FAILS,
    HOLDS,
    UNCLEAR,
    ZHANG,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    at_step,
    ci,
    ci_of,
    claim,
    decided,
    dynamics_rows,
    effect_verdict,
    g,
    p_verdict,
    share,
    successes,
)
from .data import Data, NullBuilder, dynamics_of, projected_sizes


def _cloze_n_boot(params: Mapping) -> tuple[int, int]:
    m = params["analysis"]["membership"]
    return m["bootstrap"], m["seed"]


def _cloze(data: Data) -> pd.DataFrame | None:
    return data.cloze if data.cloze is not None and len(data.cloze) else None


def permuted_plays(cloze: pd.DataFrame, splits: tuple[str, ...], rng) -> pd.DataFrame:
    """``cloze`` with the labels (``split``, ``excerpt_copies``) of its plays of ``splits``
    permuted over those plays, the same for every model (a play's membership is the play's):
    whole plays change group, their items stay together."""
    if "excerpt_copies" not in cloze:
        cloze = cloze.assign(excerpt_copies=0)
    plays = cloze[cloze["split"].isin(splits)].drop_duplicates("play")[
        ["play", "split", "excerpt_copies"]
    ]
    order = rng.permutation(len(plays))
    new = plays.assign(split=plays["split"].to_numpy()[order],
                       excerpt_copies=plays["excerpt_copies"].to_numpy()[order])  # fmt: skip
    label = new.set_index("play")
    hit = cloze["play"].isin(label.index)
    out = cloze.copy()
    out.loc[hit, "split"] = cloze.loc[hit, "play"].map(label["split"])
    out.loc[hit, "excerpt_copies"] = cloze.loc[hit, "play"].map(label["excerpt_copies"])
    return out


def _excerpt_groups(cloze: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, side) the name cloze items the excerpt rule compares: ``top``, the excerpt
    plays of the highest copy count, and ``held-out``, the clean held-out plays."""
    groups = {}
    for model, grp in cloze.groupby("model", sort=False):
        ex = grp[grp["split"] == "excerpt"]
        if "excerpt_copies" in ex and len(ex):
            groups[(model, "top")] = ex[ex["excerpt_copies"] == ex["excerpt_copies"].max()]
        groups[(model, "held-out")] = grp[grp["split"] == "valid"]
    return groups


def _training_groups(cloze: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, side) the name cloze items the training-plays rule compares: ``top``, the
    training plays, and ``held-out``, the clean held-out plays."""
    groups = {}
    for model, grp in cloze.groupby("model", sort=False):
        if (grp["split"] == "train").any():
            groups[(model, "top")] = grp[grp["split"] == "train"]
        groups[(model, "held-out")] = grp[grp["split"] == "valid"]
    return groups


def excerpt_plays(cloze: pd.DataFrame | None, groups_of=_excerpt_groups) -> int:
    """The fewest plays of the ``top`` side of any model (the side the positive resizes; by
    default the excerpt plays of the highest copy count, :func:`_excerpt_groups`); 0: no such
    positive (no such plays or no held-out plays)."""
    if cloze is None or not len(cloze):
        return 0
    groups = groups_of(cloze)
    if len(groups) != 2 * cloze["model"].nunique():
        return 0
    if min(int(grp["play"].nunique()) for grp in groups.values()) == 0:
        return 0
    return min(int(grp["play"].nunique()) for (_, side), grp in groups.items() if side == "top")


def excerpt_resample(rng, data, params, size, groups_of=_excerpt_groups):
    """Builder: ``size`` excerpt plays of the highest copy count of each model's name cloze
    (the ``top`` side of ``groups_of``), and as many clean held-out plays as the run has,
    drawn with replacement as whole plays (a play drawn twice counts as two plays, each
    keeping all its items): the excerpt plays' planted speeches were trained on, so the
    excerpt rule must find them answered more often."""
    if not excerpt_plays(data.cloze, groups_of):
        return None
    frame = pd.concat([h for _, h in _drawn_sides(data.cloze, groups_of, size, rng)],
                      ignore_index=True)  # fmt: skip
    m = params["analysis"]["membership"]
    return {"membership_cloze_excerpts": cloze_excerpt_rows(frame, m["bootstrap"], m["seed"])}


def _drawn_sides(cloze: pd.DataFrame, groups_of, size: int, rng):
    """Per (model, side) of ``groups_of(cloze)``, in order: ``(side, items)`` with ``size``
    plays of the ``top`` side and as many plays of any other side as it has, drawn with
    replacement as whole plays (:func:`_drawn_plays`)."""
    for (_, side), h in groups_of(cloze).items():
        plays = h["play"].unique()
        n = size if side == "top" else len(plays)
        yield side, _drawn_plays(h, plays, rng.integers(len(plays), size=n))


def _drawn_plays(h: pd.DataFrame, plays, picks) -> pd.DataFrame:
    """The items of the plays ``plays[k]`` for each k of ``picks``, one drawn play after the
    other (each play's items in their order in ``h``), the j-th drawn play renamed
    ``<play>#j``: the concatenation of ``h[h["play"] == plays[k]].assign(play=f"{plays[k]}#{j}")``
    over the draws, gathered by one index."""
    names = h["play"].to_numpy()
    rows_of = [np.flatnonzero(names == p) for p in plays]
    rows = [rows_of[k] for k in picks]
    labels = np.repeat(
        np.array([f"{plays[k]}#{j}" for j, k in enumerate(picks)], dtype=object),
        [len(r) for r in rows],
    )
    out = h.iloc[np.concatenate(rows)].reset_index(drop=True)
    return out.assign(play=labels)


def training_resample(rng, data, params, size):
    """Builder: ``size`` training plays of each model's name cloze and as many clean
    held-out plays as the run has, drawn with replacement as whole plays
    (:func:`excerpt_resample` with :func:`_training_groups`): the training plays were
    trained on, so the training-plays rule must find them answered more often."""
    return excerpt_resample(rng, data, params, size, _training_groups)


def permuted_training_plays(rng, data, params):
    """Name cloze items with the training / held-out labels permuted over those plays:
    accuracy cannot be higher on the plays labelled training (the play groups and their
    play-permutation tests by the membership report's
    :func:`~copyscope.report.name_cloze.cloze_excerpt_rows`)."""
    cloze = _cloze(data)
    if cloze is None or not {"train", "valid"} <= set(cloze["split"]):
        return None
    permuted = permuted_plays(cloze, ("train", "valid"), rng)
    rows = name_cloze.cloze_excerpt_rows(permuted, *_cloze_n_boot(params))
    return {"membership_cloze_excerpts": rows}


def training_play_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The training plays and the held-out plays resampled as whole plays: the training plays
    were trained on (projected to larger sizes too)."""
    if not (per := excerpt_plays(data.cloze, _training_groups)):
        return []
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("training plays", training_resample, HOLDS, sizes, per)]


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
    nulls=(Null("permuted plays", permuted_training_plays),),
    positives=training_play_positives,
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
            f"{model}: training plays {ci(ci_of(train, *acc))} ({int(train['items'])} items, "
            f"{_plays(train)}) vs held-out {ci(ci_of(held, *acc))} ({int(held['items'])} items, "
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


def permuted_excerpt_plays(table: str) -> NullBuilder:
    """Name cloze items with the excerpt / held-out labels (and the excerpt copy counts)
    permuted over those plays: neither excerpts nor their copies can raise accuracy; the
    ``table`` (``membership_cloze_excerpts`` or ``membership_cloze_trend``) by the membership
    report's builder."""
    builder = {
        "membership_cloze_excerpts": name_cloze.cloze_excerpt_rows,
        # the trend rule reads rho and its p-value only: no bootstrap interval
        "membership_cloze_trend": partial(name_cloze.cloze_trend_rows, intervals=False),
    }[table]

    def build(rng, data, params):
        cloze = _cloze(data)
        if cloze is None or not {"excerpt", "valid"} <= set(cloze["split"]):
            return None
        permuted = permuted_plays(cloze, ("excerpt", "valid"), rng)
        return {table: builder(permuted, *_cloze_n_boot(params))}

    return build


def excerpt_play_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The excerpt plays of the highest copy count and the held-out plays resampled as whole
    plays: the excerpt plays' planted speeches were trained on (projected to larger sizes
    too)."""
    if not (per := excerpt_plays(data.cloze)):
        return []
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("planted excerpt plays (highest copies)", excerpt_resample, HOLDS, sizes,
                     per)]  # fmt: skip


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
    nulls=(Null("permuted plays", permuted_excerpt_plays("membership_cloze_excerpts")),),
    positives=excerpt_play_positives,
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
        beside = (f"; every excerpt play pooled {ci(ci_of(pooled.iloc[0], *acc))}"
                  if len(pooled) else "")  # fmt: skip
        parts.append(
            f"{model}: excerpt plays at {g(top['copies'])} copies {ci(ci_of(top, *acc))} "
            f"({int(top['items'])} items, {_plays(top)}) vs held-out {ci(ci_of(held, *acc))} "
            f"({int(held['items'])} items, {_plays(held)}), play-permutation p↑ = {g(up)}, "
            f"p↓ = {g(down)} → {verdict}{beside}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with excerpt and held-out cloze items", models)


def _plays(row) -> str:
    return f"{int(row['plays'])} plays" if "plays" in row.index else "plays unknown"


def trend_resample(rng, data, params, size):
    """Builder: ``size`` training plays of each model's name cloze, drawn with replacement as
    whole plays and labelled as excerpt plays of the run's highest excerpt copy count (1
    without excerpt plays or without their copy counts), beside every clean held-out play at 0
    copies (drawn the same way, as many as the run has): the training plays were seen whole,
    the most exposure a play can have, so the copy-count trend must rise (the membership report's
    :func:`~copyscope.report.name_cloze.cloze_trend_rows` on those items)."""
    cloze = _cloze(data)
    if not excerpt_plays(cloze, _training_groups):
        return None
    excerpt = cloze["split"] == "excerpt"
    known = excerpt.any() and "excerpt_copies" in cloze
    top = float(cloze.loc[excerpt, "excerpt_copies"].max()) if known else 1.0
    frame = pd.concat(
        [h.assign(split="excerpt", excerpt_copies=top) if side == "top"
         else h.assign(excerpt_copies=0)
         for side, h in _drawn_sides(cloze, _training_groups, size, rng)],
        ignore_index=True,
    )  # fmt: skip
    rows = name_cloze.cloze_trend_rows(frame, *_cloze_n_boot(params), intervals=False)
    return {"membership_cloze_trend": rows}


def trend_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The training plays as the most-copied plays against the held-out plays, resampled as
    whole plays (projected to larger sizes too): no planted excerpt raises accuracy enough to
    be a known answer here (the excerpt rows are inconclusive), a play seen whole does."""
    if not (per := excerpt_plays(_cloze(data), _training_groups)):
        return []
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("training plays as the most-copied plays", trend_resample, HOLDS, sizes,
                     per)]  # fmt: skip


@claim(
    "cloze-excerpt-copies",
    "Memorization rises with a book's presence on the web (popularity)",
    ZHANG,
    "popularity analysis",
    ZHANG_OLMO + "; popularity measured by web presence; popularity correlates with accuracy "
    "except for models that memorize little anyway",
    ("membership_cloze_trend",),
    "per model: Spearman ρ over items between correct (case-insensitive) and the number of "
    "planted copies of the item's play's excerpts (0 for fully held-out plays), tested by "
    "permuting the copy counts over the plays (whole plays: a play's items are not "
    "independent); holds if ρ > 0 with two-sided p < {alpha}, does not hold if ρ < 0 with "
    "p < {alpha}, else inconclusive (the 95% bootstrap CI over items is reported); the claim "
    "holds if every model holds, does not hold if every model does not",
    setting="popularity is stood in for by the planted copy count of a play's excerpts",
    nulls=(Null("permuted plays", permuted_excerpt_plays("membership_cloze_trend")),),
    positives=trend_positives,
)
def cloze_excerpt_copies(tables: Tables, params: Mapping):
    """Zhang et al. 2024: the more often a work's text is on the web, the more it is
    memorised."""
    t = tables["membership_cloze_trend"]
    if "p_value" not in t.columns:
        raise NotMeasured("no p_value column in membership_cloze_trend (re-run report membership)")
    parts, verdicts, models = [], [], []
    for _, r in t.iterrows():
        v = ci_of(r, "rho", "rho_lo", "rho_hi")
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


def permuted_overlap(rng, data, params):
    """Name cloze items whose continuation-overlap match fractions are permuted over the
    training plays (every item of play p gets the mean match fraction of play π(p)): across
    training plays, overlap and cloze accuracy are unrelated (r by
    :func:`~copyscope.report.name_cloze.cloze_tables`)."""
    cloze = _cloze(data)
    if cloze is None or "train" not in set(cloze["split"]):
        return None
    train = cloze["split"] == "train"
    means = cloze[train].groupby("play", sort=False)["match_fraction"].mean()
    moved = pd.Series(rng.permutation(means.to_numpy()), index=means.index)
    out = cloze.copy()
    out.loc[train, "match_fraction"] = cloze.loc[train, "play"].map(moved)
    _, summary = name_cloze.cloze_tables(out, *_cloze_n_boot(params), play_intervals=False)
    return {"membership_cloze_summary": summary}


PILOT_R = 0.77
"""Zhang et al. (2024)'s pilot correlation between continuation overlap and name cloze accuracy
over four books: the agreement the known positive of ``cloze-overlap-correlation`` plants."""


def training_cloze(data: Data) -> pd.DataFrame | None:
    """The name cloze items of the training plays (None without them)."""
    cloze = _cloze(data)
    if cloze is None or "match_fraction" not in cloze:
        return None
    train = cloze[cloze["split"] == "train"]
    return train if len(train) else None


def planted_agreement(rng, data, params, size):
    """``size`` training plays drawn with replacement (each copy a play of its own), whose
    items' continuation overlap is replaced, per model, by :data:`PILOT_R` · z(the play's name
    cloze accuracy) + √(1 − r²) · a standard normal draw per play (on the scale of the run's
    own overlap: its mean and standard deviation over the drawn plays, 0.1 where it has none):
    across plays, overlap and accuracy correlate at the pilot's r by construction (none for
    a model whose accuracy does not vary over the drawn plays). r by
    :func:`~copyscope.report.name_cloze.cloze_tables`."""
    train = training_cloze(data)
    if train is None:
        return None
    pick = rng.choice(np.unique(train["play"].to_numpy()), size=size, replace=True)
    groups = dict(tuple(train.groupby("play", sort=False)))
    out = pd.concat([groups[p].assign(play=f"{p}#{i}") for i, p in enumerate(pick)],
                    ignore_index=True)  # fmt: skip
    for _, rows in out.groupby("model", sort=True):
        acc = rows.groupby("play", sort=True)["correct_insensitive"].mean()
        spread = acc.std(ddof=0)
        z = (acc - acc.mean()) / spread if spread > 0 else acc * 0.0
        overlap = rows.groupby("play", sort=True)["match_fraction"].mean()
        scale = overlap.std(ddof=0) or 0.1
        noise = rng.standard_normal(len(acc))
        planted = overlap.mean() + scale * (PILOT_R * z + np.sqrt(1 - PILOT_R**2) * noise)
        out.loc[rows.index, "match_fraction"] = rows["play"].map(planted).to_numpy()
    _, summary = name_cloze.cloze_tables(out, *_cloze_n_boot(params), play_intervals=False)
    return {"membership_cloze_summary": summary}


def agreement_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The pilot's agreement planted over the run's training plays (and projected numbers of
    plays): the claim is true there by construction; none without training plays whose name
    cloze accuracy varies for some model (nothing to correlate with)."""
    train = training_cloze(data)
    if train is None:
        return []
    acc = train.groupby(["model", "play"])["correct_insensitive"].mean()
    if not (acc.groupby(level="model").std(ddof=0) > 0).any():
        return []
    plays = int(train["play"].nunique())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], plays)
    return [Positive(f"planted agreement (r = {PILOT_R})", planted_agreement, HOLDS, sizes,
                     plays)]  # fmt: skip


@claim(
    "cloze-overlap-correlation",
    "A continuation (n-gram overlap) test agrees with name cloze accuracy across books "
    "(a positive correlation; the pilot found r = 0.77 over four books)",
    ZHANG,
    "pilot study",
    'ChatGPT, four books with known cloze accuracy ("should be interpreted with caution"); an '
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
    nulls=(Null("permuted overlap", permuted_overlap),),
    positives=agreement_positives,
    ground_truth=False,
)
def cloze_overlap_correlation(tables: Tables, params: Mapping):
    """Zhang et al. (2024)'s pilot: continuation overlap and name cloze accuracy agree
    across books."""
    s = tables["membership_cloze_summary"]
    s = s[s["split"] == "train"] if "split" in s.columns else s
    parts, verdicts, models = [], [], []
    for model, rows in s.groupby("model", sort=False):
        r = rows.iloc[0]
        v = ci_of(r, "r_overlap", "r_overlap_lo", "r_overlap_hi")
        if not np.isfinite(v[0]):
            continue
        verdict = effect_verdict(v)
        plays = f", {int(r['r_plays'])} plays" if "r_plays" in r.index else ""
        parts.append(f"{model}: r = {ci(v)}{plays} → {verdict}")
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with r across at least 3 training plays", models)


LATE, EXCERPT, HELD_OUT = set_name("late"), "excerpt", "valid"
"""The name cloze sets of the dynamics table the timing row reads: the training plays seen only
in the last window of training, the excerpt plays (their planted excerpts seen over the whole
run) and the clean held-out plays."""
SPREAD_PLAYS = (set_name(SPREAD), "train")
"""The training plays seen over the whole run (the untimed ones; else every training play):
the planted timing positive's memorised rate."""


def late_window_start(last: int, params: Mapping) -> int:
    """The first step of the late window of a training of ``last`` steps
    (:func:`copyscope.corpus.timing.timed_windows` with ``corpus.inject.timing.window``, the
    scorecard's parameter ``timing``): a checkpoint at or before it has seen no late text."""
    window = (params.get("timing") or {}).get("window")
    if window is None:
        raise NotMeasured("no corpus.inject.timing.window in the scorecard's parameters")
    return timed_windows(last, float(window))["late"][0]


def cloze_checkpoints(rows: pd.DataFrame, model: str, params: Mapping) -> tuple[int, int, int]:
    """``(first, before, last)``: the first checkpoint of ``model``'s name cloze rows, the last
    one before the late window (:func:`late_window_start`) and the last (the end of
    training); NotMeasured without three such distinct checkpoints."""
    steps = sorted(int(s) for s in rows.loc[rows["model"] == model, "step"].unique())
    if not steps:
        raise NotMeasured("no name cloze rows")
    last = steps[-1]
    start = late_window_start(last, params)
    before = [s for s in steps if s <= start]
    if len(before) < 2:
        raise NotMeasured(
            f"{len(before)} checkpoint(s) before the late window (step {start} of {last}); the "
            "rule needs the first one and a later one (models.train.checkpoints)"
        )
    return steps[0], before[-1], last


def timing_cloze_rows(tables: Tables) -> pd.DataFrame:
    """The name cloze rows of the dynamics table, with late-timed plays and excerpt plays;
    NotTested where the run has no checkpoint, no name cloze over them, no plays seen only
    late or no excerpt plays."""
    rows = dynamics_rows(tables, "name_cloze")
    if not len(rows):
        raise NotTested(
            "no name cloze at any checkpoint (a contamination set or analysis.membership.cloze, "
            "and cloze items that fit the models' context)"
        )
    scored = rows[rows["n"].fillna(0) > 0]
    if not (scored["set"] == LATE).any():
        raise NotTested("no training play seen only late (corpus.inject.timing.plays)")
    if not (scored["set"] == EXCERPT).any():
        raise NotTested("no excerpt plays (corpus.inject.excerpts)")
    return rows


def late_and_steady(rows: pd.DataFrame, model: str, steps, level: float):
    """The two differences of differences of the timing row for ``model`` at ``steps =
    (first, before, last)`` (:func:`copyscope.stats.proportions_contrast`, MOVER from Wilson
    intervals at ``level``): the late plays' gain in the late window minus the held-out
    plays' gain there, and the excerpt plays' gain before it minus the held-out plays' gain
    then; None where a set has no items at a step."""
    first, before, last = steps
    k, n = {}, {}
    for name in (LATE, EXCERPT, HELD_OUT):
        for step in steps:
            k[name, step], n[name, step] = successes(at_step(rows, model, name, step))
    if not all(n.values()):
        return None
    late = [(LATE, last), (LATE, before), (HELD_OUT, last), (HELD_OUT, before)]
    steady = [(EXCERPT, before), (EXCERPT, first), (HELD_OUT, before), (HELD_OUT, first)]
    weights = (1, -1, -1, 1)
    return (
        proportions_contrast([k[c] for c in late], [n[c] for c in late], weights, level),
        proportions_contrast([k[c] for c in steady], [n[c] for c in steady], weights, level),
        k,
        n,
    )


def cloze_timing_sets(data: Data) -> pd.DataFrame | None:
    """The run's name cloze rows of the dynamics table with late-timed, excerpt and held-out
    plays scored (None without)."""
    rows = dynamics_of(data, "name_cloze")
    if rows is None:
        return None
    scored = rows[rows["n"].fillna(0) > 0]
    if not {LATE, EXCERPT, HELD_OUT} <= set(scored["set"]):
        return None
    return rows


def share_row(model: str, step: int, name: str, k: int, n: int) -> dict:
    """A name cloze row of a dynamics table: k of n items answered, its Wilson interval."""
    v, lo, hi = wilson(int(k), int(n))
    return {"model": model, "step": int(step), "quantity": "name_cloze", "set": name, "value": v,
            "value_lo": lo, "value_hi": hi, "n": int(n)}  # fmt: skip


def permuted_cloze_labels(rng, data, params):
    """The name cloze rows with the late-timed / excerpt / held-out labels permuted over the
    items at each checkpoint (the correct answers of the three sets pooled and dealt at random
    into sets of their sizes, :func:`copyscope.stats.permuted_counts`): neither timing nor
    excerpts can change accuracy."""
    rows = cloze_timing_sets(data)
    if rows is None:
        return None
    sets = (LATE, EXCERPT, HELD_OUT)
    out = [rows[~rows["set"].isin(sets)]]
    for (model, step), grp in rows[rows["set"].isin(sets)].groupby(["model", "step"], sort=False):
        counts = [successes(at_step(grp, model, s, step)) for s in sets]
        dealt = permuted_counts([k for k, _ in counts], [n for _, n in counts], rng)
        out.append(pd.DataFrame([share_row(model, step, s, d, n) for s, d, (_, n)
                                 in zip(sets, dealt, counts, strict=True) if n]))  # fmt: skip
    return {DYNAMICS: pd.concat(out, ignore_index=True)[DYNAMICS_COLUMNS]}


def planted_timing(rows: pd.DataFrame, params: Mapping) -> dict[str, dict]:
    """Per model the timing the positive plants, from the run's own rates: the held-out plays'
    accuracy at each checkpoint (``base``), ``late`` = the training plays seen over the whole
    run (:data:`SPREAD_PLAYS`) minus the held-out plays at the end, ``excerpt`` = the excerpt
    plays minus the held-out plays at the end, or, where the excerpt plays gain nothing
    (models that memorise too little of a few planted speeches), the ``late`` gain: the
    training plays seen throughout rise steadily by it, the rise the claim credits to text
    spread over training; a model whose training plays gain nothing is left out (no effect
    to plant)."""
    out = {}
    for model in pd.unique(rows["model"]):
        steps = sorted(int(s) for s in rows.loc[rows["model"] == model, "step"].unique())
        last = steps[-1]
        base = {s: successes(at_step(rows, model, HELD_OUT, s)) for s in steps}
        if not all(n for _, n in base.values()):
            continue
        rate = {s: k / n for s, (k, n) in base.items()}
        spread = [successes(at_step(rows, model, s, last)) for s in SPREAD_PLAYS]
        spread = [k / n for k, n in spread if n]
        ek, en = successes(at_step(rows, model, EXCERPT, last))
        if not spread or not en:
            continue
        late, excerpt = spread[0] - rate[last], ek / en - rate[last]
        if late > 0:
            excerpt = excerpt if excerpt > 0 else late
            out[model] = {"steps": steps, "base": rate, "late": late, "excerpt": excerpt,
                          "start": late_window_start(last, params)}  # fmt: skip
    return out


def planted_cloze_timing(plan: dict[str, dict]):
    """Builder: name cloze curves of ``size`` items per set drawn (binomial) with the timing
    planted (:func:`planted_timing`): the held-out plays at the run's rates; the late plays
    at the held-out rate until the late window, then that plus the ``late`` gain; the
    excerpt plays rising steadily, the ``excerpt`` gain times the checkpoint's position
    (0 at the first, 1 at the last)."""

    def build(rng, data, params, size):
        out = []
        for model, p in plan.items():
            steps = p["steps"]
            for i, step in enumerate(steps):
                base = p["base"][step]
                rates = {HELD_OUT: base, EXCERPT: base + p["excerpt"] * i / (len(steps) - 1),
                         LATE: base + (p["late"] if step > p["start"] else 0.0)}  # fmt: skip
                for name, r in rates.items():
                    k = rng.binomial(size, min(1.0, max(0.0, r)))
                    out.append(share_row(model, step, name, k, size))
        return {DYNAMICS: pd.DataFrame(out, columns=DYNAMICS_COLUMNS)}

    return build


def cloze_timing_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The run's own memorization of training and excerpt plays planted with the claimed
    timing (:func:`planted_cloze_timing`), at the run's items per set (the fewest of the
    late, excerpt and held-out plays') and projected sizes; none without a model whose
    training plays gain over the held-out ones."""
    rows = cloze_timing_sets(data)
    if rows is None or not params.get("timing"):
        return []
    plan = planted_timing(rows, params)
    if not plan:
        return []
    sets = rows[rows["set"].isin((LATE, EXCERPT, HELD_OUT)) & rows["model"].isin(plan)]
    observed = int(sets["n"].min())
    if observed < 1:
        return []
    sizes = projected_sizes(params["findings"]["power"]["sizes"], observed)
    return [Positive("planted timing (the run's own gains)", planted_cloze_timing(plan), HOLDS,
                     sizes, observed)]  # fmt: skip


@claim(
    "cloze-late-sudden",
    "Full text seen late in training gives a late, sudden rise in name cloze accuracy, while "
    "excerpts scattered over the training data give a steady one",
    ZHANG,
    "OLMo checkpoint study (14 checkpoints, 4 books: public-domain works rise suddenly late, "
    "steps 450K–557K; copyrighted ones steadily from early on)",
    ZHANG_OLMO + "; public-domain books as full texts in the literature corpora at the end of "
    "Dolma's order, copyrighted ones only as excerpts and quotations scattered over the web text",
    (DYNAMICS,),
    "per model, name cloze accuracy (tables/dynamics.csv, quantity name_cloze; k of n items) at "
    "the first checkpoint, the last one before the late window (the last "
    "corpus.inject.timing.window share of the steps) and the last: (1) the late rise: the "
    "gain in the late window of the training plays seen only then (timing late) minus that of "
    "the clean held-out plays (what every play gains); (2) the steady rise: the gain before "
    "the late window of the excerpt plays minus that of the held-out plays; each a difference "
    "of differences with its MOVER interval from Wilson intervals at 1 − {alpha}/2 "
    "(Bonferroni over the two; the checkpoints' items are the same, so taking them as "
    "independent widens the interval); a model holds if both lie wholly above 0, does not hold "
    "if either lies wholly below 0, else inconclusive; not tested here without checkpoints, "
    "name cloze over them, plays seen only late (corpus.inject.timing.plays) or excerpt "
    "plays; the claim holds if every model holds, does not hold if every model does not",
    setting="known-answer timing: a few training plays seen only in the last "
    "corpus.inject.timing.window share of the steps stand for the public-domain books, the "
    "excerpt plays (corpus.inject.excerpts, seen over the whole run) for the copyrighted ones; "
    "the items of one or two plays, so the verdict is about those plays",
    nulls=(Null("permuted labels", permuted_cloze_labels),),
    positives=cloze_timing_positives,
)
def cloze_late_sudden(tables: Tables, params: Mapping):
    """Zhang et al. 2024 (OLMo checkpoints): full text seen late rises suddenly late, excerpts
    rise steadily."""
    level = 1 - params["findings"]["alpha"] / 2
    rows = timing_cloze_rows(tables)
    parts, verdicts, models, left_out = [], [], [], []
    for model in pd.unique(rows["model"]):
        try:
            steps = cloze_checkpoints(rows, model, params)
        except NotMeasured as exc:
            left_out.append(f"{model}: left out ({exc})")
            continue
        found = late_and_steady(rows, model, steps, level)
        if found is None:
            left_out.append(f"{model}: left out (a set without items at steps {steps})")
            continue
        late, steady, k, n = found
        first, before, last = steps
        if late[1] > 0 and steady[1] > 0:
            verdict = HOLDS
        elif late[2] < 0 or steady[2] < 0:
            verdict = FAILS
        else:
            verdict = UNCLEAR
        curve = {s: ", ".join(f"{step} {share(k[s, step], n[s, step])}" for step in steps)
                 for s in (LATE, EXCERPT, HELD_OUT)}  # fmt: skip
        parts.append(
            f"{model} (steps {first}, {before}, {last}; late window after {before}): late plays "
            f"{curve[LATE]}; excerpt plays {curve[EXCERPT]}; held-out {curve[HELD_OUT]}; late "
            f"rise beyond held-out {ci(late)}, steady rise beyond held-out {ci(steady)} → "
            f"{verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    reason = "; ".join(left_out) or "no model with late, excerpt and held-out plays scored"
    return decided(parts + left_out, verdicts, reason, models)
