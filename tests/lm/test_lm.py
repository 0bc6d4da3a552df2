"""Language-model stage: models, training, scoring and decoding on tiny models."""

from __future__ import annotations

import itertools
import logging
import os
import re

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from copyscope.config import validate
from copyscope.errors import ConfigError, InputError
from copyscope.lm import (
    LSTMForCausalLM,
    build_model,
    context_length,
    generate,
    load_model,
    perplexity,
    resolve_device,
    token_logprobs,
    train_model,
)
from copyscope.lm.decode import filter_logits
from support.models import (
    EOS,
    N_CTX,
    SPECS,
    TRAIN,
    VOCAB,
    full_logits,
    make_tokenizer,
    tiny_model,
    toy_corpus,
    zoo_config_error,
)
from support.workflow import ROOT

GREEDY = {"kind": "greedy"}
PURE = {"kind": "sample", "temperature": 1.0, "top_k": None, "top_p": None}






@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tok") / "tokenizer"
    make_tokenizer(path)
    return path




@pytest.fixture(params=["gpt2", "lstm"])
def model(request):
    return tiny_model(request.param)


@pytest.fixture
def prompts():
    rng = np.random.default_rng(7)
    return [rng.integers(1, VOCAB, size=n).astype(np.uint16) for n in (0, 5, 1, 12, 3)]




