"""Training a language model from scratch on tokenized documents.

Data: documents are concatenated, each preceded by the eos id (document start), into one
stream, which is cut into windows of ``n_ctx`` tokens overlapping by one token, so every token
after the first is a prediction target exactly once per epoch. Windows are visited in a
seeded random order, epoch after epoch, until the token budget is used. With known-answer
timing (``timing``, :mod:`copyscope.corpus.timing`) the documents of the early and the late
group are seen only in the first or the last steps (:func:`timed_order`).

``spec["train"]`` (every key required; src/copyscope/schema.yaml defines them, and
:func:`copyscope.config.validate` fills the defaults shown there):

* ``tokens`` — token budget: the number of training tokens the model sees
  (``steps = ceil(tokens / (batch_size * n_ctx))``);
* ``batch_size``, ``lr``, ``weight_decay`` (AdamW; no decay on biases, norms);
* ``warmup`` — fraction of steps of linear warm-up, followed by cosine decay to
  ``min_lr_ratio * lr``;
* ``eval_every`` (steps), ``eval_batches`` — validation loss on a fixed, evenly spaced subset
  of ``eval_batches * batch_size`` validation windows, every ``eval_every`` steps and at the end
  (each evaluation is logged: ``<prefix>: step <done>/<steps>, train_loss …``);
* ``bf16`` — ``auto`` (bf16 autocast when the CPU has native bf16, i.e. AVX512-BF16 or
  AMX; on CUDA when the GPU supports it), ``true`` or ``false``;
* ``grad_clip`` — gradient-norm clip (0 disables);
* ``fast_fp32`` — when training in fp32 (bf16 off): GPT-2's ``gelu_new`` modules run as the
  fused tanh-GELU kernel and AdamW as its fused kernel — the same functions, other rounding, so
  fp32 runs differ from those before this key (and, as ever, from bf16 runs); ``false`` gives
  the earlier fp32 step. Under bf16 nothing changes;
* ``checkpoints`` (optional, 0 = absent = none) — the number of log-spaced checkpoint steps
  (:func:`copyscope.lm.checkpoints.checkpoint_steps`): after each, the weights are kept, the
  validation loss is evaluated (the training itself is unchanged: the final weights are those
  of a run without checkpoints) and the training state is saved, from which a training of the
  same spec, seed, data and device started again on the same ``out_dir`` after an
  interruption resumes, giving the same final weights and log (``seconds`` apart) as a run
  never interrupted (layout: :mod:`copyscope.lm.checkpoints`).

Memory: during training glibc malloc keeps what the step frees (:func:`keep_freed_memory`),
and deterministic mode does not fill new tensors with NaN; neither changes a number.

Runs are seeded (model init, dropout, data order) and use deterministic algorithms on the CPU
(on CUDA when ``CUBLAS_WORKSPACE_CONFIG`` is set), so the same seed on the same machine gives
the same losses. Threads: ``COPYSCOPE_TORCH_THREADS`` if set, else torch's default.
The trained model and its tokenizer are saved with ``save_pretrained`` into ``out_dir``
atomically (temporary directory, then rename), together with ``train_summary.json`` (the spec
and the returned summary) and, with ``checkpoints``, ``checkpoints/`` (its steps' weights and
``checkpoints.json``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import torch

from ..corpus.timing import timed_windows
from ..errors import InputError
from ..io import atomic_path, write_csv
from . import checkpoints as ck
from .models import apply_thread_env, build_model, config_prefix, resolve_device

log = logging.getLogger(__name__)

LOG_COLUMNS = ["step", "tokens", "train_loss", "valid_loss", "lr", "seconds"]


# --------------------------------------------------------------------------- settings
def _train_settings(spec: dict) -> dict:
    """``spec["train"]`` with its numbers as Python numbers (the keys and their bounds are those
    of ``$defs/train`` in src/copyscope/schema.yaml; :func:`copyscope.config.validate` checks them
    and fills the defaults)."""
    train = spec["train"]
    out = {k: int(train[k]) for k in ("tokens", "batch_size", "eval_every", "eval_batches")}
    out.update(
        {k: float(train[k]) for k in ("lr", "warmup", "weight_decay", "grad_clip", "min_lr_ratio")}
    )
    out["bf16"] = train["bf16"]
    out["fast_fp32"] = bool(train.get("fast_fp32", True))
    out["checkpoints"] = int(train.get("checkpoints", 0))
    return out


def cpu_has_native_bf16() -> bool:
    """True when the CPU computes bf16 natively (AVX512-BF16 or AMX tiles)."""
    try:
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except Exception:  # private helpers: absent in some builds
        return False


def use_bf16(setting, device: torch.device) -> bool:
    if setting is True or setting is False:
        return setting
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    return cpu_has_native_bf16()


# --------------------------------------------------------------------------- data
def doc_stream(docs: list[np.ndarray], eos_id: int, vocab_size: int, what: str) -> np.ndarray:
    """Documents concatenated, each preceded by ``eos_id`` (int64)."""
    parts = []
    for i, d in enumerate(docs):
        d = np.asarray(d)
        if d.ndim != 1:
            raise InputError(f"{what}[{i}]", "expected a 1-d array of token ids")
        if d.size and (d.min() < 0 or d.max() >= vocab_size):
            raise InputError(
                f"{what}[{i}]",
                f"token ids must lie in [0, {vocab_size}) (the tokenizer's vocabulary); "
                f"found {int(d.min())}..{int(d.max())}",
            )
        parts.append(np.array([eos_id], dtype=np.int64))
        parts.append(d.astype(np.int64))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def windows(stream: np.ndarray, n_ctx: int) -> np.ndarray:
    """(n, n_ctx) windows of the stream, consecutive windows sharing one token."""
    if stream.size < n_ctx:
        return np.zeros((0, n_ctx), dtype=np.int64)
    starts = np.arange(0, stream.size - n_ctx + 1, n_ctx - 1 if n_ctx > 1 else 1)
    return np.lib.stride_tricks.sliding_window_view(stream, n_ctx)[starts].copy()


def batch_order(n_windows: int, batch_size: int, steps: int, rng: np.random.Generator):
    """Window indices for every step: seeded permutations, one epoch after another."""
    need = steps * batch_size
    parts, have = [], 0
    while have < need:
        parts.append(rng.permutation(n_windows))
        have += n_windows
    return np.concatenate(parts)[:need].reshape(steps, batch_size)


PAD = -1
"""The id that pads the last window of a timed group's stream (:func:`padded_windows`): read
as the eos id, never a target."""
TIMED = ("early", "late")
"""The timing groups of :func:`timed_order` (:mod:`copyscope.corpus.timing`)."""


def padded_windows(stream: np.ndarray, n_ctx: int) -> np.ndarray:
    """The windows of :func:`windows` that cover *every* token of ``stream``: its tail, which
    :func:`windows` drops, is a last window padded with :data:`PAD` (a timed group's text is
    short; none of it may be lost)."""
    step = n_ctx - 1 if n_ctx > 1 else 1
    if stream.size == 0:
        return np.zeros((0, n_ctx), dtype=np.int64)
    k = max(1, math.ceil((stream.size - 1) / step))
    total = max(k * step + 1, n_ctx)
    padded = np.concatenate([stream, np.full(total - stream.size, PAD, dtype=np.int64)])
    return windows(padded, n_ctx)


def timed_order(
    n_spread: int,
    n_timed: dict[str, int],
    batch_size: int,
    steps: int,
    window: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Window indices for every step, ``(steps, batch_size)``, with known-answer timing.

    The windows are numbered spread first (``0 … n_spread − 1``), then each group of
    :data:`TIMED` in order (``n_timed[group]`` windows each). Without timed windows this is
    :func:`batch_order` (the same draws). Otherwise every timed window occurs ``r = max(1,
    round(steps × batch_size / n_windows))`` times (the epochs of the run, rounded), all of
    them at seeded distinct batch slots inside its group's steps (:func:`timed_windows`);
    the other slots take the spread windows in seeded permutations, one epoch after another,
    in step order. ConfigError when a group's occurrences exceed its slots."""
    from ..errors import ConfigError

    if not any(n_timed.get(g, 0) for g in TIMED):
        return batch_order(n_spread, batch_size, steps, rng)
    if n_spread == 0:
        raise ConfigError("corpus.inject.timing", "untimed training text, found none")
    need = steps * batch_size
    repeats = max(1, round(need / (n_spread + sum(n_timed.get(g, 0) for g in TIMED))))
    order = np.full(need, -1, dtype=np.int64)
    offset = n_spread
    for group, (first, end) in timed_windows(steps, window).items():
        n = n_timed.get(group, 0)
        cells = np.arange(first * batch_size, end * batch_size)
        free = cells[order[cells] < 0]
        occ = np.tile(np.arange(offset, offset + n, dtype=np.int64), repeats)
        if occ.size > free.size:
            raise ConfigError(
                "corpus.inject.timing",
                f"room for the {group} text: {n} windows × {repeats} occurrence(s) in the "
                f"{free.size} free batch slots of steps {first}–{end} (window × steps); lower "
                "corpus.inject.timing.plays or .ladder, or raise .window or models.train.tokens",
            )
        order[rng.choice(free, size=occ.size, replace=False)] = rng.permutation(occ)
        offset += n
    rest = np.flatnonzero(order < 0)
    parts, have = [], 0
    while have < rest.size:
        parts.append(rng.permutation(n_spread))
        have += n_spread
    order[rest] = np.concatenate(parts)[: rest.size]
    return order.reshape(steps, batch_size)


