"""Shaib et al. 2024, "Detection and Measurement of Syntactic Templates in Generated Text"
(EMNLP): the claims on template rates, templates in the training data and style
memorization, each with its nulls (halves of the parsed human continuations, permuted
targets) and known positives (the templater: human texts a share of which repeat one
span)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...stats import Z95, clopper_pearson, derangement, interval_se, newcombe, z_signs
from ...syntax import templates as syntax_templates
from ...syntax.style import aligned_match
from ...syntax.templates import template_summary
from .. import family
from .. import style as style_report
from .. import template_coverage as coverage_report
from .. import templates as templates_report
from ..syntax_tables import template_table
from .core import (
    DYNAMICS,
    DYNAMICS_COLUMNS,
    FAILS,
    HOLDS,
    SHAIB,
    TABLES,
    UNCLEAR,
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
    models_of,
    n_range,
    set_rows,
)
from .data import (
    HUMAN,
    Data,
    dynamics_of,
    half_texts,
    projected_sizes,
    sizes_up_to,
    split_windows,
)


def greedy_decodings(params: Mapping) -> list[str]:
    """The decodings of ``sampling.decodings`` of kind ``greedy``, in config order."""
    decodings = params["sampling"]["decodings"]
    return [d for d, spec in decodings.items() if spec.get("kind") == "greedy"]


def template_tables(model_texts: list, human_texts: list, decoding: str, params: Mapping, rng):
    """The templates table of ``model_texts`` as the ``decoding`` samples of a model ``null``
    and ``human_texts`` as human/reference at the headline n, by the templates report's
    builders (:func:`copyscope.syntax.templates.template_summary`,
    :func:`copyscope.report.syntax_tables.template_table`,
    :func:`copyscope.report.templates.with_rate_tests`, its regroupings seeded from ``rng``)."""
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    tables, texts_of = [], {}
    for (model, dec), texts in zip(
        [("null", decoding), HUMAN], (model_texts, human_texts), strict=True
    ):
        summary = template_summary(texts, n, s["top_k"])
        table = template_table([(f"{model}/{dec}", summary)])
        tables.append(templates_report.labelled(table, model, dec, decodings))
        texts_of[(model, dec)] = texts
    table = pd.concat(tables, ignore_index=True)
    # the regroupings drawn afresh per draw, as a real comparison's are unrelated to its
    # data: with one fixed set of regroupings for every draw of one pool, the draws would
    # share that set's sampling error (6.3% [5.0, 8.0] in 1,000 draws, not the test's ≤ 5%)
    seed = int(rng.integers(2**31))
    return {"templates": templates_report.with_rate_tests(table, texts_of, s, seed)}


def human_halves_templates(rng, data, params):
    """Two halves of the human sets' parsed continuations (:func:`half_texts`), one as the
    greedy samples of a model (the decoding the rule decides on): Shaib et al.'s template
    measures at the headline n of each half (:func:`template_tables`); None without a greedy
    decoding in ``sampling.decodings``."""
    halves = half_texts(data, rng)
    greedy = greedy_decodings(params)
    if halves is None or not greedy:
        return None
    return template_tables(*halves, greedy[0], params, rng)


def templated(texts: list, share: float, span: list, rng: np.random.Generator) -> list:
    """Copies of tagged ``texts`` (per text its sentences, each a list of (word, tag)) in which
    round(share · len(texts)) texts, drawn at random, end with one more sentence: ``span``,
    the same words and tags in each. A POS n-gram that a share of the texts holds is among
    the set's most frequent, so those texts hold a template of the set by construction."""
    chosen = set(rng.choice(len(texts), size=round(share * len(texts)), replace=False).tolist())
    return [[*t, list(span)] if i in chosen else t for i, t in enumerate(texts)]


