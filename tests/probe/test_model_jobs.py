"""The model jobs' library commands (``sample model``, ``analyze model``, ``probe model``):
each step writes byte for byte what its command writes run alone, one model load serves every
step, and a job whose files do not match its settings stops with the flag named."""

from __future__ import annotations

import json

import numpy as np
import pytest

from copyscope.cli import main
from copyscope.tokenize import from_spec
from support.index import stream_of

TEXTS = ["to be or not to be, that is the question", "out, damned spot! out, I say!"] * 30
DECODINGS = {
    "pure": {"kind": "sample", "temperature": 1.0},
    "top_k_5": {"kind": "sample", "temperature": 1.0, "top_k": 5},
    "greedy": {"kind": "greedy"},
}


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """A tiny GPT-2 with its tokenizer, prompt windows, a word tokenizer and both indexes."""
    import torch

    from copyscope.index import build_index
    from copyscope.io import write_json, write_jsonl
    from copyscope.lm import build_model

    tmp = tmp_path_factory.mktemp("job")
    tok = from_spec({"kind": "bpe", "vocab_size": 270}, "a").fit(TEXTS, tmp / "tok").hf
    torch.manual_seed(0)
    spec = {"kind": "gpt2", "n_layer": 1, "n_embd": 32, "n_head": 4, "n_ctx": 64, "dropout": 0.0}
    build_model(spec, len(tok), tok.eos_token_id).save_pretrained(str(tmp / "model"))
    tok.save_pretrained(str(tmp / "model"))
    docs = [tok.encode(t, add_special_tokens=False) for t in TEXTS]
    windows = [
        {"window": i, "prompts": {"4": d[:4], "0": []}, "continuation": d[4:12]}
        for i, d in enumerate(docs[:10])
    ]
    write_jsonl(tmp / "prompts.jsonl", windows)
    words = from_spec({"kind": "moses"}, "w").fit(TEXTS, tmp / "words")
    build_index(stream_of(docs), tmp / "index")
    build_index(stream_of([words.encode(t) for t in TEXTS], np.uint32), tmp / "word_index")
    passage = {"id": "p0", "text": TEXTS[0], "copies": 1, "occurrences": 2}
    write_json(tmp / "manifest.json", {"injected": [passage]})
    return tmp


def _settings(decodings=("pure", "top_k_5", "greedy")) -> dict:
    return {
        "new_tokens": 6, "seed": 3, "batch_size": 4,
        "decodings": {d: {"method": DECODINGS[d], "prompt_lengths": [0, 4]} for d in decodings},
    }  # fmt: skip


def _sample_model(job, out_dir, outs, settings=None) -> int:
    argv = ["sample", "model", "--model", str(job / "model"), "--model-name", "m",
            "--params-json", json.dumps(settings or _settings()),
            "--prompts", str(job / "prompts.jsonl"), "--prompt-tokenizer", str(job / "tok"),
            "--device", "cpu"]  # fmt: skip
    for d in outs:
        argv += ["--out", d, str(out_dir / f"{d}.jsonl")]
    return main(argv)


def test_sample_model_writes_what_each_set_writes_alone(job, tmp_path):
    assert _sample_model(job, tmp_path, ["pure", "top_k_5", "greedy"]) == 0
    for d in ("greedy", "pure"):
        alone = tmp_path / f"alone-{d}.jsonl"
        assert main(["sample", "generate", "--model", str(job / "model"), "--model-name", "m",
                     "--decoding", d, "--params-json", json.dumps(DECODINGS[d]),
                     "--prompts", str(job / "prompts.jsonl"), "--prompt-tokenizer",
                     str(job / "tok"), "--prompt-lengths", "0", "4", "--new-tokens", "6",
                     "--seed", "3", "--batch-size", "4", "--device", "cpu",
                     "--out", str(alone)]) == 0  # fmt: skip
        assert (tmp_path / f"{d}.jsonl").read_bytes() == alone.read_bytes()
    assert (tmp_path / "pure.jsonl").read_bytes() != (tmp_path / "top_k_5.jsonl").read_bytes()


