"""``kind: pretrained`` end to end: a model directory the test writes with ``save_pretrained``
(a small random GPT-2 and its own byte-level BPE tokenizer) runs through the whole workflow,
its samples analysed against an index built in that tokenizer's ids."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from test_workflow import check_tables

from support.workflow import ROOT, snakemake

EOT = "<|endoftext|>"
LINES = [
    "Is this a dagger which I see before me, the handle toward my hand?",
    "Tomorrow, and tomorrow, and tomorrow, creeps in this petty pace from day to day.",
    "We are such stuff as dreams are made on, and our little life is rounded with a sleep.",
    "If music be the food of love, play on; give me excess of it.",
    "The course of true love never did run smooth.",
    "Friends, Romans, countrymen, lend me your ears; I come to bury Caesar, not to praise him.",
    "O, beware, my lord, of jealousy; it is the green-eyed monster.",
    "Fair is foul, and foul is fair: hover through the fog and filthy air.",
]


def write_pretrained(path) -> int:
    """A byte-level BPE (eos = bos = pad = <|endoftext|>, id 0) trained on a few lines, and a
    random 2-layer GPT-2 over its vocabulary, both saved into ``path``; returns the vocab size."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every text encodes
    )
    tok.train_from_iterator(LINES * 5, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=EOT, bos_token=EOT, pad_token=EOT, unk_token=EOT
    )
    assert fast.eos_token_id == 0
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=256,  # prompts are re-tokenized into this (smaller) vocabulary
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
    )
    GPT2LMHeadModel(config).save_pretrained(str(path))
    fast.save_pretrained(str(path))
    return len(fast)


def pretrained_config(tmp_path, model_dir) -> dict:
    """The tiny config, trimmed for speed, with ``mine`` (kind pretrained) in the zoo."""
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    cfg["tokenizers"]["mine"] = {"kind": f"hf:{model_dir}"}
    cfg["novelty"]["tokenizers"] = ["bpe"]
    models = cfg["models"]
    models["train"]["tokens"] = 6144  # 3 steps: the evaluator only needs to exist
    models["zoo"] = {
        # the evaluator (context 64) scores the generations re-tokenized into bpe: a random
        # model's 24 byte-level tokens can take more than 64 bpe tokens (cut to the context)
        "gpt2-a": models["zoo"]["gpt2-a"],
        "mine": {"kind": "pretrained", "path": str(model_dir), "tokenizer": "mine"},
    }
    models["evaluator"] = "gpt2-a"
    models["evaluators"] = {"gpt2-a": "mine"}  # not its own; mine scores re-encoded text
    s = cfg["sampling"]
    # only pure and greedy: the decoding figure falls back to one panel of every decoding
    s["decodings"] = {k: s["decodings"][k] for k in ("pure", "greedy")}
    s["shared_decodings"] = ["pure", "greedy"]
    cfg["explorer"]["decodings"] = ["pure", "greedy"]  # the explorer shows kept decodings
    cfg["findings"]["raven_decoding"] = "pure"  # the top-k row needs a decoding that runs
    s["prompt_lengths"] = [0, 8]
    s["prompt_length_decodings"] = ["greedy"]
    s["prompt_length_models"] = ["mine"]
    s.pop("grid_models", None)  # every model runs both decodings
    s.pop("training_prompts")  # Merrill Fig. 3's block names a beam decoding dropped here
    cfg["analysis"]["dynamics"]["enabled"] = False  # the checkpoints' scores: not this test's
    return cfg


@pytest.mark.e2e
def test_pretrained_model_runs_end_to_end(tmp_path):
    from copyscope.index import Index
    from copyscope.tokenize import load_hf_tokenizer

    model_dir = tmp_path / "my-lm"
    vocab = write_pretrained(model_dir)
    cfg = pretrained_config(tmp_path, model_dir)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("--cores", "2", "--configfile", str(tmp_path / "config.yaml"))
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = tmp_path / "results"
    assert not (out / "models" / "mine").exists()  # used as it is, never trained

    # the training corpus is indexed in the model's own token ids
    tokenizer = load_hf_tokenizer(model_dir)
    meta = json.loads((out / "tokens/mine/train.json").read_text())
    stream = np.load(out / "tokens/mine/train.npy")
    first = json.loads((out / "corpus/train.jsonl").read_text().splitlines()[0])["text"]
    expect = tokenizer.encode(first, add_special_tokens=False)
    assert stream[: len(expect)].tolist() == expect and stream[len(expect)] == meta["sep"]
    index = Index(out / "index/mine")

    # samples in those ids, at the configured prompt lengths, and their L_t / C_t
    for decoding in cfg["sampling"]["decodings"]:
        rows = [
            json.loads(line)
            for line in (out / "samples/mine" / f"{decoding}.jsonl").read_text().splitlines()
        ]
        lengths = {8, 0} if decoding == "greedy" else {8}
        assert {r["prompt_length"] for r in rows} == lengths
        assert len(rows) == cfg["sampling"]["prompts"] * len(lengths)
        gens = [np.asarray(r["ids"], dtype=np.int64) for r in rows]
        # a generation ends at eos (not recorded): shorter only when it stopped there
        for r, g in zip(rows, gens, strict=True):
            assert g.size == cfg["sampling"]["new_tokens"] or r["stopped_at_eos"]
            assert tokenizer.eos_token_id not in g.tolist()
        assert max(int(g.max(initial=0)) for g in gens) < vocab
        tokens = pd.read_parquet(out / "analysis/mine" / decoding / "tokens.parquet")
        assert tokens["id"].tolist() == np.concatenate(gens).tolist()
        m = index.longest_matches(gens)
        assert tokens["L"].tolist() == np.concatenate(m.split_lengths()).tolist()
        assert tokens["C"].tolist() == m.count.tolist()
        assert (tokens["L"] <= tokens["t"] + 1).all() and (tokens["C"] >= 1).all()
        assert (tokens["L"] >= 1).any()  # matches found: the index speaks the model's ids

    # the model is in every table and the summary, with the same content checks as the tiny run
    check_tables(out, cfg)
