"""Per-token log-likelihoods of token sequences under a causal language model.

For a sequence ``x_1..x_n`` with an optional context ``c_1..c_m`` the model reads
``<eos> c_1..c_m x_1..x_n`` and :func:`token_logprobs` returns
``log p(x_t | <eos>, c, x_<t)`` (natural log) for ``t = 1..n``; the context is not scored.
Sequences are scored in batches, right-padded with an attention mask, so batched results
equal unbatched ones up to float rounding.

:func:`token_moments` gives, from the same forward pass, the mean and variance of
``log p(z | x_<t)`` under ``z ~ p(· | x_<t)`` at every scored position (two floats per token:
what Min-K%++ needs, :func:`copyscope.membership.scores.min_k_plus_plus`).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
from collections.abc import Iterator

import numpy as np
import torch

from ..errors import ConfigError, InputError
from .models import LSTMForCausalLM, context_length, resolve_device


@contextlib.contextmanager
def eval_mode(model, device) -> Iterator[torch.device]:
    """Move ``model`` to the resolved device and switch it to eval mode for the block.

    The training flag is restored afterwards; the model stays on the device.
    """
    dev = resolve_device(device)
    param = next(model.parameters(), None)
    if param is not None and param.device != dev:
        model.to(dev)
    was_training = model.training
    model.eval()
    try:
        yield dev
    finally:
        model.train(was_training)


def as_ids(seq, what: str, index: int) -> np.ndarray:
    """A 1-d int64 copy of a token sequence (``what``/``index`` name it in errors)."""
    arr = np.asarray(seq)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InputError(
            f"{what}[{index}]", f"expected a 1-d array of integer token ids, got {arr.dtype}"
        )
    return arr.astype(np.int64, copy=False)


def check_ids(arr: np.ndarray, vocab_size: int, what: str, index: int) -> None:
    if arr.size and (arr.min() < 0 or arr.max() >= vocab_size):
        raise InputError(
            f"{what}[{index}]",
            f"token ids must lie in [0, {vocab_size}) (the model's vocabulary); "
            f"found {int(arr.min())}..{int(arr.max())}",
        )


def input_row(seq, ctx, eos_id: int, vocab: int, limit, what: str, index) -> np.ndarray:
    """``<eos> ctx seq`` as the model reads it; InputError (naming ``what[index]``) when
    ``seq`` holds an id outside the vocabulary or the row exceeds the context ``limit``."""
    check_ids(seq, vocab, what, index)
    full = np.concatenate([[eos_id], ctx, seq]).astype(np.int64)
    if limit is not None and full.size > limit:
        raise InputError(
            f"{what}[{index}]",
            f"1 + context length {ctx.size} + sequence length {seq.size} = {full.size} "
            f"exceeds the model's context length {limit}",
        )
    return full


def vocab_size_of(model) -> int:
    return int(model.get_output_embeddings().weight.shape[0])


def token_logprobs(
    model,
    sequences: list[np.ndarray],
    *,
    eos_id: int,
    batch_size: int = 20,
    device="cpu",
    context: list[np.ndarray] | None = None,
    first: list[int] | None = None,
    only=None,
) -> list[np.ndarray]:
    """Natural-log probability of every token of each sequence (float64 arrays, one per sequence).

    Each sequence is preceded by ``eos_id`` and, if given, by ``context[i]`` (not scored).
    With ``first``, only the tokens of sequence i from index ``first[i]`` on are returned, and
    the model is asked (``logits_to_keep``, which Hugging Face causal LMs take; a model that
    ignores it returns every position and is sliced here) for the output distribution of the
    positions a batch needs only — the same values, without the vocabulary-sized output of
    the tokens nobody reads.
    With ``only`` (one bool per sequence), only the sequences marked true are scored (the
    others come back empty): they are batched as in the call without ``only``, every batch
    padded to the width it has there, so a transformer gives them the same values, bit for
    bit, at a fraction of the cost when few are marked. A recurrent model
    (:class:`~copyscope.lm.models.LSTMForCausalLM`), whose packed batches round with the
    rows they hold, still reads every batch a marked sequence lies in whole.
    Raises InputError when ``<eos> + context + sequence`` exceeds the model's context length.
    """
    return _score(model, sequences, eos_id, batch_size, device, context, first, False, only)


def token_moments(
    model,
    sequences: list[np.ndarray],
    *,
    eos_id: int,
    batch_size: int = 20,
    device="cpu",
    context: list[np.ndarray] | None = None,
    first: list[int] | None = None,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per sequence ``(logprobs, mean, variance)``, three float64 arrays of one value per
    scored token, all from one forward pass (arguments as :func:`token_logprobs`, whose
    ``logprobs`` these are, the same numbers). At token t with next-token distribution
    ``p = p(· | <eos>, c, x_<t)`` over the vocabulary:

    * ``mean[t] = Σ_z p(z) log p(z)`` (minus the entropy), and
    * ``variance[t] = Σ_z p(z) (log p(z) − mean[t])²``,

    the mean and variance of ``log p(z)`` under ``z ~ p`` (Zhang et al. 2024, "Min-K%++", whose
    code computes ``Σ p (log p)² − mean²``, the same quantity; the centred sum here does not
    cancel). Summed in float64 from the same float32 log-softmax as the log-probabilities, one
    sequence's positions at a time (no second vocabulary-sized copy of the batch); a token of
    probability 0 contributes 0 (``0 · log 0 = 0``)."""
    return _score(model, sequences, eos_id, batch_size, device, context, first, True)


