"""A damaged index never crashes a process (issue 41): flipped bytes in the arrays, damaged
``meta.json`` / ``index.json``, an interrupted build — each run from outside as a user runs it
(a segfault would kill pytest), ending with one clear error line naming the file, or with the
answer the undamaged index gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.cli import main
from copyscope.index import build_index, core
from copyscope.index import open as open_index
from copyscope.index.verify import sample_ranks
from copyscope.tokenize import encode_split, from_spec
from support.index import brute_count, brute_matches, stream_of
from support.workflow import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
WORDS = (
    "the of and to in is was for on that with as by at from his her it be are this which "
    "or had not but what all were when we there can an your more one would will their"
).split()


def copyscope(*args, timeout=600) -> subprocess.CompletedProcess:
    """``python -m copyscope ARGS`` in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "copyscope", *map(str, args)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The one ``copyscope: error:`` line of a run that failed cleanly (exit code 2: no
    signal, no traceback, nothing else on stderr)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("copyscope: error: "), proc.stderr[-3000:]
    return lines[0]


def data_offset(path: Path) -> int:
    """Where the data of a ``.npy`` file starts (after its header)."""
    with open(path, "rb") as fh:
        np.lib.format.read_magic(fh)
        np.lib.format.read_array_header_1_0(fh)
        return fh.tell()


def flip_bytes(path: Path, seed: int, k: int = 16) -> None:
    """XOR ``k`` bytes at seeded offsets of a ``.npy`` file's data with nonzero values."""
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(seed)
    for off in rng.choice(np.arange(data_offset(path), len(data)), size=k, replace=False):
        data[off] ^= int(rng.integers(1, 256))
    path.write_bytes(bytes(data))


