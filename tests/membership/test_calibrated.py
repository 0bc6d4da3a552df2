"""The calibrated membership detectors: Min-K%++ (Zhang, Sun, Yeats et al. 2024) and DC-PDD
(Zhang, Zhang, Guo et al. 2024). Hand-worked examples of each authors' definition on tiny
vocabularies, a planted-vs-clean known answer each must separate (where the loss does not),
the next-token moments from the model's forward pass, and the membership stage with and
without the training index."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from copyscope.lm.score import token_logprobs, token_moments
from copyscope.membership import evaluate, scores, stage
from support.index import stream_of
from support.models import full_logits, make_tokenizer, tiny_model

LN2 = math.log(2)

# ---------------------------------------------------------------- Min-K%++, worked by hand
# Two next-token distributions, log-probabilities in units of ln 2:
#   B = (1/2, 1/4, 1/4):       log p = -ln2 (1, 2, 2)
#       μ_B = -ln2 (1/2·1 + 1/4·2 + 1/4·2) = -1.5 ln2
#       σ_B² = ln2² (1/2·0.5² + 1/4·0.5² + 1/4·0.5²) = 0.25 ln2²,  σ_B = 0.5 ln2
#   A = (1/2, 1/4, 1/8, 1/8):  log p = -ln2 (1, 2, 3, 3)
#       μ_A = -ln2 (0.5 + 0.5 + 0.375 + 0.375) = -1.75 ln2
#       σ_A² = ln2² (1/2·0.75² + 1/4·0.25² + 2·1/8·1.25²)
#            = ln2² (0.28125 + 0.015625 + 0.390625) = 0.6875 ln2²,  σ_A = √0.6875 ln2
# A text of four tokens:
#   t1 under B, its token of p 1/2:  z = (-1 + 1.5) / 0.5 = 1
#   t2 under B, its token of p 1/4:  z = (-2 + 1.5) / 0.5 = -1
#   t3 under A, its token of p 1/8:  z = (-3 + 1.75) / √0.6875 = -1.5075567
#   t4 under A, its token of p 1/2:  z = (-1 + 1.75) / √0.6875 = 0.9045340
# sorted z: -1.5075567, -1, 0.9045340, 1
MKPP_LP = -LN2 * np.array([1.0, 2.0, 3.0, 1.0])
MKPP_MU = -LN2 * np.array([1.5, 1.5, 1.75, 1.75])
MKPP_VAR = LN2**2 * np.array([0.25, 0.25, 0.6875, 0.6875])


@pytest.mark.parametrize(
    "k, expected",
    [
        (10, -1.5075567),  # floor(0.4) = 0 tokens -> guarded to the lowest z alone
        (25, -1.5075567),  # 1 token
        (50, (-1.5075567 - 1) / 2),  # 2 tokens: -1.2537784
        (100, (-1.5075567 - 1 + 0.9045340 + 1) / 4),  # all four: -0.1507557
    ],
)
def test_min_k_plus_plus_hand_worked(k, expected):
    assert scores.min_k_plus_plus(MKPP_LP, MKPP_MU, MKPP_VAR, k) == pytest.approx(expected)


def test_min_k_plus_plus_point_mass_and_bad_input():
    # a position of one certain token: log p = μ = 0, σ = 0 -> z = 0 (not 0/0)
    assert scores.min_k_plus_plus([0.0, -LN2], [0.0, -LN2], [0.0, 0.0], 100) == 0.0
    with pytest.raises(ValueError, match="one mean and one variance per token"):
        scores.min_k_plus_plus(MKPP_LP, MKPP_MU[:3], MKPP_VAR, 20)
    with pytest.raises(ValueError, match="variances >= 0"):
        scores.min_k_plus_plus(MKPP_LP, MKPP_MU, -MKPP_VAR, 20)
    with pytest.raises(ValueError, match="percentage"):
        scores.min_k_plus_plus(MKPP_LP, MKPP_MU, MKPP_VAR, 0)


# ------------------------------------------------------------------ DC-PDD, worked by hand
# A reference corpus over the ids 0..3 with counts (5, 1, 2, 0): N = 8 tokens, |V| = 4, so the
# Laplace-smoothed frequencies f = (c + 1) / (N + |V|) = (6, 2, 3, 1) / 12.
# The text's ids (3, 1, 3, 2) with model probabilities (1/2, 1/4, 4/5, 1/10); the first
# occurrences are positions 0 (id 3), 1 (id 1) and 3 (id 2): the repeated id 3 at position 2
# is left out, whatever its probability.
#   α_0 = -(1/2)  ln(1/12) = 0.5  · 2.4849066 = 1.2424533
#   α_1 = -(1/4)  ln(2/12) = 0.25 · 1.7917595 = 0.4479399
#   α_3 = -(1/10) ln(3/12) = 0.1  · 1.3862944 = 0.1386294
COUNTS = np.array([5, 1, 2, 0])
DC_IDS = np.array([3, 1, 3, 2])
DC_LP = np.log([1 / 2, 1 / 4, 4 / 5, 1 / 10])


def test_laplace_frequencies_hand_worked():
    f = scores.laplace_frequencies(COUNTS, 8, 4)
    np.testing.assert_allclose(f, np.array([6, 2, 3, 1]) / 12)
    assert f.sum() == pytest.approx(1.0)  # the counts cover the corpus: a distribution
    with pytest.raises(ValueError, match="counts in"):
        scores.laplace_frequencies([9], 8, 4)


@pytest.mark.parametrize(
    "a, expected",
    [
        (10.0, (1.2424533 + 0.4479399 + 0.1386294) / 3),  # no term reaches a: 0.6096742
        (0.5, (0.5 + 0.4479399 + 0.1386294) / 3),  # α_0 capped at 0.5: 0.3621898
        (0.01, 0.01),  # the authors' default: every term capped
    ],
)
def test_dc_pdd_hand_worked(a, expected):
    f = scores.laplace_frequencies(COUNTS, 8, 4)[DC_IDS]
    assert scores.dc_pdd(DC_LP, DC_IDS, f, a) == pytest.approx(expected)


def test_dc_pdd_counts_first_occurrences_only_and_rejects_bad_input():
    f = scores.laplace_frequencies(COUNTS, 8, 4)[DC_IDS]
    changed = DC_LP.copy()
    changed[2] = math.log(1e-6)  # the repeat of id 3: not in the first-occurrence set
    assert scores.dc_pdd(changed, DC_IDS, f, 10.0) == scores.dc_pdd(DC_LP, DC_IDS, f, 10.0)
    with pytest.raises(ValueError, match="one id and one frequency per token"):
        scores.dc_pdd(DC_LP, DC_IDS[:3], f, 1.0)
    with pytest.raises(ValueError, match=r"frequencies in \(0, 1\]"):
        scores.dc_pdd(DC_LP, DC_IDS, np.zeros(4), 1.0)
    with pytest.raises(ValueError, match="upper bound"):
        scores.dc_pdd(DC_LP, DC_IDS, f, 0.0)


def test_text_scores_add_the_calibrated_detectors_only_with_their_inputs():
    f = scores.laplace_frequencies(COUNTS, 8, 4)[DC_IDS]
    full = scores.text_scores(
        DC_LP,
        "abc",
        lowercase_logprobs=[-1.0],
        moments=(MKPP_MU, MKPP_VAR),
        ids=DC_IDS,
        frequencies=f,
    )
    assert set(full) == set(scores.MEMBER_SIGN) - {"reference"}
    assert full["min_k_pp_50"] == pytest.approx(
        scores.min_k_plus_plus(DC_LP, MKPP_MU, MKPP_VAR, 50)
    )
    assert full["dc_pdd"] == pytest.approx(scores.dc_pdd(DC_LP, DC_IDS, f))
    bare = scores.text_scores(DC_LP, "abc")
    assert not set(bare) & set(scores.NEEDS)
    assert set(scores.NEEDS) <= set(scores.MEMBER_SIGN)
    assert {"min_k_pp_20", "dc_pdd"} <= set(scores.HEADLINE) <= set(scores.MEMBER_SIGN)


# ------------------------------------------------------------------------ known answers
def _auc(values, labels, det):
    return evaluate.detector_metrics(scores.MEMBER_SIGN[det] * np.asarray(values), labels)["auc"]


def _moments(logp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.exp(logp)
    mu = (p * logp).sum(-1)
    return mu, (p * (logp - mu[:, None]) ** 2).sum(-1)


def test_min_k_plus_plus_separates_planted_text_the_loss_gets_backwards():
    """Planted texts: every token is the mode of a flat (high-entropy) next-token
    distribution, so its log-probability is low but the highest on offer; clean texts: tokens
    drawn from peaked distributions, so their log-probabilities are high but, at a sampled
    token, typical. The loss ranks the clean texts as members; Min-K%++ must separate."""
    rng = np.random.default_rng(0)
    vocab, n_tok, n_texts = 40, 30, 40
    rows, labels = [], []
    for member in (1, 0):
        for _ in range(n_texts):
            scale = 0.5 if member else 4.0  # flat vs peaked distributions
            logits = rng.normal(0.0, scale, (n_tok, vocab))
            logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
            if member:
                tok = logp.argmax(-1)
            else:
                tok = np.array([rng.choice(vocab, p=np.exp(row)) for row in logp])
            lp = logp[np.arange(n_tok), tok]
            mu, var = _moments(logp)
            rows.append(scores.text_scores(lp, "x", moments=(mu, var)))
            labels.append(member)
    frame, y = pd.DataFrame(rows), np.array(labels)
    assert _auc(frame["loss"], y, "loss") < 0.1  # backwards: clean text looks familiar
    assert _auc(frame["min_k_20"], y, "min_k_20") < 0.5
    for k in scores.KS:
        assert _auc(frame[f"min_k_pp_{k}"], y, f"min_k_pp_{k}") > 0.95


def test_dc_pdd_separates_planted_text_by_its_rare_tokens():
    """A Zipfian reference corpus over 500 ids; every text draws its 40 tokens from it. The
    model gives a common token (among the 50 most frequent) probability U(0.2, 0.9) whether
    it saw the text or not; a rare token U(0.2, 0.9) in a planted text (memorised) and
    U(1e-5, 1e-3) in a clean one. DC-PDD (the authors' a = 0.01) must separate; the loss,
    dominated by the common tokens, separates less."""
    rng = np.random.default_rng(1)
    vocab = 500
    zipf = 1 / np.arange(1, vocab + 1)
    counts = np.round(1e5 * zipf / zipf.sum()).astype(int)
    freq = scores.laplace_frequencies(counts, int(counts.sum()), vocab)
    rows, labels = [], []
    for member in (1, 0):
        for _ in range(40):
            ids = rng.choice(vocab, size=40, p=zipf / zipf.sum())
            p = rng.uniform(0.2, 0.9, ids.size)
            rare = ids >= 50
            if not member:
                p[rare] = rng.uniform(1e-5, 1e-3, rare.sum())
            rows.append(scores.text_scores(np.log(p), "x", ids=ids, frequencies=freq[ids]))
            labels.append(member)
    frame, y = pd.DataFrame(rows), np.array(labels)
    assert _auc(frame["dc_pdd"], y, "dc_pdd") > 0.95
    assert _auc(frame["dc_pdd"], y, "dc_pdd") >= _auc(frame["min_k_50"], y, "min_k_50")


# ----------------------------------------------------------- the model's next-token moments
@pytest.mark.parametrize("kind", ["gpt2", "lstm"])
def test_token_moments_are_the_full_distributions_mean_and_variance(kind):
    model = tiny_model(kind)
    seqs = [np.array([3, 7, 1, 9, 2]), np.array([5]), np.array([4, 4, 8])]
    got = token_moments(model, seqs, eos_id=0, batch_size=2)
    plain = token_logprobs(model, seqs, eos_id=0, batch_size=2)
    for seq, (lp, mu, var), want in zip(seqs, got, plain, strict=True):
        np.testing.assert_array_equal(lp, want)  # the same log-probabilities, bit for bit
        ids = np.concatenate([[0], seq])
        logp = full_logits(model, ids).log_softmax(-1)[:-1].double().numpy()
        p = np.exp(logp)
        brute_mu = (p * logp).sum(-1)
        brute_var = (p * logp**2).sum(-1) - brute_mu**2  # the authors' form
        np.testing.assert_allclose(mu, brute_mu, atol=1e-5)
        np.testing.assert_allclose(var, brute_var, atol=1e-4)
        assert (var > 0).all() and (mu < 0).all()
    tail = token_moments(model, seqs[:1], eos_id=0, first=[2])[0]
    for a, b in zip(tail, got[0], strict=True):
        np.testing.assert_allclose(a, b[2:], atol=1e-5)


def test_moments_of_a_hand_worked_distribution():
    import torch

    from copyscope.lm.score import _moments

    logp = torch.log(torch.tensor([[1 / 2, 1 / 4, 1 / 8, 1 / 8], [1.0, 0.0, 0.0, 0.0]]))
    mean, var = _moments(logp.double())
    # distribution A of the Min-K%++ example; a point mass (log 0 = -inf): mean 0, variance 0
    np.testing.assert_allclose(mean.numpy(), [-1.75 * LN2, 0.0], atol=1e-7)
    np.testing.assert_allclose(var.numpy(), [0.6875 * LN2**2, 0.0], atol=1e-7)


# ---------------------------------------------------------------- the membership stage
@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    from transformers import PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return PreTrainedTokenizerFast.from_pretrained(str(path))


TEXTS = [
    {"set": "contamination", "id": "b0", "planted": 1, "copies": 1, "text": "w1 w2 w3 w1"},
    {"set": "contamination", "id": "b1", "planted": 0, "copies": 0, "text": "w7 w8 w9"},
    {"set": "memorised", "id": "m0", "planted": 1, "copies": 1, "text": "w2 w2 w5"},
    {"set": "clean", "id": "c0", "planted": 0, "copies": 0, "text": "w30 w31 w4"},
]


def test_membership_scores_with_the_training_index(tok, tmp_path):
    from copyscope.index import build_index
    from copyscope.index import open as open_index

    # training documents in the tokenizer's ids (w<i> is id i): id 1 ×3, 2 ×2, 3 ×1, 9 ×1
    build_index(stream_of([[1, 2, 3], [1, 1, 2, 9]]), tmp_path / "index")
    index = open_index(tmp_path / "index")
    assert stage.index_tokens(index) == 7  # 9 stream tokens minus 2 separators
    model = tiny_model("gpt2")
    rows = stage.membership_scores(model, tok, TEXTS, li_words=64, seed=0, index=index)
    ids = np.array([1, 2, 3, 1])
    lp, mu, var = token_moments(model, [ids], eos_id=0)[0]
    f = (np.array([3, 2, 1, 3]) + 1) / (7 + 50)  # Laplace over the model's 50 ids
    assert rows[0]["dc_pdd"] == pytest.approx(scores.dc_pdd(lp, ids, f))
    assert rows[0]["min_k_pp_20"] == pytest.approx(scores.min_k_plus_plus(lp, mu, var, 20))
    for r in rows:
        assert r["absent"] == ""
        assert all(np.isfinite(r[k]) for k in scores.MEMBER_SIGN if k != "reference")
    # the existing scores do not depend on the new inputs
    bare = stage.membership_scores(model, tok, TEXTS, li_words=64, seed=0)
    for a, b in zip(rows, bare, strict=True):
        for k in ("loss", "min_k_20", "zlib_carlini", "lowercase", "li_nll", "min_k_pp_20"):
            assert a[k] == b[k]


def test_dc_pdd_absent_without_an_index_or_with_another_vocabulary(tok, tmp_path, caplog):
    from copyscope.index import build_index
    from copyscope.index import open as open_index

    model = tiny_model("gpt2")
    rows = stage.membership_scores(model, tok, TEXTS, li_words=64, seed=0)
    assert all("dc_pdd" not in r for r in rows)
    assert all(r["absent"].startswith("dc_pdd: no training index") for r in rows)
    assert "no training index" in caplog.text
    # an index that records another tokenizer's fingerprint: its counts are of other ids, so
    # DC-PDD is absent with the reason, not computed from wrong frequencies
    other = {"tokenizer_sha256": "0" * 64}
    build_index(stream_of([[1, 2, 3], [4, 5]]), tmp_path / "other", extra=other)
    rows = stage.membership_scores(
        model, tok, TEXTS, li_words=64, seed=0, index=open_index(tmp_path / "other")
    )
    assert all("dc_pdd" not in r for r in rows)
    assert all("built with another tokenizer (fingerprint 000000000000" in r["absent"]
               for r in rows)  # fmt: skip
    assert all(np.isfinite(r["min_k_pp_20"]) for r in rows)
    # the index of this very tokenizer: its fingerprint matches, DC-PDD is there
    from copyscope.tokenize.hf import backend_fingerprint

    same = {"tokenizer_sha256": backend_fingerprint(tok.backend_tokenizer)}
    build_index(stream_of([[1, 2, 3], [4, 5]]), tmp_path / "same", extra=same)
    rows = stage.membership_scores(
        model, tok, TEXTS, li_words=64, seed=0, index=open_index(tmp_path / "same")
    )
    assert all(r["absent"] == "" and np.isfinite(r["dc_pdd"]) for r in rows)