class Templater:
    """The halves of the parsed human continuations the templater positive draws from: a span
    of ``n`` words of a sentence of the model half (the one its texts repeat) is drawn per
    resample."""

    def __init__(self, data: Data, params: Mapping, seed: int):
        self.n = params["analysis"]["syntax"]["template_headline_n"]
        texts = data.human_texts
        a, b = split_windows(np.arange(len(texts)), 2, np.random.default_rng([seed, 2]))
        self.model, self.human = [texts[i] for i in a], [texts[i] for i in b]
        self.sentences = [s for t in self.model for s in t if len(s) >= self.n]
        self.max_size = min(len(self.model), len(self.human))


def templater_vs_human(templater: Templater, share: float):
    """Builder: ``size`` texts of the model half drawn with replacement, a ``share`` of them
    ending with the same ``n``-word span (:func:`templated`), as a model's greedy samples,
    against ``size`` texts of the human half."""

    def build(rng, data, params, size):
        greedy = greedy_decodings(params)
        if not greedy or not templater.sentences:
            return None
        sentence = templater.sentences[rng.integers(len(templater.sentences))]
        start = rng.integers(len(sentence) - templater.n + 1)
        span = sentence[start : start + templater.n]
        model = [templater.model[i] for i in rng.integers(len(templater.model), size=size)]
        human = [templater.human[i] for i in rng.integers(len(templater.human), size=size)]
        return template_tables(templated(model, share, span, rng), human, greedy[0], params, rng)

    return build


