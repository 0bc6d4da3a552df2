"""The user commands on real text: files, stdin, batches, empty text, bad ids, odd characters,
and a start-up that does not import torch — each asserting what the user sees."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from copyscope.cli import main
from copyscope.tokenize import encode_split, from_spec
from support.workflow import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
TEXTS = [
    "Is this a dagger which I see before me, the handle toward my hand?",
    "Out, damned spot! out, I say! One: two: why, then, 'tis time to do't.",
    "Tomorrow, and tomorrow, and tomorrow, creeps in this petty pace from day to day.",
]


@pytest.fixture(scope="module")
def bpe_index(tmp_path_factory):
    """A BPE tokenizer fitted on three lines and the index of their tokens (index build)."""
    tmp = tmp_path_factory.mktemp("bpe")
    docs = tmp / "train.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS))
    )
    tok = from_spec({"kind": "bpe", "vocab_size": 300, "min_frequency": 1}, "bpe")
    tok.fit(TEXTS, tmp / "tok")
    encode_split(tok, docs, tmp / "train.npy", tmp / "train.json", "bpe")
    assert main(["index", "build", str(tmp / "train.npy"), str(tmp / "index"), "--meta",
                 str(tmp / "train.json"), "--tokenizer", str(tmp / "tok"),
                 "--tokenizer-name", "bpe", "--tokenizer-kind", "bpe"]) == 0  # fmt: skip
    return tmp


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_file_and_stdin_equal_text(bpe_index, capsys, monkeypatch, tmp_path):
    index = bpe_index / "index"
    text = " the handle toward my hand"
    _, by_text, _ = run(capsys, "query", index, "--text", text, "--format", "json")
    (tmp_path / "q.txt").write_text(text)
    _, by_file, _ = run(capsys, "query", index, "--file", tmp_path / "q.txt", "--format", "json")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    _, by_stdin, _ = run(capsys, "query", index, "--file", "-", "--format", "json")
    assert json.loads(by_text) == json.loads(by_file) == json.loads(by_stdin)
    lengths = [r["L"] for r in json.loads(by_text)]
    assert lengths == list(range(1, len(lengths) + 1))  # the whole text occurs in training


def test_a_long_text_from_a_file(bpe_index, capsys, tmp_path):
    """128 KB do not fit on a command line; from a file they are one query."""
    (tmp_path / "big.txt").write_text((TEXTS[0] + "\n") * 2000)
    assert (tmp_path / "big.txt").stat().st_size > 128_000
    rc, out, err = run(capsys, "count", bpe_index / "index", "--file", tmp_path / "big.txt")
    assert rc == 0 and out.strip() == "0" and err == ""
    rc, out, _ = run(capsys, "query", bpe_index / "index", "--batch", tmp_path / "big.txt")
    assert rc == 0 and len(out.splitlines()) == 2001  # header + one row per line


def test_batch_gives_one_row_per_text(bpe_index, capsys, tmp_path):
    index = bpe_index / "index"
    rows = [{"id": "a", "text": TEXTS[1]}, {"id": "b", "text": ""}, {"text": " toward my hand"}]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, out, _ = run(capsys, "query", index, "--batch", tmp_path / "b.jsonl", "--format", "csv")
    lines = out.splitlines()
    assert rc == 0 and lines[0] == "id,tokens,mean_L,max_L"
    assert lines[1].startswith("a,") and not lines[1].endswith(",")
    assert lines[2] == "b,0,,"  # the empty text: an empty row, not the corpus size
    assert lines[3].startswith("3,")  # no id field: the line number
    rc, out, _ = run(capsys, "count", index, "--batch", tmp_path / "b.jsonl", "--format", "json")
    assert [r["count"] for r in json.loads(out)] == [1, None, 1]
    rc, out, _ = run(capsys, "trace", index, "--batch", tmp_path / "b.jsonl", "--format", "json",
                     "--min-len", "2")  # fmt: skip
    traced = json.loads(out)
    assert traced[0]["covered"] == 1.0 and traced[1]["covered"] is None
    (tmp_path / "c.txt").write_text(f"{TEXTS[0]}\n\nunseen zzz\n")
    rc, out, _ = run(capsys, "count", index, "--batch", tmp_path / "c.txt", "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == "id,tokens,count" and lines[2] == "2,0,"
    assert lines[1].startswith("1,") and lines[1].endswith(",1")
    assert lines[3].startswith("3,") and lines[3].endswith(",0")


def test_bad_batch_line_is_named(bpe_index, capsys, tmp_path):
    (tmp_path / "b.jsonl").write_text('{"text": "a"}\n{"text": 3}\n')
    rc, _, err = run(capsys, "query", bpe_index / "index", "--batch", tmp_path / "b.jsonl")
    assert rc == 2 and f"{tmp_path / 'b.jsonl'}:2: expected an object with a string 'text'" in err
    (tmp_path / "b.jsonl").write_text("not json\n")
    rc, _, err = run(capsys, "query", bpe_index / "index", "--batch", tmp_path / "b.jsonl")
    assert rc == 2 and f"{tmp_path / 'b.jsonl'}:1: expected one JSON object per line" in err


@pytest.mark.parametrize("tool", ["query", "count", "trace"])
def test_empty_text_is_an_error(bpe_index, capsys, tool, tmp_path, recwarn):
    rc, out, err = run(capsys, tool, bpe_index / "index", "--text", "")
    assert rc == 2 and out == ""
    assert err == "copyscope: error: --text: the text is empty (no tokens): nothing to look up\n"
    (tmp_path / "e.txt").write_text("")
    rc, out, err = run(capsys, tool, bpe_index / "index", "--file", tmp_path / "e.txt")
    assert rc == 2 and f"{tmp_path / 'e.txt'}: the text is empty" in err
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize(
    "ids, message",
    [
        ("1,x", "expected integer token ids separated by commas or spaces, found 'x'"),
        ("1 2.5", "found '2.5'"),
        ("99999999999999999999999", "token id 99999999999999999999999 is outside the range"),
        ("-3", "token id -3 is outside the range"),
        ("300", "token id 300 is outside the range of tokenizer 'bpe' (ids 0..299)"),
        (" , ", "no token ids given"),
    ],
)
def test_bad_ids_are_explained(bpe_index, capsys, ids, message):
    rc, out, err = run(capsys, "count", bpe_index / "index", "--ids", ids)
    assert rc == 2 and out == "" and err.startswith("copyscope: error: --ids: ") and message in err


def test_control_characters_are_escaped(bpe_index, capsys):
    rc, out, _ = run(capsys, "trace", bpe_index / "index", "--plain", "--min-len", "3",
                     "--text", "my hand\x1b[2J\x07 before me")  # fmt: skip
    assert rc == 0 and "\x1b" not in out and "\x07" not in out
    assert "\\x1b" in out and "\\x07" in out
    rc, out, _ = run(capsys, "query", bpe_index / "index", "--text", "a\x1bb")
    assert "\x1b" not in out and "'\\x1b'" in out


def test_partial_characters_show_their_bytes(bpe_index, capsys):
    """A byte-level piece that is part of a UTF-8 character shows its bytes, not '�'."""
    rc, out, _ = run(capsys, "query", bpe_index / "index", "--text", "☃", "--format", "json")
    pieces = [r["piece"] for r in json.loads(out)]
    assert "".join(pieces) == "\\xe2\\x98\\x83" and "\ufffd" not in out


def test_bpe_loads_without_transformers_and_agrees_with_it(bpe_index):
    from copyscope.tokenize import load
    from copyscope.tokenize.hf import HFTokenizer, load_hf_tokenizer

    code = (
        "import sys; from copyscope.tokenize import load; "
        f"t = load('bpe', {str(bpe_index / 'tok')!r}); t.encode('x'); t.decode([1]); "
        "t.fingerprint(); print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV
    )
    assert out.stdout.strip() == "[]"
    fast = load("bpe", bpe_index / "tok")
    slow = HFTokenizer("bpe", None, load_hf_tokenizer(bpe_index / "tok"))
    for text in [*TEXTS, "naïve ☃ <|endoftext|> x", " \n\t  ", ""]:
        ids = fast.encode(text)
        assert np.array_equal(ids, slow.encode(text))
        assert fast.decode(ids) == slow.decode(ids)
    assert fast.vocab_size == slow.vocab_size and fast.fingerprint() == slow.fingerprint()


def test_query_prints_nothing_but_the_table(bpe_index):
    """No INFO lines (numexpr), no warnings: stderr stays empty on success."""
    out = subprocess.run(
        [sys.executable, "-m", "copyscope", "query", str(bpe_index / "index"), "--text", "my hand"],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.splitlines()[0].split() == ["t", "token", "piece", "L_t", "C_t"]
