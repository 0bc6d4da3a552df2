"""Batched decoding (sampling, greedy, beam search) with cached model state.

Every prompt is preceded by the eos token (a length-0 prompt is unconditional generation) and
at most ``max_new_tokens`` tokens are generated. A sequence ends at its first eos, as the
papers' generations do (Hugging Face ``generate`` with ``eos_token_id`` set): the rest of the
batch keeps decoding, and the ids recorded for that sequence stop before the eos (the eos
itself is not recorded). For each prompt :func:`generate` returns ``{"ids": generated ids,
"logprobs": log p(token), "stopped_at_eos": bool}``, where ``logprobs`` is always the model's
untempered, unfiltered log-probability (log softmax of the raw logits) of the token, one per
recorded id. ``stop_at_eos=False`` generates exactly ``max_new_tokens`` tokens, eos included.

Methods (the keys of a ``sampling.decodings`` entry in src/copyscope/schema.yaml):

* ``{"kind": "sample", "temperature": t, "top_k": k | None, "top_p": p | None}`` — softmax of
  ``logits / t``, then only the ``k`` most likely tokens, then the smallest set of most likely
  tokens whose probability reaches ``p`` (the order of Hugging Face's warpers). Pure sampling
  is ``temperature 1`` with neither filter.
* ``{"kind": "greedy"}`` — the most likely token at every step.
* ``{"kind": "beam", "num_beams": b}`` — beam search on the raw log-probabilities (temperature
  0) without length normalisation, as ``generate(num_beams=b, length_penalty=0,
  early_stopping=False)``: hypotheses that end in eos are finished (scored with the eos
  log-probability), the best b that do not stay live, and the best finished hypothesis is
  returned (see :func:`_beam_batch`).

Sampling draws one uniform number per prompt and step from a ``torch.Generator`` seeded from
``(seed, prompt index)`` and inverts the cumulative distribution, so a prompt's sample depends
only on the seed and its position in ``prompts``, not on the batch size or the other prompts
(up to float rounding of the batched forward pass).

Model state is cached between steps through a small adapter: Hugging Face transformers use
left padding, an attention mask, explicit position ids and their ``past_key_values`` cache
(reordered with ``Cache.reorder_cache`` for beams); the LSTM uses right padding (packed) for
the prompt and then its ``(h, c)`` state.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import torch

from ..errors import ConfigError, InputError
from .models import LSTMForCausalLM, context_length
from .score import as_ids, check_ids, eval_mode, vocab_size_of

METHOD_KINDS = ("sample", "greedy", "beam")


def filter_logits(logits: torch.Tensor, temperature: float, top_k, top_p) -> torch.Tensor:
    """Tempered logits with everything outside top-k / top-p set to -inf (float32)."""
    scores = logits.float() / temperature
    vocab = scores.shape[-1]
    if top_k is not None and top_k < vocab:
        kth = torch.topk(scores, top_k, dim=-1).values[..., -1:]
        scores = scores.masked_fill(scores < kth, -math.inf)
    if top_p is not None and top_p < 1.0:
        sorted_scores, sorted_idx = torch.sort(scores, dim=-1, descending=True)
        probs = torch.softmax(sorted_scores, dim=-1)
        before = torch.cumsum(probs, dim=-1) - probs  # mass of strictly more likely tokens
        remove_sorted = before >= top_p  # the most likely token is always kept
        remove = torch.zeros_like(remove_sorted).scatter(-1, sorted_idx, remove_sorted)
        scores = scores.masked_fill(remove, -math.inf)
    return scores


def sample_from(scores: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
    """Inverse-CDF sampling: one token per row of ``scores`` for the uniform numbers given."""
    probs = torch.softmax(scores.double(), dim=-1)
    cdf = torch.cumsum(probs, dim=-1)
    target = (uniforms.double() * cdf[:, -1]).unsqueeze(-1)
    tok = torch.searchsorted(cdf, target, right=True).squeeze(-1)
    return tok.clamp_(max=scores.shape[-1] - 1)


def prompt_generators(seed: int, n: int) -> list[torch.Generator]:
    """One CPU torch.Generator per prompt, seeded from (seed, prompt index)."""
    gens = []
    for i in range(n):
        state = np.random.SeedSequence([int(seed) & (2**63 - 1), i]).generate_state(2, np.uint32)
        g = torch.Generator(device="cpu")
        g.manual_seed(int(state[0]) << 32 | int(state[1]))
        gens.append(g)
    return gens


# --------------------------------------------------------------------------- adapters
class _HFAdapter:
    """Transformers with a ``past_key_values`` cache: left padding + position ids."""

    def __init__(self, model, device):
        self.model = model
        self.device = device
        params = inspect.signature(model.forward).parameters
        self.use_positions = "position_ids" in params
        self.keep_last = "logits_to_keep" in params

    def _forward(self, ids, mask, positions, cache):
        kwargs = {"input_ids": ids, "attention_mask": mask, "use_cache": True}
        if cache is not None:
            kwargs["past_key_values"] = cache
        if self.use_positions:
            kwargs["position_ids"] = positions
        if self.keep_last:  # only the last position's logits are needed
            kwargs["logits_to_keep"] = 1
        out = self.model(**kwargs)
        return out.logits[:, -1], out.past_key_values

    def prefill(self, inputs: list[np.ndarray]):
        width = max(x.size for x in inputs)
        ids = np.zeros((len(inputs), width), dtype=np.int64)
        mask = np.zeros((len(inputs), width), dtype=np.int64)
        for r, x in enumerate(inputs):
            ids[r, width - x.size :] = x
            ids[r, : width - x.size] = x[0]
            mask[r, width - x.size :] = 1
        ids_t = torch.from_numpy(ids).to(self.device)
        mask_t = torch.from_numpy(mask).to(self.device)
        positions = (mask_t.cumsum(1) - 1).clamp_(min=0)
        logits, cache = self._forward(ids_t, mask_t, positions, None)
        return logits, {"cache": cache, "mask": mask_t, "pos": positions[:, -1]}

    def step(self, state, tokens: torch.Tensor):
        mask = torch.cat([state["mask"], state["mask"].new_ones(len(tokens), 1)], dim=1)
        pos = state["pos"] + 1
        logits, cache = self._forward(tokens[:, None], mask, pos[:, None], state["cache"])
        return logits, {"cache": cache, "mask": mask, "pos": pos}

    @staticmethod
    def select(state, index: torch.Tensor):
        cache = state["cache"]
        if hasattr(cache, "reorder_cache"):
            cache.reorder_cache(index)
        else:  # legacy tuple caches
            cache = tuple(tuple(t.index_select(0, index) for t in layer) for layer in cache)
        return {"cache": cache, "mask": state["mask"][index], "pos": state["pos"][index]}


class _LSTMAdapter:
    """The LSTM: right-padded (packed) prompts, then the (h, c) state."""

    def __init__(self, model, device):
        self.model = model
        self.device = device

    def prefill(self, inputs: list[np.ndarray]):
        width = max(x.size for x in inputs)
        ids = np.zeros((len(inputs), width), dtype=np.int64)
        mask = np.zeros((len(inputs), width), dtype=np.int64)
        for r, x in enumerate(inputs):
            ids[r, : x.size] = x
            ids[r, x.size :] = x[0]
            mask[r, : x.size] = 1
        ids_t = torch.from_numpy(ids).to(self.device)
        mask_t = torch.from_numpy(mask).to(self.device)
        out = self.model(input_ids=ids_t, attention_mask=mask_t, use_cache=True)
        last = mask_t.sum(1) - 1
        logits = out.logits[torch.arange(len(inputs), device=self.device), last]
        return logits, out.past_key_values

    def step(self, state, tokens: torch.Tensor):
        out = self.model(input_ids=tokens[:, None], past_key_values=state, use_cache=True)
        return out.logits[:, -1], out.past_key_values

    @staticmethod
    def select(state, index: torch.Tensor):
        return tuple(s.index_select(1, index) for s in state)


def _adapter(model, device):
    if isinstance(model, LSTMForCausalLM):
        return _LSTMAdapter(model, device)
    return _HFAdapter(model, device)


# --------------------------------------------------------------------------- decoding loops
Decoded = tuple[np.ndarray, np.ndarray, bool]
"""One decoded sequence: ids (int64), their log-probabilities (float64), stopped at eos."""


def _cut_at_eos(ids: torch.Tensor, lps: torch.Tensor, eos) -> list[Decoded]:
    """Each row of ``ids``/``lps`` up to (excluding) its first ``eos``; ``eos=None``: whole."""
    ids_np = ids.cpu().numpy().astype(np.int64)
    lps_np = lps.double().cpu().numpy()
    out = []
    for row, lp in zip(ids_np, lps_np, strict=True):
        hits = np.flatnonzero(row == eos) if eos is not None else np.zeros(0, np.int64)
        end = int(hits[0]) if hits.size else row.size
        out.append((row[:end].copy(), lp[:end].copy(), bool(hits.size)))
    return out


def _decode_batch(adapter, inputs, method, max_new_tokens, uniforms, eos) -> list[Decoded]:
    """The decoded sequences of one batch of eos-prefixed prompts; ``eos=None``: no stop."""
    n = len(inputs)
    logits, state = adapter.prefill(inputs)
    if method["kind"] == "beam":
        return _beam_batch(adapter, logits, state, n, method["num_beams"], max_new_tokens, eos)
    ids, lps = [], []
    done = torch.zeros(n, dtype=torch.bool, device=logits.device)
    for t in range(max_new_tokens):
        logp = torch.log_softmax(logits.float(), dim=-1)
        if method["kind"] == "greedy":
            tok = logits.argmax(dim=-1)
        else:
            scores = filter_logits(
                logits, method["temperature"], method.get("top_k"), method.get("top_p")
            )
            tok = sample_from(scores, uniforms[:, t].to(scores.device))
        ids.append(tok)
        lps.append(logp.gather(-1, tok[:, None])[:, 0])
        if eos is not None:
            done |= tok == eos
            if bool(done.all()):  # every sequence has ended: the rest would be cut anyway
                break
        if t + 1 < max_new_tokens:
            logits, state = adapter.step(state, tok)
    return _cut_at_eos(torch.stack(ids, dim=1), torch.stack(lps, dim=1), eos)


def _beam_batch(adapter, logits, state, n, beams, max_new_tokens, eos) -> list[Decoded]:
    """Beam search without length normalisation; the best hypothesis per prompt.

    The semantics of transformers' ``generate(num_beams=beams, length_penalty=0,
    early_stopping=False)`` (tests/lm/test_decode.py compares the two): at every step the
    ``2 * beams`` best one-token continuations of the live hypotheses are ranked by their total
    log-probability; those among the first ``beams`` that end in ``eos`` become finished
    hypotheses (their score includes the eos log-probability; the eos is not recorded), and the
    ``beams`` best that do not end in eos stay live. After ``max_new_tokens`` steps the first
    ``beams`` continuations are finished as they are. Of the finished hypotheses the ``beams``
    best are kept, and the best is returned. A prompt stops collecting once it holds ``beams``
    finished hypotheses and no live one scores higher than the worst of them (scores only
    fall); the batch stops when every prompt has. ``eos=None``: nothing ends early.
    """
    dev = logits.device
    vocab = logits.shape[-1]
    expand = torch.arange(n, device=dev).repeat_interleave(beams)
    state = adapter.select(state, expand)
    logits = logits[expand]
    scores = torch.zeros(n, beams, dtype=torch.float64, device=dev)
    scores[:, 1:] = -math.inf  # all beams start from the same prompt: keep one copy alive
    ids = torch.zeros(n * beams, 0, dtype=torch.long, device=dev)
    lps = torch.zeros(n * beams, 0, dtype=torch.float64, device=dev)
    base = torch.arange(n, device=dev)[:, None] * beams
    width = min(2 * beams, beams * vocab)
    finished: list[list[tuple[float, np.ndarray, np.ndarray, bool]]] = [[] for _ in range(n)]
    open_ = [True] * n
    for t in range(max_new_tokens):
        logp = torch.log_softmax(logits.float(), dim=-1).double()  # (n*beams, V)
        cand = (scores.reshape(-1, 1) + logp).reshape(n, beams * vocab)
        top, flat = torch.topk(cand, width, dim=-1)  # sorted, best first
        src = base + flat // vocab
        tok = flat % vocab
        ends = tok == eos if eos is not None else torch.zeros_like(tok, dtype=torch.bool)
        last = t + 1 == max_new_tokens
        closing = (ends[:, :beams] | last).nonzero().tolist()
        for i, j in closing:
            if not open_[i] or not math.isfinite(float(top[i, j])):
                continue
            row, stop = int(src[i, j]), bool(ends[i, j])
            seq, seq_lp = ids[row].cpu().numpy(), lps[row].cpu().numpy()
            if not stop:
                seq = np.append(seq, int(tok[i, j]))
                seq_lp = np.append(seq_lp, float(logp[row, tok[i, j]]))
            finished[i].append((float(top[i, j]), seq.astype(np.int64), seq_lp, stop))
            finished[i] = sorted(finished[i], key=lambda h: -h[0])[:beams]
        live = top.masked_fill(ends, -math.inf)
        scores, pick = torch.topk(live, beams, dim=-1)  # the best non-eos continuations
        sel_src = src.gather(1, pick).reshape(-1)
        sel_tok = tok.gather(1, pick).reshape(-1)
        ids = torch.cat([ids[sel_src], sel_tok[:, None]], dim=1)
        lps = torch.cat([lps[sel_src], logp[sel_src, sel_tok][:, None]], dim=1)
        for i in range(n):  # no live hypothesis can still enter the finished ones
            if open_[i] and len(finished[i]) == beams:
                open_[i] = float(scores[i, 0]) > finished[i][-1][0]
        if last or not any(open_):
            break
        state = adapter.select(state, sel_src)
        logits, state = adapter.step(state, sel_tok)
    return [(h[0][1], h[0][2], h[0][3]) for h in finished]


def generate(
    model,
    prompts: list[np.ndarray],
    method: dict,
    *,
    max_new_tokens: int,
    eos_id: int,
    seed: int,
    batch_size: int = 50,
    device="cpu",
    stop_at_eos: bool = True,
) -> list[dict]:
    """Continue every prompt by at most ``max_new_tokens`` tokens, each sequence ending at its
    first ``eos_id`` (exactly ``max_new_tokens``, eos included, with ``stop_at_eos=False``;
    see the module docstring).

    Returns one ``{"ids": int64 array, "logprobs": float64 array, "stopped_at_eos": bool}``
    per prompt, in order.
    ``method`` is a ``sampling.decodings`` entry as :func:`copyscope.config.validate` checks
    it (absent ``top_k`` / ``top_p`` mean no filter). ConfigError for an unknown method kind;
    InputError for a prompt whose ``len + max_new_tokens + 1`` exceeds the model's context
    length.
    """
    if method.get("kind") not in METHOD_KINDS:
        kinds = ", ".join(METHOD_KINDS)
        raise ConfigError("method.kind", f"expected one of {kinds}, found {method.get('kind')!r}")
    for key, value, low in (("max_new_tokens", max_new_tokens, 0), ("batch_size", batch_size, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(key, f"expected an integer >= {low}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ConfigError("seed", f"expected an integer, got {seed!r}")
    limit = context_length(model)
    vocab = vocab_size_of(model)
    inputs = []
    for i, p in enumerate(prompts):
        p = as_ids(p, "prompts", i)
        check_ids(p, vocab, "prompts", i)
        if limit is not None and p.size + max_new_tokens + 1 > limit:
            raise InputError(
                f"prompts[{i}]",
                f"prompt length {p.size} + max_new_tokens {max_new_tokens} + 1 (eos) = "
                f"{p.size + max_new_tokens + 1} exceeds the model's context length {limit}",
            )
        inputs.append(np.concatenate([[eos_id], p]).astype(np.int64))
    if max_new_tokens == 0:
        return [
            {"ids": np.zeros(0, np.int64), "logprobs": np.zeros(0), "stopped_at_eos": False}
            for _ in inputs
        ]
    eos = int(eos_id) if stop_at_eos else None

    uniforms = None
    if method["kind"] == "sample":
        uniforms = (
            torch.stack(
                [
                    torch.rand(max_new_tokens, generator=g, dtype=torch.float64)
                    for g in prompt_generators(int(seed), len(inputs))
                ]
            )
            if inputs
            else torch.zeros(0, max_new_tokens, dtype=torch.float64)
        )

    results: list[dict | None] = [None] * len(inputs)
    order = sorted(range(len(inputs)), key=lambda i: inputs[i].size)  # less padding
    with eval_mode(model, device) as dev, torch.inference_mode():
        adapter = _adapter(model, dev)
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            u = uniforms[idx] if uniforms is not None else None
            batch = [inputs[i] for i in idx]
            decoded = _decode_batch(adapter, batch, method, max_new_tokens, u, eos)
            for i, (ids, lps, stopped) in zip(idx, decoded, strict=True):
                results[i] = {"ids": ids, "logprobs": lps, "stopped_at_eos": stopped}
    return results