def _moments(logp: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and variance of ``logp`` (one distribution per row, log-probabilities over the
    last axis) under the distribution itself, as :func:`token_moments` defines them."""
    p = logp.exp()
    finite = p > 0
    lp = torch.where(finite, logp, torch.zeros_like(logp))
    mean = (p * lp).sum(-1)
    var = (p * (lp - mean[..., None]).square()).sum(-1)
    return mean, var


def _score(model, sequences, eos_id, batch_size, device, context, first, moments: bool, only=None):
    """:func:`token_logprobs` (``moments`` False: a list of arrays) or :func:`token_moments`
    (True: a list of ``(logprobs, mean, variance)``); ``only`` as :func:`token_logprobs`."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigError("batch_size", f"expected a positive integer, got {batch_size!r}")
    if context is not None and len(context) != len(sequences):
        raise InputError(
            "context", f"expected one context per sequence ({len(sequences)}), got {len(context)}"
        )
    if only is not None and len(only) != len(sequences):
        raise InputError(
            "only", f"expected one flag per sequence ({len(sequences)}), got {len(only)}"
        )
    limit = context_length(model)
    vocab = vocab_size_of(model)
    rows: list[tuple[np.ndarray, int]] = []  # (full input, index of the first scored token)
    for i, seq in enumerate(sequences):
        seq = as_ids(seq, "sequences", i)
        ctx = as_ids(context[i], "context", i) if context is not None else np.zeros(0, np.int64)
        check_ids(ctx, vocab, "context", i)
        full = input_row(seq, ctx, eos_id, vocab, limit, "sequences", i)
        skip = 0 if first is None else int(first[i])
        if not 0 <= skip <= seq.size:
            raise InputError(f"first[{i}]", f"expected 0..{seq.size}, got {skip}")
        rows.append((full, 1 + ctx.size + skip))

    none = np.zeros(0, dtype=np.float64)
    out: list = [(none, none, none) if moments else none] * len(rows)
    whole = only is not None and isinstance(model, LSTMForCausalLM)
    order = sorted(
        (i for i in range(len(rows)) if rows[i][0].size > rows[i][1]), key=lambda i: rows[i][0].size
    )
    with eval_mode(model, device) as dev, torch.inference_mode():
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            width = max(rows[i][0].size for i in idx)  # the batch's width with every row
            keep = width - (min(rows[i][1] for i in idx) - 1)  # and its logits to keep
            if only is not None and not whole:
                idx = [i for i in idx if only[i]]
            if only is not None and not any(only[i] for i in idx):
                continue
            ids = np.full((len(idx), width), eos_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for r, i in enumerate(idx):
                n = rows[i][0].size
                ids[r, :n] = rows[i][0]
                mask[r, :n] = 1
            ids_t = torch.from_numpy(ids).to(dev)
            mask_t = torch.from_numpy(mask).to(dev)
            extra = {}
            if first is not None:  # the logits of positions from the first one read onwards
                extra["logits_to_keep"] = keep
            logits = model(input_ids=ids_t, attention_mask=mask_t, use_cache=False, **extra).logits
            off = width - logits.shape[1]  # logits[:, k] is the distribution after token off + k
            logp = torch.log_softmax(logits[:, : width - 1 - off].float(), dim=-1)
            picked = logp.gather(-1, ids_t[:, off + 1 :, None])[..., 0].double().cpu().numpy()
            for r, i in enumerate(idx):
                if only is not None and not only[i]:
                    continue
                full, start = rows[i]
                lo, hi = start - 1 - off, full.size - 1 - off
                out[i] = picked[r, lo:hi].copy()
                if moments:
                    mean, var = _moments(logp[r, lo:hi].double())
                    out[i] = (out[i], mean.cpu().numpy(), var.cpu().numpy())
    return out


def perplexity(logprobs_list) -> float:
    """``exp(-mean log-probability)`` over all tokens of all sequences pooled (nan if none)."""
    arrays = [np.asarray(a, dtype=np.float64).ravel() for a in logprobs_list]
    pooled = np.concatenate(arrays) if arrays else np.zeros(0)
    if pooled.size == 0:
        return float("nan")
    return float(np.exp(-pooled.mean()))


def shared_prefix_sums(
    model,
    groups: list[list[np.ndarray]],
    prefixes: list[int],
    *,
    eos_id: int,
    batch_size: int = 20,
    device="cpu",
) -> list[np.ndarray]:
    """For each group of sequences that share their first ``p = prefixes[g]`` tokens, the
    summed natural-log probability of each sequence's tokens from index ``p`` on, every
    sequence read after one ``eos_id``: per group a float64 array, ``sum_{t >= p}
    log p(x_t | <eos>, x_<t)`` per sequence (0 for a sequence of length ``p``). The tokens
    before ``p`` are the same for every sequence of a group, so their log-probability is
    common to all and left out, as with :func:`token_logprobs`'s ``first``.

    A model whose forward returns a Hugging Face cache (``DynamicCache``: GPT-2, Llama …)
    reads a group's common prefix once and continues each sequence from its cached keys and
    values (the group in batches of ``batch_size``): the same sums up to float rounding (the
    name cloze of the default run: |difference| ≤ 1.5e-5 nats on passages of ~60 tokens, the
    same best candidate for all 696 items of two models) at about half the cost. A recurrent
    model whose state is a tuple of ``(layers, batch, hidden)`` tensors (the LSTM) continues
    from its state after the prefix, repeated over the batch. Other models are scored by
    :func:`token_logprobs` with ``first``.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigError("batch_size", f"expected a positive integer, got {batch_size!r}")
    if len(prefixes) != len(groups):
        raise InputError(
            "prefixes", f"expected one prefix length per group ({len(groups)}), got {len(prefixes)}"
        )
    groups = [[as_ids(s, "groups", g) for s in seqs] for g, seqs in enumerate(groups)]
    prefixes = [int(p) for p in prefixes]
    for g, (seqs, p) in enumerate(zip(groups, prefixes, strict=True)):
        fits = not seqs or 0 <= p <= min(x.size for x in seqs)
        if not fits or any(not np.array_equal(x[:p], seqs[0][:p]) for x in seqs):
            raise InputError(f"prefixes[{g}]", f"expected a prefix all sequences share, got {p}")
    kind = _prefix_cache(model, device, eos_id) if groups else None
    if kind is None:
        flat = [s for seqs in groups for s in seqs]
        first = [p for p, seqs in zip(prefixes, groups, strict=True) for _ in seqs]
        lps = token_logprobs(
            model, flat, eos_id=eos_id, batch_size=batch_size, device=device, first=first
        )
        sums, k = [], 0
        for seqs in groups:
            sums.append(np.array([float(np.sum(x)) for x in lps[k : k + len(seqs)]]))
            k += len(seqs)
        return sums
    limit, vocab = context_length(model), vocab_size_of(model)
    takes_keep = "logits_to_keep" in inspect.signature(model.forward).parameters
    last_only = {"logits_to_keep": 1} if takes_keep else {}  # the prefix's last position only
    out = []
    with eval_mode(model, device) as dev, torch.inference_mode():
        for g, (seqs, p) in enumerate(zip(groups, prefixes, strict=True)):
            if not seqs:
                out.append(np.zeros(0))
                continue
            none = np.zeros(0, np.int64)
            for i, s in enumerate(seqs):
                input_row(s, none, eos_id, vocab, limit, f"groups[{g}]", i)
            head = torch.tensor([[eos_id, *seqs[0][:p].tolist()]], dtype=torch.long, device=dev)
            o = model(
                input_ids=head, attention_mask=torch.ones_like(head), use_cache=True, **last_only
            )
            after = torch.log_softmax(o.logits[0, -1].float(), dim=-1).double().cpu().numpy()
            sums = np.zeros(len(seqs))
            tails = [s[p:] for s in seqs]
            for i, t in enumerate(tails):
                if t.size:
                    sums[i] = after[t[0]]
            for b in range(0, len(seqs), batch_size):
                rows = [i for i in range(b, min(b + batch_size, len(seqs))) if tails[i].size > 1]
                if not rows:
                    continue
                width = max(tails[i].size for i in rows) - 1
                ids = np.full((len(rows), width), eos_id, dtype=np.int64)
                # keys and values: the mask covers the prefix too; a state: the new tokens only
                before = p + 1 if kind == "keys" else 0
                mask = np.zeros((len(rows), before + width), dtype=np.int64)
                mask[:, :before] = 1
                for r, i in enumerate(rows):
                    n = tails[i].size - 1
                    ids[r, :n] = tails[i][:-1]
                    mask[r, before : before + n] = 1
                if kind == "keys":
                    cache = copy.deepcopy(o.past_key_values)
                    cache.batch_repeat_interleave(len(rows))
                else:
                    cache = tuple(
                        t.expand(-1, len(rows), -1).contiguous() for t in o.past_key_values
                    )
                logits = model(
                    input_ids=torch.from_numpy(ids).to(dev),
                    attention_mask=torch.from_numpy(mask).to(dev),
                    past_key_values=cache,
                    use_cache=True,
                ).logits
                logp = torch.log_softmax(logits.float(), dim=-1)
                for r, i in enumerate(rows):
                    n = tails[i].size - 1
                    target = torch.from_numpy(tails[i][1:]).to(dev)
                    picked = logp[r, torch.arange(n, device=dev), target]
                    sums[i] += float(picked.double().sum())
            out.append(sums)
    return out


def _prefix_cache(model, device, eos_id: int) -> str | None:
    """How ``model`` continues from a prefix read once, tried on one token: ``"keys"`` when its
    forward returns a cache that can be repeated over a batch (a Hugging Face
    ``DynamicCache``), ``"state"`` when it returns a recurrent state, a tuple of
    ``(layers, 1, hidden)`` tensors (:class:`~copyscope.lm.models.LSTMForCausalLM`), else None."""
    with eval_mode(model, device) as dev, torch.inference_mode():
        one = torch.tensor([[eos_id]], device=dev)
        o = model(input_ids=one, attention_mask=torch.ones_like(one), use_cache=True)
    cache = getattr(o, "past_key_values", None)
    if hasattr(cache, "batch_repeat_interleave"):
        return "keys"
    if (
        isinstance(cache, tuple)
        and cache
        and all(torch.is_tensor(t) and t.dim() == 3 and t.shape[1] == 1 for t in cache)
    ):
        return "state"
    return None
