"""How the default size ladder was chosen: train variants of config/config.yaml and measure
validation loss (nats per token and bits per word), training speed and the memorization
ladder (greedy extraction, Carlini et al. 2023) at every kept checkpoint.

Each variant is the default config with a few keys overridden (below); the script writes its
config to ``results-setup/<variant>/config.yaml``, runs Snakemake for the variant's trained
models and ladder tables (corpus → tokens → training → ``memorize``; no sampling), then
extracts the ladder's passages with every kept checkpoint (:func:`copyscope.memorize.extract`
on :func:`copyscope.lm.checkpoints.load_checkpoint`, as the dynamics stage does), and prints one
row per (variant, model, step): training tokens and epochs, validation loss in nats per token
and in bits per word (the loss times the validation split's tokens per word, over ln 2:
comparable across vocabularies), tokens per second, and the exact-extraction share per rung;
the final row has the verdict of the scorecard's trend over the rungs (``trend``).
Every variant's corpus is the default's (same planted text), so losses compare across
variants of one vocabulary in nats and across vocabularies in bits per word.

The ``curve-<tokens>`` variants train the curve's GPT-2 shapes (:data:`CURVE_GPT2`, with the
default's vocabulary and learning rates) for longer budgets: each is a training of its own
(the cosine schedule ends at its budget), so their final rows draw the extraction target of
the size-ladder issue (at least half of the top rung extracted, no control) against training
minutes. Each final row also has the share of
greedy continuations of the run's held-out prompts that end in a loop
(:func:`copyscope.sample.loops.loop_period`, ``analysis.loop_length`` tokens; the loops
report's definition, at ``sampling.prompt_length``), and ``--final`` prints only those rows.

Usage::

    python benchmarks/training_setup.py                   # every variant (~2 h, bf16 CPU)
    python benchmarks/training_setup.py ladder-4096 --csv ladder.csv
    python benchmarks/training_setup.py ladder-4096 --reuse   # its models again, no training
    python benchmarks/training_setup.py curve-2.4M curve-3.2M curve-4.8M curve-6.4M --final
    python benchmarks/training_setup.py curve-target --seed 1 --final   # another models.seed
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]


def gpt2(n_layer: int, n_embd: int, lr: float) -> dict:
    """A GPT-2 shape named by layers × width (the default zoo's naming)."""
    head = max(2, n_embd // 64)
    return {"kind": "gpt2", "n_layer": n_layer, "n_embd": n_embd, "n_head": head, "n_ctx": 256,
            "dropout": 0.0, "train": {"lr": lr}}  # fmt: skip


LSTM = {"kind": "lstm", "n_embd": 256, "n_hidden": 512, "n_layer": 2, "n_ctx": 256,
        "dropout": 0.0, "train": {"batch_size": 16}}  # fmt: skip
LADDER = {"t2x128": gpt2(2, 128, 3e-3), "t4x256": gpt2(4, 256, 1.5e-3),
          "t6x384": gpt2(6, 384, 1e-3)}  # fmt: skip
# the shapes of the extraction curve: the default zoo's transformers when it was measured
# (t2x128 has since left the default zoo for t1x32; it trains as configured there then)
CURVE_GPT2 = ("t2x64", "t2x128", "t4x256")

# variant → (vocabulary, training overrides, zoo); None keeps the default config's
VARIANTS = {
    "ladder-4096": (4096, {"tokens": 2_400_000}, {**LADDER, "lstm": LSTM}),
    "ladder-2048": (2048, {"tokens": 2_400_000}, {k: LADDER[k] for k in ("t2x128", "t4x256")}),
    "ladder-8192": (8192, {"tokens": 2_400_000}, {k: LADDER[k] for k in ("t2x128", "t4x256")}),
    "default": (None, {}, None),
    # the extraction curve: the curve's transformers trained for longer budgets
    "curve-2.4M": (None, {"tokens": 2_400_000}, CURVE_GPT2),
    "curve-3.2M": (None, {"tokens": 3_200_000}, CURVE_GPT2),
    "curve-4.8M": (None, {"tokens": 4_800_000}, CURVE_GPT2[:2]),
    "curve-6.4M": (None, {"tokens": 6_400_000}, CURVE_GPT2),
    "curve-9.6M": (None, {"tokens": 9_600_000}, CURVE_GPT2[:1]),  # t2x64: 5 of 12 with seed 1
    "curve-12.8M": (None, {"tokens": 12_800_000}, CURVE_GPT2[:1]),  # t2x64: still 5 at 9.6M
    # the default's bottom rung (not on the curve above) at the longer budgets
    "curve-t1x32-6.4M": (None, {}, (("t1x32", 6_400_000),)),
    "curve-t1x32-12.8M": (None, {}, (("t1x32", 12_800_000),)),
    # each transformer at the shortest budget of the curve where seed 0 met the target
    "curve-target": (None, {}, (("t2x64", 6_400_000), ("t2x128", 4_800_000),
                                ("t4x256", 3_200_000))),
    # the default budget with twice each transformer's learning rate: no shortcut to extraction
    "lr-2x": (None, {}, {"t2x64": gpt2(2, 64, 6e-3), "t2x128": gpt2(2, 128, 6e-3),
                         "t4x256": gpt2(4, 256, 3e-3)}),
    # the default budget with shapes below t2x64: a smaller bottom rung for the ladder
    "ladder-small": (None, {}, {"t2x32": gpt2(2, 32, 3e-3), "t1x64": gpt2(1, 64, 3e-3),
                                "t2x64": gpt2(2, 64, 3e-3)}),
}  # fmt: skip
CHECKPOINTS = 6


def variant_config(name: str, base: dict, seed: int = 0) -> dict:
    """The default config with variant ``name``'s overrides (results under results-setup/,
    ``<name>-seed<seed>`` for a seed other than 0): a zoo given as names keeps those models of the
    default zoo, as they are configured there (:data:`LADDER`'s where it has none); a (name,
    tokens) pair gives that model a training budget of its own. ``seed`` is ``models.seed``
    (what ``make seeds`` varies)."""
    vocab, train, zoo = VARIANTS[name]
    cfg = copy.deepcopy(base)
    if isinstance(zoo, tuple):
        zoo = dict(_zoo_entry(cfg["models"]["zoo"], m) for m in zoo)
    cfg["results"] = f"results-setup/{name}" + (f"-seed{seed}" if seed else "")
    cfg["models"]["seed"] = seed
    if vocab is not None:
        cfg["tokenizers"][cfg["models"]["tokenizer"]]["vocab_size"] = vocab
    cfg["models"]["train"].update(train, checkpoints=CHECKPOINTS)
    if zoo is not None:
        first = next(iter(zoo))
        cfg["models"]["zoo"] = zoo
        cfg["models"]["evaluator"] = first
        cfg["models"]["evaluators"] = {first: list(zoo)[1]} if len(zoo) > 1 else {}
        for key in ("prompt_length_models", "grid_models"):
            cfg["sampling"][key] = [first]
        cfg["sampling"].get("training_prompts", {})["models"] = [first]
    return cfg


def _zoo_entry(zoo: dict, item) -> tuple[str, dict]:
    """A default zoo model by name (a shape of :data:`LADDER` where the default zoo has no such
    model), or (name, tokens): that model with its own budget."""
    if isinstance(item, str):
        return item, zoo.get(item) or copy.deepcopy(LADDER[item])
    model, tokens = item
    entry = copy.deepcopy(zoo.get(model) or LADDER[model])
    entry["train"] = {**entry.get("train", {}), "tokens": tokens}
    return model, entry


def checkpoint_extraction(out: Path, cfg: dict, model: str) -> list[dict]:
    """Exact extraction per rung of every kept checkpoint of ``model`` (the final one too),
    and the final checkpoint's verdict of the scorecard's trend over the rungs
    (:func:`duplication_trend`) in its ``trend`` key."""
    from copyscope.corpus import ladder_passages
    from copyscope.lm.checkpoints import load_checkpoint, read_checkpoints
    from copyscope.memorize import extract

    memo = cfg["analysis"]["memorization"]
    manifest = json.loads((out / "corpus" / "manifest.json").read_text())
    passages = ladder_passages(manifest)
    rows = []
    for ck in read_checkpoints(out / "models" / model):
        net, tok = load_checkpoint(out / "models" / model, ck["step"], "cpu")
        frame = extract(
            net, tok, passages, model_name=model, prompt_tokens=memo["prompt_tokens"],
            suffix_tokens=memo["suffix_tokens"], batch_size=memo.get("batch_size", 16),
            device="cpu",
        )  # fmt: skip
        rates = frame.groupby("copies")["exact"].mean()
        rows.append({"step": ck["step"], "tokens": ck["tokens"], "valid_loss": ck["valid_loss"],
                     **{f"exact@{c}": round(float(r), 2) for c, r in rates.items()}})  # fmt: skip
    if rows:
        rows[-1]["trend"] = duplication_trend(frame, cfg)
    return rows


def duplication_trend(frame: pd.DataFrame, cfg: dict) -> str:
    """The verdict of the scorecard's ``extraction-duplication`` row (Carlini et al. 2023: the
    exact trend test of the extraction rate over the controls and the rungs) on one model's
    per-passage extraction ``frame`` (:func:`copyscope.memorize.extract`'s rows), at the
    config's ``findings.alpha``."""
    from copyscope.config import validate
    from copyscope.report.findings.li import extraction_duplication
    from copyscope.report.memorization import memorization_table

    table = memorization_table(frame, 0, 0)  # the rule reads the rates, not their intervals
    return extraction_duplication.decide({"memorization": table}, validate(cfg))[1]


def greedy_loop_share(out: Path, cfg: dict, model: str) -> float:
    """Share of the greedy continuations of ``model`` (its final weights) after the run's
    held-out prompts at ``sampling.prompt_length`` that end in a loop of
    ``analysis.loop_length`` tokens (the loops report's rows,
    :func:`copyscope.report.loops.set_rows`).
    The continuations are written to ``<results>/loops/<model>.jsonl``."""
    from copyscope.config import validate
    from copyscope.io import read_jsonl
    from copyscope.report.loops import set_rows
    from copyscope.sample import generate_file

    cfg = validate(cfg)  # the schema's defaults (analysis.loop_length) filled in
    s = cfg["sampling"]
    path = out / "loops" / f"{model}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    generate_file(
        out / "models" / model, model, "greedy", s["decodings"]["greedy"],
        out / "prompts" / "prompts.jsonl", out / "tokenizers" / cfg["models"]["tokenizer"],
        path, prompt_lengths=[s["prompt_length"]], new_tokens=s["new_tokens"], seed=s["seed"],
        batch_size=s["batch_size"], device="cpu",
    )  # fmt: skip
    (row,) = set_rows({}, list(read_jsonl(path)), cfg["analysis"]["loop_length"])
    return round(float(row["loop_share"]), 2)


def run(name: str, base: dict, reuse: bool = False, seed: int = 0) -> pd.DataFrame:
    cfg = variant_config(name, base, seed)
    out = ROOT / cfg["results"]
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "config.yaml"
    if not reuse:
        config_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    models = list(cfg["models"]["zoo"])
    targets = [f"{cfg['results']}/memorization/{m}.csv" for m in models]
    targets += [f"{cfg['results']}/prompts/prompts.jsonl",
                f"{cfg['results']}/tokenizers/{cfg['models']['tokenizer']}"]  # fmt: skip
    if reuse:  # the models trained by an earlier run of this variant, read again
        kept = [f"{cfg['results']}/models/{m}/checkpoints/checkpoints.json" for m in models]
        missing = [t for t in kept if not (ROOT / t).exists()]
        if missing:
            raise SystemExit(f"--reuse: expected {missing[0]} from an earlier run of {name}")
    else:
        subprocess.run(
            ["snakemake", *targets, "--cores", "2", "--configfile", str(config_path)],
            cwd=ROOT,
            check=True,
        )
    tok = cfg["models"]["tokenizer"]
    train_tokens = json.loads((out / "tokens" / tok / "train.json").read_text())["n_tokens"]
    valid_tokens = json.loads((out / "tokens" / tok / "valid.json").read_text())["n_tokens"]
    manifest = json.loads((out / "corpus" / "manifest.json").read_text())
    tokens_per_word = valid_tokens / manifest["splits"]["valid"]["words"]
    rows = []
    for model in models:
        log = pd.read_csv(out / "tables" / "training" / f"{model}.csv")
        last = log.iloc[-1]
        speed = round(last["tokens"] / last["seconds"])
        kept = checkpoint_extraction(out, cfg, model)
        loops = greedy_loop_share(out, cfg, model)
        for i, row in enumerate(kept):
            final = i == len(kept) - 1
            trend = row.pop("trend", "")
            seconds = float(np.interp(row["step"], log["step"], log["seconds"]))
            rows.append({
                "variant": name, "seed": seed, "model": model, "step": row.pop("step"),
                "tokens": int(row["tokens"]), "epochs": round(row.pop("tokens") / train_tokens, 2),
                "valid_loss": round(float(row["valid_loss"]), 3),
                "bits_per_word": round(row.pop("valid_loss") * tokens_per_word / math.log(2), 3),
                "tokens_per_s": speed, "train_minutes": round(seconds / 60, 2), **row,
                "greedy_loops": loops if final else float("nan"),
                "trend": trend, "final": final,
            })  # fmt: skip
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "variants", nargs="*", help=f"variants to run (default: all of {list(VARIANTS)})"
    )
    ap.add_argument("--csv", type=Path, help="write the table here too")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="read the models an earlier run of each variant trained (no training)",
    )
    ap.add_argument(
        "--final", action="store_true", help="print each model's final row only (the curve)"
    )
    ap.add_argument(
        "--seed", type=int, default=0, help="models.seed of every variant (as `make seeds`)"
    )
    args = ap.parse_args(argv)
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {unknown}; expected some of {list(VARIANTS)}")
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    table = pd.concat(
        [run(v, base, args.reuse, args.seed) for v in args.variants or VARIANTS], ignore_index=True
    )
    shown = table[table["final"]].drop(columns="final") if args.final else table
    print(shown.to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
