"""benchmarks/shard_scale.py on a small corpus: the large-run command and its --reuse mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import shard_scale  # noqa: E402

pytestmark = pytest.mark.bench


def test_run_then_reuse(tmp_path):
    common = ["--tokens", "30000", "--query-tokens", "2000", "--repeats", "1",
              "--spot-checks", "5", "--vocab", "50"]  # fmt: skip
    first = tmp_path / "first.json"
    assert shard_scale.main(["run", *common, "--shard-tokens", "12000", "--workdir",
                             str(tmp_path), "--keep-workdir", "--out", str(first)]) == 0  # fmt: skip
    built = json.loads(first.read_text())
    assert built["shards"] == 3 and built["mismatches"] == [] and built["checked"] == 5
    assert built["fanout_equals_single_process"]
    (work,) = tmp_path.glob("shard_run.*")
    again = tmp_path / "again.json"
    assert shard_scale.main(["run", *common, "--reuse", str(work), "--out", str(again)]) == 0
    rerun = json.loads(again.read_text())
    for key in ("corpus", "shards", "build_seconds_total", "build_peak_rss_mb", "index_bytes"):
        assert rerun[key] == built[key]
    assert rerun["query_tokens"] == built["query_tokens"] and rerun["mismatches"] == []
    assert work.exists()  # a reused folder is never deleted


def test_reuse_needs_a_kept_run(tmp_path):
    with pytest.raises(SystemExit, match="build.json"):
        shard_scale.main(["run", "--tokens", "1000", "--reuse", str(tmp_path)])
