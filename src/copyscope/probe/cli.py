"""``copyscope probe model``: a model's probes in one job (style repeats, ladder extraction,
membership scores) on one loaded model."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group, add_params

log = logging.getLogger(__name__)


def cmd_model(a) -> None:
    from . import probe_model

    corpus = {"cloze_passages": a.cloze_passages}
    out = {k: getattr(a, f"out_{k}") for k in ("repeats", "ladder", "texts", "cloze")}
    done = probe_model(
        a.model, a.model_name, a.params_json, index=a.index, manifest=a.manifest, out=out,
        corpus={k: v for k, v in corpus.items() if v is not None}, device=a.device,
    )  # fmt: skip
    log.info("%s: probes %s done", a.model_name, ", ".join(done))


def register(sub) -> None:
    """Add the ``probe`` group: ``model``."""
    g = add_group(sub, "probe", "a model's probes: style repeats, extraction, membership")
    f = add_command(g, "model", cmd_model, "every probe of one model (one model load)")
    f.add_argument("--model", required=True, metavar="DIR", help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    add_params(
        f,
        "the steps' config blocks: style (analysis.style); memorization (prompt_tokens, "
        "suffix_tokens, batch_size of analysis.memorization) for the ladder's extraction; "
        "membership (analysis.membership) for the membership scores",
    )
    f.add_argument(
        "--index", required=True, metavar="DIR", help="index directory in the model's tokens"
    )
    f.add_argument("--manifest", required=True, help="corpus manifest.json")
    f.add_argument(
        "--cloze-passages",
        help="the name cloze's candidate passages (.json; membership passages; with membership)",
    )
    f.add_argument("--out-repeats", required=True, help="style repeats to write (.csv)")
    f.add_argument("--out-ladder", help="per-passage extraction to write (.csv; memorization)")
    f.add_argument("--out-texts", help="membership text scores to write (.csv; membership)")
    f.add_argument("--out-cloze", help="name cloze items to write (.csv; membership)")
    add_device(f)
