"""Null calibration of the findings scorecard: how often each rule reaches a verdict where the
claim is false by construction.

copyscope controls its data, so it can build tables on which a claim cannot be true and ask
its own rules about them (issue "calibrated verdicts"; the idea of permutation and split-half
nulls is standard — e.g. Good 2005, *Permutation, Parametric and Bootstrap Tests*):

* **human halves** — the held-out continuations (human/reference) split at random into two
  halves by window; one half plays the model (or every decoding of a model), the other the
  human baseline. No model-vs-human, decoding or size claim can be true between two halves of
  the same text, so every ``holds`` and every ``does not hold`` is a false verdict;
* **human parts** — the same with as many parts as the rule has decodings (trend rules);
* **permuted copies** — the ladder's per-passage extraction results with the copy counts
  permuted over the passages (controls included): extraction cannot grow with copies;
* **permuted membership** — the contamination set's per-item scores with the planted labels
  permuted: no detector can beat another, and planted items are no more familiar than
  unplanted ones;
* **permuted in-training labels** — the completion-loss tokens of each n-gram size x with the
  in-training / not-in-training label permuted among them (Merrill et al. Fig. 1 right);
  **shuffled counts** — the training counts C_t shuffled among the tokens of one L_t (the loss
  vs frequency slope);
* **human halves** of the parsed human passages (syntactic novelty, templates, template
  coverage), of the RAVEN words at two pretended prompt lengths, and of the human words'
  per-text Creativity Index (Lu et al.: only "holds" is false there);
* **effect = margin** — for a claimed *absence* of an effect (prompt length, training vs
  training ∪ context), an effect of exactly the rule's margin planted on human text: the
  least favourable case, where only ``holds`` is false;
* **human halves** of the human continuations' Moses words (RAVEN's novel words: their
  well-formed share), and the same with the paper's gap planted (``holds`` false there);
* **permuted labels** — the labelled own benchmarks' items with their labels permuted within
  each benchmark (Li's per-format finding: no format separates members);
* **permuted targets** — each greedy continuation of a passage with a training copy compared
  with another passage's target of the same length (style memorization by chance only);
* **permuted plays** — the name cloze items with the training / held-out (or excerpt /
  held-out, with the copy counts) labels permuted over whole plays, the same for every model;
  **permuted overlap** — the training plays' continuation overlap permuted over the plays;
* on the training history (``tables/dynamics.csv``): **no template effect** — each
  checkpoint's template and other tokens' perplexity drawn around the other tokens' with each
  row's own noise; **permuted labels** — each checkpoint's correct name cloze answers of the
  late-timed, excerpt and held-out plays dealt at random over their items; **permuted timing
  labels** — the extracted timed ladder passages at the end dealt at random over the early and
  late groups.

Each claim declares its nulls with itself, in its paper's module
(:class:`copyscope.report.findings.core.Null`, ``Claim.nulls``). Which verdicts are false
depends on the null: both, where the effect is 0; ``holds`` only where the rule's "does not
hold" also means "smaller than the paper's effect" or where the effect is the equivalence
margin; ``does not hold`` only for an equivalence rule on a null without effect.

Each null is drawn ``draws`` times (seeded); each draw builds the rule's input tables with the
same builders as the workflow's report modules (:mod:`copyscope.report.novelty`,
:mod:`~copyscope.report.raven`, :mod:`~copyscope.report.memorization`,
:mod:`~copyscope.report.membership`), so the rule is exactly the one of the scorecard, then
decides the claim (:data:`copyscope.report.findings.CLAIMS`). The false-verdict rate is the
share of draws with a verdict other than ``inconclusive``, with its 95% Wilson interval.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from ..io import write_csv
from ..stats import wilson
from ..syntax.io import read_parses
from ..syntax.templates import (
    generated_text,
)
from . import corpus_sizes, require, workers
from . import findings as F
from . import novel_words as novel_words_report
from . import template_coverage as coverage_report
from . import templates as templates_report
from .findings.core import BOTH
from .findings.data import STATE, Data, NullBuilder
from .jobs import Input, Output, Params, fixed, per_model

log = logging.getLogger(__name__)

NAME = "calibration"
HELP = "false-verdict rates of the scorecard's rules on null tables (no claim can be true)"
INPUTS = {
    "tokens": Input(
        ("MODEL", "DECODING"),
        "tokens.parquet of the human reference (per-token L_t)",
        files=fixed(("human", "reference"), "analysis/human/reference/tokens.parquet"),
    ),
    "words": Input(
        ("MODEL", "DECODING"),
        "words.parquet of the human reference (RAVEN scores)",
        files=fixed(("human", "reference"), "analysis/human/reference/words.parquet"),
    ),
    "quality": Input(
        ("MODEL", "DECODING"),
        "quality.csv of the human reference (evaluator NLL)",
        files=fixed(("human", "reference"), "analysis/human/reference/quality.csv"),
    ),
    "index_manifest": Input(
        ("MODEL",),
        "index.json of the human reference's index (corpus size)",
        files=lambda p: (["human"], [p.index_file(p.model_tok)]),
    ),
    "extraction": Input(
        ("MODEL",),
        "a model's per-passage ladder extraction (memorization/<m>.csv)",
        files=lambda p: (p.ladder_models, p.ladder_files()),
    ),
    "membership": Input(
        ("MODEL",),
        "a model's per-item membership scores (membership/<m>/texts.csv)",
        files=per_model("membership/{model}/texts.csv", "contamination_models"),
    ),
    "completion": Input(
        ("MODEL",),
        "completion_loss.parquet of a model (per-token L_t, C_t, loss)",
        files=lambda p: (p.completion_models, p.completion_outputs()),
    ),
    "cloze": Input(
        ("MODEL",),
        "a model's per-item name cloze results (membership/<m>/cloze.csv)",
        files=per_model("membership/{model}/cloze.csv", "contamination_models"),
    ),
    "contamination": Input(
        ("SPLIT",),
        "the planted contamination set's items looked up in the training data "
        "(tables/contamination_items.csv)",
        files=fixed("planted", "tables/contamination_items.csv", when="contamination"),
    ),
    "parses": Input(
        ("MODEL", "DECODING"),
        "parse file (.parquet) of a human set: human reference (every null), human contaminated "
        "(pooled with it for the template nulls)",
        files=fixed(("human", "reference"), "syntax/human/reference.parquet"),
    ),
    # the contaminated human set (with corpus.inject.excerpts): --parses too
    "contaminated": Input(
        ("MODEL", "DECODING"),
        "parse file (.parquet) of the contaminated human set",
        files=fixed(
            ("human", "contaminated"), "syntax/human/contaminated.parquet", when="excerpts"
        ),
        flag="parses",
    ),
    "training_tags": Input(
        ("SPLIT",),
        "training tag documents (.jsonl): the training POS n-grams",
        files=fixed("train", "syntax/train-tags.jsonl"),
    ),
    "pos_index": Input(
        ("SPLIT",),
        "index directory of the training POS tags (optional: counts them)",
        files=lambda p: (["train"] * len(p.pos_index), p.pos_index),
        directory=True,
    ),
    "training_parses": Input(
        ("SPLIT",),
        "parse file (.parquet) of the training split (syntax units)",
        files=fixed("train", "syntax/train.parquet"),
    ),
    "style": Input(
        ("MODEL",),
        "a model's per-passage style measures (style/measures/<m>.csv)",
        files=per_model("style/measures/{model}.csv", "models"),
    ),
    "own_scores": Input(
        ("MODEL", "BENCHMARK"),
        "a model's per-item scores of an own benchmark (membership/<m>/own/<b>.csv: its "
        "labelled items by format, Li's per-format claim)",
        files=lambda p: (
            p.own_pairs, [p.own_benchmark_file(m, b) for m, b in p.own_pairs]
        ),
    ),
    "samples": Input(
        ("MODEL", "DECODING"),
        "samples (.jsonl) of the human reference (its texts' novel words, RAVEN §7)",
        files=fixed(("human", "reference"), "samples/human/reference.jsonl"),
    ),
    "word_tokenizer": Input(
        ("TOKENIZER",),
        "the Moses word tokenizer's folder (its vocabulary: the training words of RAVEN's "
        "novel words)",
        files=lambda p: ([p.words], [f"{p.results}/tokenizers/{p.words}"]),
    ),
    "dynamics": Input(
        ("NAME",),
        "the training-dynamics table (tables/dynamics.csv; with checkpoints scored)",
        files=fixed("dynamics", "tables/dynamics.csv", when="dynamics_models"),
    ),
}
OUTPUTS = {
    "csv": Output(
        "tables/findings_calibration.csv",
        "findings_calibration.csv: rule, null, draws, verdict counts, false rate",
        "findings_calibration",
        "related",
    ),
}
THREADS = 2  # its job's threads: PROCESSES, the workers that draw the nulls
PARAMS = Params(
    "the config blocks findings (with calibration), novelty, sampling, models, analysis "
    "(syntax, style, memorization, membership), syntax (backend) and timing "
    "(corpus.inject.timing, null without)",
    of=lambda p: {
        "findings": p.config["findings"],
        "timing": p.timing_block(),
        "novelty": p.config["novelty"],
        "sampling": p.config["sampling"],
        "syntax": p.with_language({"backend": p.config["syntax"]["backend"]}),
        "models": p.evaluators(),
        "analysis": {
            k: p.config["analysis"][k] for k in ("syntax", "style", "memorization", "membership")
        },
    },
)
HUMAN = templates_report.HUMAN
COLUMNS = [
    "claim",
    "null",
    "false_verdicts",
    "draws",
    "holds",
    "does_not_hold",
    "inconclusive",
    "mixed",
    "not_tested",
    "false_rate",
    "false_rate_lo",
    "false_rate_hi",
]


# --------------------------------------------------------------------------- calibration
def false_verdicts(
    claim: str,
    builder: NullBuilder,
    data: Data,
    params: Mapping,
    draws: int,
    seed: int,
    false: tuple[str, ...] = BOTH,
) -> dict | None:
    """Decide ``claim`` on ``draws`` null tables from ``builder`` (draw i seeded with
    (seed, i)); the verdict counts and the false-verdict rate (the share of draws with one of
    the ``false`` verdicts, by default ``holds`` and ``does not hold``, or ``mixed``: some
    model holds and another does not, one of them falsely whichever the truth) with its 95%
    Wilson interval; ``not tested here`` (the null lacks a condition of the claim) and
    ``inconclusive`` are no false verdicts; None when the run has no data for this null. Each
    draw's rule runs its permutation tests with regroupings of its own (``findings.permutation_seed`` drawn from
    (seed, i, 1)), as a real comparison's are unrelated to its data: with one fixed set of
    regroupings for every draw, the draws would share that set's sampling error and measure
    it, not the test (the novelty–quality rule: 6.1% [4.8, 7.8] in 1,000 draws)."""
    counts = dict.fromkeys(F.VERDICTS, 0)
    decide = F.CLAIMS[claim]
    done = 0
    for i in range(draws):
        tables = builder(np.random.default_rng([seed, i]), data, params)
        if tables is None:
            return None
        regroup = int(np.random.default_rng([seed, i, 1]).integers(2**31))
        drawn = {**params, "findings": {**params["findings"], "permutation_seed": regroup}}
        counts[decide(tables, drawn).verdict] += 1
        done += 1
    wrong = sum(counts[v] for v in {*false, F.MIXED})
    rate, lo, hi = wilson(wrong, done)
    return {
        "false_verdicts": ", ".join(false),
        "draws": done,
        "holds": counts[F.HOLDS],
        "does_not_hold": counts[F.FAILS],
        "inconclusive": counts[F.UNCLEAR],
        "mixed": counts[F.MIXED],
        "not_tested": counts[F.NOT_TESTED],
        "false_rate": rate,
        "false_rate_lo": lo,
        "false_rate_hi": hi,
    }


PROCESSES = workers.PROCESSES
"""Environment variable: how many processes draw the nulls (the rule sets its threads)."""


def _draw_null(task: tuple[str, int]) -> tuple[str, str, dict | None, tuple[float, float]]:
    """One (claim, null) of the module state set by :func:`calibration_table` (a worker), with
    its cost: (wall, CPU) seconds."""
    claim, k = task
    data, params = STATE["data"], STATE["params"]
    c = params["findings"]["calibration"]
    null = F.CLAIMS[claim].nulls[k]
    name, builder, false = null.name, null.build, null.false
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():  # empty n-gram orders of short halves: NaN, by design
        warnings.simplefilter("ignore", RuntimeWarning)
        r = false_verdicts(claim, builder, data, params, c["draws"], c["seed"], false)
    return claim, name, r, (time.perf_counter() - start, time.process_time() - cpu)


def _task(task: tuple[str, int]):
    """What a worker runs: :func:`_draw_null`, looked up when called."""
    return _draw_null(task)


def _draw_all(tasks: list[tuple[str, int]], processes: int) -> list:
    """:func:`_draw_null` of every task, in task order, by ``processes`` forked workers
    (:func:`copyscope.report.workers.forked_map`: a worker that dies leaves its tasks to this
    process; every draw is seeded by itself, so the table is the same)."""
    return workers.forked_map(_task, tasks, processes, "calibration")


def main_prompt_length(data: Data, params: Mapping) -> Data:
    """``data`` with the human per-token, per-word and per-text frames cut to the main prompt
    length (``sampling.prompt_length``): the only one the calibrated rules read."""
    main = params["sampling"]["prompt_length"]
    cut = {
        name: frame[frame["prompt_length"] == main]
        for name in ("tokens", "words", "quality")
        if (frame := getattr(data, name)) is not None and "prompt_length" in frame
    }
    return replace(data, **cut)


def calibration_table(data: Data, params: Mapping, processes: int = 1) -> pd.DataFrame:
    """One row per (claim, null) that this run has data for, in scorecard order
    (``findings.calibration``: ``draws`` and ``seed``), drawn by ``processes`` processes
    (forked; every draw is seeded by itself, so the table does not depend on them)."""
    tasks = [(claim, k) for claim in F.CLAIMS for k in range(len(F.CLAIMS[claim].nulls))]
    STATE.update(data=main_prompt_length(data, params), params=params)
    try:
        results = _draw_all(tasks, processes)
    finally:
        STATE.clear()
    rows = []
    for claim, name, r, seconds in results:
        if r is None:
            log.info("%s, %s: no data in this run", claim, name)
            continue
        log.info("%s, %s: %d of %d draws reach a false verdict (%s; %.1f s, %.1f s CPU)",
                 claim, name, round(r["false_rate"] * r["draws"]), r["draws"],
                 r["false_verdicts"], *seconds)  # fmt: skip
        rows.append({"claim": claim, "null": name, **r})
    return pd.DataFrame(rows, columns=COLUMNS)


def _one(items, flag: str, what: str):
    """The single labelled input of ``flag`` (its path), or None when absent."""
    if not items:
        return None
    if len(items) != 1:
        from ..errors import InputError

        raise InputError(flag, f"one {what}, found {len(items)}")
    return items[0][-1]


def training_ngrams(
    path, n: int, pos_index=None, cut: int | None = None
) -> tuple[dict, Mapping, int]:
    """(ranks, counts, cut) of the training split's POS n-grams, as the template-coverage
    report has them (:func:`copyscope.report.template_coverage.training_pos_ngrams`, ``cut``
    its ``analysis.syntax.coverage_cut``), counted once for every draw."""
    return coverage_report.training_pos_ngrams(path, n, pos_index, cut)


def load(inputs: Mapping, params: Mapping | None = None) -> Data:
    """The per-item data of the command's inputs (``params``: the analysis.syntax block's
    headline n for the training POS n-grams)."""
    tokens = _one(inputs.get("tokens"), "--tokens", "human reference tokens.parquet")
    words = _one(inputs.get("words"), "--words", "human reference words.parquet")
    quality = _one(inputs.get("quality"), "--quality", "human reference quality.csv")
    sizes = corpus_sizes(inputs.get("index_manifest") or [])
    ex = [pd.read_csv(p) for _, p in inputs.get("extraction") or []]
    mem = [pd.read_csv(p) for _, p in inputs.get("membership") or []]
    comp = [pd.read_parquet(p).assign(model=m) for m, p in inputs.get("completion") or []]
    cloze = [pd.read_csv(p) for _, p in inputs.get("cloze") or []]
    cloze = [c for c in cloze if len(c)]
    style = [pd.read_csv(p, keep_default_na=False, na_values=[""])
             for _, p in inputs.get("style") or []]  # fmt: skip
    style = [x for x in style if len(x)]
    human = [(d, path) for m, d, path in inputs.get("parses") or [] if m == "human"]
    parses = _one([x for x in human if x[0] == "reference"], "--parses", "human reference parses")
    tags = _one(inputs.get("training_tags"), "--training-tags", "training tag documents")
    pos_index = _one(inputs.get("pos_index"), "--pos-index", "training POS-tag index")
    train_parses = _one(inputs.get("training_parses"), "--training-parses", "training parses")
    looked_up = _one(inputs.get("contamination"), "--contamination", "contamination_items.csv")
    samples = _one(inputs.get("samples"), "--samples", "human reference samples")
    own = [pd.read_csv(p) for _, _, p in inputs.get("own_scores") or []]
    word_tok = _one(inputs.get("word_tokenizer"), "--word-tokenizer", "Moses word tokenizer")
    dynamics = _one(inputs.get("dynamics"), "--dynamics", "dynamics table")
    syntax = (params or {}).get("analysis", {}).get("syntax", {})
    n, cut = syntax.get("template_headline_n"), syntax.get("coverage_cut")
    with_syntax = parses and train_parses and params and "syntax" in params
    return Data(
        tokens=pd.read_parquet(tokens) if tokens else None,
        words=pd.read_parquet(words) if words else None,
        quality=pd.read_csv(quality) if quality else None,
        corpus_size=next(iter(sizes.values()), 0),
        extraction=pd.concat(ex, ignore_index=True) if ex else None,
        membership=pd.concat(mem, ignore_index=True) if mem else None,
        completion=pd.concat(comp, ignore_index=True) if comp else None,
        cloze=pd.concat(cloze, ignore_index=True) if cloze else None,
        human_texts=[generated_text(p) for _, path in human for p in read_parses(path)] or None,
        training_ngrams=training_ngrams(tags, n, pos_index, cut) if tags and n else None,
        syntax_files=(parses, train_parses) if with_syntax else None,
        style=pd.concat(style, ignore_index=True) if style else None,
        contamination=pd.read_csv(looked_up) if looked_up else None,
        human_words=human_words(samples, word_tok) if samples and word_tok else None,
        own_scores=_own_scores(own),
        dynamics=pd.read_csv(dynamics) if dynamics else None,
    )


def _own_scores(frames: list[pd.DataFrame]) -> pd.DataFrame | None:
    """The own benchmarks' per-item scores, labels as integers or missing (as the
    own-benchmarks report reads them); None without any."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return None
    scores = pd.concat(frames, ignore_index=True)
    return scores.assign(label=scores["label"].astype("Int64"))


def human_words(samples, directory) -> tuple:
    """(Moses words of each text of the human reference's ``samples`` by prompt length, the
    training vocabulary, the judge) of the Moses word tokenizer in ``directory``, as the
    novel-words report reads them (:mod:`copyscope.report.novel_words`)."""
    from ..tokenize import load as load_tokenizer

    tok = load_tokenizer("moses", directory)
    vocab = tok.vocab.index
    return novel_words_report.text_words(samples, tok), vocab, novel_words_report.judge_of(
        vocab, tok.language
    )


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Draw every null of every claim this run has data for; write the calibration table."""
    require(inputs.get("tokens") or [], "--tokens", "human reference")
    write_csv(out["csv"], calibration_table(load(inputs, params), params, workers.processes()))
