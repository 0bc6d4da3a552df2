"""McCoy et al. 2023 (RAVEN) §5, Fig. 2: the novelty–quality row (``novelty-quality``):
decodings that produce more novel text produce text judged worse, a Kendall trend across the
decodings; its null (parts of the human continuations, one per decoding) and its known positive
(a tradeoff planted across the decodings)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ....stats import split_half_trend
from ..core import (
    FAILS,
    HOLDS,
    RAVEN,
    UNCLEAR,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    claim,
    decided,
    enough_rows,
    evaluator_of,
    g,
    judge_of,
    main_rows,
)
from ..data import gather_windows, main_words, sizes_up_to, split_windows
from .ngrams import raven_nulls, raven_sets


def human_parts_quality(rng, data, params):
    """The human continuations dealt into as many parts as the grid has decodings, each part
    playing one decoding of one model: novelty and the judged perplexity are unrelated."""
    if data.words is None or data.quality is None:
        return None
    names = list(params["sampling"]["decodings"])
    parts = split_windows(data.words["window"].to_numpy(), len(names), rng)
    return raven_nulls(
        raven_sets(data, [("null", d, w) for d, w in zip(names, parts, strict=True)]), params
    )


def planted_tradeoff(rng, data, params, size):
    """Builder: the human continuations (main prompt length) as one model's samples under
    every decoding of the grid, ``size`` texts per decoding drawn with replacement, the
    decodings in a random order; the i-th of k made more novel and harder to predict by
    i/(k − 1) of one standard deviation of the human texts' own values: every truncated
    duplication score lowered (min(s, 5) − i/(k − 1)·sd, as the prompt-length null shifts
    it) and every token's judged NLL raised (i/(k − 1)·sd per token). A monotone tradeoff
    across the decodings, of one standard deviation from first to last, is planted: the
    rule must find it ``holds``. Built by the RAVEN report's builders (:func:`raven_nulls`)."""
    words, quality = main_words(data, params), data.quality
    names = list(params["sampling"]["decodings"])
    if words is None or quality is None or len(names) < 2:
        return None
    q = quality[quality["prompt_length"] == params["sampling"]["prompt_length"]]
    windows = np.intersect1d(pd.unique(words["window"]), pd.unique(q["window"]))
    if len(windows) < 2:
        return None
    score_sd, nll_sd = _text_spreads(words, q)
    q = q.drop_duplicates("window").set_index("window")
    sets = []
    for i, name in enumerate(rng.permutation(names)):
        step = i / (len(names) - 1)
        pick = rng.choice(windows, size=size, replace=True)
        w = gather_windows(words, pick)  # each picked window's words, as text j
        w["s_union"] = np.minimum(w["s_union"].to_numpy(float), 5) - step * score_sd
        t = q.loc[pick].reset_index(drop=True)
        t["text"] = t["window"] = np.arange(size)
        t["nll_sum"] = t["nll_sum"] + step * nll_sd * t["tokens"]
        sets.append(("planted", str(name), w, t))
    return raven_nulls(sets, params)


def _text_spreads(words: pd.DataFrame, quality: pd.DataFrame) -> tuple[float, float]:
    """The standard deviations over texts of the mean truncated duplication score (min(s, 5)
    of ``s_union``) and of the mean NLL per token (``nll_sum`` / ``tokens``)."""
    score = np.minimum(words["s_union"].to_numpy(float), 5)
    per_text = pd.Series(score).groupby(words["window"].to_numpy()).mean()
    nll = quality["nll_sum"].to_numpy(float) / np.maximum(quality["tokens"].to_numpy(float), 1)
    return float(per_text.std()), float(np.std(nll, ddof=1))


