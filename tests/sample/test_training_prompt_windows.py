"""Training-prompt windows (sampling.training_prompts, Merrill et al. Fig. 3): cut from the
natural training text of a synthetic corpus with planted passages, never from planted text."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.corpus import CorpusPaths, planted_texts, prepare_corpus
from copyscope.errors import InputError
from copyscope.index import open as open_index
from copyscope.index.build import build_index_from_files
from copyscope.io import read_jsonl
from copyscope.sample import prompt_sets, write_training_prompts
from copyscope.tokenize import encode_split, from_spec, read_split
from support.corpora import CORPUS, synthetic_corpus

PROBE = 6  # a window holding this many consecutive tokens of a planted passage holds planted text


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A synthetic corpus with planted duplicates and a ladder (passages of held-out documents
    planted 1, 3 and 9 times), its natural and training text in Moses words."""
    tmp = tmp_path_factory.mktemp("training-prompts")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp / "docs.jsonl")))
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp / "corpus"))
    texts = [r["text"] for r in read_jsonl(tmp / "corpus" / "train.jsonl")]
    tok = from_spec({"kind": "moses"}, "words").fit(texts, tmp / "tok")
    for split in ("natural", "train"):
        encode_split(tok, tmp / "corpus" / f"{split}.jsonl", tmp / f"{split}.npy",
                     tmp / f"{split}.json", "words")  # fmt: skip
    build_index_from_files(tmp / "train.npy", tmp / "index", tmp / "train.json")
    # the planted passages that are not natural text (ladder: cut from held-out documents)
    ladder = [np.asarray(tok.encode(t)) for t in planted_texts(manifest)["ladder"]]
    return {"tmp": tmp, "ladder": ladder, "manifest": manifest}


def _holds_planted(window: np.ndarray, planted: list[np.ndarray]) -> bool:
    """Whether ``window`` holds PROBE consecutive tokens of a planted passage."""
    grams = {tuple(window[i : i + PROBE]) for i in range(len(window) - PROBE + 1)}
    return any(
        tuple(p[i : i + PROBE]) in grams for p in planted for i in range(len(p) - PROBE + 1)
    )


def _contains(doc: np.ndarray, part: list[int]) -> bool:
    n = len(part)
    return any(doc[i : i + n].tolist() == part for i in range(len(doc) - n + 1))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lengths=st.lists(st.integers(1, 24), min_size=1, max_size=3, unique=True),
    prompts=st.integers(1, 40),
    seed=st.integers(0, 1000),
)
def test_training_prompts_are_natural_training_text_never_planted(corpus, lengths, prompts, seed):
    tmp, out = corpus["tmp"], corpus["tmp"] / f"p-{seed}.jsonl"
    params = {"lengths": lengths, "prompts": prompts, "seed": seed, "new_tokens": 8}
    n = write_training_prompts(tmp / "natural.npy", tmp / "natural.json", tmp / "index", params, out)
    windows = list(read_jsonl(out))
    _, meta, natural = read_split(tmp / "natural.npy", tmp / "natural.json")
    _, train_meta, train = read_split(tmp / "train.npy", tmp / "train.json")
    slot = max(lengths)
    assert n == len(windows) == min(prompts, len(windows)) and 0 < n <= prompts
    for w in windows:
        doc = natural[w["doc"]]
        assert sorted(map(int, w["prompts"])) == sorted(lengths)
        for p, ids in w["prompts"].items():  # the last P tokens of the window's slot
            assert ids == doc[w["start"] + slot - int(p) : w["start"] + slot].tolist()
        window = doc[w["start"] : w["start"] + slot + 8]
        assert not _holds_planted(window, corpus["ladder"])  # never planted text
        # training text: the training document of the same id holds the window whole
        assert _contains(train[train_meta["doc_ids"].index(meta["doc_ids"][w["doc"]])],
                         window.tolist())  # fmt: skip
    # seeded: the same windows again
    again = tmp / f"q-{seed}.jsonl"
    write_training_prompts(tmp / "natural.npy", tmp / "natural.json", tmp / "index", params, again)
    assert list(read_jsonl(again)) == windows


def test_the_checks_can_fail(corpus):
    """What the property rules out is there to find: windows cut from the training split
    itself hold planted text, and some natural windows are not training text (a passage was
    planted inside them), which the index check drops."""
    tmp = corpus["tmp"]
    _, _, train = read_split(tmp / "train.npy", tmp / "train.json")
    windows = prompt_sets(train, [24], 8, 10_000, 0)
    slots = [np.asarray(train[w["doc"]][w["start"] : w["start"] + 32]) for w in windows]
    assert any(_holds_planted(s, corpus["ladder"]) for s in slots)
    _, _, natural = read_split(tmp / "natural.npy", tmp / "natural.json")
    every = prompt_sets(natural, [24], 8, 10_000, 0)
    index = open_index(tmp / "index")
    kept = prompt_sets(natural, [24], 8, 10_000, 0, keep=lambda w: index.count_many(w) > 0)
    assert 0 < len(kept) < len(every)


def test_no_natural_document_long_enough_is_one_line(corpus, tmp_path):
    tmp = corpus["tmp"]
    params = {"lengths": [100_000], "prompts": 5, "seed": 0, "new_tokens": 8}
    with pytest.raises(InputError, match="no natural training document has 100000 \\+ 8 tokens"):
        write_training_prompts(
            tmp / "natural.npy", tmp / "natural.json", tmp / "index", params, tmp_path / "x"
        )
    assert not (tmp_path / "x").exists()
