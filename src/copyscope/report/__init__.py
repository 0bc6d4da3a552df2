"""Report stage: tables, figures and ``summary.md`` from every analysed (model, decoding).

All numbers come from the per-setting analysis files (see :mod:`copyscope.analyze`); the
metrics are the ones defined in :mod:`copyscope.novelty` (Merrill et al.) and
:mod:`copyscope.raven` (McCoy et al.).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import write_csv, write_text
from ..novelty import completion_loss_table, novelty_tables
from ..raven import dup_curve, raven_tables
from ..sample import decoding_family
from . import figures


def _family(decoding: str, decodings: dict) -> str:
    if decoding == "reference":
        return "human"
    return decoding_family(decodings[decoding])


def _per_text(frame: pd.DataFrame, column: str) -> list[np.ndarray]:
    return [g[column].to_numpy() for _, g in frame.groupby("text", sort=True)]


def rusty_dawg_tables(p: dict, corpus_sizes: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Novelty curves and mean nnsl of every (model, decoding, prompt length), in model tokens."""
    R = Path(p["results"])
    nov = p["novelty"]
    curves, summaries = [], []
    for model, decoding in p["settings"]:
        tok = pd.read_parquet(R / "analysis" / model / decoding / "tokens.parquet")
        size = corpus_sizes[p["model_tokenizers"][model]]
        for plen, g in tok.groupby("prompt_length", sort=True):
            label = {
                "model": model,
                "decoding": decoding,
                "family": _family(decoding, p["sampling"]["decodings"]),
                "prompt_length": int(plen),
            }
            curve, summary, _ = novelty_tables(
                _per_text(g, "L"),
                size,
                nov["n_max"],
                nov["bootstrap"],
                nov["seed"],
                nov["lower_bound"]["p"],
                nov["lower_bound"]["bits_per_token"],
                label,
            )
            curves.append(curve)
            summaries.append(summary)
    return pd.concat(curves, ignore_index=True), pd.concat(summaries, ignore_index=True)


def raven_summary(p: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """RAVEN per setting (main prompt length): summary rows, novelty curves, perplexity."""
    R = Path(p["results"])
    plen = p["sampling"]["prompt_length"]
    rows, curves, quality = [], [], []
    for model, decoding in p["settings"]:
        d = R / "analysis" / model / decoding
        w = pd.read_parquet(d / "words.parquet")
        w = w[w["prompt_length"] == plen]
        label = {
            "model": model,
            "decoding": decoding,
            "family": _family(decoding, p["sampling"]["decodings"]),
            "prompt_length": plen,
        }
        scores = {src: _per_text(w, f"s_{src}") for src in ("train", "context", "union")}
        rows.append(
            raven_tables(scores, label, n_boot=p["novelty"]["bootstrap"], seed=p["novelty"]["seed"])
        )
        for src, per_text in scores.items():
            novelty, dup = dup_curve(per_text, p["novelty"]["n_max"])
            curves.append(
                pd.DataFrame(
                    {
                        **label,
                        "source": src,
                        "n": np.arange(1, len(novelty) + 1),
                        "novelty": novelty,
                        "dup": dup,
                    }
                )
            )
        q = pd.read_csv(d / "quality.csv")
        q = q[q["prompt_length"] == plen]
        quality.append({**label, "evaluator_nll": q["nll_sum"].sum() / q["tokens"].sum()})
    quality = pd.DataFrame(quality)
    quality["perplexity"] = np.exp(quality["evaluator_nll"])
    summary = pd.concat(rows, ignore_index=True).merge(
        quality[["model", "decoding", "evaluator_nll", "perplexity"]], on=["model", "decoding"]
    )
    return summary, pd.concat(curves, ignore_index=True), quality


def collect(p: dict, name: str) -> pd.DataFrame:
    """Concatenate one per-setting CSV over all settings, labelled by model and decoding."""
    R = Path(p["results"])
    parts = []
    for model, decoding in p["settings"]:
        f = pd.read_csv(R / "analysis" / model / decoding / name)
        f.insert(0, "decoding", decoding)
        f.insert(0, "model", model)
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def summarize(p: dict) -> None:
    """Write every table and figure of the model analyses, and ``summary.md``."""
    R = Path(p["results"])
    corpus_sizes = {
        tok: json.loads((R / "index" / tok / "index.json").read_text())["n_tokens"]
        for tok in set(p["model_tokenizers"].values())
    }
    curves, nnsl = rusty_dawg_tables(p, corpus_sizes)
    write_csv(R / "tables/novelty_samples.csv", curves)
    write_csv(R / "tables/nnsl_samples.csv", nnsl)

    losses = []
    for model in p["completion_models"]:
        f = pd.read_parquet(R / "analysis" / model / "completion_loss.parquet")
        losses.append(completion_loss_table(_per_text(f, "L"), _per_text(f, "loss"), model))
    loss = pd.concat(losses, ignore_index=True)
    write_csv(R / "tables/completion_loss.csv", loss)

    raven, raven_curves, quality = raven_summary(p)
    write_csv(R / "tables/raven_summary.csv", raven)
    write_csv(R / "tables/raven_novelty.csv", raven_curves)
    supercopies = collect(p, "supercopies.csv")
    write_csv(R / "tables/supercopies.csv", supercopies)
    planted = collect(p, "planted.csv")
    write_csv(R / "tables/planted.csv", planted)
    training = (
        pd.concat(
            [pd.read_csv(R / "tables/training" / f"{m}.csv").assign(model=m) for m in p["trained"]],
            ignore_index=True,
        )
        if p["trained"]
        else pd.DataFrame()
    )

    focus = p["models"]["evaluator"]
    main = p["sampling"]["prompt_length"]
    figures.novelty_by_model(curves, main, R / "figures/novelty_by_model.png")
    figures.completion_loss(loss, R / "figures/completion_loss.png")
    figures.novelty_by_decoding(curves, focus, main, R / "figures/novelty_by_decoding.png")
    figures.novelty_by_prompt_length(
        curves,
        focus,
        p["sampling"]["prompt_length_decodings"],
        R / "figures/novelty_by_prompt_length.png",
    )
    figures.raven_novelty(raven_curves, R / "figures/raven_novelty.png")
    figures.novelty_quality(raven, R / "figures/novelty_quality.png")
    figures.planted(planted, R / "figures/planted.png")
    figures.training(training, R / "figures/training.png")
    write_text(
        R / "summary.md",
        summary_markdown(p, nnsl, curves, raven, supercopies, planted, training, corpus_sizes),
    )


def _fmt(x, digits=3):
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}g}"