def tradeoff_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The planted tradeoff (:func:`planted_tradeoff`) at the power sizes up to the run's
    own number of human texts (larger ones would repeat texts more than the run has)."""
    words = main_words(data, params)
    if words is None or data.quality is None or len(params["sampling"]["decodings"]) < 2:
        return []
    per = int(words["window"].nunique())
    sizes = sizes_up_to(params["findings"]["power"]["sizes"], per)
    return [Positive("planted tradeoff (1 sd)", planted_tradeoff, HOLDS, sizes, per)]


def judge_note(judge: str, params: Mapping) -> str:
    """Who judged a model's samples, as the row shows it: ``models.judge`` (a model outside
    the zoo) or a model of the zoo (trained here on the same text, when it is trained)."""
    if judge == judge_of(params):
        return f"judged by {judge}, models.judge: outside the zoo"
    zoo = params["models"].get("zoo", {})
    if zoo.get(judge, {}).get("kind") in ("gpt2", "lstm"):
        return f"judged by {judge}, a zoo model trained here on the same text; no models.judge"
    return f"judged by {judge}, a model of the zoo; no models.judge"


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
    "with at least {min_distinct} distinct texts judged by a model other than the model itself "
    "(models.judge when set, else models.evaluator / models.evaluators), from at least "
    "{trend_min_points} decodings: Kendall's τ over the decodings of each decoding's truncated "
    "duplication score (higher = less novel) and its judged NLL per token (the log of its "
    "perplexity) — the monotone trend across decodings that RAVEN reads off Fig. 2 (more "
    "novel, higher perplexity: τ < 0), one decoding far from the others weighing no more than "
    "any other — each decoding's score from one half of its texts and its NLL from the other "
    "(the texts in prompt order, alternately), since texts that copy more are also easier to "
    "predict and the means of the same texts would line up without any decoding effect; τ "
    "tested against its exact null distribution (independent halves: the pairing is random "
    "without a decoding effect); holds if τ < 0 with one-sided p < {alpha}/(2m), does not hold "
    "if τ > 0 with one-sided p < {alpha}/(2m) (Bonferroni over the m models decided), else "
    "inconclusive; not tested here when no model has such sets; the claim holds if every "
    "model holds",
    setting="quality is the perplexity under models.judge when the config sets one (a model "
    "outside the zoo, e.g. SmolLM2-135M, the judge: block config/config.yaml shows commented "
    "out: about 35 CPU minutes on the default's sets on 2 cores, so the default keeps the "
    "trained evaluators), else under the zoo's models.evaluator(s), small models trained on "
    "the same plays, whose perplexity rewards closeness to the training text as well as "
    "fluency; the measured column names each model's judge",
    nulls=(Null("human parts", human_parts_quality),),
    positives=tradeoff_positives,
)
def novelty_quality(tables: Tables, params: Mapping):
    """McCoy et al. 2023 Fig. 2: more novel decodings give higher perplexity under a
    different model, as a monotone trend across the decodings."""
    f = params["findings"]
    r = tables["raven_summary"]
    r = enough_rows(
        main_rows(r[(r["source"] == "union") & (r["model"] != "human")], params), params
    )
    if not len(r):
        raise NotMeasured("no model's sets at the main prompt length in the RAVEN summary")
    if "evaluator" not in r.columns:
        r = r.assign(evaluator=r["model"].map(lambda m: evaluator_of(m, params)))
    r = r[r["evaluator"].astype(str) != r["model"].astype(str)]
    texts = tables["raven_texts"]
    groups = []
    for model, rows in r.groupby("model", sort=False):
        t = texts[(texts["model"] == model) & texts["decoding"].isin(rows["decoding"])]
        t = t[(t["score_tokens"] > 0) & (t["nll_tokens"] > 0)]
        if t["decoding"].nunique() >= f["trend_min_points"]:
            groups.append((model, rows, t))
    if not groups:
        raise NotTested(
            f"no model has ≥ {f['trend_min_points']} decodings judged by another model: the "
            "claim is a trend across a grid of decodings, judged by a model that did not "
            "write the text"
        )
    level = f["alpha"] / (2 * len(groups))  # per direction, Bonferroni over the models
    parts, verdicts, models = [], [], []
    for model, rows, t in groups:
        tau, lower, upper, k = split_half_trend(
            t["decoding"], t["text"], t["score_sum"], t["score_tokens"], t["nll_sum"],
            t["nll_tokens"],
        )  # fmt: skip
        verdict = trend_p_verdict(tau, lower, upper, level)
        judge = ",".join(dict.fromkeys(rows["evaluator"].astype(str)))
        parts.append(
            f"{model} ({judge_note(judge, params)}): τ of the decodings' halves = "
            f"{g(tau)} (p↓ = {g(lower)}, p↑ = {g(upper)} against {g(level)}; {k} decodings, "
            f"{len(t)} texts) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "", models)


def trend_p_verdict(tau: float, lower: float, upper: float, level: float) -> str:
    """A claimed negative trend τ from its one-sided p-values: ``holds`` if τ < 0 with
    P(τ* ≤ τ) < ``level``, ``does not hold`` if τ > 0 with P(τ* ≥ τ) < ``level``, else
    ``inconclusive`` (also for NaN)."""
    if not np.isfinite(tau):
        return UNCLEAR
    if tau < 0 and lower < level:
        return HOLDS
    if tau > 0 and upper < level:
        return FAILS
    return UNCLEAR
