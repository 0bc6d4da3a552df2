"""RAVEN's syntactic novelty (McCoy et al. 2023, §6) of every text set against the training
parses (:func:`copyscope.syntax.syntactic_novelty.syntactic_novelty`; the units and the counting rule are
defined there).

One job reads the training parse once and every (model, decoding) parse, the human
continuations included. Outputs: every set's novelty per unit with its bootstrap interval over
passages (``syntax_novelty.csv``), RAVEN Table 1 (rows = units, columns = each model's
``findings.raven_decoding`` set, top-40 sampling as in the paper, then its
``findings.pure_decoding`` set, and the human baseline; ``syntax_table1.csv``) and RAVEN Fig. 5
(dependency-path novelty by path length, for the same sets: top-40 solid, pure dashed).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from ..language import label_set, language_of
from ..lazy import lazy_module
from ..syntax.io import read_parses
from ..syntax.syntactic_novelty import syntactic_novelty
from . import family, fmt, require
from .jobs import Input, Output, Params, fixed
from .syntax_tables import UNIT_LABELS, path_curves, raven_table1

syntax_figures = lazy_module("copyscope.report.syntax_figures")

NAME = "syntax-novelty"
HELP = "RAVEN syntactic novelty of every text set against the training parses"
INPUTS = {
    "parses": Input(
        ("MODEL", "DECODING"),
        "parse file (.parquet) of a setting's prompts + texts",
        files=lambda p: (p.settings(), p.parse_files()),
    ),
    "training": Input(("SPLIT",), "parse file (.parquet) of the training split", files=fixed("train", "syntax/train.parquet")),
}
OUTPUTS = {
    "table": Output(
        "tables/syntax_novelty.csv",
        "novelty per text set and unit, with bootstrap CIs (.csv)",
        "syntax_novelty",
        "raven",
    ),
    "table1": Output(
        "tables/syntax_table1.csv",
        "RAVEN Table 1: units × (each model's top-40 and pure sampling, human) (.csv)",
        "syntax_table1",
        "raven",
    ),
    "fig": Output(
        "figures/syntax_paths.png",
        "figure: dependency-path novelty by path length (RAVEN Fig. 5) (.png)",
        "syntax_paths",
        "raven",
    ),
}
PARAMS = Params(
    "the config blocks syntax (backend), analysis (syntax) and sampling (decodings), the "
    "model names in the config's order (models), and the decodings of Table 1 and Fig. 5 "
    "(figures: findings.raven_decoding, findings.pure_decoding)",
    of=lambda p: {
        **p.syntax_block(),
        "figures": {
            "raven_decoding": p.config["findings"]["raven_decoding"],
            "pure_decoding": p.config["findings"]["pure_decoding"],
        },
    },
)
SUMMARY_TABLES = ("syntax_novelty",)  # read by summary_section

SUMMARY_UNITS = {
    "pos_sequence": UNIT_LABELS["pos_sequence"],
    "dependency_structure": "parse structure (dependency tree of tags)",
    "constituency_structure": UNIT_LABELS["constituency_structure"],
    "labeled_arc": UNIT_LABELS["labeled_arc"],
    "dependency_role": UNIT_LABELS["dependency_role"],
    "labeled_path_3": "labeled path, k = 3",
}
"""The units of the summary's table, whole-sentence first, with their column labels."""


def set_name(model: str, decoding: str) -> str:
    """The name of a setting's text set (as the syntax stage names its parse file)."""
    return f"{model}/{decoding}"


def table1_sets(settings: list[tuple[str, str]], figures: Mapping) -> list[str]:
    """RAVEN Table 1's columns: each model's ``figures.raven_decoding`` set (the paper's
    top-40 sampling), then each model's ``figures.pure_decoding`` set (pure sampling, the
    extra), then the human baseline (``human/reference``) when present; models in the
    settings' order, a decoding named twice once."""
    decodings = list(dict.fromkeys([figures["raven_decoding"], figures["pure_decoding"]]))
    out = [
        set_name(m, d)
        for want in decodings
        for m, d in settings
        if m != "human" and d == want
    ]
    if ("human", "reference") in settings:
        out.append(set_name("human", "reference"))
    return list(dict.fromkeys(out))


