"""A model's probes in one job (rules/probe.smk): the measurements that decode or score a fixed
set of texts with one trained model, run one after another on one loaded model.

* the style repeats (:func:`copyscope.syntax.style.repeats_file`): repeated training n-grams
  continued greedily, for style vs exact memorization (Shaib et al. §8);
* with a ladder, the extraction test (:func:`copyscope.memorize.extract_file`, Carlini et al.
  2023);
* with a contamination set or the name cloze, the membership scores
  (:func:`copyscope.membership.stage.score_model_files`: Li's placement, Min-K%, Min-K%++,
  zlib, reference ratios, DC-PDD with the frequencies of the job's index; the name cloze items
  drawn from the run's candidate passages, and their continuation overlap).

Each step writes the file it writes when run alone (its randomness is seeded per file), so the
job is only a way to load the model once (:func:`copyscope.lm.shared_models`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import FlagError

__all__ = ["MEMBERSHIP_INPUTS", "probe_model"]

MEMBERSHIP_INPUTS = ("cloze_passages",)
"""The files the membership step reads besides the manifest and the index: the name cloze's
candidate passages (:func:`copyscope.membership.stage.cloze_passages_file`, built once per
run)."""


def probe_model(
    model_dir,
    model_name: str,
    params: Mapping,
    *,
    index,
    manifest,
    out: Mapping,
    corpus: Mapping | None = None,
    device: str = "auto",
) -> dict:
    """Run a model's probes. ``params`` holds ``style`` (the config block analysis.style) and,
    for the optional steps, ``memorization`` (``prompt_tokens``, ``suffix_tokens``,
    ``batch_size`` of analysis.memorization: the ladder's extraction) and ``membership``
    (analysis.membership with its language). ``out`` names the files: ``repeats``, with
    memorization ``ladder``, with membership ``texts`` and ``cloze``; ``corpus`` the
    membership step's inputs (:data:`MEMBERSHIP_INPUTS`). Returns step
    → what it returned (a frame, or the membership step's pair of frames)."""
    from ..lm import shared_models
    from ..membership.stage import score_model_files
    from ..memorize import extract_file
    from ..syntax.style import repeats_file

    _check(params, out, corpus or {})
    done = {}
    with shared_models():
        done["repeats"] = repeats_file(
            model_dir, model_name, index, manifest, params["style"], out["repeats"], device
        )
        if "memorization" in params:
            m = params["memorization"]
            done["ladder"] = extract_file(
                model_dir, model_name, manifest, out["ladder"],
                prompt_tokens=m["prompt_tokens"], suffix_tokens=m["suffix_tokens"],
                batch_size=m["batch_size"], device=device,
            )  # fmt: skip
        if "membership" in params:
            paths = {"manifest": manifest, "index": index, **corpus}  # index: DC-PDD
            done["membership"] = score_model_files(
                model_dir, model_name, paths, params["membership"], out["texts"],
                out["cloze"], device,
            )  # fmt: skip
    return done


def _check(params: Mapping, out: Mapping, corpus: Mapping) -> None:
    """FlagError unless the files given are exactly those of the steps ``params`` asks for:
    ``--out-ladder`` with memorization; ``--out-texts``, ``--out-cloze`` and
    :data:`MEMBERSHIP_INPUTS` with membership."""
    wanted = {
        "--out-ladder": ("memorization", out.get("ladder")),
        "--out-texts": ("membership", out.get("texts")),
        "--out-cloze": ("membership", out.get("cloze")),
        **{f"--{k.replace('_', '-')}": ("membership", corpus.get(k)) for k in MEMBERSHIP_INPUTS},
    }
    for flag, (step, path) in wanted.items():
        if (step in params) != (path is not None):
            has = "has" if step in params else "has no"
            expected = "expected a file" if step in params else "expected none"
            raise FlagError(flag, f"{expected}: --params-json {has} {step!r}")
