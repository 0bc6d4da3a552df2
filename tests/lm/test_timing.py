"""Known-answer timing: the corpus stage's timing plan (manifest) and the training order that
puts the early and the late text only into the first or the last steps."""

from __future__ import annotations

import contextlib
import copy
import json

import numpy as np
import pytest
import torch

from copyscope.corpus import CorpusPaths, prepare_corpus
from copyscope.corpus.timing import document_groups, timing_of, training_plan
from copyscope.errors import ConfigError
from copyscope.lm import checkpoints as ck
from copyscope.lm import train as train_mod
from copyscope.lm import train_model
from support.corpora import CORPUS, synthetic_corpus
from support.models import EOS, N_CTX, SPECS, TRAIN, make_tokenizer

STEPS = 40
BENCH = {"items": 10, "words": 16, "planted_share": 0.6, "copies": [1, 4], "seed": 2}


# --------------------------------------------------------------------------- the order
def test_no_timed_window_is_the_plain_order():
    a = train_mod.timed_order(30, {"early": 0, "late": 0}, 4, 20, 0.1, np.random.default_rng(3))
    b = train_mod.batch_order(30, 4, 20, np.random.default_rng(3))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_timed_windows_only_in_their_steps(seed):
    # 40 spread windows (0..39), 3 early (40..42), 2 late (43, 44); 20 steps × 4 = 80 slots:
    # 80 / 45 windows = 1.8 → each timed window twice; w = round(0.2 × 20) = 4 steps = 16 slots
    order = train_mod.timed_order(
        40, {"early": 3, "late": 2}, 4, 20, 0.2, np.random.default_rng(seed)
    )
    assert order.shape == (20, 4)
    assert train_mod.timed_windows(20, 0.2) == {"early": (0, 4), "late": (16, 20)}
    early_rows = np.flatnonzero(np.isin(order, [40, 41, 42]).any(axis=1))
    late_rows = np.flatnonzero(np.isin(order, [43, 44]).any(axis=1))
    assert early_rows.min() >= 0 and early_rows.max() < 4
    assert late_rows.min() >= 16
    counts = np.bincount(order.ravel(), minlength=45)
    assert counts[40:].tolist() == [2] * 5
    # the spread windows fill the rest, each once before any twice (epoch after epoch)
    spread = counts[:40]
    assert spread.sum() == 80 - 10 and spread.min() >= 1 and spread.max() <= 2
    # seeded
    again = train_mod.timed_order(
        40, {"early": 3, "late": 2}, 4, 20, 0.2, np.random.default_rng(seed)
    )
    assert np.array_equal(order, again)


def test_timed_text_that_does_not_fit_its_window_is_an_error():
    with pytest.raises(ConfigError, match=r"corpus.inject.timing.*room for the early text"):
        train_mod.timed_order(10, {"early": 9, "late": 0}, 2, 20, 0.1, np.random.default_rng(0))


def test_padded_windows_cover_every_token():
    stream = np.arange(1, 12)  # 11 tokens, windows of 4 sharing one token: starts 0, 3, 6, 9
    w = train_mod.padded_windows(stream, 4)
    assert w.tolist() == [[1, 2, 3, 4], [4, 5, 6, 7], [7, 8, 9, 10], [10, 11, -1, -1]]
    assert train_mod.windows(stream, 4).tolist() == w[:3].tolist()  # the plain cut drops 11
    assert train_mod.padded_windows(np.arange(1, 11), 4).tolist() == w[:3].tolist()


# --------------------------------------------------------------------------- the training
def timed_corpus():
    """Six spread documents of words 1..20, one early document of 30..39, one late of 40..49
    (the words of a group occur nowhere else)."""
    rng = np.random.default_rng(0)
    spread = [rng.integers(1, 21, size=300).astype(np.uint16) for _ in range(6)]
    early = [np.tile(np.arange(30, 40, dtype=np.uint16), 3)]
    late = [np.tile(np.arange(40, 50, dtype=np.uint16), 2), np.arange(40, 45, dtype=np.uint16)]
    docs = spread[:3] + early + spread[3:] + late
    groups = [None] * 3 + ["early"] + [None] * 3 + ["late", "late"]
    valid = [np.tile(np.arange(1, 21, dtype=np.uint16), 4)]
    return docs, groups, valid


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return path


def spec(checkpoints=0):
    train = dict(TRAIN, tokens=4 * N_CTX * STEPS, batch_size=4, checkpoints=checkpoints)
    return dict(SPECS["gpt2"], dropout=0.1, train=train)


