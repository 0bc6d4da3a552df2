"""``copyscope dynamics score``: every checkpoint of one trained model scored (training
dynamics, :mod:`copyscope.dynamics`)."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger(__name__)

OPTIONAL = (
    "cloze_passages",
    "train_parses",
    "valid_parses",
    "index",
    "prompts",
)


def cmd_score(a) -> None:
    from . import score_file

    inputs = {"manifest": a.manifest} | {k: getattr(a, k) for k in OPTIONAL if getattr(a, k)}
    frame = score_file(a.model, a.model_name, inputs, a.params_json, a.out, a.device)
    log.info("%s: %d checkpoints, %d rows", a.model_name, frame["step"].nunique(), len(frame))


def register(sub) -> None:
    """Add the ``dynamics`` group: ``score``."""
    g = add_group(sub, "dynamics", "training dynamics: every checkpoint of a model scored")
    f = add_command(g, "score", cmd_score, "score every checkpoint of one trained model")
    f.add_argument("--model", required=True, metavar="DIR", help="trained model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    add_params(
        f,
        "analysis.dynamics with membership (analysis.membership), memorization "
        "(analysis.memorization), prompt_length (sampling.prompt_length), template_headline_n "
        "and top_k (analysis.syntax)",
    )
    f.add_argument("--manifest", required=True, help="corpus manifest.json")
    f.add_argument(
        "--cloze-passages",
        help="the name cloze's candidate passages (.json; membership passages)",
    )
    f.add_argument("--train-parses", help="parse of the training split (.parquet; templates)")
    f.add_argument("--valid-parses", help="parse of the validation split (.parquet; templates)")
    f.add_argument("--index", metavar="DIR", help="training index in the model's tokens (novelty)")
    f.add_argument("--prompts", help="prompt windows (prompts.jsonl; novelty)")
    f.add_argument("--out", required=True, help="the model's dynamics table to write (.csv)")
    add_device(f)