def templater_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The templater at the largest of ``findings.power.copier_shares`` as a model's greedy
    samples against the human half (with parsed human text and a greedy decoding)."""
    p = params["findings"]["power"]
    if not (data.human_texts and params["analysis"].get("syntax") and greedy_decodings(params)):
        return []
    templater = Templater(data, params, p["seed"])
    share = max(p["copier_shares"])
    return [Positive(f"templater {share:.0%}", templater_vs_human(templater, share), HOLDS,
                     sizes_up_to(p["sizes"], templater.max_size), templater.max_size)]  # fmt: skip


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
    nulls=(Null("human halves", human_halves_templates),),
    positives=templater_positives,
    ground_truth=False,
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
    human = set_rows(t, "human", "reference")
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
    for model in models_of(t):
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
        pure = set_rows(t, model, f["pure_decoding"])
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


def human_halves_coverage(rng, data, params):
    """Two halves of the human sets' parsed continuations (:func:`half_texts`), one as the
    pure samples of a model: the coverage of each half's templates within the training split's most frequent
    POS n-grams and their difference, by the template-coverage report's builders
    (:func:`copyscope.syntax.templates.templates_in_training`,
    :func:`copyscope.report.template_coverage.coverage_delta`)."""
    halves = half_texts(data, rng)
    if halves is None or data.training_ngrams is None:
        return None
    ranks, counts, cut = data.training_ngrams
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    rows, in_cut = [], {}
    for (model, decoding), texts in zip(
        [HUMAN, ("null", params["findings"]["pure_decoding"])], halves, strict=True
    ):
        table, comparison = syntax_templates.templates_in_training(
            texts, n, ranks.get, len(ranks), cut, s["top_k"], counts.get, s["seed"]
        )
        in_cut[(model, decoding)] = table["in_cut"].astype(bool).tolist()
        rows.append({"model": model, "decoding": decoding,
                     "decoding_family": family(decoding, decodings), "n": n, **comparison})  # fmt: skip
    delta = coverage_report.coverage_delta(pd.DataFrame(rows), in_cut, s["bootstrap"], s["seed"])
    return {"template_coverage_delta": delta}


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
    nulls=(Null("human halves", human_halves_coverage, (HOLDS,)),),
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
        d = ci_of(r, "delta", "delta_lo", "delta_hi")
        verdict = effect_verdict(d, f["coverage_effect"])
        verdicts.append(verdict)
        models.append(r["model"])
        extra = ""
        if cov is not None and {"coverage_non_templates", "p_value"} <= set(cov.columns):
            c = set_rows(cov, r["model"], r["decoding"])
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


STYLE_MEASURES = ["word_exact", "pos_exact", "word_match", "pos_match"]


def deranged_style(rng, data) -> pd.DataFrame | None:
    """The per-passage style measures of :func:`permuted_targets` (before the table): each
    continuation compared with the target of another passage of the same length."""
    if data.style is None or not len(data.style):
        return None
    frame = data.style[(data.style["n_target_words"] > 0) & (data.style["copies"] > 0)]
    parts = []
    for _, grp in frame.groupby("model", sort=False):
        grp = grp.sort_values("n_target_words", kind="stable")
        length = grp["n_target_words"].to_numpy()
        alone = np.r_[length[1:] != length[:-1], True] & np.r_[True, length[1:] != length[:-1]]
        grp, length = grp[~alone], length[~alone]  # no other target of its length to compare with
        order = derangement(length, rng)
        moved = order != np.arange(len(grp))
        targets = grp["target_tags"].fillna("").to_numpy()[order]
        match = [aligned_match(t.split(), str(x).split())
                 for t, x in zip(targets, grp["generated_tags"].fillna(""), strict=True)]  # fmt: skip
        parts.append(grp.assign(
            pos_match=[m for m, _ in match], pos_exact=[int(e) for _, e in match],
            word_exact=np.where(moved, 0, grp["word_exact"]),
            word_match=np.where(moved, 0.0, grp["word_match"]),
        ))  # fmt: skip
    keep = ["model", "source", "stratum", "copies", "planted", "n_target_words", *STYLE_MEASURES]
    frame = pd.concat(parts, ignore_index=True)[keep]  # only what the table reads: faster
    frame["stratum"] = frame["stratum"].astype(str)
    return frame


def permuted_targets(rng, data, params):
    """Shaib et al.'s style memorization with each continuation compared with the target of
    another passage of the same length (targets deranged among a model's passages with a
    training copy and the same number of target words, :func:`derangement`; a passage whose
    length no other has is left out): a continuation reproduces an unrelated target's POS
    sequence by chance only, so no style is memorized. The POS measures
    are recomputed (:func:`copyscope.syntax.style.aligned_match`); a moved target's words are
    taken as not reproduced (they are another passage's). Pooled by the style report's
    builder (:func:`copyscope.report.style.style_table`)."""
    frame = deranged_style(rng, data)
    if frame is None:
        return None
    st = params["analysis"]["style"]
    return {"style_memorization": style_report.style_table(frame, st["bootstrap"], st["seed"])}


def planted_style(share: float):
    """Builder: per model, ``size`` passages of :func:`deranged_style` (no style memorized but
    by chance) drawn with replacement, each continuation that does not reproduce its target's
    words made to reproduce its POS sequence with probability ``share``: a style-only share of
    ``share`` planted."""

    def build(rng, data, params, size):
        frame = deranged_style(rng, data)
        if frame is None:
            return None
        parts = []
        for _, grp in frame.groupby("model", sort=False):
            pick = grp.iloc[rng.integers(len(grp), size=size)]
            style = (rng.random(size) < share) & (pick["word_exact"].to_numpy() == 0)
            parts.append(pick.assign(pos_exact=np.where(style, 1, pick["pos_exact"]),
                                     pos_match=np.where(style, 1.0, pick["pos_match"])))  # fmt: skip
        st = params["analysis"]["style"]
        table = style_report.style_table(pd.concat(parts, ignore_index=True), st["bootstrap"],
                                         st["seed"])  # fmt: skip
        return {"style_memorization": table}

    return build


def style_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The paper's style-only share (``findings.style_effect``) planted on the deranged
    passages, at the run's passages with a training copy per model (the fewest) and projected
    sizes."""
    if data.style is None or not len(data.style):
        return []
    seen = data.style[(data.style["n_target_words"] > 0) & (data.style["copies"] > 0)]
    if not len(seen):
        return []
    per = int(seen.groupby("model").size().min())
    share = params["findings"]["style_effect"]
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive(f"paper's style-only share planted ({share:.1%})", planted_style(share),
                     HOLDS, sizes, per)]  # fmt: skip


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
    nulls=(Null("permuted targets", permuted_targets, (HOLDS,)),),
    positives=style_positives,
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


