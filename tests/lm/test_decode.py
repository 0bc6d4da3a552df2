"""copyscope's own decoding code against Hugging Face transformers.

copyscope decodes with its own loops (:mod:`copyscope.lm.decode`) so that sampling is seeded
per prompt and beams reorder the cache themselves. These tests pin that code to the reference
implementation: ``model.generate`` for greedy and beam search, without eos (every sequence runs
to the end) and with ``eos_token_id`` set (sequences end at eos), and the ``TopKLogitsWarper`` /
``TopPLogitsWarper`` (after ``TemperatureLogitsWarper``) for the sampling filters.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.generation.logits_process import (
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from copyscope.lm import generate
from copyscope.lm.decode import filter_logits

VOCAB = 64
EOS = 0
NEW = 12


def _config(**extra) -> GPT2Config:
    """The small GPT-2 of these tests: 2 layers, n_embd 32, vocabulary VOCAB, no dropout."""
    return GPT2Config(
        vocab_size=VOCAB,
        n_positions=64,
        n_embd=32,
        n_layer=2,
        n_head=4,
        bos_token_id=EOS,
        eos_token_id=EOS,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        **extra,
    )


@pytest.fixture(scope="module")
def gpt2():
    """A seeded random 2-layer GPT-2 (n_embd 32, vocab 64); embeddings of std 0.1 make the
    next-token distribution flat enough that beam search and greedy disagree."""
    torch.manual_seed(0)
    config = _config()
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        model.get_input_embeddings().weight.normal_(0.0, 0.1)
    return model.eval()


@pytest.fixture(scope="module")
def gpt2_eos():
    """A seeded random GPT-2 with an untied output layer whose eos row is scaled by 1.5, so eos
    is likely enough that greedy and beam search end sequences at many different points (and
    some sequences run to the end)."""
    torch.manual_seed(0)
    config = _config(tie_word_embeddings=False)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        model.get_input_embeddings().weight.normal_(0.0, 0.1)
        model.lm_head.weight.normal_(0.0, 0.1)
        model.lm_head.weight[EOS] *= 1.5
    return model.eval()


@pytest.fixture(scope="module")
def prompts():
    rng = np.random.default_rng(3)
    return [rng.integers(1, VOCAB, size=n).astype(np.int64) for n in (0, 1, 4, 9, 15)]


@pytest.fixture(scope="module")
def many_prompts():
    rng = np.random.default_rng(3)
    sizes = (0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 15, 20)
    return [rng.integers(1, VOCAB, size=n).astype(np.int64) for n in sizes]


def hf_generate(model, prompt: np.ndarray, num_beams: int, eos=None):
    """``model.generate`` configured to copyscope's semantics, one prompt at a time (no padding).

    copyscope prefixes every prompt with eos, ends a sequence at eos (or, with
    ``stop_at_eos=False``, never: exactly ``NEW`` tokens), and ranks beams by the plain sum of
    log-probabilities (no length normalisation). Here: the same eos-prefixed input,
    ``eos_token_id=eos`` (None: generation never ends early, so ``early_stopping`` has nothing
    to act on), ``length_penalty=0`` (score = sum of log-probabilities), ``early_stopping=False``
    (exact with length_penalty 0: scores only fall) and no logits processors (no repetition
    penalty, no forced or suppressed tokens).
    """
    ids = torch.as_tensor([[EOS, *prompt.tolist()]])
    out = model.generate(
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        do_sample=False,
        num_beams=num_beams,
        num_return_sequences=1,
        max_new_tokens=NEW,
        min_new_tokens=0,
        eos_token_id=eos,
        pad_token_id=EOS,
        length_penalty=0.0,
        early_stopping=False,
        repetition_penalty=1.0,
        return_dict_in_generate=True,
        output_scores=True,
    )
    return out


def until_eos(ids: list[int]) -> tuple[list[int], bool]:
    """``ids`` up to (excluding) the first eos, and whether there was one."""
    return (ids[: ids.index(EOS)], True) if EOS in ids else (ids, False)


def eos_logprob(model, prompt: np.ndarray, ids: np.ndarray) -> float:
    """log p(eos | eos, prompt, ids) under ``model``."""
    x = torch.as_tensor([[EOS, *prompt.tolist(), *ids.tolist()]])
    with torch.no_grad():
        return float(torch.log_softmax(model(input_ids=x).logits[0, -1].float(), -1)[EOS])


def test_greedy_equals_transformers_generate(gpt2, prompts):
    ours = generate(
        gpt2, prompts, {"kind": "greedy"}, max_new_tokens=NEW, eos_id=EOS, seed=0,
        stop_at_eos=False,
    )  # fmt: skip
    for p, o in zip(prompts, ours, strict=True):
        ref = hf_generate(gpt2, p, num_beams=1)
        assert o["ids"].tolist() == ref.sequences[0, p.size + 1 :].tolist()
        # greedy scores are the raw logits: copyscope's logprobs are their log-softmax
        lp = torch.stack([torch.log_softmax(s[0].float(), -1) for s in ref.scores])
        expect = lp[torch.arange(NEW), torch.as_tensor(o["ids"])].numpy()
        np.testing.assert_allclose(o["logprobs"], expect, atol=1e-4)


@pytest.mark.parametrize("beams", [2, 4])
def test_beam_equals_transformers_generate(gpt2, prompts, beams):
    """Same best beam as ``generate(num_beams=b)``; with no eos and ``length_penalty=0`` both
    rank hypotheses by the sum of token log-probabilities, which ``sequences_scores`` reports.
    (With eos: :func:`test_beam_with_eos_equals_transformers_generate`.)
    """
    kw = {"max_new_tokens": NEW, "eos_id": EOS, "seed": 0, "stop_at_eos": False}
    ours = generate(gpt2, prompts, {"kind": "beam", "num_beams": beams}, batch_size=3, **kw)
    greedy = generate(gpt2, prompts, {"kind": "greedy"}, **kw)
    differs = 0
    for p, o, g in zip(prompts, ours, greedy, strict=True):
        ref = hf_generate(gpt2, p, num_beams=beams)
        assert o["ids"].tolist() == ref.sequences[0, p.size + 1 :].tolist()
        assert o["logprobs"].sum() == pytest.approx(float(ref.sequences_scores[0]), abs=1e-4)
        differs += o["ids"].tolist() != g["ids"].tolist()
    assert differs > 0  # the comparison is not merely greedy against greedy


def test_greedy_with_eos_equals_transformers_generate(gpt2_eos, many_prompts):
    """With eos: copyscope's ids are generate()'s up to (excluding) the first eos."""
    ours = generate(
        gpt2_eos, many_prompts, {"kind": "greedy"}, max_new_tokens=NEW, eos_id=EOS, seed=0,
        batch_size=5,
    )  # fmt: skip
    stops = []
    for p, o in zip(many_prompts, ours, strict=True):
        ref = hf_generate(gpt2_eos, p, num_beams=1, eos=EOS)
        ids, stopped = until_eos(ref.sequences[0, p.size + 1 :].tolist())
        assert o["ids"].tolist() == ids and o["stopped_at_eos"] == stopped
        assert o["logprobs"].shape == o["ids"].shape
        lp = [torch.log_softmax(s[0].float(), -1) for s in ref.scores[: len(ids)]]
        expect = [float(row[t]) for row, t in zip(lp, ids, strict=True)]
        np.testing.assert_allclose(o["logprobs"], expect, atol=1e-4)
        stops.append(len(ids) if stopped else None)
    # not vacuous: sequences end at several points, and some run to the end
    assert None in stops and len({s for s in stops if s is not None}) >= 3


@pytest.mark.parametrize("beams", [2, 4])
def test_beam_with_eos_equals_transformers_generate(gpt2_eos, many_prompts, beams):
    """With eos: the same best hypothesis as ``generate(num_beams=b, eos_token_id=eos,
    length_penalty=0, early_stopping=False)`` (hypotheses finish at eos; the best finished one
    wins), its ids up to the eos, and its score (``sequences_scores``, eos log-prob included)."""
    ours = generate(
        gpt2_eos, many_prompts, {"kind": "beam", "num_beams": beams}, max_new_tokens=NEW,
        eos_id=EOS, seed=0, batch_size=5,
    )  # fmt: skip
    greedy = generate(gpt2_eos, many_prompts, {"kind": "greedy"}, max_new_tokens=NEW, eos_id=EOS,
                      seed=0)  # fmt: skip
    stopped, running, differs = 0, 0, 0
    for p, o, g in zip(many_prompts, ours, greedy, strict=True):
        ref = hf_generate(gpt2_eos, p, num_beams=beams, eos=EOS)
        ids, stop = until_eos(ref.sequences[0, p.size + 1 :].tolist())
        assert o["ids"].tolist() == ids and o["stopped_at_eos"] == stop
        score = o["logprobs"].sum() + (eos_logprob(gpt2_eos, p, o["ids"]) if stop else 0.0)
        assert score == pytest.approx(float(ref.sequences_scores[0]), abs=1e-4)
        stopped += stop and 0 < len(ids)
        running += not stop
        differs += o["ids"].tolist() != g["ids"].tolist()
    assert stopped > 0 and running > 0 and differs > 0


def _hf_filter(logits, temperature, top_k, top_p):
    """Hugging Face's warpers in generate()'s order: temperature, top-k, top-p."""
    scores = logits.clone()
    warpers = [TemperatureLogitsWarper(temperature)]
    if top_k is not None:
        warpers.append(TopKLogitsWarper(top_k))
    if top_p is not None:
        warpers.append(TopPLogitsWarper(top_p))
    ids = torch.zeros(len(logits), 1, dtype=torch.long)
    for w in warpers:
        scores = w(ids, scores)
    return scores


SETTINGS = [
    (1.0, 1, None),
    (1.0, 5, None),
    (1.0, 63, None),
    (1.0, None, 0.1),
    (1.0, None, 0.5),
    (1.0, None, 0.9),
    (1.0, None, 0.99),
    (0.7, 10, 0.9),
    (1.5, 20, 0.5),
    (0.5, None, 0.95),
]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("temperature, top_k, top_p", SETTINGS)
def test_filters_equal_transformers_warpers(seed, temperature, top_k, top_p):
    g = torch.Generator().manual_seed(seed)
    # rows of different sharpness: flat, ordinary and peaked distributions
    logits = torch.randn(6, VOCAB, generator=g) * torch.tensor([[0.1], [1], [2], [3], [5], [8]])
    ours = filter_logits(logits, temperature, top_k, top_p)
    ref = _hf_filter(logits, temperature, top_k, top_p)
    kept = torch.isfinite(ours)
    assert torch.equal(kept, torch.isfinite(ref))
    torch.testing.assert_close(ours[kept], ref[kept].float())
    assert kept.sum(-1).min() >= 1
    if top_k is not None:
        assert (kept.sum(-1) <= top_k).all()
    if top_p is not None and top_k is None:  # some row must be cut, else the test is vacuous
        assert (kept.sum(-1) < VOCAB).any()