def run(tok_dir, out, checkpoints=0):
    docs, groups, valid = timed_corpus()
    timing = {"window": 0.1, "groups": groups}
    return train_model(
        spec(checkpoints), tok_dir, docs, valid, out, seed=1, device="cpu", timing=timing
    )


def test_the_batches_seen_follow_the_timing_plan(tok_dir, tmp_path, monkeypatch):
    seen = []
    real = train_mod._train_step

    def step(model, batch, *args, **kwargs):
        seen.append(batch.clone())
        return real(model, batch, *args, **kwargs)

    monkeypatch.setattr(train_mod, "_train_step", step)
    summary = run(tok_dir, tmp_path / "m")
    assert len(seen) == STEPS
    w = 4  # round(0.1 × 40)
    assert summary["timing"]["early"]["steps"] == [0, w]
    assert summary["timing"]["late"]["steps"] == [STEPS - w, STEPS]
    for s, batch in enumerate(seen):
        ids = batch.numpy()
        has_early = bool(((ids >= 30) & (ids < 40)).any())
        has_late = bool(((ids >= 40) & (ids < 50)).any())
        assert not has_early or s < w, f"early text at step {s}"
        assert not has_late or s >= STEPS - w, f"late text at step {s}"
        for row in ids:  # a window holds one group's text only (and eos / padding)
            kinds = {
                0 if t in (EOS, train_mod.PAD) else 1 if t < 30 else 2 if t < 40 else 3 for t in row
            }
            assert len(kinds - {0}) <= 1
    every = np.concatenate([b.numpy().ravel() for b in seen])
    # every early and late token was seen
    assert set(range(30, 50)) <= set(every.tolist())
    # the late group's tail is padded, not lost: 40..44 after the second document's eos
    late_rows = [r for b in seen[STEPS - w :] for r in b.numpy() if (r == train_mod.PAD).any()]
    assert late_rows and all((r[r >= 0] < 50).all() for r in late_rows)
    # every timed window occurs r = round(160 slots / windows) times, r the same for both groups
    t = summary["timing"]
    r = t["early"]["occurrences"] / t["early"]["windows"]
    assert r == t["late"]["occurrences"] / t["late"]["windows"]
    n_windows = summary["train_tokens"] // (N_CTX - 1)  # about: the spread stream's windows
    assert r == round(160 / (t["early"]["windows"] + t["late"]["windows"] + n_windows))


def test_the_padding_is_no_target():
    ids = torch.tensor([[0, 5, 6, train_mod.PAD, train_mod.PAD]])
    model = torch.nn.Module()
    got = {}

    def fake_loss(m, batch, labels=None):
        got["batch"], got["labels"] = batch, labels
        return (batch.float().sum() * 0).requires_grad_()

    opt_model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(opt_model.parameters(), lr=0.1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_mod, "_loss", fake_loss)
        train_mod._train_step(model, ids, opt, {"grad_clip": 0}, contextlib.nullcontext, eos_id=0)
    assert got["batch"].tolist() == [[0, 5, 6, 0, 0]]
    assert got["labels"].tolist() == [[0, 5, 6, -100, -100]]


class Interrupt(SystemExit):
    pass


def test_a_timed_training_resumes_with_the_same_bytes(tok_dir, tmp_path, monkeypatch):
    reference = tmp_path / "ref"
    run(tok_dir, reference, checkpoints=3)
    out = tmp_path / "m"
    real, calls = train_mod._train_step, []

    def step(*args, **kwargs):
        calls.append(1)
        if len(calls) == 20:
            raise Interrupt(143)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_mod, "_train_step", step)
        with pytest.raises(Interrupt):
            run(tok_dir, out, checkpoints=3)
    assert torch.load(ck.resume_dir(out) / "state.pt", weights_only=True)["run"]["step"] == 12
    run(tok_dir, out, checkpoints=3)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(reference) for p in reference.rglob("*") if p.is_file())
    for f in files:
        if f.name != "train_summary.json":
            assert (out / f).read_bytes() == (reference / f).read_bytes(), f


def test_a_timed_group_that_fits_no_window_names_the_key(tok_dir, tmp_path):
    docs, groups, valid = timed_corpus()
    big = [np.tile(np.arange(30, 40, dtype=np.uint16), 200)]
    with pytest.raises(ConfigError, match="corpus.inject.timing"):
        train_model(
            spec(), tok_dir, docs + big, valid, tmp_path / "m", seed=1, device="cpu",
            timing={"window": 0.1, "groups": groups + ["early"]},
        )  # fmt: skip


