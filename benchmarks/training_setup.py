"""How the default training setup was chosen: train variants of config/config.yaml and measure
validation loss and the memorization ladder (greedy extraction, Carlini et al. 2023).

Each variant is the default config with a few keys overridden (below); the script writes its
config to ``results-setup/<variant>/config.yaml``, runs Snakemake for the variant's ladder
tables (corpus → tokens → training → ``memorize``; no sampling), and prints one row per
(variant, model): training tokens and epochs, final validation loss, tokens/s, and the exact
extraction rate per ladder rung.

Validation losses are comparable only within a split (variants ``one-epoch-*`` and
``two-epochs-4-held-out`` hold out 4 plays; the others, like the default, half of the plays).
Variants without the benchmark leave it out so that the ladder sits where it sat when the
README's table was measured (the benchmark moves the ladder's planting positions).

Usage::

    python benchmarks/training_setup.py                       # every variant (~1.5 h on 2 cores)
    python benchmarks/training_setup.py default one-epoch-batch-8
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
FOUR_PLAYS = ["hamlet", "twelfth-night", "henry-v", "the-tempest"]
M4x256 = {"kind": "gpt2", "n_layer": 4, "n_embd": 256, "n_head": 4, "n_ctx": 256, "dropout": 0.0}
M4x128 = {**M4x256, "n_embd": 128}

DEFAULT_ZOO = None  # the default config's zoo (gpt2-small 2×128, gpt2-medium 4×256)

# variant → (split, vocabulary, training overrides, zoo, gpt2-medium lr, keep the benchmark)
VARIANTS = {
    "one-epoch-batch-16": (FOUR_PLAYS, 8192, {"tokens": 1_800_000, "batch_size": 16},
                           {"m4x256": M4x256}, None, False),
    "one-epoch-vocab-4096": (FOUR_PLAYS, 4096, {"tokens": 1_800_000, "batch_size": 16},
                             {"m4x256": M4x256}, None, False),
    "one-epoch-batch-8": (FOUR_PLAYS, 8192, {"tokens": 1_800_000, "batch_size": 8},
                          {"m4x128": M4x128, "m4x256": M4x256}, None, False),
    "two-epochs-4-held-out": (FOUR_PLAYS, 8192, {"tokens": 3_600_000, "batch_size": 8},
                              {"m4x256": M4x256}, None, False),
    "half-held-out-lr-3e-3": (None, None, {}, DEFAULT_ZOO, 0.003, False),
    "half-held-out-benchmark-lr-3e-3": (None, None, {}, DEFAULT_ZOO, 0.003, True),
    "default": (None, None, {}, DEFAULT_ZOO, None, True),
    "lr-1e-3": (None, None, {}, DEFAULT_ZOO, 0.001, True),
}  # fmt: skip


def variant_config(name: str, base: dict) -> dict:
    """The default config with variant ``name``'s overrides (results under results-setup/)."""
    split, vocab, train, zoo, lr, benchmark = VARIANTS[name]
    cfg = copy.deepcopy(base)
    cfg["results"] = f"results-setup/{name}"
    if not benchmark:
        cfg["corpus"]["inject"].pop("contamination", None)
    if split is not None:
        cfg["corpus"]["split"]["valid_ids"] = split
    if vocab is not None:
        cfg["tokenizers"][cfg["models"]["tokenizer"]]["vocab_size"] = vocab
    cfg["models"]["train"].update(train)
    if lr is not None:
        cfg["models"]["zoo"]["gpt2-medium"].setdefault("train", {})["lr"] = lr
    if zoo is not None:
        first = next(iter(zoo))
        cfg["models"]["zoo"] = zoo
        cfg["models"]["evaluator"] = first
        cfg["sampling"]["prompt_length_models"] = [first]
        cfg["sampling"].pop("grid_models", None)
    return cfg


def run(name: str, base: dict) -> pd.DataFrame:
    cfg = variant_config(name, base)
    out = ROOT / cfg["results"]
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "config.yaml"
    config_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    models = list(cfg["models"]["zoo"])
    targets = [f"{cfg['results']}/memorization/{m}.csv" for m in models]
    subprocess.run(
        ["snakemake", *targets, "--cores", "2", "--configfile", str(config_path)],
        cwd=ROOT,
        check=True,
    )
    rows = []
    train_tokens = yaml.safe_load((out / "tokens" / "bpe" / "train.json").read_text())["n_tokens"]
    for model in models:
        log = pd.read_csv(out / "tables" / "training" / f"{model}.csv")
        mem = pd.read_csv(out / "memorization" / f"{model}.csv")
        rates = mem.groupby("copies")["exact"].mean()
        last = log.iloc[-1]
        rows.append(
            {
                "variant": name,
                "model": model,
                "tokens": int(last["tokens"]),
                "epochs": round(last["tokens"] / train_tokens, 2),
                "valid_loss": round(float(last["valid_loss"]), 3),
                "tokens_per_s": round(last["tokens"] / last["seconds"]),
                **{f"exact@{c}": round(float(r), 2) for c, r in rates.items()},
            }
        )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "variants", nargs="*", help=f"variants to run (default: all of {list(VARIANTS)})"
    )
    args = ap.parse_args(argv)
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {unknown}; expected some of {list(VARIANTS)}")
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    table = pd.concat([run(v, base) for v in args.variants or VARIANTS], ignore_index=True)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
