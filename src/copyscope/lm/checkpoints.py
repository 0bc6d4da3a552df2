"""Checkpoints kept during training, and the state an interrupted training resumes from.

**Checkpoint steps.** With ``train.checkpoints: N`` (0 or absent = none) training keeps the
weights after the steps of :func:`checkpoint_steps`: ``round(steps ** (i / N))`` for
``i = 1 … N`` (rounded half up), deduplicated — N points evenly spaced in ``log(step)`` whose
last is the final step; fewer than N when ``steps`` is too small for N distinct steps.

**Layout.** While a model trains, its checkpoints and its resume state live in the *resume
folder* beside the model directory, ``<parent>/.<name>.resume/`` (:func:`resume_dir`), which
survives an interruption (the model directory itself is written once, atomically, at the end,
and Snakemake removes an incomplete one):

* ``checkpoints/step-<k>/`` — the weights after step ``k`` (``save_pretrained``: config.json,
  generation_config.json for GPT-2, model.safetensors with the float32 parameters as trained;
  no optimizer state, no tokenizer);
* ``state.pt`` — the training state after the last checkpoint step (:func:`save_state`): the
  model's and the optimizer's state, the scheduler, torch's (and CUDA's) RNG states, the
  step (the position in the seeded data order), the log rows and the running
  train-loss interval so far, the checkpoint manifest so far, and a fingerprint of the training
  (:func:`fingerprint`) that must match for a resume.

On success the checkpoints are linked into ``<model_dir>/checkpoints/step-<k>/`` with
``checkpoints/checkpoints.json`` (:func:`place_checkpoints`; read back with
:func:`read_checkpoints`, loaded with :func:`load_checkpoint`), and the resume folder is
removed. Every file is written atomically (:mod:`copyscope.io`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import shutil
from pathlib import Path

import numpy as np
import torch

from ..errors import InputError
from ..io import atomic_path, read_json, sha256_array

log = logging.getLogger(__name__)

MANIFEST = "checkpoints.json"
STATE = "state.pt"


def checkpoint_steps(n: int, steps: int) -> list[int]:
    """The steps after which training keeps a checkpoint, ascending: ``floor(steps ** (i / n)
    + 0.5)`` for ``i = 1 … n``, deduplicated (``[]`` for ``n <= 0``). The last one is ``steps``;
    there are ``min(n, steps)`` or fewer (e.g. ``n = 8, steps = 1000``: 2, 6, 13, 32, 75, 178,
    422, 1000)."""
    if n <= 0 or steps <= 0:
        return []
    return sorted({math.floor(steps ** (i / n) + 0.5) for i in range(1, n + 1)})


def resume_dir(out_dir) -> Path:
    """The resume folder of the model directory ``out_dir``: ``<parent>/.<name>.resume``."""
    out = Path(out_dir)
    return out.parent / f".{out.name}.resume"


def step_dir(root, step: int) -> Path:
    """A checkpoint's folder under ``root`` (the resume folder's or the model's checkpoints)."""
    return Path(root) / "checkpoints" / f"step-{step}"


