"""McCoy et al. 2023 (RAVEN) §6, Table 1, Fig. 5: the syntactic novelty row
(``syntax-local-less-novel``): the local structure of model text is far less novel than the
human baseline's, whole-sentence structure differs little; its null (two halves of the human
reference's parses, counted once per process)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ....language import label_set, language_of
from ....stats import difference_bounds
from ....syntax.io import read_parses
from ....syntax.syntactic_novelty import (
    count_matrices,
    extract_set,
    novelty_rows,
    query_items,
    training_hits,
    units,
)
from ... import family
from ..core import (
    FAILS,
    RAVEN,
    NotMeasured,
    Null,
    Tables,
    ci_of,
    claim,
    combine,
    compare,
    decided,
    equivalence_verdict,
    g,
    models_of,
    set_rows,
    signs_verdict,
)
from ..data import HUMAN, STATE, Data, split_windows


def _unit_signs(model: pd.DataFrame, human: pd.DataFrame, units: Sequence[str]) -> dict:
    """unit → (:func:`compare` of the model's novelty interval with the human one, model
    interval, human interval), for the units with generated occurrences in both."""
    m = model[model["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    h = human[human["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    return {
        u: (compare(ci_of(m.loc[u]), ci_of(h.loc[u])), ci_of(m.loc[u]), ci_of(h.loc[u]))
        for u in units
        if u in m.index and u in h.index
    }


def _unit_names(signs: dict, want: int) -> str:
    return "{" + ", ".join(u for u, (s, _, _) in signs.items() if s == want) + "}"


def human_halves_syntax(rng, data, params):
    """Two halves of the human reference's parsed passages, one as the top-40 samples of a
    model: RAVEN's syntactic novelty of each half against the training parses, by the syntax
    report's builder (:func:`copyscope.syntax.syntactic_novelty.novelty_rows` of
    :func:`~copyscope.syntax.syntactic_novelty.novelty_table`; each passage's counts found once for all
    draws)."""
    syntax = _syntax(data, params)
    if syntax is None:
        return None
    names, novel, total = syntax
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    a, b = split_windows(np.arange(len(novel)), 2, rng)
    frames = []
    for (model, decoding), half in zip(
        [("null", params["findings"]["raven_decoding"]), HUMAN], (a, b), strict=True
    ):
        name = f"{model}/{decoding}"
        t = novelty_rows(name, names, novel[half], total[half], s["bootstrap"], s["seed"])
        frames.append(t.assign(model=model, decoding=decoding,
                               decoding_family=family(decoding, decodings)))  # fmt: skip
    return {"syntax_novelty": pd.concat(frames, ignore_index=True)}


def _syntax(data: Data, params: Mapping) -> tuple | None:
    """``data.syntax``, or the counts of ``data.syntax_files`` (:func:`syntax_items`), found
    once per process: in the worker that draws the syntax null, while the others draw theirs
    (not before every worker starts)."""
    if data.syntax is not None or data.syntax_files is None:
        return data.syntax
    cached = STATE.get("syntax")
    if cached is None or cached[0] != data.syntax_files:
        cached = STATE["syntax"] = (data.syntax_files, syntax_items(*data.syntax_files, params))
    return cached[1]


def syntax_items(parses, training, params: Mapping) -> tuple:
    """(unit names, novel, total): the human reference's per-passage counts of every unit
    (:func:`copyscope.syntax.syntactic_novelty.count_matrices`), by the syntactic-novelty report's steps
    (:func:`copyscope.syntax.syntactic_novelty.syntactic_novelty`: extraction, one streaming pass over the
    training parses)."""
    labels = label_set(params["syntax"]["backend"], language_of(params["syntax"]))
    k = params["analysis"]["syntax"]["max_path_words"]
    parsed = extract_set("human/reference", read_parses(parses), labels, k)
    query, words = query_items([parsed])
    hits = training_hits(read_parses(training), query, words, labels, k)
    names = units(k)
    return (names, *count_matrices(parsed, hits, names))


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
    'gives no size for "little difference") (does not hold: some unit\'s bounds lie wholly '
    "outside); "
    "a model holds if both parts hold and does not hold if either does not; the claim holds if "
    "every model holds",
    setting="the margin ±{syntax_margin} on whole-sentence novelty is copyscope's, not a "
    "number of the paper; parses come from spaCy (ClearNLP labels for English, UD for French; no "
    "constituency: the dependency-tree structure stands in for it); arcs and roles contain "
    "words, and small BPE models write "
    "non-words, which inflates their novelty (RAVEN §7: 96% of GPT-2's novel words are "
    "well-formed)",
    nulls=(Null("human halves", human_halves_syntax),),
)
def syntax_local_less_novel(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §6: generated text is less syntactically novel than human text in
    local structure, while sentence-level structure is about as novel."""
    f = params["findings"]
    t = tables["syntax_novelty"]
    human = set_rows(t, "human", "reference")
    if not len(human):
        raise NotMeasured("no human/reference rows in the syntactic novelty table")
    parts, verdicts, models = [], [], []
    for model in models_of(t):
        rows = set_rows(t, model, f["raven_decoding"])
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