def test_the_model_is_loaded_once_per_job(job, tmp_path, monkeypatch):
    import copyscope.tokenize as tokenize

    reads, real = [], tokenize.load_hf_tokenizer

    def counting(path, *a, **k):
        reads.append(str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(tokenize, "load_hf_tokenizer", counting)
    assert _sample_model(job, tmp_path, ["pure", "top_k_5", "greedy"]) == 0
    # the model's tokenizer is read by load_model once; the prompts' tokenizer once per set
    assert reads.count(str(job / "model")) == 1
    assert reads.count(str(job / "tok")) == 3


@pytest.mark.parametrize(
    "outs", [["pure", "top_k_5"], ["pure", "top_k_5", "greedy", "pure"], ["pure", "beam", "greedy"]]
)
def test_sample_model_needs_one_file_per_decoding(job, tmp_path, capsys, outs):
    assert _sample_model(job, tmp_path, outs) == 2
    err = capsys.readouterr().err
    assert "flag --out: expected one file for each decoding" in err
    assert not list(tmp_path.iterdir())  # nothing written


def _analyze_flags(job) -> list[str]:
    return ["--tokenizer", str(job / "tok"), "--index", str(job / "index"),
            "--word-tokenizer", str(job / "words"), "--word-index", str(job / "word_index"),
            "--evaluator", str(job / "model"), "--same-tokenizer",
            "--manifest", str(job / "manifest.json"), "--supercopy-min", "3",
            "--planted-min", "4", "--device", "cpu"]  # fmt: skip


def _set_files(where, name) -> list[str]:
    where.mkdir(parents=True, exist_ok=True)
    return [str(where / f"{name}.{ext}")
            for name, ext in (("tokens", "parquet"), ("words", "parquet"), ("quality", "csv"),
                              ("supercopies", "csv"), ("planted", "csv"))]  # fmt: skip


def test_analyze_model_writes_what_analyze_setting_and_completion_loss_write(job, tmp_path):
    assert _sample_model(job, tmp_path, ["pure", "top_k_5", "greedy"]) == 0
    argv = ["analyze", "model", *_analyze_flags(job)]
    for d in ("pure", "greedy"):
        argv += ["--set", str(tmp_path / f"{d}.jsonl"), *_set_files(tmp_path / "job" / d, d)]
    argv += ["--completion", str(job / "model"), str(tmp_path / "job" / "completion.parquet"),
             "--prompt-length", "4"]  # fmt: skip
    assert main(argv) == 0
    for d in ("pure", "greedy"):
        files = _set_files(tmp_path / "alone" / d, d)
        flags = [w for f, p in zip(("--out-tokens", "--out-words", "--out-quality",
                                    "--out-supercopies", "--out-planted"), files, strict=True)
                 for w in (f, p)]  # fmt: skip
        assert main(["analyze", "setting", "--samples", str(tmp_path / f"{d}.jsonl"),
                     *_analyze_flags(job), *flags]) == 0  # fmt: skip
        for a, b in zip(files, _set_files(tmp_path / "job" / d, d), strict=True):
            assert open(a, "rb").read() == open(b, "rb").read(), a
    alone = tmp_path / "alone" / "completion.parquet"
    assert main(["analyze", "completion-loss", "--model", str(job / "model"),
                 "--samples", str(tmp_path / "pure.jsonl"),
                 "--tokens", _set_files(tmp_path / "alone" / "pure", "pure")[0],
                 "--prompt-length", "4", "--device", "cpu", "--out", str(alone)]) == 0  # fmt: skip
    assert alone.read_bytes() == (tmp_path / "job" / "completion.parquet").read_bytes()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "flag --set: expected at least one set"),
        (["--set", "s", *"abcde", "--matches", "t", "w", "--matches", "t", "w"],
         "flag --matches: expected one per --set (1), got 2"),
        (["--set", "s", *"abcde", "--completion", "m", "o"],
         "flag --prompt-length: expected with --completion"),
    ],
)  # fmt: skip
def test_analyze_model_checks_its_sets(job, capsys, extra, message):
    assert main(["analyze", "model", *_analyze_flags(job), *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("params", "files", "flag"),
    [
        ({"memorization": {}}, [], "flag --out-ladder: expected a file: --params-json has "
                                   "'memorization'"),
        ({}, ["--out-ladder", "x.csv"], "flag --out-ladder: expected none"),
        ({"membership": {}}, ["--out-texts", "t", "--out-cloze", "c"],
         "flag --cloze-passages: expected a file"),
        ({}, ["--cloze-passages", "p.json"], "flag --cloze-passages: expected none"),
    ],
)  # fmt: skip
def test_probe_model_files_match_its_steps(job, tmp_path, capsys, params, files, flag):
    argv = ["probe", "model", "--model", str(job / "model"), "--model-name", "m",
            "--params-json", json.dumps({"style": {}, **params}), "--index", str(job / "index"),
            "--manifest", str(job / "manifest.json"), "--out-repeats", str(tmp_path / "r.csv"),
            *files, "--device", "cpu"]  # fmt: skip
    assert main(argv) == 2
    assert flag in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()  # checked before any step runs
