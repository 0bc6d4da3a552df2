"""``copyscope lm …``: train a model of the zoo (its scoring commands live with the analyses)."""

from __future__ import annotations

import json
import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_train(a):
    from ..tokenize import read_split
    from . import train_model

    _, _, train = read_split(a.train_npy, a.train_json)
    _, _, valid = read_split(a.valid_npy, a.valid_json)
    kw = {"seed": a.seed, "device": a.device, "log_csv": a.log_csv}
    kw["name"] = f"models.zoo.{a.model_name}"
    stats = train_model(a.params_json, a.tokenizer, train, valid, a.out, **kw)
    log.info("%s: %s", a.model_name, json.dumps(stats, default=str))
    rate = stats["tokens"] / max(stats["seconds"], 1e-9)
    log.info("%s: trained on %d tokens, %.0f tokens/s", a.model_name, stats["tokens"], rate)


def register(sub) -> None:
    g = add_group(sub, "lm", "language models: training")
    f = add_command(g, "train", cmd_train, "train a model of the zoo on the training split")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    add_params(f, "the model's spec (models.zoo.<name> with models.train merged under train)")
    f.add_argument("--tokenizer", required=True, metavar="DIR", help="tokenizer directory")
    f.add_argument("--train-npy", required=True, help="token stream of the training split")
    f.add_argument("--train-json", required=True, help="its metadata (.json)")
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    f.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    f.add_argument("--out", required=True, metavar="DIR", help="model directory to write")
    f.add_argument("--log-csv", required=True, help="training curve to write (.csv)")
    add_device(f)
