"""An index that checks itself: damaged files, a tokenizer that is not the index's, bad streams
given to ``index build`` — each asserting the message the user sees."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.index import Index, build_index
from support.index import stream_of


@pytest.fixture
def index_dir(tmp_path):
    """A two-shard index of random documents over 40 ids (long shared prefixes, LCPs > 0)."""
    rng = np.random.default_rng(7)
    docs = [rng.integers(0, 40, size=3000) for _ in range(4)]
    build_index(stream_of(docs), tmp_path / "idx", shard_tokens=7000)
    return tmp_path / "idx"


def zero_half(path, second: bool) -> None:
    """Overwrite the first or second half of a .npy file's data with zeros (same size)."""
    data = bytearray(path.read_bytes())
    offset = _data_offset(path)
    half = (len(data) - offset) // 2
    start = offset + half if second else offset
    data[start : start + half] = bytes(half)
    path.write_bytes(bytes(data))


def _data_offset(path) -> int:
    with open(path, "rb") as fh:
        np.lib.format.read_magic(fh)
        np.lib.format.read_array_header_1_0(fh)
        return fh.tell()


def test_intact_index_verifies(index_dir, capsys):
    assert main(["index", "verify", str(index_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("ok ") for line in lines)
    files = {line.split()[-1] for line in lines}
    for shard in ("shard-000", "shard-001"):
        for name in ("meta.json", "tokens.npy", "sa.npy", "lcp.npy"):
            assert str(index_dir / shard / name) in files
    assert str(index_dir / "shard-001" / "doc_ids.json") in files  # ids 2, 3


def test_truncated_array_is_named_on_open(index_dir, capsys):
    f = index_dir / "shard-001" / "sa.npy"
    f.write_bytes(f.read_bytes()[:-100])
    with pytest.raises(InputError, match=r"shard-001/sa\.npy: truncated: \d+ bytes, expected"):
        Index(index_dir)
    assert main(["count", str(index_dir), "--ids", "1 2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("copyscope: error: ") and "sa.npy: truncated" in err
    assert "mmap length" not in err
    assert main(["index", "verify", str(index_dir)]) == 2
    captured = capsys.readouterr()
    assert f"MISMATCH     {f}" in captured.out
    assert f"damaged or missing: {f} (MISMATCH)" in captured.err


@pytest.mark.parametrize("name", ["tokens", "sa", "lcp"])
@pytest.mark.parametrize("second", [True, False], ids=["second-half", "first-half"])
def test_same_size_zeroed_file_is_named(index_dir, capsys, name, second):
    f = index_dir / "shard-000" / f"{name}.npy"
    size = f.stat().st_size
    zero_half(f, second)
    assert f.stat().st_size == size
    with pytest.raises(InputError, match=rf"shard-000/{name}\.npy: corrupt index: "):
        Index(index_dir)
    assert main(["index", "verify", str(index_dir)]) == 2
    captured = capsys.readouterr()
    assert f"MISMATCH     {f}" in captured.out
    assert sum("MISMATCH" in line for line in captured.out.splitlines()) == 1


def test_wrong_dtype_or_shape_is_named(index_dir):
    f = index_dir / "shard-000" / "lcp.npy"
    np.save(f, np.load(f).astype(np.int16))
    with pytest.raises(InputError, match=r"lcp\.npy: expected dtype uint8 and shape \(\d+,\)"):
        Index(index_dir)


def test_changed_meta_json_is_named(index_dir):
    f = index_dir / "shard-000" / "meta.json"
    meta = json.loads(f.read_text())
    meta["n_docs"] += 1
    f.write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"shard-000/meta\.json: differs from the one index"):
        Index(index_dir)


def test_index_without_checksums_still_opens(index_dir, capsys):
    """Indexes built before per-file checksums: open as before, verify says what it cannot do."""
    manifest = json.loads((index_dir / "index.json").read_text())
    del manifest["shard_meta_sha256"]
    (index_dir / "index.json").write_text(json.dumps(manifest))
    for shard in manifest["shards"]:
        f = index_dir / shard / "meta.json"
        meta = json.loads(f.read_text())
        del meta["files"]
        f.write_text(json.dumps(meta))
    assert Index(index_dir).count([1]) > 0
    assert main(["index", "verify", str(index_dir)]) == 2
    captured = capsys.readouterr()
    assert f"ok           {index_dir / 'shard-000' / 'tokens.npy'}" in captured.out
    assert f"not recorded {index_dir / 'shard-000' / 'sa.npy'}" in captured.out
    assert "4 file(s) have no recorded checksum (marked above)" in captured.err
    assert "rebuild it to make it verifiable" in captured.err


# ----------------------------------------------------------------------------- tokenizers
@pytest.fixture
def word_index(tmp_path):
    """An index of Moses words built by ``index build --tokenizer``, and a second tokenizer."""
    from copyscope.tokenize import encode_split, from_spec

    texts = ["to be or not to be", "out damned spot"]
    docs = tmp_path / "train.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts))
    )
    tok = from_spec({"kind": "moses"}, "words").fit(texts, tmp_path / "tok")
    from_spec({"kind": "moses"}, "words").fit(["a different corpus"], tmp_path / "other")
    encode_split(tok, docs, tmp_path / "train.npy", tmp_path / "train.json", "words")
    assert main(["index", "build", str(tmp_path / "train.npy"), str(tmp_path / "index"),
                 "--tokenizer", str(tmp_path / "tok"), "--tokenizer-name", "words",
                 "--tokenizer-kind", "moses"]) == 0  # fmt: skip
    return tmp_path


def test_index_records_its_tokenizer_fingerprint(word_index, capsys):
    from copyscope.tokenize import load

    capsys.readouterr()
    manifest = json.loads((word_index / "index" / "index.json").read_text())
    assert manifest["tokenizer_sha256"] == load("moses", word_index / "tok").fingerprint()
    assert main(["count", str(word_index / "index"), "--text", "to be"]) == 0
    assert capsys.readouterr().out.strip() == "2"


def test_query_with_another_tokenizer_is_refused(word_index, capsys):
    capsys.readouterr()
    index = str(word_index / "index")
    assert main(["count", index, "--tokenizer", str(word_index / "other"), "--tokenizer-kind",
                 "moses", "--text", "to be"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert f"{word_index / 'other'}: not the tokenizer this index was built with" in err
    assert "pass --tokenizer DIR with the index's tokenizer 'words' (kind moses, fingerprint" in err


def test_moved_index_says_which_tokenizer_to_pass(word_index, tmp_path_factory, capsys):
    capsys.readouterr()
    moved = tmp_path_factory.mktemp("elsewhere") / "index"
    shutil.copytree(word_index / "index", moved)
    (moved / "index.json").write_text(
        (moved / "index.json").read_text().replace('"../tok"', '"../missing-tok"')
    )
    assert main(["count", str(moved), "--text", "to be"]) == 2
    err = capsys.readouterr().err
    assert "its tokenizer 'words' (kind moses, fingerprint " in err
    assert "does not exist (index copied or moved?): pass --tokenizer DIR" in err
    assert main(["count", str(moved), "--tokenizer", str(word_index / "tok"),
                 "--tokenizer-kind", "moses", "--text", "to be"]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip() == "2"


# ----------------------------------------------------------------------------- index link
def link(word_index, tok: str, out) -> int:
    return main(["index", "link", "--index", str(word_index / "index"), "--out", str(out),
                 "--tokenizer", str(word_index / tok), "--tokenizer-name", "words",
                 "--tokenizer-kind", "moses"])  # fmt: skip


def test_linked_index_answers_as_the_source(word_index, tmp_path_factory, capsys):
    """``index link`` (the workflow's tokenizers.<name>.index): a manifest elsewhere that
    queries the source's shards and names the workflow's tokenizer."""
    out = tmp_path_factory.mktemp("results") / "index" / "words" / "index.json"
    assert link(word_index, "tok", out) == 0
    manifest = json.loads(out.read_text())
    assert manifest["source_index"] == str((word_index / "index").resolve())
    assert (
        manifest["n_tokens"]
        == json.loads((word_index / "index/index.json").read_text())["n_tokens"]
    )
    capsys.readouterr()
    assert main(["count", str(out.parent), "--text", "to be"]) == 0
    assert capsys.readouterr().out.strip() == "2"
    assert main(["index", "verify", str(out.parent)]) == 0


def test_link_refuses_another_tokenizer(word_index, tmp_path, capsys):
    out = tmp_path / "linked" / "index.json"
    assert link(word_index, "other", out) == 2
    err = capsys.readouterr().err
    assert f"{word_index / 'index'}: built with another tokenizer (fingerprint " in err
    assert "than tokenizer 'words' (kind moses, fingerprint " in err
    assert not out.exists()


def test_link_refuses_a_damaged_index(word_index, tmp_path, capsys):
    zero_half(word_index / "index" / "shard-000" / "sa.npy", second=True)
    out = tmp_path / "linked" / "index.json"
    assert link(word_index, "tok", out) == 2
    err = capsys.readouterr().err
    assert f"damaged or missing: {word_index / 'index' / 'shard-000' / 'sa.npy'} (MISMATCH)" in err
    assert not out.exists()


# ----------------------------------------------------------------------------- index build input
@pytest.mark.parametrize(
    "array, message",
    [
        (np.array([1.0, 2.0, 65535.0]), "expected integer token ids"),
        (
            np.array([[1, 2], [3, 65535]], np.uint16),
            "expected a 1-D token stream, got shape (2, 2)",
        ),
        (np.array([1, 2, 3], np.uint16), "expected the stream to end with the separator id 65535"),
        (np.array([1, 2**40, -1], np.int64), "token id 1099511627776 does not fit"),
        (np.array([1, -5, -1], np.int64), "token id -5 does not fit"),
        (np.array([1, 2, 3], np.uint64), "got uint64"),
    ],
    ids=["float", "2-D", "no-separator", "overflow", "negative", "uint64"],
)
def test_index_build_rejects_bad_streams(tmp_path, capsys, array, message):
    np.save(tmp_path / "t.npy", array)
    assert main(["index", "build", str(tmp_path / "t.npy"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"copyscope: error: {tmp_path / 't.npy'}: ") and message in err
    assert not (tmp_path / "out").exists()


def test_index_build_missing_or_not_npy(tmp_path, capsys):
    assert main(["index", "build", str(tmp_path / "none.npy"), str(tmp_path / "out")]) == 2
    assert "none.npy: file not found" in capsys.readouterr().err
    (tmp_path / "t.txt").write_text("1 2 3\n")
    assert main(["index", "build", str(tmp_path / "t.txt"), str(tmp_path / "out")]) == 2
    assert "t.txt: expected a .npy file written by numpy.save" in capsys.readouterr().err


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_index_build_accepts_signed_streams(tmp_path, capsys, dtype):
    """Signed streams with -1 as the separator give the index of the uint16 stream."""
    docs = [[1, 2, 3], [2, 3]]
    signed = np.array([1, 2, 3, -1, 2, 3, -1], dtype)
    np.save(tmp_path / "s.npy", signed)
    assert main(["index", "build", str(tmp_path / "s.npy"), str(tmp_path / "out")]) == 0
    build_index(stream_of(docs), tmp_path / "ref")
    idx, ref = Index(tmp_path / "out"), Index(tmp_path / "ref")
    assert idx.dtype == np.uint16 and np.array_equal(idx.shards[0].tokens, ref.shards[0].tokens)
    assert idx.count([2, 3]) == 2


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.int64])
def test_arrays_are_saved_as_numpy_saves_them(tmp_path, dtype):
    """The shard's arrays, hashed while written, are byte for byte numpy.save's files, and the
    recorded size and sha256 are the file's."""
    from copyscope.io import save_npy_hashed, sha256_file

    for n in (0, 1, 1000, 3_000_001):
        array = np.arange(n, dtype=np.int64).astype(dtype)[::-1]
        np.save(tmp_path / "ref.npy", array)
        record = save_npy_hashed(tmp_path / "ours.npy", array, chunk=1 << 20)
        assert (tmp_path / "ours.npy").read_bytes() == (tmp_path / "ref.npy").read_bytes()
        assert record == {
            "bytes": (tmp_path / "ref.npy").stat().st_size,
            "sha256": sha256_file(tmp_path / "ref.npy"),
        }