# --------------------------------------------------------------------------- models
@pytest.mark.parametrize("kind", ["gpt2", "lstm"])
def test_save_reload_identical_logits(kind, tok_dir, tmp_path):
    from transformers import AutoTokenizer

    model = tiny_model(kind)
    out = tmp_path / kind
    model.save_pretrained(str(out))
    AutoTokenizer.from_pretrained(str(tok_dir), local_files_only=True).save_pretrained(str(out))
    loaded, tokenizer = load_model(out, device="cpu")
    assert type(loaded) is type(model)
    assert tokenizer.eos_token_id == EOS
    assert context_length(loaded) == N_CTX
    x = torch.randint(0, VOCAB, (3, 20), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.equal(model(input_ids=x).logits, loaded(input_ids=x).logits)
    if kind == "lstm":
        assert isinstance(loaded, LSTMForCausalLM)
        assert loaded.lm_head.weight is loaded.get_input_embeddings().weight


def test_lstm_state_continues_sequence():
    model = tiny_model("lstm")
    x = torch.randint(0, VOCAB, (2, 10), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        whole = model(input_ids=x).logits
        first = model(input_ids=x[:, :6], use_cache=True)
        rest = model(input_ids=x[:, 6:], past_key_values=first.past_key_values).logits
    torch.testing.assert_close(torch.cat([first.logits, rest], dim=1), whole)




@pytest.mark.parametrize(
    "spec, key, expected",
    [
        ({"kind": "mamba", "n_ctx": 64}, "models.zoo.big.kind", "one of gpt2, lstm, pretrained"),
        (
            {"kind": "gpt2", "n_embd": 32, "n_head": 4, "n_ctx": 64},
            "models.zoo.big.n_layer",
            "a value (required)",
        ),
        (dict(SPECS["gpt2"], n_head=5), "models.zoo.big.n_head", "a divisor of n_embd (32)"),
        (dict(SPECS["gpt2"], n_heads=4), "models.zoo.big.n_heads", "a key of kind gpt2"),
        (dict(SPECS["lstm"], n_layer=0), "models.zoo.big.n_layer", "an integer >= 1"),
        (dict(SPECS["lstm"], dropout=1), "models.zoo.big.dropout", "a number < 1, found 1"),
    ],
)
def test_model_spec_errors(spec, key, expected):
    """A bad model spec fails validation naming its key (build_model trusts a valid spec)."""
    message = zoo_config_error("big", spec)
    assert f"config key '{key}': expected {expected}" in message
    assert len(message.splitlines()) == 1


def test_load_model_errors(tmp_path, tok_dir):
    with pytest.raises(InputError, match="directory not found"):
        load_model(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no config.json"):
        load_model(empty)
    model = tiny_model("gpt2")
    model.save_pretrained(str(tmp_path / "notok"))
    with pytest.raises(InputError, match="no tokenizer files") as err:
        load_model(tmp_path / "notok")
    assert err.value.path == str(tmp_path / "notok")
    (tmp_path / "noweights").mkdir()
    (tmp_path / "noweights" / "config.json").write_text("{}")
    with pytest.raises(InputError, match="no model weights"):
        load_model(tmp_path / "noweights")


def test_load_model_shares_within_each_only(tmp_path, tok_dir, monkeypatch):
    """While ``copyscope each`` runs (COPYSCOPE_SHARE_MODELS set), a second load of the same
    model returns the same objects; another model replaces it; outside ``each`` every load
    reads the files again."""
    from transformers import AutoTokenizer

    from copyscope import cli
    from copyscope.lm import models

    assert cli.SHARE_MODELS == models.SHARE_ENV
    for name, seed in (("a", 0), ("b", 1)):
        tiny_model("gpt2", seed).save_pretrained(str(tmp_path / name))
        AutoTokenizer.from_pretrained(str(tok_dir)).save_pretrained(str(tmp_path / name))
    monkeypatch.delenv(models.SHARE_ENV, raising=False)
    first, _ = load_model(tmp_path / "a", "cpu")
    assert load_model(tmp_path / "a", "cpu")[0] is not first
    monkeypatch.setenv(models.SHARE_ENV, "1")
    a1, tok1 = load_model(tmp_path / "a", "cpu")
    a2, tok2 = load_model(tmp_path / "a", "cpu")
    assert a2 is a1 and tok2 is tok1 and not a2.training
    b, _ = load_model(tmp_path / "b", "cpu")
    assert b is not a1
    assert load_model(tmp_path / "a", "cpu")[0] is not a1  # one model is kept: the last
    for p1, p2 in zip(first.parameters(), a1.parameters(), strict=True):
        assert torch.equal(p1, p2)


def test_each_sets_the_share_variable_for_its_commands_only(monkeypatch):
    from copyscope import cli

    seen = []
    monkeypatch.delenv(cli.SHARE_MODELS, raising=False)
    real = cli._main

    def spy(argv):
        if argv[:1] != [cli.EACH]:
            seen.append(os.environ.get(cli.SHARE_MODELS))
            return 0
        return real(argv)

    monkeypatch.setattr(cli, "_main", spy)
    assert cli._main(["each", "a", "::", "b"]) == 0
    assert seen == ["1", "1"]
    assert cli.SHARE_MODELS not in os.environ


def test_resolve_device_fixed_choices():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    for bad in ("tpu", "mps", 3):
        with pytest.raises(ConfigError, match="device"):
            resolve_device(bad)


def test_resolve_device_without_gpu_falls_back_with_warning(caplog, monkeypatch):
    """What a machine without CUDA sees (simulated on a GPU host too)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger="copyscope.lm.models"):
        assert resolve_device("auto") == torch.device("cpu")
        assert not caplog.records  # auto never warns
        for requested in ("cuda", "cuda:1", torch.device("cuda:0")):
            assert resolve_device(requested) == torch.device("cpu")
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 3
    assert all("CUDA is not available" in w and "CPU" in w for w in warnings)


def test_resolve_device_with_gpu_uses_it(caplog, monkeypatch):
    """What a machine with CUDA sees (simulated on a CPU-only host too): no fallback."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with caplog.at_level(logging.WARNING, logger="copyscope.lm.models"):
        assert resolve_device("auto") == torch.device("cuda")
        assert resolve_device("cuda") == torch.device("cuda")
        assert resolve_device("cuda:1") == torch.device("cuda:1")
        assert resolve_device("cpu") == torch.device("cpu")
    assert not caplog.records


def test_generate_on_requested_cuda_device(caplog, tok_dir, tmp_path):
    """``device="cuda"`` end to end through load_model and generate on this machine: on a GPU
    host the model runs on CUDA; without one, a warning and the CPU, with the CPU's output."""
    tiny_model("gpt2").save_pretrained(str(tmp_path / "m"))
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(str(tok_dir)).save_pretrained(str(tmp_path / "m"))
    prompts = [np.array([1, 2, 3]), np.array([4])]
    with caplog.at_level(logging.WARNING, logger="copyscope.lm.models"):
        model, _ = load_model(tmp_path / "m", device="cuda")
        out = generate(model, prompts, GREEDY, max_new_tokens=5, eos_id=EOS, seed=0, device="cuda")
    fallback = [r for r in caplog.records if "CUDA is not available" in r.getMessage()]
    device = next(model.parameters()).device.type
    if torch.cuda.is_available():
        assert device == "cuda" and not fallback
    else:
        assert device == "cpu" and len(fallback) == 2  # load_model and generate each warn
    on_cpu = generate(tiny_model("gpt2"), prompts, GREEDY, max_new_tokens=5, eos_id=EOS, seed=0)
    for a, b in zip(out, on_cpu, strict=True):
        np.testing.assert_array_equal(a["ids"], b["ids"])




# a 2-layer LSTM leaves the unigram plateau later than GPT-2: wider, more steps, higher lr
RUNS = {
    "gpt2": ({}, {}),
    "lstm": ({"n_hidden": 64}, {"tokens": 8 * N_CTX * 100, "lr": 3e-2}),
}


@pytest.mark.parametrize("kind", ["gpt2", "lstm"])
def test_training_deterministic_and_learns(kind, tok_dir, tmp_path, caplog):
    train_docs, valid_docs = toy_corpus()
    arch, train = RUNS[kind]
    spec = dict(SPECS[kind], dropout=0.0, **arch, train=dict(TRAIN, **train))
    steps = spec["train"]["tokens"] // (8 * N_CTX)
    runs = []
    caplog.set_level(logging.INFO, logger="copyscope.lm.train")
    for i in range(2):
        summary = train_model(
            spec,
            tok_dir,
            train_docs,
            valid_docs,
            tmp_path / f"m{i}",
            seed=5,
            device="cpu",
            log_csv=tmp_path / f"log{i}.csv",
            name="tiny",
        )
        runs.append((summary, pd.read_csv(tmp_path / f"log{i}.csv")))
    (s0, log0), (s1, log1) = runs
    assert list(log0.columns) == ["step", "tokens", "train_loss", "valid_loss", "lr", "seconds"]
    assert log0["step"].tolist() == list(range(10, steps + 1, 10))
    assert log0["tokens"].tolist() == [s * 8 * N_CTX for s in log0["step"]]
    # every evaluation is also logged as it happens (the resume test waits for this line)
    logged = [
        re.fullmatch(r"models\.tiny: step (\d+)/(\d+), train_loss \S+, valid_loss \S+, lr \S+", m)
        for m in (r.getMessage() for r in caplog.records)
        if ": step " in m
    ]
    assert all(logged) and len(logged) == 2 * len(log0)
    assert [(int(m[1]), int(m[2])) for m in logged[: len(log0)]] == [
        (s, steps) for s in log0["step"]
    ]
    pd.testing.assert_frame_equal(log0.drop(columns="seconds"), log1.drop(columns="seconds"))
    assert s0["final_valid_loss"] == s1["final_valid_loss"]
    assert s0["steps"] == steps and s0["params"] > 0 and s0["tokens_per_s"] > 0
    assert s0["final_valid_loss"] < 0.5 * np.log(VOCAB)
    assert log0["valid_loss"].iloc[-1] < log0["valid_loss"].iloc[0]
    # the saved model reloads with its tokenizer and continues the pattern
    model, tokenizer = load_model(tmp_path / "m0", device="cpu")
    assert tokenizer.eos_token_id == EOS
    assert (tmp_path / "m0" / "train_summary.json").is_file()
    assert not list(tmp_path.glob(".m0.*"))  # no temporary directory left behind
    out = generate(model, [np.array([3, 4, 5])], GREEDY, max_new_tokens=8, eos_id=EOS, seed=0)
    assert out[0]["ids"].tolist() == [6, 7, 8, 9, 10, 1, 2, 3]


@pytest.mark.parametrize("fast", [True, False])
def test_fp32_training_same_seed_same_bytes(fast, tok_dir, tmp_path):
    """fp32 training (with and without train.fast_fp32) is deterministic for a fixed seed: two
    runs save byte-identical weights; the fused kernels change rounding, not the function."""
    train_docs, valid_docs = toy_corpus()
    spec = dict(SPECS["gpt2"], dropout=0.0, train=dict(TRAIN, tokens=8 * N_CTX * 6, fast_fp32=fast))
    for i in range(2):
        train_model(spec, tok_dir, train_docs, valid_docs, tmp_path / f"m{i}", seed=3, device="cpu")
    weights = [(tmp_path / f"m{i}" / "model.safetensors").read_bytes() for i in range(2)]
    assert weights[0] == weights[1]
    assert torch.utils.deterministic.fill_uninitialized_memory  # torch's default, restored
    other = tmp_path / "other"
    spec_other = dict(spec, train=dict(spec["train"], fast_fp32=not fast))
    train_model(spec_other, tok_dir, train_docs, valid_docs, other, seed=3, device="cpu")
    a = load_model(tmp_path / "m0", device="cpu")[0].state_dict()
    b = load_model(other, device="cpu")[0].state_dict()
    assert all(torch.allclose(a[k], b[k], atol=1e-4) for k in a)


def test_fast_fp32_key_and_fused_gelu():
    """train.fast_fp32 defaults to true, must be a boolean; the fused GELU is the same function
    and the reloaded model keeps gelu_new."""
    from transformers.activations import GELUTanh, NewGELUActivation

    from copyscope.lm.train import _fuse_gelu

    cfg = validate(yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text()))
    assert cfg["models"]["train"]["fast_fp32"] is True
    message = zoo_config_error("big", dict(SPECS["gpt2"], train={"fast_fp32": "yes"}))
    assert "models.zoo.big.train.fast_fp32" in message and "expected true or false" in message
    model = tiny_model("gpt2")
    ids = torch.arange(1, 40).reshape(3, 13)
    before = model(input_ids=ids).logits
    assert _fuse_gelu(model) == SPECS["gpt2"]["n_layer"]
    assert not any(isinstance(m, NewGELUActivation) for m in model.modules())
    assert sum(isinstance(m, GELUTanh) for m in model.modules()) == SPECS["gpt2"]["n_layer"]
    assert torch.allclose(model(input_ids=ids).logits, before, atol=1e-5)
    assert model.config.activation_function == "gelu_new"


@pytest.mark.parametrize(
    "train, key, expected",
    [
        ({"lr": -1}, "models.zoo.big.train.lr", "a number > 0, found -1"),
        ({"tokens": "many"}, "models.zoo.big.train.tokens", "an integer, found 'many'"),
        ({"grad_clip": -0.5}, "models.zoo.big.train.grad_clip", "a number >= 0"),
        ({"min_lr_ratio": 2}, "models.zoo.big.train.min_lr_ratio", "a number <= 1"),
        ({"bf16": "yes"}, "models.zoo.big.train.bf16", "one of auto, true, false"),
        ({"lrate": 1}, "models.zoo.big.train.lrate", "one of batch_size, bf16"),
    ],
)
def test_training_config_errors(train, key, expected):
    """Bad training settings fail validation naming the key (train_model trusts them)."""
    message = zoo_config_error("big", dict(SPECS["gpt2"], train=train))
    assert f"config key '{key}': expected {expected}" in message


def test_training_input_errors(tok_dir, tmp_path):
    train_docs, valid_docs = toy_corpus()
    big = [np.array([VOCAB + 3], dtype=np.uint16)]
    with pytest.raises(InputError, match=r"train_docs\[0\]"):
        train_model(
            dict(SPECS["gpt2"], train=TRAIN), tok_dir, big, valid_docs, tmp_path / "m", seed=0
        )
    assert not (tmp_path / "m").exists()


# --------------------------------------------------------------------------- scoring
def test_token_logprobs_batched_matches_manual(model, prompts):
    seqs = [p for p in prompts if p.size] + [np.array([EOS, 4, EOS], dtype=np.uint16)]
    one = token_logprobs(model, seqs, eos_id=EOS, batch_size=1)
    many = token_logprobs(model, seqs, eos_id=EOS, batch_size=3)
    for seq, a, b in zip(seqs, one, many, strict=True):
        assert a.shape == (seq.size,)
        np.testing.assert_allclose(a, b, atol=1e-4)
        ids = np.concatenate([[EOS], seq])
        manual = torch.log_softmax(full_logits(model, ids), -1)[:-1]
        expected = manual[torch.arange(seq.size), torch.as_tensor(ids[1:], dtype=torch.long)]
        np.testing.assert_allclose(a, expected.numpy(), atol=1e-5)
    pooled = np.concatenate(one)
    assert perplexity(one) == pytest.approx(np.exp(-pooled.mean()))
    assert np.isnan(perplexity([]))


def test_token_logprobs_context(model, prompts):
    ctx, seqs = prompts[1:4], [np.array([1, 2, 3]), np.array([4]), np.array([5, 6])]
    got = token_logprobs(model, seqs, eos_id=EOS, context=ctx, batch_size=2)
    for c, s, g in zip(ctx, seqs, got, strict=True):
        whole = token_logprobs(model, [np.concatenate([c, s])], eos_id=EOS)[0]
        np.testing.assert_allclose(g, whole[c.size :], atol=1e-5)
    assert token_logprobs(model, [np.zeros(0, np.int64)], eos_id=EOS)[0].size == 0
    with pytest.raises(InputError, match="context length"):
        token_logprobs(model, [np.ones(N_CTX, dtype=np.int64)], eos_id=EOS)


@pytest.mark.parametrize("first", [False, True])
def test_token_logprobs_only_scores_the_marked_with_the_values_of_the_full_call(model, first):
    """``only``: the marked sequences get the arrays of the call without it, bit for bit (the
    batches keep their widths), the others empty ones; a batch without a marked sequence is
    not run; a recurrent model runs the batches it needs whole."""
    from copyscope.lm import score

    rng = np.random.default_rng(3)
    seqs = [rng.integers(1, VOCAB, size=n) for n in (7, 2, 11, 4, 9, 3, 12, 5)]
    kw = {"eos_id": EOS, "batch_size": 3, "first": [1] * len(seqs) if first else None}
    only = [True, False, False, False, True, False, True, False]
    full = token_logprobs(model, seqs, **kw)
    calls = []
    forward = model.forward
    model.forward = lambda *a, **k: calls.append(k["input_ids"].shape[0]) or forward(*a, **k)
    try:
        part = token_logprobs(model, seqs, only=only, **kw)
    finally:
        del model.forward
    for f, p, o in zip(full, part, only, strict=True):
        assert np.array_equal(f, p) if o else p.size == 0
    # batches by length (with eos): 3 4 5 (none marked) | 6 8 10 (8, 10 marked) | 12 13 (13)
    assert calls == ([3, 2] if isinstance(model, LSTMForCausalLM) else [2, 1])
    moments = score._score(model, seqs, EOS, 3, "cpu", None, None, True, None)
    marked = score._score(model, seqs, EOS, 3, "cpu", None, None, True, only)
    for m, p, o in zip(moments, marked, only, strict=True):
        assert all(np.array_equal(a, b) if o else b.size == 0 for a, b in zip(m, p, strict=True))
    with pytest.raises(InputError, match="only"):
        token_logprobs(model, seqs, eos_id=EOS, only=only[:2])


# --------------------------------------------------------------------------- decoding
def test_greedy_equals_uncached_argmax(model, prompts):
    out = generate(model, prompts, GREEDY, max_new_tokens=10, eos_id=EOS, seed=0, batch_size=3)
    again = generate(model, prompts, GREEDY, max_new_tokens=10, eos_id=EOS, seed=9)
    for p, o, a in zip(prompts, out, again, strict=True):
        assert o["ids"].dtype == np.int64
        np.testing.assert_array_equal(o["ids"], a["ids"])
        ids, lps, stopped = [EOS, *map(int, p)], [], False
        for _ in range(10):  # the reference: argmax of the full forward pass, until eos
            logp = torch.log_softmax(full_logits(model, ids)[-1], -1)
            tok = int(logp.argmax())
            if tok == EOS:
                stopped = True
                break
            ids.append(tok)
            lps.append(float(logp[tok]))
        assert o["ids"].tolist() == ids[1 + p.size :] and o["stopped_at_eos"] == stopped
        np.testing.assert_allclose(o["logprobs"], lps, atol=1e-4)


def test_sampling_seeded(model, prompts):
    with torch.no_grad():  # a flatter distribution, so different seeds give different samples
        model.get_input_embeddings().weight.mul_(0.2)
    kw = {"max_new_tokens": 12, "eos_id": EOS}
    a = generate(model, prompts, PURE, seed=1, batch_size=5, **kw)
    b = generate(model, prompts, PURE, seed=1, batch_size=2, **kw)
    c = generate(model, prompts, PURE, seed=2, batch_size=5, **kw)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x["ids"], y["ids"])
        assert x["stopped_at_eos"] == y["stopped_at_eos"]
    assert any(x["ids"].tolist() != z["ids"].tolist() for x, z in zip(a, c, strict=True))
    # logprobs are the untempered model log-probabilities of the generated tokens
    hot = {"kind": "sample", "temperature": 2.0, "top_k": 5, "top_p": 0.9}
    for p, o in zip(prompts, generate(model, prompts, hot, seed=3, **kw), strict=True):
        scored = token_logprobs(model, [o["ids"]], eos_id=EOS, context=[p])[0]
        np.testing.assert_allclose(o["logprobs"], scored, atol=1e-4)


def test_top_k_1_and_beam_1_equal_greedy(model, prompts):
    kw = {"max_new_tokens": 10, "eos_id": EOS, "seed": 4}
    greedy = generate(model, prompts, GREEDY, **kw)
    top1 = generate(model, prompts, {"kind": "sample", "temperature": 0.7, "top_k": 1}, **kw)
    beam1 = generate(model, prompts, {"kind": "beam", "num_beams": 1}, **kw)
    for g, t, b in zip(greedy, top1, beam1, strict=True):
        np.testing.assert_array_equal(g["ids"], t["ids"])
        np.testing.assert_array_equal(g["ids"], b["ids"])
        np.testing.assert_allclose(g["logprobs"], b["logprobs"], atol=1e-5)


def test_beam_beats_greedy_and_is_exact_when_wide(model, prompts):
    kw = {"max_new_tokens": 6, "eos_id": EOS, "seed": 0, "stop_at_eos": False}
    greedy = generate(model, prompts, GREEDY, **kw)
    beam = generate(model, prompts, {"kind": "beam", "num_beams": 3}, batch_size=2, **kw)
    for p, g, b in zip(prompts, greedy, beam, strict=True):
        assert b["logprobs"].sum() >= g["logprobs"].sum() - 1e-6
        scored = token_logprobs(model, [b["ids"]], eos_id=EOS, context=[p])[0]
        np.testing.assert_allclose(b["logprobs"], scored, atol=1e-4)
    # with num_beams >= V^(T-1) nothing is pruned: beam search finds the best sequence
    small = build_model(dict(SPECS["gpt2"], dropout=0.0), 5, EOS).eval()
    prompt = [np.array([1, 2])]
    best = generate(
        small, prompt, {"kind": "beam", "num_beams": 25}, max_new_tokens=3, eos_id=EOS, seed=0,
        stop_at_eos=False,
    )[0]  # fmt: skip
    cands = [np.array(c) for c in itertools.product(range(5), repeat=3)]
    totals = [s.sum() for s in token_logprobs(small, cands, eos_id=EOS, context=prompt * 125)]
    assert best["ids"].tolist() == cands[int(np.argmax(totals))].tolist()
    assert best["logprobs"].sum() == pytest.approx(max(totals), abs=1e-4)


@pytest.mark.parametrize("mix, ends", [(0.9, False), (1.0, True)])
def test_beam_with_eos_is_exact_when_wide(mix, ends):
    """With eos and enough beams that nothing is pruned, beam search returns the most likely
    of all complete outputs: k < T non-eos tokens then eos (scored with the eos), or T tokens
    whose first T − 1 are not eos. The eos embedding is moved towards the prompt's last token
    (``mix``) so that eos competes: the best output runs to the end (0.9) or is eos (1.0)."""
    torch.manual_seed(0)
    small = build_model(dict(SPECS["gpt2"], dropout=0.0), 5, EOS).eval()
    with torch.no_grad():
        w = small.get_input_embeddings().weight
        w.normal_(0.0, 1.0)
        w[EOS] = mix * w[2] + 0.3 * w[EOS]
    prompt = np.array([1, 2])
    outputs = []  # (ids, score, stopped)
    for k in range(3):
        for c in itertools.product(range(1, 5), repeat=k):
            lp = token_logprobs(small, [np.array([*c, EOS])], eos_id=EOS, context=[prompt])[0]
            outputs.append((list(c), lp.sum(), True))
    for c in itertools.product(range(1, 5), range(1, 5), range(5)):
        lp = token_logprobs(small, [np.array(c)], eos_id=EOS, context=[prompt])[0]
        outputs.append((list(c), lp.sum(), c[-1] == EOS))
    ids, score, stopped = max(outputs, key=lambda o: o[1])
    best = generate(
        small, [prompt], {"kind": "beam", "num_beams": 125}, max_new_tokens=3, eos_id=EOS, seed=0
    )[0]
    assert best["ids"].tolist() == [i for i in ids if i != EOS]
    assert best["stopped_at_eos"] == stopped == ends
    before = [np.concatenate([prompt, best["ids"]])]
    eos_lp = token_logprobs(small, [np.array([EOS])], eos_id=EOS, context=before)[0][0]
    assert best["logprobs"].sum() + (eos_lp if stopped else 0.0) == pytest.approx(score, abs=1e-4)


def test_filter_logits():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    kept = torch.isfinite(filter_logits(logits, 1.0, None, 0.75))
    assert kept.tolist() == [[True, True, False, False]]
    kept = torch.isfinite(filter_logits(logits, 1.0, 3, 0.95))
    assert kept.tolist() == [[True, True, True, False]]
    kept = torch.isfinite(filter_logits(logits, 1.0, None, 0.1))
    assert kept.tolist() == [[True, False, False, False]]


@pytest.mark.parametrize(
    "method, key, expected",
    [
        ({"kind": "nucleus"}, "kind", "one of sample, greedy, beam"),
        ({"kind": "sample", "temperature": 0}, "temperature", "a number > 0, found 0"),
        ({"kind": "sample"}, "temperature", "a value (required)"),
        ({"kind": "sample", "temperature": 1, "top_p": 1.5}, "top_p", "a number <= 1"),
        ({"kind": "sample", "temperature": 1, "top_k": 0}, "top_k", "an integer >= 1"),
        ({"kind": "beam", "num_beams": 0}, "num_beams", "an integer >= 1"),
        ({"kind": "greedy", "top_k": 5}, "top_k", "a key of kind greedy (kind)"),
    ],
)
def test_decoding_config_errors(method, key, expected):
    """A bad decoding method fails validation naming its key (generate trusts a valid one)."""
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["sampling"]["decodings"]["bad"] = method
    with pytest.raises(ConfigError) as err:
        validate(cfg)
    assert f"config key 'sampling.decodings.bad.{key}': expected {expected}" in str(err.value)


def test_generate_errors(model, prompts):
    kw = {"max_new_tokens": 5, "eos_id": EOS, "seed": 0}
    with pytest.raises(ConfigError, match=r"method\.kind"):
        generate(model, prompts, {"kind": "nucleus", "temperature": 1.0}, **kw)
    long = [np.ones(N_CTX - 10, dtype=np.int64)]
    with pytest.raises(InputError, match=r"prompt length 54 \+ max_new_tokens 10 .* 64") as err:
        generate(model, long, GREEDY, max_new_tokens=10, eos_id=EOS, seed=0)
    assert err.value.path == "prompts[0]"
    ok = generate(model, long, GREEDY, max_new_tokens=9, eos_id=EOS, seed=0)
    assert ok[0]["ids"].shape == (9,)
    with pytest.raises(InputError, match="vocabulary"):
        generate(model, [np.array([VOCAB])], GREEDY, **kw)


def test_unconditional_and_stop_at_eos(model):
    kw = {"max_new_tokens": N_CTX - 1, "eos_id": EOS, "seed": 0}
    out = generate(model, [np.zeros(0, np.int64)] * 3, PURE, stop_at_eos=False, **kw)
    assert all(o["ids"].shape == (N_CTX - 1,) for o in out)
    assert all(np.all(o["logprobs"] <= 0) for o in out)
    stopped = generate(model, [np.zeros(0, np.int64)] * 3, PURE, **kw)
    for full, cut in zip(out, stopped, strict=True):  # the same draws, cut at the first eos
        ids = full["ids"].tolist()
        end = ids.index(EOS) if EOS in ids else len(ids)
        assert cut["ids"].tolist() == ids[:end] and cut["stopped_at_eos"] == (EOS in ids)
        np.testing.assert_allclose(cut["logprobs"], full["logprobs"][:end])
    # make eos by far the most likely token: every method ends at once (nothing recorded);
    # without stopping, decoding runs to max_new_tokens with eos kept
    with torch.no_grad():
        bias = model.transformer.ln_f.bias if hasattr(model, "transformer") else model.proj.bias
        bias.copy_(100 * model.get_input_embeddings().weight[EOS])
    for method in (GREEDY, PURE, {"kind": "beam", "num_beams": 2}):
        kw = {"max_new_tokens": 7, "eos_id": EOS, "seed": 0}
        out = generate(model, [np.array([1, 2])], method, **kw)
        assert out[0]["ids"].tolist() == [] and out[0]["logprobs"].size == 0
        assert out[0]["stopped_at_eos"]
        out = generate(model, [np.array([1, 2])], method, stop_at_eos=False, **kw)
        assert out[0]["ids"].tolist() == [EOS] * 7 and not out[0]["stopped_at_eos"]


def test_exit_signals_wait_for_the_end_of_a_deferred_block():
    """A SIGTERM sent while the progress bar is built arrives after it is whole."""
    import os
    import signal
    import threading

    from copyscope.lm.train import signals_deferred

    seen = []
    before = signal.signal(signal.SIGTERM, lambda *_: seen.append("delivered"))
    # a second thread that blocks nothing, as torch's workers: the kernel may hand it a signal
    # sent to the process, so a thread mask on the main thread alone would not hold it back
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        for _ in range(3):
            seen.clear()
            with signals_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # bytecode runs: a handler would run here if not held
                    pass
                seen.append("block done")
            assert seen == ["block done", "delivered"]
        assert signal.getsignal(signal.SIGTERM) is not before  # the test's handler is back
    finally:
        stop.set()
        other.join()
        signal.signal(signal.SIGTERM, before)
