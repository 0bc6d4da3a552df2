"""McCoy et al. 2023 (RAVEN) §6, Table 1, Fig. 5: the syntactic novelty row
(``syntax-local-less-novel``): the local structure of model text is far less novel than the
human baseline's, whole-sentence structure differs little; its null (two halves of the human
reference's parses, counted once per process) and known positive (the local units of one half
made less novel)."""

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
    HOLDS,
    RAVEN,
    NotMeasured,
    Null,
    Positive,
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
from ..data import HUMAN, STATE, Data, projected_sizes, split_windows


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


def syntax_table(names, sets, params: Mapping) -> dict:
    """The ``syntax_novelty`` table of ``sets`` (``((model, decoding), novel, total)``: the
    per-passage counts of each unit), by the syntax report's builder
    (:func:`copyscope.syntax.syntactic_novelty.novelty_rows`)."""
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    frames = []
    for (model, decoding), novel, total in sets:
        t = novelty_rows(f"{model}/{decoding}", names, novel, total, s["bootstrap"], s["seed"])
        frames.append(t.assign(model=model, decoding=decoding,
                               decoding_family=family(decoding, decodings)))  # fmt: skip
    return {"syntax_novelty": pd.concat(frames, ignore_index=True)}


def human_halves_syntax(rng, data, params):
    """Two halves of the human reference's parsed passages, one as the top-40 samples of a
    model: RAVEN's syntactic novelty of each half against the training parses, by the syntax
    report's builder (:func:`syntax_table`; each passage's counts found once for all draws)."""
    syntax = _syntax(data, params)
    if syntax is None:
        return None
    names, novel, total = syntax
    a, b = split_windows(np.arange(len(novel)), 2, rng)
    model = ("null", params["findings"]["raven_decoding"])
    return syntax_table(names, [(model, novel[a], total[a]), (HUMAN, novel[b], total[b])], params)


PLANTED_LOCAL_CUT = 0.5
"""The syntax row's known positive: the share of the novel occurrences of every local unit
removed from the model's passages. copyscope's choice ("far less novel", §6 and Table 1, is
given no size)."""


def thinned_local(cut: float):
    """Builder: the human reference's passages split in halves, ``size`` passages of each drawn
    with replacement, one half as a model's top-40 samples with each novel occurrence of a
    local unit (``findings.local_units``) kept with probability 1 − ``cut`` (counted as found in
    training instead), its whole-sentence units untouched: local structure less novel, the
    whole sentence as novel as the human half's."""

    def build(rng, data, params, size):
        syntax = _syntax(data, params)
        if syntax is None:
            return None
        names, novel, total = syntax
        a, b = (rng.choice(half, size) for half in split_windows(np.arange(len(novel)), 2, rng))
        local = np.isin(np.asarray(names), params["findings"]["local_units"])
        thinned = novel[a].copy()
        thinned[:, local] = rng.binomial(thinned[:, local], 1.0 - cut)
        model = ("null", params["findings"]["raven_decoding"])
        return syntax_table(names, [(model, thinned, total[a]), (HUMAN, novel[b], total[b])],
                            params)  # fmt: skip

    return build


def syntax_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """:data:`PLANTED_LOCAL_CUT` planted on one half of the human passages, at the run's
    passages per half and projected sizes."""
    syntax = _syntax(data, params)
    if syntax is None:
        return []
    per = len(syntax[1]) // 2
    if per < 2:
        return []
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive(f"local units {PLANTED_LOCAL_CUT:.0%} less novel", thinned_local(
        PLANTED_LOCAL_CUT), HOLDS, sizes, per)]  # fmt: skip


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
    positives=syntax_positives,
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
