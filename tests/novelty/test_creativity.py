"""The Creativity Index (Lu et al. 2024): hand-worked coverage, brute force against a real index,
and the analysis's tables, figure and summary from hand-made per-word matches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copyscope.index import Index, build_index
from copyscope.novelty.creativity import LENGTHS, covered, creativity_index, l_uniqueness
from copyscope.report import creativity
from support.index import brute_count, stream_of


def test_coverage_by_hand():
    """Ten words whose longest matches grow to 6, then restart: at L = 5 the spans ending at
    words 4 (5 words) and 5 (6 words) cover words 0..5; at L = 7 nothing is covered."""
    L = [1, 2, 3, 4, 5, 6, 1, 2, 3, 4]
    assert covered(L, 5).tolist() == [True] * 6 + [False] * 4
    assert covered(L, 6).tolist() == [True] * 6 + [False] * 4
    assert not covered(L, 7).any()
    u = l_uniqueness(L)
    assert u.tolist() == pytest.approx([0.4, 0.4] + [1.0] * 6)
    assert creativity_index(u) == pytest.approx(6.8)
    # a copied text scores 0, a new one the number of lengths
    assert creativity_index(l_uniqueness(list(range(1, 21)))) == 0
    assert creativity_index(l_uniqueness([0] * 20)) == len(LENGTHS) == 8
    assert np.isnan(l_uniqueness([])).all()


def test_a_span_found_in_the_middle_covers_only_its_words():
    """A 5-word span found at words 3..7 of 10 (its longest matches 1..5 from word 3)."""
    L = [0, 0, 0, 1, 2, 3, 4, 5, 0, 0]
    assert np.flatnonzero(covered(L, 5)).tolist() == [3, 4, 5, 6, 7]
    assert l_uniqueness(L, (5, 6)).tolist() == pytest.approx([0.5, 1.0])


def brute_covered(docs, text, L) -> list[bool]:
    """Word i is covered iff some span of at least L words containing it occurs in ``docs``."""
    n = len(text)
    return [
        any(
            brute_count(docs, text[s:e]) > 0
            for s in range(0, i + 1)
            for e in range(max(i + 1, s + L), n + 1)
        )
        for i in range(n)
    ]


@settings(max_examples=25, deadline=None)
@given(
    docs=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=25), min_size=1, max_size=4),
    text=st.lists(st.integers(0, 3), min_size=1, max_size=16),
    L=st.integers(1, 7),
)
def test_coverage_from_the_index_equals_brute_force(tmp_path_factory, docs, text, L):
    """The longest matches of a real index give exactly the brute-force coverage."""
    path = tmp_path_factory.mktemp("idx")
    build_index(stream_of(docs), path / "index")
    lengths = Index(path / "index").longest_matches([np.array(text)]).split_lengths()[0]
    assert covered(lengths, L).tolist() == brute_covered(docs, text, L)


def words_frame(texts: dict[int, list[int]], plen: int = 8) -> pd.DataFrame:
    """A words.parquet of hand-made texts: per word its longest matches (the same for the
    natural text)."""
    rows = [
        {"text": t, "prompt_length": plen, "t": i, "L_train": x, "L_nat": x}
        for t, lengths in texts.items()
        for i, x in enumerate(lengths)
    ]
    return pd.DataFrame(rows)


def test_the_tables_average_over_texts():
    copied = list(range(1, 13))  # every word in a found 12-word span: 0 at every L
    fresh = [0] * 10  # nothing found: 1 at every L
    human = words_frame({0: fresh, 1: fresh})
    model = words_frame({0: copied, 1: fresh, 2: [0] * 4}, plen=8)
    other_length = words_frame({0: copied}, plen=32)  # another prompt length: left out
    settings_ = [
        ("human", "reference", human),
        ("m", "pure", pd.concat([model, other_length], ignore_index=True)),
    ]
    curve, index = creativity.creativity_tables(settings_, 8, n_boot=200, seed=0)
    assert list(curve.columns) == creativity.COLUMNS
    assert len(curve) == 2 * 2 * len(LENGTHS)  # two settings, two sources, eight lengths
    h = index[(index["model"] == "human") & (index["source"] == "all")].iloc[0]
    assert (h["index"], h["index_lo"], h["index_hi"], h["texts"]) == (8, 8, 8, 2)
    m = index[(index["model"] == "m") & (index["source"] == "all")].iloc[0]
    assert m["index"] == pytest.approx((0 + 8 + 8) / 3) and m["texts"] == 3
    assert m["index_lo"] <= m["index"] <= m["index_hi"] and m["index_lo"] < m["index_hi"]
    at5 = curve[(curve["model"] == "m") & (curve["source"] == "natural") & (curve["L"] == 5)]
    assert at5["uniqueness"].iloc[0] == pytest.approx(2 / 3)
    # per text: the index whose mean the index table shows, the words of each text
    texts = creativity.text_table(settings_, 8)
    assert list(texts.columns) == creativity.TEXT_COLUMNS
    m = texts[(texts["model"] == "m") & (texts["source"] == "all")]
    assert m["index"].tolist() == [0, 8, 8] and m["words"].tolist() == [12, 10, 4]
    assert len(texts) == 2 * 5  # (2 human + 3 model texts) per source
    assert creativity.text_table([("m", "pure", other_length)], 8).empty


def test_the_analysis_writes_its_files_and_summary(tmp_path):
    paths = []
    for model, decoding, lengths in [
        ("human", "reference", [0] * 12),
        ("gpt2-a", "pure", list(range(1, 13))),
        ("gpt2-a", "greedy", list(range(1, 13))),
    ]:
        path = tmp_path / f"{model}-{decoding}.parquet"
        words_frame({0: lengths, 1: lengths}).to_parquet(path)
        paths.append((model, decoding, str(path)))
    out = {k: tmp_path / f"{k}{'.png' if k == 'fig' else '.csv'}" for k in creativity.OUTPUTS}
    params = {"sampling": {"prompt_length": 8}, "novelty": {"bootstrap": 100, "seed": 0}}
    creativity.run({"words": paths}, out, params)
    index = pd.read_csv(out["index"])
    assert set(index["decoding"]) == {"reference", "pure", "greedy"}
    texts = pd.read_csv(out["texts"])
    assert len(texts) == 3 * 2 * 2 and set(texts.loc[texts["model"] == "human", "index"]) == {8}
    assert out["fig"].stat().st_size > 10_000
    lines = creativity.summary_section({"creativity_index": index}, params)
    text = "\n".join(lines)
    assert "## Creativity Index (Lu et al. 2024)" in text
    assert "human 8 [8, 8]" in text and "gpt2-a 0 [0, 0]" in text and "greedy" not in text