def fingerprint(spec: dict, seed: int, arrays: list[np.ndarray], **facts) -> str:
    """sha256 of what fixes a training's numbers: the spec, the seed, the data (``arrays``, by
    their sha256) and ``facts`` (device, bf16, threads, torch version …)."""
    what = {
        "spec": spec,
        "seed": int(seed),
        "data": [sha256_array(a) for a in arrays],
        **facts,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def save_weights(model, root, step: int) -> Path:
    """The model's weights after ``step`` into ``step_dir(root, step)`` (``save_pretrained``,
    atomically)."""
    target = step_dir(root, step)
    with atomic_path(target) as tmp:
        model.save_pretrained(str(tmp))
    return target


def rng_states() -> dict:
    """torch's CPU (and every CUDA device's) RNG states: dropout's. (No numpy global RNG is
    drawn from — the project's lint forbids it — and the data order is a seeded generator drawn
    in full before the first step, so its position is the step.)"""
    states = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def set_rng_states(states: dict) -> None:
    """Set the RNG states :func:`rng_states` returned."""
    torch.set_rng_state(states["torch"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])


def save_state(resume, state: dict) -> None:
    """``state`` (tensors, numbers, strings, lists and dicts of them) as ``<resume>/state.pt``,
    atomically."""
    with atomic_path(Path(resume) / STATE) as tmp:
        torch.save(state, tmp)


def load_state(resume, expected: str) -> dict | None:
    """The state saved in ``resume`` (on the CPU) if its fingerprint is ``expected``; None when
    there is none. A state of another training, or one that does not load, is removed with a
    warning (the training starts from step 0)."""
    path = Path(resume) / STATE
    if not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        found = state.get("fingerprint") if isinstance(state, dict) else None
    except Exception as exc:  # a state of another torch version, a damaged file
        found, why = None, f"it does not load ({exc})"
    else:
        why = "it is the state of another training (spec, seed, data or device differ)"
    if found == expected:
        return state
    log.warning("%s: not resumed: %s; training from step 0", path, why)
    remove_resume(resume)
    return None


def place_checkpoints(resume, model_dir, manifest: list[dict], steps: int) -> None:
    """The checkpoints of ``manifest`` from the resume folder into ``<model_dir>/checkpoints/``
    (hard links where the file system allows, else copies), with ``checkpoints.json``:
    ``{"steps": steps, "checkpoints": manifest}``."""
    for row in manifest:
        source, target = step_dir(resume, row["step"]), step_dir(model_dir, row["step"])
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, target, copy_function=_link_or_copy)
    text = json.dumps({"steps": int(steps), "checkpoints": manifest}, indent=2, sort_keys=True)
    (Path(model_dir) / "checkpoints" / MANIFEST).write_text(text + "\n")


def _link_or_copy(source, target) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def remove_resume(resume) -> None:
    """Remove the resume folder (absent: nothing to do)."""
    shutil.rmtree(resume, ignore_errors=True)


def read_checkpoints(model_dir) -> list[dict]:
    """The checkpoints of a trained model, ascending by step: ``{"step", "tokens",
    "valid_loss", "path"}`` each (``path``: the checkpoint's folder). ``[]`` for a model trained
    without checkpoints."""
    model_dir = Path(model_dir)
    if not (model_dir / "config.json").is_file():
        raise InputError(model_dir, "expected a trained model directory (no config.json)")
    path = model_dir / "checkpoints" / MANIFEST
    if not path.is_file():
        return []
    data = read_json(path)
    rows = data.get("checkpoints") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "step" in r for r in rows):
        raise InputError(path, 'expected {"steps": …, "checkpoints": [{"step": …}, …]}')
    out = []
    for row in sorted(rows, key=lambda r: r["step"]):
        where = step_dir(model_dir, row["step"])
        if not (where / "config.json").is_file():
            raise InputError(path, f"step {row['step']}: no checkpoint at {where}")
        out.append({**row, "path": where})
    return out


def load_checkpoint(model_dir, step: int, device: str = "auto"):
    """``(model, tokenizer)``: the weights after ``step`` (a step of
    :func:`read_checkpoints`) with the model's tokenizer, in float32 and eval mode on
    :func:`~copyscope.lm.models.resolve_device` ``(device)``."""
    from transformers import AutoModelForCausalLM

    from ..tokenize import load_hf_tokenizer
    from .models import resolve_device

    rows = {r["step"]: r for r in read_checkpoints(model_dir)}
    if step not in rows:
        raise InputError(
            Path(model_dir) / "checkpoints" / MANIFEST,
            f"no checkpoint at step {step}; expected one of {sorted(rows) or 'none'}",
        )
    model = AutoModelForCausalLM.from_pretrained(
        str(rows[step]["path"]), local_files_only=True, dtype=torch.float32
    )
    model.to(resolve_device(device))
    return model.eval(), load_hf_tokenizer(model_dir)
