"""``copyscope lm …``: train a model of the zoo; per-token loss on the human continuations."""

from __future__ import annotations

import json
import logging

from ..clikit import add_command, add_device, add_group, json_arg

log = logging.getLogger("copyscope")


def cmd_train(a):
    from ..io import write_json
    from ..tokenize import read_split
    from . import train_model

    _, _, train = read_split(a.train_npy, a.train_json)
    _, _, valid = read_split(a.valid_npy, a.valid_json)
    kw = {"seed": a.seed, "device": a.device, "log_csv": a.log_csv}
    kw["name"] = f"models.zoo.{a.model_name}"
    stats = train_model(a.params_json, a.tokenizer, train, valid, a.out, **kw)
    log.info("%s: %s", a.model_name, json.dumps(stats, default=str))
    if a.stats:
        write_json(a.stats, stats)


def cmd_completion_loss(a):
    import pandas as pd

    from ..analyze import completion_losses, load_samples
    from ..io import atomic_path
    from . import load_model

    model, tok = load_model(a.model, a.device)
    device = str(next(model.parameters()).device)
    samples, tokens = load_samples(a.samples), pd.read_parquet(a.tokens)
    out = completion_losses(model, tok.eos_token_id, samples, tokens, a.prompt_length, device)
    with atomic_path(a.out, suffix=".parquet") as tmp:
        out.to_parquet(tmp, index=False)


def register(sub) -> None:
    g = add_group(sub, "lm", "language models: training and scoring")
    f = add_command(g, "train", cmd_train, "train a model of the zoo on the training split")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument(
        "--params-json",
        required=True,
        type=json_arg,
        help="its spec (models.zoo.<name> with models.train merged under train), as JSON",
    )
    f.add_argument("--tokenizer", required=True, metavar="DIR", help="tokenizer directory")
    f.add_argument("--train-npy", required=True, help="token stream of the training split")
    f.add_argument("--train-json", required=True, help="its metadata (.json)")
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    f.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    f.add_argument("--out", required=True, metavar="DIR", help="model directory to write")
    f.add_argument("--log-csv", required=True, help="training curve to write (.csv)")
    f.add_argument("--stats", help="training summary to write (.json; optional)")
    add_device(f)
    f = add_command(
        g, "completion-loss", cmd_completion_loss, "per-token loss on the human continuations"
    )
    f.add_argument("--model", required=True, metavar="DIR", help="model directory")
    f.add_argument("--samples", required=True, help="human baseline samples (.jsonl)")
    f.add_argument("--tokens", required=True, help="per-token matches of the samples (.parquet)")
    f.add_argument(
        "--prompt-length", type=int, required=True, help="prompt length whose continuations count"
    )
    f.add_argument("--out", required=True, help="per-token losses to write (.parquet)")
    add_device(f)
