"""n-gram novelty of the samples in model tokens (Merrill et al. 2024, Rusty-DAWG units).

For every setting (model, decoding) and prompt length: the novelty curve novelty(n) with its
bootstrap interval and the no-duplication lower bound (``novelty_samples.csv``), and the mean
non-novel suffix length L_t with its interval (``nnsl_samples.csv``); see
:func:`copyscope.novelty.novelty_tables` for the definitions. Figures: novelty by model (pure
sampling vs. human text), by decoding family and by prompt length (for the evaluator model).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..io import write_csv
from ..novelty import novelty_tables
from . import corpus_sizes, family, fmt, per_text, require
from . import figures as fig

NAME = "novelty"
HELP = "n-gram novelty curves and mean L_t of the samples (model tokens)"
INPUTS = {
    "tokens": (("MODEL", "DECODING"), "tokens.parquet of a setting (per-token L_t)"),
    "index_manifest": (
        ("MODEL",),
        "index.json of the index MODEL's samples were matched against (its corpus size)",
    ),
}
OUTPUTS = {
    "curves": "novelty curves of every setting and prompt length (.csv)",
    "nnsl": "mean L_t of every setting and prompt length (.csv)",
    "fig_models": "figure: pure sampling of each model vs. human text (.png)",
    "fig_decoding": "figure: novelty by decoding family, evaluator model (.png)",
    "fig_prompt_length": "figure: novelty by prompt length, evaluator model (.png)",
}
PARAMS = "the config blocks novelty, sampling and models (only models.evaluator is read)"
SUMMARY_TABLES = ("nnsl_samples", "novelty_samples")  # read by summary_section


def build(
    settings: Iterable[tuple[str, str, pd.DataFrame]],
    sizes: Mapping[str, int],
    novelty: Mapping,
    decodings: Mapping,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Novelty curves and mean nnsl of every (model, decoding, prompt length).

    ``settings``: (model, decoding, per-token frame with ``text``, ``prompt_length``, ``L``);
    ``sizes``: model → size of the training corpus its tokens were matched against;
    ``novelty``: the config's ``novelty`` block; ``decodings``: ``sampling.decodings``.
    """
    curves, summaries = [], []
    for model, decoding, tok in settings:
        for plen, g in tok.groupby("prompt_length", sort=True):
            label = {
                "model": model,
                "decoding": decoding,
                "family": family(decoding, decodings),
                "prompt_length": int(plen),
            }
            curve, summary, _ = novelty_tables(per_text(g, "L"), sizes[model], novelty, label)
            curves.append(curve)
            summaries.append(summary)
    return pd.concat(curves, ignore_index=True), pd.concat(summaries, ignore_index=True)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each setting's tokens.parquet, write the two tables and three figures."""
    require(inputs["tokens"], "--tokens", "setting")
    settings = ((m, d, pd.read_parquet(path)) for m, d, path in inputs["tokens"])
    curves, nnsl = build(
        settings,
        corpus_sizes(inputs["index_manifest"]),
        params["novelty"],
        params["sampling"]["decodings"],
    )
    write_csv(out["curves"], curves)
    write_csv(out["nnsl"], nnsl)
    focus, main = params["models"]["evaluator"], params["sampling"]["prompt_length"]
    fig.novelty_by_model(curves, main, out["fig_models"])
    fig.novelty_by_decoding(curves, focus, main, out["fig_decoding"])
    decodings = params["sampling"]["prompt_length_decodings"]
    fig.novelty_by_prompt_length(curves, focus, decodings, out["fig_prompt_length"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Mean L_t and novelty(4), novelty(8) of pure sampling and human text at the main prompt
    length, and the range of mean L_t over the evaluator model's decodings."""
    nnsl, curves = tables["nnsl_samples"], tables["novelty_samples"]
    main = params["sampling"]["prompt_length"]
    lines = ["", "## n-gram novelty (Merrill et al.), pure sampling vs. human text", ""]
    lines.append("| model | mean L_t | novelty(4) | novelty(8) |")
    lines.append("|---|---|---|---|")
    pure = nnsl[(nnsl["prompt_length"] == main) & nnsl["decoding"].isin(["pure", "reference"])]
    for _, r in pure.iterrows():
        c = curves[
            (curves["model"] == r["model"])
            & (curves["decoding"] == r["decoding"])
            & (curves["prompt_length"] == main)
        ].set_index("n")["novelty"]
        lines.append(
            f"| {r['model']} | {fmt(r['mean_nnsl'])} "
            f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] | {fmt(c.get(4))} | {fmt(c.get(8))} |"
        )
    focus = params["models"]["evaluator"]
    sub = nnsl[(nnsl["model"] == focus) & (nnsl["prompt_length"] == main)].sort_values("mean_nnsl")
    if len(sub):
        lo, hi = sub.iloc[0], sub.iloc[-1]
        lines += [
            "",
            f"Decoding ({focus}): mean L_t ranges from {fmt(lo['mean_nnsl'])} "
            f"({lo['decoding']}) to {fmt(hi['mean_nnsl'])} ({hi['decoding']}).",
        ]
    return lines