def lr_factor(step: int, steps: int, warmup_steps: int, min_ratio: float) -> float:
    """Linear warm-up to 1 over ``warmup_steps``, then cosine decay to ``min_ratio``."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    span = max(1, steps - warmup_steps)
    progress = min(1.0, (step - warmup_steps + 1) / span)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


# --------------------------------------------------------------------------- training
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc mallopt parameters


def keep_freed_memory(on: bool = True) -> bool:
    """Make glibc malloc keep the memory the training step frees (``on``) or return it as
    by default: True if it could be set (glibc only).

    A step allocates and frees the same large tensors (the logits and their gradients: batch ×
    n_ctx × vocabulary floats) every time; glibc serves blocks over 32 MiB by ``mmap``, which the
    kernel zero-fills page by page on every step. With ``on`` no block is ``mmap``-ed and the
    heap is not trimmed, so those pages are reused. Numerics are unchanged. ``on=False`` sets
    glibc's default values again (its dynamic mmap threshold stays off for the process).
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    trim = 2**31 - 1 if on else 128 * 1024  # glibc's default: 128 KiB (then dynamic)
    return bool(mallopt(_M_MMAP_MAX, 0 if on else 65536)) and bool(mallopt(_M_TRIM_THRESHOLD, trim))


@contextlib.contextmanager
def signals_deferred():
    """Ctrl-C, SIGHUP and SIGTERM held back while the block runs and delivered right after it
    (main thread only): an object half-built when the exit arrives (tqdm's progress bar) would
    print a traceback when it is collected.

    The handlers are swapped for ones that only note the signal; a thread mask would not do, as
    a signal sent to the process goes to any thread that does not block it (torch's workers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    held = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)
    before = {}
    for signum in held:
        handler = signal.getsignal(signum)
        if handler is not None and handler is not signal.SIG_IGN:  # an ignored one stays so
            before[signum] = signal.signal(signum, lambda got, _frame: noted.append(got))
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(noted):
            signal.raise_signal(signum)


@contextlib.contextmanager
def _deterministic(device: torch.device):
    """Deterministic torch algorithms for the block.

    Always on the CPU; on CUDA only when ``CUBLAS_WORKSPACE_CONFIG`` is set (cuBLAS refuses
    deterministic mode without it).
    """
    before = torch.are_deterministic_algorithms_enabled()
    before_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    before_fill = torch.utils.deterministic.fill_uninitialized_memory
    # deterministic mode also fills every new tensor with NaN (a debugging aid: no kernel reads
    # memory it has not written); that costs a pass over every allocation and changes nothing
    torch.utils.deterministic.fill_uninitialized_memory = False
    if device.type == "cpu" or os.environ.get("CUBLAS_WORKSPACE_CONFIG"):
        try:
            torch.use_deterministic_algorithms(True)
        except Exception as exc:  # pragma: no cover - depends on the build
            log.warning("deterministic algorithms unavailable: %s", exc)
    else:
        log.warning("CUDA training is not bitwise reproducible without CUBLAS_WORKSPACE_CONFIG")
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before, warn_only=before_warn)
        torch.utils.deterministic.fill_uninitialized_memory = before_fill


def _loss(model, batch: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
    """Mean next-token cross-entropy of ``batch``; ``labels`` (default ``batch``) the targets,
    -100 where none (the padding of a timed group's last window: it pads at the end, so no
    real token attends to it)."""
    mask = torch.ones_like(batch)  # an explicit mask avoids a padding warning
    logits = model(input_ids=batch, attention_mask=mask, use_cache=False).logits
    targets = batch if labels is None else labels
    return torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, logits.shape[-1]).float(), targets[:, 1:].reshape(-1)
    )


def _evaluate(model, data: np.ndarray, batch_size: int, device, autocast) -> float:
    if len(data) == 0:
        return float("nan")
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.inference_mode():
        for b in range(0, len(data), batch_size):
            batch = torch.from_numpy(data[b : b + batch_size]).to(device)
            with autocast():
                loss = _loss(model, batch)
            n = batch.shape[0] * (batch.shape[1] - 1)
            total += float(loss) * n
            count += n
    model.train(was_training)
    return total / count


def _param_groups(model, weight_decay: float):
    decay, no_decay, seen = [], [], set()
    for _, p in model.named_parameters():
        if not p.requires_grad or id(p) in seen:
            continue
        seen.add(id(p))
        (decay if p.dim() >= 2 else no_decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def _optimizer(model, settings: dict, fused: bool = False) -> torch.optim.Optimizer:
    """AdamW on :func:`_param_groups`; ``fused``: its fused kernel (other rounding)."""
    kw = {"fused": True} if fused else {}
    return torch.optim.AdamW(
        _param_groups(model, settings["weight_decay"]), lr=settings["lr"], betas=(0.9, 0.95), **kw
    )


def _fuse_gelu(model) -> int:
    """Replace GPT-2's composite ``gelu_new`` modules by the fused tanh-GELU kernel (the same
    function, other rounding; no parameters, so the saved model is unchanged and reloads with
    ``gelu_new``). Returns how many were replaced."""
    from transformers.activations import GELUTanh, NewGELUActivation

    n = 0
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if type(child) is NewGELUActivation:
                setattr(module, child_name, GELUTanh())
                n += 1
    return n


def _train_step(model, batch: torch.Tensor, opt, settings: dict, autocast, eos_id=None) -> float:
    """One optimizer step on ``batch``; returns its loss. With ``eos_id``, :data:`PAD` ids
    are read as ``eos_id`` and are no target."""
    labels = None
    if eos_id is not None:
        pad = batch == PAD
        labels = batch.masked_fill(pad, -100)
        batch = batch.masked_fill(pad, eos_id)
    with autocast():
        loss = _loss(model, batch, labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if settings["grad_clip"] > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), settings["grad_clip"])
    opt.step()
    return float(loss.detach())


def _state(key: str, model, opt, sched, run: dict) -> dict:
    """The training state saved at a checkpoint (:func:`copyscope.lm.checkpoints.save_state`)."""
    return {
        "fingerprint": key,
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "rng": ck.rng_states(),
        "run": run,
    }


def _restore(state: dict, model, opt, sched, run: dict) -> None:
    """Set the model, optimizer, scheduler, RNG states and ``run`` to a saved :func:`_state`."""
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    ck.set_rng_states(state["rng"])
    run.update(state["run"])


def train_model(
    spec: dict,
    tokenizer_dir,
    train_docs: list[np.ndarray],
    valid_docs: list[np.ndarray],
    out_dir,
    *,
    seed: int,
    device="auto",
    log_csv=None,
    name: str | None = None,
    timing: dict | None = None,
) -> dict:
    """Train ``spec`` (a ``models.<name>`` entry) from scratch and save it to ``out_dir``.

    Returns a summary: params, steps, tokens seen, epochs, final train/valid loss, seconds,
    tokens/s, bf16, device, threads, seed. ``log_csv`` (optional) receives one row per
    evaluation: step, tokens, train_loss (mean since the last row), valid_loss, lr, seconds;
    it is written once, after the model (temporary name, renamed), so an interrupted training
    leaves no partial table (each evaluation is logged as it happens).
    ``name`` labels config keys in errors (``models.<name>...``).

    With ``train.checkpoints`` the weights after each checkpoint step go to
    ``out_dir/checkpoints/step-<k>/`` (manifest ``checkpoints/checkpoints.json``); a training
    interrupted after a checkpoint and started again on the same ``out_dir`` continues from the
    last one (:mod:`copyscope.lm.checkpoints`); ``seconds`` then counts every attempt's time up
    to its last checkpoint.

    ``timing`` (known-answer timing, :mod:`copyscope.corpus.timing`): ``{"window": w,
    "groups": [...]}``, ``groups`` the timing group of each training document (``early``,
    ``late`` or None). The untimed documents form the stream as above; each group's documents
    a stream of their own, cut by :func:`padded_windows` (a timed window holds only its
    group's text); the order is :func:`timed_order`. The summary's ``timing`` gives each
    group's windows, occurrences and steps.
    """
    from ..tokenize import load_hf_tokenizer

    prefix = config_prefix(spec, name)
    settings = _train_settings(spec)
    threads = apply_thread_env()
    dev = resolve_device(device)
    tokenizer = load_hf_tokenizer(tokenizer_dir)
    eos_id = tokenizer.eos_token_id
    if eos_id is None:
        raise InputError(tokenizer_dir, "expected a tokenizer with an eos token")
    vocab_size = len(tokenizer)

    torch.manual_seed(seed)
    model = build_model(spec, vocab_size, eos_id)
    n_ctx = int(spec["n_ctx"])
    groups = list((timing or {}).get("groups") or [None] * len(train_docs))
    if len(groups) != len(train_docs):
        raise InputError("timing", f"{len(groups)} groups for {len(train_docs)} documents")
    spread = [d for d, g in zip(train_docs, groups, strict=True) if g is None]
    train_w = windows(doc_stream(spread, eos_id, vocab_size, "train_docs"), n_ctx)
    n_spread = len(train_w)
    n_timed = {}
    for g in TIMED:
        part = [d for d, x in zip(train_docs, groups, strict=True) if x == g]
        w = padded_windows(doc_stream(part, eos_id, vocab_size, "train_docs"), n_ctx)
        n_timed[g] = len(w)
        train_w = np.concatenate([train_w, w]) if len(w) else train_w
    padded = bool(any(n_timed.values()))
    if len(train_w) == 0:
        raise InputError("train_docs", f"expected at least n_ctx={n_ctx} tokens of training text")
    valid_w = windows(doc_stream(valid_docs, eos_id, vocab_size, "valid_docs"), n_ctx)
    bs = settings["batch_size"]
    n_eval = min(len(valid_w), settings["eval_batches"] * bs)
    if n_eval:
        valid_w = valid_w[np.linspace(0, len(valid_w) - 1, n_eval).round().astype(np.int64)]
    else:
        log.warning("no validation window of %d tokens: valid_loss will be nan", n_ctx)

    steps = math.ceil(settings["tokens"] / (bs * n_ctx))
    warmup_steps = max(1, round(settings["warmup"] * steps)) if settings["warmup"] > 0 else 0
    window = float((timing or {}).get("window", 0.1))
    order = timed_order(n_spread, n_timed, bs, steps, window, np.random.default_rng(seed))
    bf16 = use_bf16(settings["bf16"], dev)

    def autocast():
        if bf16:
            return torch.autocast(device_type=dev.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    fast = settings["fast_fp32"] and not bf16
    if fast:
        _fuse_gelu(model)
    model.to(dev)
    model.train()
    opt = _optimizer(model, settings, fused=fast)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: lr_factor(s, steps, warmup_steps, settings["min_lr_ratio"])
    )
    n_params = sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
    log.info(
        "training %s: %d params, %d steps of %d×%d tokens, bf16=%s, device=%s, threads=%d",
        prefix,
        n_params,
        steps,
        bs,
        n_ctx,
        bf16,
        dev,
        threads,
    )

    from tqdm.auto import tqdm

    run = {  # what a resume restores besides the model, optimizer, scheduler and RNG states
        "step": 0,
        "rows": [],
        "interval": [0.0, 0],
        "losses": [float("nan"), float("nan")],
        "manifest": [],
        "seconds": 0.0,
    }
    keep = set(ck.checkpoint_steps(settings["checkpoints"], steps))
    resume = ck.resume_dir(out_dir)
    key = ""
    if keep:
        facts = {"vocab_size": vocab_size, "eos_id": eos_id, "device": str(dev), "bf16": bf16}
        facts.update(threads=threads, torch=torch.__version__)
        arrays = [train_w, valid_w] + ([order] if padded else [])
        key = ck.fingerprint(spec, seed, arrays, **facts)
        state = ck.load_state(resume, key)
        if state is not None:
            _restore(state, model, opt, sched, run)
            log.info("%s: resuming from step %d/%d (%s)", prefix, run["step"], steps, resume)
    rows = run["rows"]
    interval_loss, interval_n = run["interval"]
    train_loss, valid_loss = run["losses"]
    start = time.perf_counter() - run["seconds"]
    kept = keep_freed_memory(True)
    with _deterministic(dev):
        with signals_deferred():  # an exit now comes after the bar is whole
            bar = tqdm(
                total=steps,
                initial=run["step"],
                desc=f"train {name or spec.get('name') or spec['kind']}",
                file=sys.stderr,
                unit="step",
                dynamic_ncols=True,
            )
        try:
            for step in range(run["step"], steps):
                batch = torch.from_numpy(train_w[order[step]]).to(dev)
                lr = opt.param_groups[0]["lr"]
                value = _train_step(
                    model, batch, opt, settings, autocast, eos_id if padded else None
                )
                sched.step()
                if not math.isfinite(value):
                    raise FloatingPointError(
                        f"{prefix}: training loss became {value} at step {step + 1}; lower train.lr"
                    )
                interval_loss += value
                interval_n += 1
                bar.update(1)
                bar.set_postfix(loss=f"{value:.3f}", refresh=False)
                done = step + 1
                evaluated = done % settings["eval_every"] == 0 or done == steps
                if evaluated:
                    train_loss = interval_loss / interval_n
                    valid_loss = _evaluate(model, valid_w, bs, dev, autocast)
                    rows.append(
                        {
                            "step": done,
                            "tokens": done * bs * n_ctx,
                            "train_loss": train_loss,
                            "valid_loss": valid_loss,
                            "lr": lr,
                            "seconds": time.perf_counter() - start,
                        }
                    )
                    interval_loss, interval_n = 0.0, 0
                    log.info(
                        "%s: step %d/%d, train_loss %.4f, valid_loss %.4f, lr %.3g",
                        prefix,
                        done,
                        steps,
                        train_loss,
                        valid_loss,
                        lr,
                    )
                if done in keep:
                    loss = valid_loss if evaluated else _evaluate(model, valid_w, bs, dev, autocast)
                    ck.save_weights(model, resume, done)
                    row = {"step": done, "tokens": done * bs * n_ctx, "valid_loss": loss}
                    run.update(
                        step=done,
                        interval=[interval_loss, interval_n],
                        losses=[train_loss, valid_loss],
                        manifest=[*run["manifest"], row],
                        seconds=time.perf_counter() - start,
                    )
                    ck.save_state(resume, _state(key, model, opt, sched, run))
                    log.info("%s: checkpoint at step %d (valid_loss %.4f)", prefix, done, loss)
        finally:
            bar.close()
            if kept:
                keep_freed_memory(False)
    seconds = time.perf_counter() - start

    summary = {
        "params": int(n_params),
        "steps": int(steps),
        "tokens": int(steps * bs * n_ctx),
        "train_tokens": int(train_w.size),
        "epochs": steps * bs / len(train_w),
        "final_train_loss": float(train_loss),
        "final_valid_loss": float(valid_loss),
        "seconds": seconds,
        "tokens_per_s": steps * bs * n_ctx / seconds if seconds > 0 else float("nan"),
        "bf16": bool(bf16),
        "device": str(dev),
        "threads": int(threads),
        "seed": int(seed),
        "vocab_size": int(vocab_size),
        "eos_id": int(eos_id),
    }
    if padded:
        spans, first = timed_windows(steps, window), n_spread
        summary["timing"] = {}
        for g in TIMED:
            ids = np.arange(first, first + n_timed[g])
            summary["timing"][g] = {
                "windows": n_timed[g],
                "occurrences": int(np.isin(order, ids).sum()),
                "steps": list(spans[g]),
            }
            first += n_timed[g]
    model.eval()
    model.to("cpu")
    with atomic_path(out_dir) as tmp:
        model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        info = {"spec": spec, "summary": summary}
        (Path(tmp) / "train_summary.json").write_text(
            json.dumps(info, indent=2, sort_keys=True, default=str) + "\n"
        )
        if run["manifest"]:
            ck.place_checkpoints(resume, tmp, run["manifest"], steps)
    if log_csv is not None:  # once, complete (the running record is the log's step lines)
        import pandas as pd

        write_csv(log_csv, pd.DataFrame(rows, columns=LOG_COLUMNS))
    ck.remove_resume(resume)  # after every output: an exit before it resumes at the end
    return summary