def summary_markdown(p, nnsl, curves, raven, supercopies, planted, training, corpus_sizes) -> str:
    """The headline numbers in a few lines (every number from the tables of this run)."""
    main = p["sampling"]["prompt_length"]
    tok = p["models"]["tokenizer"]
    lines = ["# copyscope summary", ""]
    lines.append(
        f"Training corpus: {corpus_sizes[tok]:,} tokens ({tok}); "
        f"{p['sampling']['prompts']} prompts of {main} tokens, "
        f"{p['sampling']['new_tokens']} new tokens per sample."
    )
    lines += ["", "## n-gram novelty (Merrill et al.), pure sampling vs. human text", ""]
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
            f"| {r['model']} | {_fmt(r['mean_nnsl'])} "
            f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}] | {_fmt(c.get(4))} | {_fmt(c.get(8))} |"
        )
    focus = p["models"]["evaluator"]
    sub = nnsl[(nnsl["model"] == focus) & (nnsl["prompt_length"] == main)].sort_values("mean_nnsl")
    if len(sub):
        lo, hi = sub.iloc[0], sub.iloc[-1]
        lines += [
            "",
            f"Decoding ({focus}): mean L_t ranges from {_fmt(lo['mean_nnsl'])} "
            f"({lo['decoding']}) to {_fmt(hi['mean_nnsl'])} ({hi['decoding']}).",
        ]
    lines += ["", "## RAVEN (McCoy et al.), Moses words, training ∪ context", ""]
    lines.append("| model | decoding | truncated score | novelty(1) | novelty(4) | perplexity |")
    lines.append("|---|---|---|---|---|---|")
    u = raven[(raven["source"] == "union") & raven["decoding"].isin(["pure", "reference"])]
    for _, r in u.iterrows():
        lines.append(
            f"| {r['model']} | {r['decoding']} | {_fmt(r['truncated_score'])} | "
            f"{_fmt(r['novelty_1'])} | {_fmt(r['novelty_4'])} | {_fmt(r['perplexity'])} |"
        )
    lines += [
        "",
        f"Supercopies (≥ {p['analysis']['supercopy_min']} words copied from training): "
        f"{len(supercopies)} passages over all settings.",
    ]
    if len(planted):
        by_m = planted.groupby("copies").agg(
            reproduced=("reproduced", "mean"), longest=("longest_copy", "mean")
        )
        parts = [
            f"m = {m}: {_fmt(100 * r['reproduced'], 2)}% reproduced, mean longest copy "
            f"{_fmt(r['longest'])} tokens"
            for m, r in by_m.iterrows()
        ]
        lines += [
            "",
            "## Planted duplicates (passages copied m more times into training)",
            "",
            "; ".join(parts) + f" (a copy counts from {p['analysis']['planted_min_copy']} "
            "tokens; all models and decodings pooled).",
        ]
    if len(training):
        last = training.sort_values("step").groupby("model").tail(1)
        lines += [
            "",
            "## Models",
            "",
            "; ".join(
                f"{r['model']}: validation loss {_fmt(r['valid_loss'])} nats/token"
                for _, r in last.iterrows()
            )
            + ".",
        ]
    return "\n".join(lines) + "\n"


def runtime_table(folder) -> pd.DataFrame:
    """Wall-clock seconds and peak memory of every job, from Snakemake's benchmark files."""
    rows = []
    for f in sorted(Path(folder).rglob("*.tsv")):
        b = pd.read_csv(f, sep="\t")
        rule = f.parent.name if f.parent != Path(folder) else f.stem
        rows.append(
            {
                "rule": rule,
                "job": f.stem,
                "seconds": float(b["s"].iloc[-1]),
                "max_rss_mb": float(b["max_rss"].iloc[-1]) if "max_rss" in b else np.nan,
            }
        )
    jobs = pd.DataFrame(rows)
    if jobs.empty:
        return jobs
    per_rule = (
        jobs.groupby("rule")
        .agg(
            jobs=("job", "count"),
            seconds=("seconds", "sum"),
            max_seconds=("seconds", "max"),
            max_rss_mb=("max_rss_mb", "max"),
        )
        .reset_index()
    )
    return per_rule.sort_values("seconds", ascending=False)