# --------------------------------------------------------------------------- the plan
TIMING = {"window": 0.1, "plays": 1, "ladder": 1, "seed": 0}


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("timed")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp / "docs.jsonl")))
    cfg["inject"]["contamination"] = BENCH
    cfg["inject"]["timing"] = TIMING
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp / "corpus"))
    rows = [json.loads(x) for x in open(tmp / "corpus/train.jsonl")]
    source = {json.loads(x)["id"]: json.loads(x)["text"] for x in open(tmp / "docs.jsonl")}
    return manifest, rows, source


def test_the_manifest_records_which_items_are_timed(timed):
    manifest, rows, source = timed
    block = manifest["timing"]
    assert block["window"] == 0.1 and block["seed"] == 0
    early, late = block["groups"]["early"], block["groups"]["late"]
    # one play per group, two distinct original training documents
    assert len(early["plays"]) == len(late["plays"]) == 1
    assert {*early["plays"], *late["plays"]} < {"doc0", "doc1", "doc2", "doc3"}
    assert early["plays"] != late["plays"]
    # one passage per rung and group (rungs 1, 3, 9; per_rung 2): both passages of a rung timed
    passages = {p["id"]: p for p in manifest["ladder"]["passages"]}
    for grp in (early, late):
        assert sorted(int(i.split("-")[1]) for i in grp["ladder"]) == [1, 3, 9]
    assert not set(early["ladder"]) & set(late["ladder"])
    by_id = {r["id"]: r["text"] for r in rows}
    for g, grp in block["groups"].items():
        for pid in grp["ladder"]:
            p = passages[pid]
            assert p["timing"] == g and p["positions"] == []
            assert p["documents"] == [f"timed-{pid}-{j}" for j in range(p["copies"])]
            for d in p["documents"]:
                assert by_id[d] == p["text"] + "\n"
        assert grp["documents"] == grp["plays"] + [
            d for pid in grp["ladder"] for d in passages[pid]["documents"]
        ]
        # a timed play holds no planted text: it is the source document as it was
        for play in grp["plays"]:
            assert by_id[play] == source[play]
    # no passage, benchmark item or duplicate was planted into a timed play
    timed_plays = {*early["plays"], *late["plays"]}
    for p in passages.values():
        assert not {d for d, _ in p["positions"]} & timed_plays
    for item in manifest["contamination"]["items"]:
        assert not {d for d, _ in item["positions"]} & timed_plays
    assert not {r["source_doc"] for r in manifest["injected"]} & timed_plays
    assert not {r["source_doc"] for r in manifest["contamination"]["memorised"]} & timed_plays
    # the groups of the training documents, and of the items
    groups = document_groups(manifest, [r["id"] for r in rows])
    assert {r["id"] for r, g in zip(rows, groups, strict=True) if g == "early"} == set(
        early["documents"]
    )
    assert {r["id"] for r, g in zip(rows, groups, strict=True) if g == "late"} == set(
        late["documents"]
    )
    of = timing_of(manifest)
    assert {k for k, v in of.items() if v == "early"} == {*early["plays"], *early["ladder"]}


def test_the_timing_plan_is_seeded_and_checked(timed, tmp_path):
    manifest, _, _ = timed
    synthetic_corpus(tmp_path / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp_path / "docs.jsonl")))
    cfg["inject"]["contamination"] = BENCH
    cfg["inject"]["timing"] = TIMING
    again = prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "a"))
    assert again["timing"] == manifest["timing"]
    cfg["inject"]["timing"] = dict(TIMING, ladder=2)  # 2 early + 2 late of per_rung 2
    with pytest.raises(ConfigError, match=r"corpus.inject.timing.ladder"):
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "b"))
    cfg["inject"]["timing"] = dict(TIMING, plays=2)  # 4 training documents: none left
    with pytest.raises(ConfigError, match=r"corpus.inject.timing.plays"):
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "c"))


def test_the_trainer_reads_the_groups_from_the_manifest(timed, tmp_path):
    manifest, rows, _ = timed
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    plan = training_plan(path, {"doc_ids": [r["id"] for r in rows]})
    assert plan["window"] == 0.1
    assert plan["groups"] == document_groups(manifest, [r["id"] for r in rows])
    timed_docs = sum(len(g["documents"]) for g in manifest["timing"]["groups"].values())
    assert len(plan["groups"]) - plan["groups"].count(None) == timed_docs
    path.write_text(json.dumps({k: v for k, v in manifest.items() if k != "timing"}))
    assert training_plan(path, {"doc_ids": ["a"]}) is None
    assert document_groups({}, ["a", "b"]) == [None, None]
