"""Power on known positives: the copier set's copied share is recovered exactly by the index,
the copier is found less novel than human text, the ladder resampled, the power table and its
figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_calibration import PARAMS as CAL_PARAMS
from test_calibration import (
    SYNTAX,
    cloze_items,
    contamination_texts,
    creativity_words,
    data,
    ladder_results,
    tagged_texts,
)

from copyscope.index import Index, build_index
from copyscope.report import findings as F
from copyscope.report import power as P
from support.index import stream_of

PARAMS = {
    **CAL_PARAMS,
    "findings": {
        **CAL_PARAMS["findings"],
        "power": {"draws": 10, "seed": 0, "sizes": [5, 10], "copier_shares": [0.1, 0.5],
                  "copier_span": 8, "target": 0.8},
    },
}  # fmt: skip


def corpus(tmp_path, rng, docs=20, length=400, vocab=5000):
    documents = [rng.integers(0, vocab, size=length) for _ in range(docs)]
    build_index(stream_of(documents), tmp_path / "idx")
    return documents, Index(tmp_path / "idx")


def test_the_copied_share_is_recovered_exactly(tmp_path):
    rng = np.random.default_rng(0)
    documents, index = corpus(tmp_path, rng)
    # fresh continuations from ids the corpus never uses: no token of them is in training
    conts = [rng.integers(6000, 9000, size=40) for _ in range(25)]  # 5 slots of 8 each
    texts, masks = P.copier_set(conts, documents, 0.3, 8, np.random.default_rng(1))
    assert sum(m.sum() for m in masks) == round(0.3 * 25 * 5) * 8
    m = index.longest_matches(texts)
    for i, mask in enumerate(masks):
        L, _ = m[i]
        assert (L[~mask] == 0).all()  # fresh tokens are novel
        for s in np.flatnonzero(mask[::8]) * 8:  # each copied slot: L grows 1..8 inside it
            assert (L[s : s + 8] >= np.arange(1, 9)).all()
            assert L[s + 7] >= 8
        assert all((t[~k] == c[~k]).all() for t, c, k in zip(texts, conts, masks, strict=True))


def human_tokens_with_ids(rng, windows=40, length=40):
    rows = []
    for w in range(windows):
        ids = rng.integers(6000, 9000, size=length)
        rows.append(pd.DataFrame({"text": w, "window": w, "prompt_length": 8,
                                  "t": range(length), "id": ids, "L": 0}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def test_the_copier_is_less_novel_than_human_text(tmp_path):
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    copier = P.Copier(d, index, PARAMS, seed=0)
    assert copier.max_size == 20 and set(copier.sets) == {0.1, 0.5}
    build = P.copier_vs_human(copier, 0.5)
    tables = build(np.random.default_rng(0), d, PARAMS, 20)
    f = F.CLAIMS["pure-more-novel-than-validation"](tables, PARAMS)
    assert f.verdict == F.FAILS, f.measured  # the right verdict on this positive
    r = P.power_at("pure-more-novel-than-validation", build, F.FAILS, d, PARAMS, 10, 10, 0)
    assert r["power"] == 1.0 and r["draws"] == 10


def test_the_ladder_resampled_keeps_its_rungs():
    frame = ladder_results(per=6)
    tables = P.ladder_resample(np.random.default_rng(0), data(extraction=frame), PARAMS, 4)
    mem = tables["memorization"]
    assert sorted(mem["copies"]) == [0, 1, 16, 256] and (mem["n"] == 4).all()


def test_the_contamination_set_resampled_finds_the_planted_items():
    texts = contamination_texts(n=60, effect=0.6)
    tables = P.contamination_resample(np.random.default_rng(0), data(membership=texts), PARAMS, 7)
    d = tables["membership_nll_delta"].set_index("contrast")
    assert d.at["unplanted - planted", "n_a"] == d.at["unplanted - planted", "n_b"] == 7
    big = P.power_at("benchmark-placement", P.contamination_resample, F.HOLDS,
                     data(membership=texts), PARAMS, 30, 10, 0)  # fmt: skip
    # a control: unplanted items with exactly the planted items' NLLs
    same = texts.assign(li_nll=np.tile(texts["li_nll"].to_numpy()[:30], 2))
    none = P.power_at("benchmark-placement", P.contamination_resample, F.HOLDS,
                      data(membership=same), PARAMS, 30, 20, 0)  # fmt: skip
    assert big["power"] >= 0.9 and none["power"] <= 0.15


def test_the_power_table_and_the_size_for_power(tmp_path):
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng), extraction=ladder_results())
    table = P.power_table(d, index, PARAMS)
    assert list(table.columns) == P.COLUMNS
    assert set(table["positive"]) == {"copier 10%", "copier 50%", "copier 10% vs 50%",
                                      "planted ladder"}  # fmt: skip
    assert sorted(set(table.loc[table["positive"] == "planted ladder", "size"])) == [5, 10, 20]
    assert set(table.loc[table["positive"] == "planted ladder", "observed"]) == {20}
    assert ((table["power"] >= 0) & (table["power"] <= 1)).all()
    sizes = P.size_for_power(pd.DataFrame(
        [("c", "p", 5, 0.5), ("c", "p", 10, 0.85), ("c", "p", 20, 0.9), ("d", "q", 5, 0.1)],
        columns=["claim", "positive", "size", "power"]))  # fmt: skip
    assert sizes["size_for_power"].iloc[0] == 10 and np.isnan(sizes["size_for_power"].iloc[1])
    P.fig.power(table, 0.8, tmp_path / "power.png")
    import matplotlib.image

    img = matplotlib.image.imread(tmp_path / "power.png")
    assert img.shape[1] > img.shape[0] * 0.8 and img[..., :3].std() > 0.05  # drawn, not blank


def test_the_ladder_is_projected_beyond_the_runs_own_size():
    d = data(extraction=ladder_results(per=6))
    params = {**PARAMS, "findings": {**PARAMS["findings"],
              "power": {**PARAMS["findings"]["power"], "sizes": [4, 12]}}}  # fmt: skip
    table = P.power_table(d, None, params)
    assert table["size"].tolist() == [4, 6, 12] and (table["observed"] == 6).all()
    # the scorecard's column: the run's own size, and the projected size reaching 0.8
    fake = table.assign(power=[0.2, 0.5, 0.9])
    text = F.power_column(["extraction-duplication"], fake).iloc[0]
    assert text == "planted ladder: 0.5 at 6; 0.8 from 12 (projected)"
    # no projected size reaches it: said, so a reader does not take more passages as the fix
    flat = table.assign(power=[0.0, 0.0, 0.1])
    text = F.power_column(["extraction-duplication"], flat).iloc[0]
    assert text == "planted ladder: 0 at 6; below 0.8 even at 12 (projected)"
    # the run's own size is the largest: nothing projected, nothing said
    own = table[table["size"] <= 6].assign(power=[0.0, 0.1])
    assert F.power_column(["extraction-duplication"], own).iloc[0] == "planted ladder: 0.1 at 6"


def test_the_excerpt_plays_resampled_as_whole_plays():
    cloze = cloze_items()
    # the excerpt rule's sides: 2 plays at the highest copy count (16), 12 held-out plays
    assert P.excerpt_plays(cloze) == 2
    assert P.excerpt_plays(cloze[cloze["split"] != "valid"]) == 0  # no held-out side
    tables = P.excerpt_resample(np.random.default_rng(0), data(cloze=cloze), PARAMS, 9)
    t = tables["membership_cloze_excerpts"].set_index(["model", "group"])
    assert (t.xs("held-out", level="group")["plays"] == 12).all()  # the run's own held-out
    assert (t.xs("excerpt", level="group")["copies"] == 16).all()
    assert (t.xs("excerpt-pooled", level="group")["plays"] == 9).all()
    # the planted effect is found at a size above the run's own; a control without it is not
    strong = P.power_at("cloze-excerpts", P.excerpt_resample, F.HOLDS, data(cloze=cloze),
                        PARAMS, 16, 10, 0)  # fmt: skip
    flat = cloze.assign(correct_insensitive=np.where(cloze["split"] == "excerpt", 0,
                                                     cloze["correct_insensitive"]))  # fmt: skip
    none = P.power_at("cloze-excerpts", P.excerpt_resample, F.HOLDS, data(cloze=flat),
                      PARAMS, 16, 10, 0)  # fmt: skip
    assert strong["power"] >= 0.8 and none["power"] == 0.0
    # no excerpt positive without excerpt plays
    assert P.excerpt_plays(cloze[cloze["split"] != "excerpt"]) == 0
    table = P.power_table(data(cloze=cloze), None, PARAMS)
    table = table[table["positive"] != "training plays"]
    assert set(table["positive"]) == {"planted excerpt plays (highest copies)"}
    assert table["size"].tolist() == [2, 5, 10] and (table["observed"] == 2).all()


def test_the_training_plays_resampled_as_whole_plays():
    """Chang et al.'s positive: k training plays (trained on, answered more often) against
    the run's held-out plays, by the training-plays rule's whole-play permutation test."""
    cloze = cloze_items()
    assert P.excerpt_plays(cloze, P._training_groups) == 12
    tables = P.training_resample(np.random.default_rng(0), data(cloze=cloze), PARAMS, 5)
    t = tables["membership_cloze_excerpts"].set_index(["model", "group"])
    assert (t.xs("train", level="group")["plays"] == 5).all()
    assert (t.xs("held-out", level="group")["plays"] == 12).all()
    strong = P.power_at("cloze-training-plays", P.training_resample, F.HOLDS, data(cloze=cloze),
                        PARAMS, 10, 10, 0)  # fmt: skip
    flat = cloze.assign(correct_insensitive=np.where(cloze["split"] == "train", 0,
                                                     cloze["correct_insensitive"]))  # fmt: skip
    none = P.power_at("cloze-training-plays", P.training_resample, F.HOLDS, data(cloze=flat),
                      PARAMS, 10, 10, 0)  # fmt: skip
    assert strong["power"] >= 0.8 and none["power"] == 0.0
    table = P.power_table(data(cloze=cloze), None, PARAMS)
    rows = table[table["positive"] == "training plays"]
    assert set(rows["claim"]) == {"cloze-training-plays"} and (rows["observed"] == 12).all()


def test_the_templater_repeats_one_span_in_a_share_of_the_texts():
    texts = tagged_texts(10)
    span = [("a", "X"), ("b", "Y"), ("c", "Z")]
    out = P.templated(texts, 0.3, span, np.random.default_rng(0))
    assert sum(t[-1] == span for t in out) == 3 and texts == tagged_texts(10)  # copies
    assert sum(len(t) for t in out) == sum(len(t) for t in texts) + 3


def test_the_templater_is_found_more_templated():
    """Shaib et al.'s positive: greedy samples whose texts repeat one span of human text in
    half of them have a higher template rate than the other half of the human text; with a
    share of 0 (nothing repeated) the rule finds no difference."""
    params = {**PARAMS, "analysis": {**PARAMS["analysis"], "syntax": {**SYNTAX, "bootstrap": 100}}}
    d = data(human_texts=tagged_texts(120, tags="ABCDEFGHIJKLMNOP"))
    templater = P.Templater(d, params, 0)
    assert templater.max_size == 60
    tables = P.templater_vs_human(templater, 0.5)(np.random.default_rng(0), d, params, 40)
    t = tables["templates"]
    assert list(t["decoding"].unique()) == ["greedy", "reference"] and (t["texts"] == 40).all()
    strong = P.power_at("more-templates", P.templater_vs_human(templater, 0.5), F.HOLDS, d,
                        params, 40, 10, 0)  # fmt: skip
    none = P.power_at("more-templates", P.templater_vs_human(templater, 0.0), F.HOLDS, d,
                      params, 40, 10, 0)  # fmt: skip
    assert strong["power"] >= 0.8 and none["power"] == 0.0
    table = P.power_table(d, None, {**params, "findings": {**params["findings"], "power": {
        **params["findings"]["power"], "draws": 2}}})  # fmt: skip
    assert set(table["positive"]) == {"templater 50%"} and (table["observed"] == 60).all()


def test_copied_words_get_the_longest_matches_of_a_training_span():
    """Three texts of 20 words in 8-word slots (two a text, the last 4 words never copied):
    half of the 6 slots copied, the j-th word of a copied slot found with at least j + 1
    words, every other word untouched."""
    words = pd.DataFrame({"text": np.repeat([0, 1, 2], 20), "t": np.tile(np.arange(20), 3),
                          "L_train": 2, "L_nat": 0})  # fmt: skip
    out = P.copied_words(words, 0.5, 8, np.random.default_rng(0))
    changed = out["L_nat"].to_numpy() > 0
    assert changed.sum() == 3 * 8
    for column, before in (("L_nat", 0), ("L_train", 2)):
        L = out[column].to_numpy().reshape(3, 20)
        slots = [(r, s) for r in range(3) for s in (0, 8) if L[r, s + 7] == 8]
        assert len(slots) == 3
        for r, s in slots:
            assert L[r, s : s + 8].tolist() == np.maximum(np.arange(1, 9), before).tolist()
        assert (L[:, 16:] == before).all()
    assert (out[["text", "t"]] == words[["text", "t"]]).all().all()


def test_the_copied_words_are_found_less_creative():
    """On human words with a null between halves, the copied half at 50% is found less
    creative than the human half at the sizes measured: the rule has power on it."""
    d = data(words=creativity_words())
    copied = P.CopiedWords(d, PARAMS, 0, 0.5)
    assert copied.max_size == 60
    build = P.copied_vs_human(copied)
    tables = build(np.random.default_rng(0), d, PARAMS, 10)
    t = tables["creativity_texts"]
    assert (t.groupby(["model", "source"]).size() == 10).all()
    r = P.power_at("human-more-creative", build, F.HOLDS, d, PARAMS, 30, 10, 0)
    assert r["power"] >= 0.9, r
    table = P.power_table(d, None, PARAMS)
    rows = table[table["claim"] == "human-more-creative"]
    assert set(rows["positive"]) == {"copied words 50%"} and sorted(rows["size"]) == [5, 10, 60]
    assert set(rows["observed"]) == {60}