# ----------------------------------------------------------------------------- a large index
@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A BPE index of random text over 40 words, larger than core.CHECKSUM_BYTES (so opening
    checks a sample, not every byte), the texts every command is asked about, and what each
    command prints for the undamaged index."""
    tmp = tmp_path_factory.mktemp("large")
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS, size=4500)) for _ in range(400)]
    (tmp / "train.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    tok = from_spec({"kind": "bpe", "vocab_size": 300, "min_frequency": 1}, "bpe")
    tok.fit(texts[:20], tmp / "tok")
    encode_split(tok, tmp / "train.jsonl", tmp / "train.npy", tmp / "train.json", "bpe")
    assert main(["index", "build", str(tmp / "train.npy"), str(tmp / "index"), "--meta",
                 str(tmp / "train.json"), "--tokenizer", str(tmp / "tok"),
                 "--tokenizer-name", "bpe", "--tokenizer-kind", "bpe"]) == 0  # fmt: skip
    shard = tmp / "index" / "shard-000"
    assert sum(f.stat().st_size for f in shard.iterdir()) > core.CHECKSUM_BYTES
    # 25 texts: 13 copied from training, 12 new (over 1024 tokens: the compiled kernels)
    lines = [" ".join(t.split()[s : s + 60]) for t, s in zip(texts[:13], range(13), strict=True)]
    lines += [" ".join(rng.choice(WORDS, size=60)) for _ in range(12)]
    (tmp / "batch.txt").write_text("\n".join(lines) + "\n")
    (tmp / "short.txt").write_text(lines[0] + "\n")  # a few tokens: the numpy path
    expected = {cmd: copyscope(*command(tmp / "index", tmp, cmd)) for cmd in COMMANDS}
    for cmd, proc in expected.items():
        assert proc.returncode == 0 and proc.stderr == "", (cmd, proc.stderr)
    return tmp, {cmd: proc.stdout for cmd, proc in expected.items()}


COMMANDS = ["query --batch", "count --batch", "trace --file", "query --file", "count --file"]


def command(index: Path, tmp: Path, cmd: str) -> list:
    """The arguments of ``cmd`` (of :data:`COMMANDS`) against ``index``."""
    tool, flag = cmd.split()
    text = tmp / ("batch.txt" if flag == "--batch" or tool == "trace" else "short.txt")
    extra = ["--format", "csv"] if flag == "--batch" else []
    return [tool, index, flag, text, *extra, "--tokenizer", tmp / "tok"]


def damaged_copy(tmp: Path, dest: Path) -> Path:
    shutil.copytree(tmp / "index", dest)
    return dest


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", ["tokens.npy", "sa.npy", "lcp.npy"])
def test_flipped_bytes_give_an_error_line_or_the_right_answer(large, tmp_path, name, seed):
    """16 flipped bytes (issue 41: exit 139 with nothing printed): every command ends with one
    line naming the damaged file and pointing to ``index verify``, or prints what the
    undamaged index prints; ``index verify`` names the file."""
    tmp, expected = large
    index = damaged_copy(tmp, tmp_path / "index")
    damaged = index / "shard-000" / name
    flip_bytes(damaged, seed)
    failed = []
    for cmd in COMMANDS:
        proc = copyscope(*command(index, tmp, cmd))
        if proc.returncode == 0:
            assert proc.stdout == expected[cmd] and proc.stderr == "", cmd
            continue
        failed.append(cmd)
        line = error_line(proc)
        assert line.startswith(f"copyscope: error: {damaged}: corrupt index: "), line
        assert f"`copyscope index verify {index / 'shard-000'}` checks every file" in line
    if name == "tokens.npy":  # a flipped high byte leaves the 300-id alphabet, which the
        # kernels' tables check (a short text's numpy path reads only what it compares)
        assert {"query --batch", "count --batch", "trace --file"} <= set(failed)
    proc = copyscope("index", "verify", index)
    assert f"MISMATCH     {damaged}\n" in proc.stdout
    assert error_line(proc).endswith(f"damaged or missing: {damaged} (MISMATCH); rebuild it or "
                                     "copy it again")  # fmt: skip


def test_suffix_entries_outside_the_stream_are_caught_where_read(large, tmp_path):
    """Suffix-array entries outside the stream at every rank the opening checks do not read
    (the sampled ranks and every 16th): the kernels and the numpy path meet them, and say so."""
    tmp, _ = large
    index = damaged_copy(tmp, tmp_path / "index")
    path = index / "shard-000" / "sa.npy"
    sa = np.load(path, mmap_mode="r+")
    n = sa.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[::16] = True
    ranks = sample_ranks(n)
    keep[ranks] = keep[ranks - 1] = True
    sa[~keep] = np.where(np.arange(n)[~keep] % 2, 2**31 - 1, -7)
    sa.flush()
    del sa
    for cmd in COMMANDS:
        line = error_line(copyscope(*command(index, tmp, cmd)))
        assert line.startswith(f"copyscope: error: {path}: corrupt index: suffix array entry ")
        assert "is outside the stream of" in line, line


# ----------------------------------------------------------------------------- metadata
@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A BPE index of three lines (index build), with its tokenizer and a batch file."""
    tmp = tmp_path_factory.mktemp("small")
    texts = ["to be or not to be that is the question", "out damned spot out I say",
             "tomorrow and tomorrow and tomorrow creeps in this petty pace"]  # fmt: skip
    (tmp / "train.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    tok = from_spec({"kind": "bpe", "vocab_size": 300, "min_frequency": 1}, "bpe")
    tok.fit(texts, tmp / "tok")
    encode_split(tok, tmp / "train.jsonl", tmp / "train.npy", tmp / "train.json", "bpe")
    assert main(["index", "build", str(tmp / "train.npy"), str(tmp / "index"), "--meta",
                 str(tmp / "train.json"), "--tokenizer", str(tmp / "tok"),
                 "--tokenizer-name", "bpe", "--tokenizer-kind", "bpe"]) == 0  # fmt: skip
    (tmp / "batch.txt").write_text("\n".join(texts) + "\n")
    (tmp / "short.txt").write_text(texts[0] + "\n")
    return tmp


def _reseal(index: Path) -> None:
    """Record the shard's (damaged) meta.json checksum in index.json, so that opening reads it."""
    from copyscope.index.verify import meta_sha256

    manifest = json.loads((index / "index.json").read_text())
    manifest["shard_meta_sha256"]["shard-000"] = meta_sha256(index / "shard-000")
    (index / "index.json").write_text(json.dumps(manifest))


def _edit(path: Path, change) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def _without(obj: dict, key: str) -> dict:
    return {k: v for k, v in obj.items() if k != key}


META_DAMAGE = {
    "meta-not-json": ("shard-000/meta.json", lambda p: p.write_bytes(p.read_bytes()[:100]),
                      "damaged index metadata: not valid JSON"),
    "meta-missing-key": ("shard-000/meta.json",
                         lambda p: _edit(p, lambda m: _without(m, "n_tokens")),
                         "damaged index metadata: missing key 'n_tokens'"),
    "meta-wrong-type": ("shard-000/meta.json",
                        lambda p: _edit(p, lambda m: {**m, "alphabet_size": "300"}),
                        "damaged index metadata: expected 'alphabet_size' to be an integer"),
    "meta-bad-dtype": ("shard-000/meta.json",
                       lambda p: _edit(p, lambda m: {**m, "dtype": "uint36"}),
                       "damaged index metadata: expected 'dtype' to be one of"),
    "manifest-not-json": ("index.json", lambda p: p.write_bytes(b"\xff" + p.read_bytes()),
                          "damaged index metadata: not valid JSON"),
    "manifest-missing-key": ("index.json", lambda p: _edit(p, lambda m: _without(m, "shards")),
                             "damaged index manifest: missing key 'shards'"),
    "manifest-wrong-type": ("index.json",
                            lambda p: _edit(p, lambda m: {**m, "shards": "shard-000"}),
                            "damaged index manifest: expected 'shards' to be a non-empty list"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(META_DAMAGE))
def test_damaged_metadata_is_one_line_naming_it(small, tmp_path, case):
    """Bad JSON, a missing key, a wrong type in meta.json or index.json: every command, and
    ``index verify``, prints one line naming the file (before: a KeyError traceback)."""
    rel, damage, message = META_DAMAGE[case]
    index = damaged_copy(small, tmp_path / "index")
    path = index / rel
    damage(path)
    if rel != "index.json":
        _reseal(index)  # else opening stops at the checksum index.json recorded (tested below)
    for cmd in COMMANDS:
        line = error_line(copyscope(*command(index, small, cmd)))
        assert line.startswith(f"copyscope: error: {path}: {message}"), line
        assert "`copyscope index verify` checks every file" in line
    proc = copyscope("index", "verify", index)
    assert f"DAMAGED      {path} (" in proc.stdout, proc.stdout
    assert f"damaged or missing: {path} (DAMAGED: " in error_line(proc)


def test_changed_meta_json_is_named_by_the_checksum_index_json_records(small, tmp_path):
    index = damaged_copy(small, tmp_path / "index")
    META_DAMAGE["meta-not-json"][1](index / "shard-000" / "meta.json")
    line = error_line(copyscope(*command(index, small, "count --batch")))
    assert f"{index / 'shard-000' / 'meta.json'}: differs from the one index.json recorded" in line


def test_an_index_is_opened_from_its_folder_or_its_index_json(small, capsys):
    """copyscope.index.open and every command take the folder or its index.json alike."""
    index = small / "index"
    a, b = open_index(index), open_index(index / "index.json")
    assert a.path == b.path == index and a.n_tokens == b.n_tokens
    outputs = []
    for where in (index, index / "index.json"):
        assert main(["count", str(where), "--batch", str(small / "batch.txt")]) == 0
        assert main(["index", "verify", str(where)]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    shard = index / "shard-000"
    assert open_index(shard / "meta.json").n_tokens == open_index(shard).n_tokens == a.n_tokens
    assert main(["count", str(small / "train.json"), "--text", "to be"]) == 2
    assert "expected an index directory" in capsys.readouterr().err


# ----------------------------------------------------------------------------- build
def test_an_interrupted_build_leaves_no_folder(tmp_path, monkeypatch):
    """An exception while the second shard is built (or Ctrl-C): no index folder, no
    temporary folder beside it; an index already there is kept as it was."""
    from copyscope.index import build

    docs = [[1, 2, 3] * 50, [4, 5, 6] * 50, [7, 8, 9] * 50]
    built = []
    real = build.build_shard

    def failing(*args, **kwargs):
        if built:
            raise KeyboardInterrupt
        built.append(real(*args, **kwargs))

    monkeypatch.setattr(build, "build_shard", failing)
    with pytest.raises(KeyboardInterrupt):
        build.build_index(stream_of(docs), tmp_path / "idx", shard_tokens=160)
    assert built and list(tmp_path.iterdir()) == []
    monkeypatch.setattr(build, "build_shard", real)
    build_index(stream_of(docs[:1]), tmp_path / "idx")
    before = {p.name: p.read_bytes() for p in (tmp_path / "idx").rglob("*.npy")}
    built.clear()
    monkeypatch.setattr(build, "build_shard", failing)
    with pytest.raises(KeyboardInterrupt):
        build.build_index(stream_of(docs), tmp_path / "idx", shard_tokens=160)
    assert [p.name for p in tmp_path.iterdir()] == ["idx"]
    assert {p.name: p.read_bytes() for p in (tmp_path / "idx").rglob("*.npy")} == before
    assert open_index(tmp_path / "idx").count([1, 2, 3]) == 50


def test_build_refuses_a_folder_that_is_not_an_index(tmp_path, capsys):
    np.save(tmp_path / "t.npy", stream_of([[1, 2, 3]]))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    assert main(["index", "build", str(tmp_path / "t.npy"), str(tmp_path / "out")]) == 2
    assert "found a folder with other files: name a new folder" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["notes.txt"]


# ----------------------------------------------------------------------------- property
PROBE = """
import json, sys
import numpy as np
from copyscope.errors import CopyscopeError
from copyscope.index import core, open as open_index

def answers(path, queries):
    index = open_index(path)
    m = index.longest_matches([np.array(q, dtype=np.int64) for q in queries])
    return {"L": m.length.tolist(), "C": m.count.tolist(),
            "count": index.count_many(queries).tolist(),
            "where": [[list(x) for x in w] for w in index.locate_many(queries, 3)]}

def run(path, queries):
    try:
        return {"answer": answers(path, queries)}
    except CopyscopeError as exc:
        return {"error": str(exc)}

path, queries = sys.argv[1], json.loads(sys.argv[2])
out = {"numpy": run(path, queries)}
import copyscope.index.kernels  # from here on the compiled kernels answer
out["kernels"] = run(path, queries)
core.CHECKSUM_BYTES = 0  # as for a large index: no whole-file checksums on opening
out["unchecked"] = run(path, queries)
print(json.dumps(out))
"""
FILES = ["index.json"] + [
    f"shard-00{s}/{f}"
    for s in (0, 1)
    for f in ("meta.json", "tokens.npy", "sa.npy", "lcp.npy", "doc_ids.json")
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A two-shard index of 11 documents over 9 ids (about 2000 tokens: the sampled check
    reads half of the suffix ranks), the queries asked, and the undamaged answers (counts
    checked against brute force, L_t and C_t of the short queries too)."""
    tmp = tmp_path_factory.mktemp("tiny")
    rng = np.random.default_rng(3)
    docs = [rng.integers(0, 9, size=int(rng.integers(150, 250))).tolist() for _ in range(10)]
    docs.append(docs[0][:40])
    ids = [f"doc{i}" for i in range(len(docs))]
    build_index(stream_of(docs), tmp / "index", shard_tokens=1100, doc_ids=ids)
    queries = [docs[1][3:40], docs[0][:30], [8, 7, 6, 5], docs[5][-6:] + docs[2][:5], [3],
               rng.integers(0, 9, size=60).tolist()]  # fmt: skip
    index = open_index(tmp / "index")
    m = index.longest_matches([np.array(q) for q in queries])
    for i, q in enumerate(queries[2:5], start=2):
        L, C = brute_matches(docs, q)
        assert m[i][0].tolist() == L.tolist() and m[i][1].tolist() == C.tolist()
    count = index.count_many(queries).tolist()
    assert count == [brute_count(docs, q) for q in queries]
    where = [[list(x) for x in w] for w in index.locate_many(queries, 3)]
    expected = {"L": m.length.tolist(), "C": m.count.tolist(), "count": count, "where": where}
    return tmp, queries, expected


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(FILES),
    flips=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=16
    ),
)
def test_property_random_damage_never_crashes(tiny, name, flips):
    """Random bytes flipped in any file of a small index: each way of answering (the numpy
    path, the kernels) ends with one error line naming a file of the index or with the
    undamaged answer; with the whole-file checksums off (a large index) it still never
    crashes (the answer may then be wrong: ``index verify`` finds that)."""
    tmp, queries, expected = tiny
    with tempfile.TemporaryDirectory() as work:
        index = Path(work) / "index"
        shutil.copytree(tmp / "index", index)
        path = index / name
        data = bytearray(path.read_bytes())
        for where, xor in flips:
            data[int(where * len(data))] ^= xor
        path.write_bytes(bytes(data))
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, str(index), json.dumps(queries)],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0 and proc.stderr == "", (proc.returncode, proc.stderr[-3000:])
        out = json.loads(proc.stdout)
        for way, result in out.items():
            if "error" in result:
                assert "\n" not in result["error"] and result["error"].startswith(str(index))
            elif way != "unchecked":
                assert result["answer"] == expected, (way, name, result)