def novelty_frame(
    parses: list[tuple[str, str, str]], training: str, params: Mapping
) -> pd.DataFrame:
    """:func:`syntactic_novelty` of every setting ``(model, decoding, parse file)`` against the
    training parse file, with ``model``, ``decoding`` and ``decoding_family`` columns first."""
    s = params["analysis"]["syntax"]
    sets = {set_name(m, d): read_parses(path) for m, d, path in parses}
    frame = syntactic_novelty(
        sets,
        read_parses(training),
        labels=label_set(params["syntax"]["backend"], language_of(params["syntax"])),
        max_path_words=s["max_path_words"],
        n_boot=s["bootstrap"],
        seed=s["seed"],
    )
    model_of = {set_name(m, d): (m, d) for m, d, _ in parses}
    frame.insert(0, "decoding_family", [""] * len(frame))
    frame.insert(0, "decoding", [model_of[x][1] for x in frame["set"]])
    frame.insert(0, "model", [model_of[x][0] for x in frame["set"]])
    decodings = params["sampling"]["decodings"]
    frame["decoding_family"] = [family(d, decodings) for d in frame["decoding"]]
    return frame


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Novelty of every setting, Table 1 and the Fig. 5 path curves of its columns."""
    require(inputs["parses"], "--parses", "parse file")
    require(inputs["training"], "--training", "training parse file")
    frame = novelty_frame(inputs["parses"], inputs["training"][0][1], params)
    write_csv(out["table"], frame)
    settings = [(m, d) for m, d, _ in inputs["parses"]]
    sets = table1_sets(settings, params["figures"])
    write_csv(out["table1"], raven_table1(frame, sets).reset_index())
    curves = path_curves(frame[frame["set"].isin(sets)])
    models = list(params.get("models", []))  # the config's order of the models
    pure = params["figures"]["pure_decoding"]
    drawn = set(curves["set"])  # a set without paths (every unit n/a) draws no line
    dashed = [] if pure == params["figures"]["raven_decoding"] else [
        s for s in sets if s in drawn and s.split("/", 1)[1] == pure
        and not s.startswith("human/")]  # fmt: skip
    main = params["figures"]["raven_decoding"]
    title = f"RAVEN Fig. 5: {main} sampling" + (f" (solid), {pure} dashed" if dashed else "")
    syntax_figures.path_novelty(
        curves, out["fig"], human=set_name("human", "reference"), models=models, dashed=dashed,
        title=f"{title}; 95% bands over passages",
    )


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Novelty of the whole-sentence and local units for pure sampling and human text."""
    t = tables["syntax_novelty"]
    t = t[t["decoding_family"].isin(["pure", "human"]) & (t["total"] > 0)]
    if not len(t):
        return []
    units = [u for u in SUMMARY_UNITS if u in set(t["unit"])]
    lines = [
        "",
        "## Syntactic novelty (RAVEN, McCoy et al.), against the training parses",
        "",
        "Share of generated items absent from every training parse (95% CI over passages):",
        "",
        "| model | decoding | " + " | ".join(SUMMARY_UNITS[u] for u in units) + " |",
        "|---|---|" + "---|" * len(units),
    ]
    for (model, decoding), g in t.groupby(["model", "decoding"], sort=False):
        g = g.set_index("unit")
        cells = [
            f"{fmt(g.at[u, 'novelty'])} [{fmt(g.at[u, 'novelty_lo'])}, {fmt(g.at[u, 'novelty_hi'])}]"
            if u in g.index
            else "n/a"
            for u in units
        ]
        lines.append(f"| {model} | {decoding} | " + " | ".join(cells) + " |")
    return lines
