"""``copyscope memorize``: the extraction test of one model on the memorization ladder."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_device, add_group

log = logging.getLogger(__name__)


def cmd_extract(a) -> None:
    from . import extract_file

    frame = extract_file(
        a.model,
        a.model_name,
        a.manifest,
        a.out,
        prompt_tokens=a.prompt_tokens,
        suffix_tokens=a.suffix_tokens,
        batch_size=a.batch_size,
        device=a.device,
    )
    log.info("%s: %d of %d passages extracted", a.model_name, frame["exact"].sum(), len(frame))


def register(sub) -> None:
    """Add the ``memorize`` group: ``extract``."""
    group = add_group(sub, "memorize", "extraction test on the memorization ladder")
    f = add_command(
        group, "extract", cmd_extract, "greedy extraction of every ladder passage by one model"
    )
    f.add_argument("--model", required=True, help="model directory")
    f.add_argument("--model-name", required=True, help="the model's name under models.zoo")
    f.add_argument(
        "--manifest", required=True, help="corpus manifest.json (its 'ladder' holds the passages)"
    )
    f.add_argument(
        "--prompt-tokens", type=int, required=True, help="P: passage tokens given as prompt"
    )
    f.add_argument(
        "--suffix-tokens", type=int, required=True, help="S: tokens decoded and compared"
    )
    f.add_argument("--batch-size", type=int, default=64, help="passages decoded together")
    add_device(f)
    f.add_argument("--out", required=True, help="per-passage extraction (.csv)")
