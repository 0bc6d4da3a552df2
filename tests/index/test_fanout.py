"""Per-shard fan-out (index.query_fanout): per-shard matches merged exactly equal the
single-process Index, through the library, the files and the command line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.errors import InputError
from copyscope.index import Index, build_index
from copyscope.index.fanout import (
    MatchedIndex,
    load_matches,
    merge_matches,
    merge_matches_files,
    save_queries,
    shard_matches,
    shard_matches_file,
)
from support.index import brute_matches, stream_of


def _sharded(tmp, docs, shard_tokens, name="idx") -> Index:
    build_index(stream_of(docs), tmp / name, shard_tokens=shard_tokens)
    return Index(tmp / name)


corpora = st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=25), min_size=2, max_size=14)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(docs=corpora, data=st.data())
def test_merge_equals_single_process_index(tmp_path_factory, docs, data):
    docs = docs + data.draw(st.lists(st.sampled_from(docs), max_size=4))  # repeated documents
    index = _sharded(tmp_path_factory.mktemp("fan"), docs, data.draw(st.integers(1, 30)))
    queries = data.draw(
        st.lists(
            st.one_of(
                st.lists(st.integers(0, 4), max_size=30),  # fresh (4 never occurs)
                st.sampled_from(docs).map(list),  # excerpts
            ),
            min_size=1,
            max_size=5,
        )
    )
    whole = index.longest_matches(queries)
    parts = [shard_matches(index.path / s, queries) for s in index.manifest["shards"]]
    # the merge does not depend on the order of the shards
    order = data.draw(st.permutations(range(len(parts))))
    merged = merge_matches([parts[i] for i in order], index.n_tokens)
    assert merged.length.dtype == whole.length.dtype and merged.count.dtype == whole.count.dtype
    assert merged.length.tobytes() == whole.length.tobytes()
    assert merged.count.tobytes() == whole.count.tobytes()
    assert merged.offsets.tobytes() == whole.offsets.tobytes()
    for i, q in enumerate(queries):
        L, C = brute_matches(docs, q)
        assert merged[i][0].tolist() == L.tolist() and merged[i][1].tolist() == C.tolist()


def _files(tmp_path, rng):
    docs = [rng.integers(0, 6, size=rng.integers(1, 40)) for _ in range(30)]
    docs += docs[:5]
    index = _sharded(tmp_path, docs, 60)
    assert len(index.shards) >= 4
    queries = [np.concatenate([docs[1][:7], rng.integers(0, 7, size=9)]), docs[3], np.zeros(0)]
    save_queries(tmp_path / "q.npz", queries)
    parts = []
    for s in index.manifest["shards"]:
        shard_matches_file(index.path / s, tmp_path / "q.npz", tmp_path / f"{s}.npz")
        parts.append(tmp_path / f"{s}.npz")
    return index, queries, parts


def test_files_merge_and_matched_index(tmp_path, rng):
    index, queries, parts = _files(tmp_path, rng)
    merge_matches_files(index.path, parts, tmp_path / "merged.npz")
    whole = index.longest_matches(queries)
    matched = MatchedIndex(index.path, tmp_path / "merged.npz")
    got = matched.longest_matches(queries)
    assert got.length.tobytes() == whole.length.tobytes()
    assert got.count.tobytes() == whole.count.tobytes()
    assert matched.n_tokens == index.n_tokens
    # other calls open the index itself
    assert matched.count(queries[1]) == index.count(queries[1])
    with pytest.raises(InputError, match="other queries"):
        matched.longest_matches(queries[:2])


def test_merge_needs_every_shard_once(tmp_path, rng):
    index, _, parts = _files(tmp_path, rng)
    with pytest.raises(InputError, match="once"):
        merge_matches_files(index.path, parts[:-1], tmp_path / "m.npz")
    with pytest.raises(InputError, match="once"):
        merge_matches_files(index.path, parts + parts[:1], tmp_path / "m.npz")
    other = rng.integers(0, 6, size=12)
    save_queries(tmp_path / "q2.npz", [other])
    shard_matches_file(index.path / "shard-000", tmp_path / "q2.npz", tmp_path / "x.npz")
    with pytest.raises(InputError, match="different queries"):
        merge_matches_files(index.path, [tmp_path / "x.npz", *parts[1:]], tmp_path / "m.npz")


def test_command_line_fanout(tmp_path, rng):
    index, queries, parts = _files(tmp_path, rng)
    out = tmp_path / "cli.npz"
    cmd = [sys.executable, "-m", "copyscope", "index", "merge-matches", "--index"]
    proc = subprocess.run(
        [*cmd, str(index.path), "--parts", *map(str, parts), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    merged, _, covered = load_matches(out)
    assert len(covered) == len(index.shards)
    whole = index.longest_matches(queries)
    assert merged.length.tolist() == whole.length.tolist()
    assert merged.count.tolist() == whole.count.tolist()


def test_int64_suffix_array_shard(tmp_path, rng, monkeypatch):
    """A shard past INT32_SUFFIXES stores an int64 suffix array (11 bytes/token) and answers
    like the int32 one and brute force (the threshold lowered so the shard is small)."""
    from copyscope.index import build

    docs = [rng.integers(0, 5, size=rng.integers(1, 30)) for _ in range(20)] + [[1, 2, 3]] * 3
    small = _sharded(tmp_path, docs, None, "int32")
    monkeypatch.setattr(build, "INT32_SUFFIXES", 10)
    big = _sharded(tmp_path, docs, 200, "int64")
    assert all(s.sa.dtype == np.int64 for s in big.shards)
    assert small.shards[0].sa.dtype == np.int32
    shard = big.shards[0]
    assert (shard.path / "sa.npy").stat().st_size >= 8 * shard.n_tokens
    assert (small.shards[0].path / "sa.npy").stat().st_size < 8 * small.n_tokens
    queries = [np.concatenate([docs[2], [4, 1, 2, 3]]), rng.integers(0, 6, size=25)]
    a, b = small.longest_matches(queries), big.longest_matches(queries)
    assert a.length.tolist() == b.length.tolist() and a.count.tolist() == b.count.tolist()
    for i, q in enumerate(queries):
        L, C = brute_matches(docs, q)
        assert b[i][0].tolist() == L.tolist() and b[i][1].tolist() == C.tolist()
    assert big.count([1, 2, 3]) == small.count([1, 2, 3])


def test_runtime_table_counts_nested_fanout_benchmarks(tmp_path):
    """Fan-out benchmark files nest the text set (shard_matches/<set>/<shard>.tsv): they count
    under their rule, beside flat <rule>.tsv and <rule>/<job>.tsv files."""
    from copyscope.report.runtime import runtime_table

    files = {
        "index/bpe.tsv": 2.0,
        "summary.tsv": 1.0,
        "shard_matches/novelty/bpe/shard-000.tsv": 3.0,
        "shard_matches/analysis/m/pure/words/shard-001.tsv": 4.0,
    }
    for name, seconds in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"s\tmax_rss\n{seconds}\t10\n")
    table = runtime_table(tmp_path).set_index("rule")
    assert table.loc["shard_matches", "jobs"] == 2
    assert table.loc["shard_matches", "seconds"] == 7.0
    assert table.loc["index", "jobs"] == 1 and table.loc["summary", "jobs"] == 1