PAPER_TEMPLATE_PPL = (200.0, 500.0)
"""Shaib et al. §6.1, Fig. 2: at OLMo's first checkpoint (4B tokens) the perplexity of template
tokens (~200) and of randomly sampled 6-grams (~500): the template tokens' perplexity is 0.4
times the others'."""
TEMPLATE, OTHER = "template tokens", "other tokens"


def log_ci(row) -> tuple[float, float, float]:
    """``(log value, log low, log high)`` of a perplexity row: the mean token NLL and its
    interval (the dynamics stage exponentiates both)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return tuple(float(np.log(float(row[c]))) for c in ("value", "value_lo", "value_hi"))


def template_pairs(rows: pd.DataFrame, model: str) -> list[tuple[int, object, object]]:
    """``(step, template row, other row)`` of every checkpoint of ``model`` with both sets'
    perplexity and tokens, in step order."""
    out = []
    for step in sorted(rows.loc[rows["model"] == model, "step"].unique()):
        t, o = at_step(rows, model, TEMPLATE, step), at_step(rows, model, OTHER, step)
        if t is not None and o is not None and float(t["n"]) > 0 and float(o["n"]) > 0:
            out.append((int(step), t, o))
    return out


def drawn_template_rows(rows: pd.DataFrame, rng, ratio: float, size: int | None = None):
    """Template perplexity rows (``template_ppl`` of a dynamics table) drawn afresh around the
    other tokens' perplexity: at each checkpoint of each model the other tokens' log
    perplexity is drawn from N(its log value, se_o²) and the template tokens' from N(log
    value of the other tokens + log ``ratio``, se_t²), each se read off its row's 95% interval
    (:func:`copyscope.stats.interval_se` on the log scale), the template tokens' scaled to
    ``size`` tokens (√(n_t / size); None: the run's n_t); each drawn row gets the interval
    ±1.96 se around its value. ``ratio`` 1: no template effect; the paper's 0.4: its effect.
    A checkpoint without both intervals is left out."""
    out = []
    for model in pd.unique(rows["model"]):
        for step, t, o in template_pairs(rows, model):
            (_, tlo, thi), (lo_, olo, ohi) = log_ci(t), log_ci(o)
            se_t, se_o = interval_se(tlo, thi), interval_se(olo, ohi)
            if not (np.isfinite(se_t) and np.isfinite(se_o)):
                continue
            n_t = int(t["n"]) if size is None else int(size)
            se_t *= math.sqrt(float(t["n"]) / n_t)
            for name, mean, se, n in ((TEMPLATE, lo_ + math.log(ratio), se_t, n_t),
                                      (OTHER, lo_, se_o, int(o["n"]))):  # fmt: skip
                v = mean + rng.normal(0.0, se)
                out.append({"model": model, "step": step, "quantity": "template_ppl",
                            "set": name, "value": math.exp(v),
                            "value_lo": math.exp(v - Z95 * se), "value_hi": math.exp(v + Z95 * se),
                            "n": n})  # fmt: skip
    return pd.DataFrame(out, columns=DYNAMICS_COLUMNS)


def no_template_effect(rng, data, params):
    """The run's template perplexity rows drawn with the template tokens at the other tokens'
    perplexity (:func:`drawn_template_rows`, ratio 1), each with the noise its interval
    shows: at no checkpoint are template tokens lower or higher."""
    rows = dynamics_of(data, "template_ppl")
    if rows is None:
        return None
    return {DYNAMICS: drawn_template_rows(rows, rng, 1.0)}


def planted_template_ratio(rng, data, params, size):
    """Builder: the run's template perplexity rows with the paper's ratio planted at every
    checkpoint (template tokens at 0.4 times the other tokens' perplexity,
    :data:`PAPER_TEMPLATE_PPL`), the template tokens' noise scaled to ``size`` tokens."""
    rows = dynamics_of(data, "template_ppl")
    if rows is None:
        return None
    ratio = PAPER_TEMPLATE_PPL[0] / PAPER_TEMPLATE_PPL[1]
    return {DYNAMICS: drawn_template_rows(rows, rng, ratio, size)}


def template_ratio_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The paper's ratio planted on the run's template perplexity rows, at the run's template
    tokens per checkpoint (the fewest of any checkpoint) and projected sizes."""
    rows = dynamics_of(data, "template_ppl")
    if rows is None:
        return []
    tokens = rows.loc[rows["set"] == TEMPLATE, "n"].astype(float)
    tokens = tokens[tokens > 0]
    if not len(tokens):
        return []
    observed = int(tokens.min())
    sizes = projected_sizes(params["findings"]["power"]["sizes"], observed)
    return [Positive("paper's ratio planted (200 vs 500)", planted_template_ratio, HOLDS, sizes,
                     observed)]  # fmt: skip


@claim(
    "templates-early",
    "Templates are learned early in training: template tokens have lower perplexity than other "
    "tokens from the first checkpoint on",
    SHAIB,
    "§6.1, Fig. 2 (at the first checkpoint, 4B tokens: template tokens ~200 vs randomly sampled "
    "6-grams ~500, and lower for the rest of training)",
    "OLMo-7B's checkpoints, its templates (most common POS 6-grams) found in Dolma; the "
    "perplexity of template tokens against randomly sampled 6-grams",
    (DYNAMICS,),
    "per model, at each kept checkpoint (tables/dynamics.csv, quantity template_ppl): the "
    "perplexity of the tokens inside a template against that of the other tokens of the same "
    "held-out sentences, each with its 95% bootstrap interval over tokens, compared on the log "
    "scale by z with standard errors read off the intervals and Bonferroni over the checkpoints "
    "(α = {alpha}, copyscope.stats.z_signs); a model holds if the template tokens are lower at "
    "the first checkpoint and higher at none, does not hold if they are higher at some "
    "checkpoint (an interval that excludes 'lower' there), else inconclusive (the paper's "
    "ratio 200/500 is OLMo's, not an effect size to exclude); not tested here without "
    "checkpoints; the claim holds if every model holds, does not hold if every model does not",
    setting="small models trained here, whose first log-spaced checkpoint comes after a few "
    "steps (OLMo's after 4B tokens); held-out play sentences, templates from the training "
    "split's parse (analysis.syntax.top_k at the headline n); 'other tokens' are every token "
    "outside a template, not random 6-grams",
    nulls=(Null("no template effect", no_template_effect),),
    positives=template_ratio_positives,
)
def templates_early(tables: Tables, params: Mapping):
    """Shaib et al. 2024 §6.1 (Fig. 2): template tokens are easier than other tokens from the
    first checkpoint on."""
    f = params["findings"]
    rows = dynamics_rows(tables, "template_ppl")
    parts, verdicts, models = [], [], []
    for model in pd.unique(rows["model"]):
        pairs = template_pairs(rows, model)
        if not pairs:
            continue
        signs = z_signs([log_ci(t) for _, t, _ in pairs], [log_ci(o) for _, _, o in pairs],
                        f["alpha"])  # fmt: skip
        verdict = FAILS if 1 in signs else HOLDS if signs[0] == -1 else UNCLEAR
        step, t, o = pairs[0]
        last = int(rows.loc[rows["model"] == model, "step"].max())
        lower = n_range([s for (s, _, _), z in zip(pairs, signs, strict=True) if z < 0])
        higher = n_range([s for (s, _, _), z in zip(pairs, signs, strict=True) if z > 0])
        parts.append(
            f"{model}: first checkpoint (step {step} of {last}) template tokens "
            f"{ci(ci_of(t))} vs other tokens {ci(ci_of(o))} ({int(t['n'])} vs {int(o['n'])} "
            f"tokens); lower at steps {lower}, higher at steps {higher} ({len(pairs)} "
            f"checkpoints) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no checkpoint with template and other tokens scored", models)
