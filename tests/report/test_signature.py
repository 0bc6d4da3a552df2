"""The run's signature line (sacreBLEU-style): what it hashes, what it ignores, and that
summary.md carries it."""

from __future__ import annotations

import hashlib
import json

from copyscope import __version__
from copyscope.report.signature import config_digest, index_digest, shard_metas, signature
from copyscope.report.summary import signature_line

MANIFEST = {
    "shards": ["shard-000", "shard-001"],
    "tokenizer_sha256": "4fc2499ade1667a2f098f18b85c9fd26c1c478a092a971493ec02a1efda1969d",
}
SHARDS = {
    "shard-001": {"files": {"sa.npy": {"sha256": "b" * 64}}, "build_seconds": {"total": 1.5}},
    "shard-000": {"files": {"sa.npy": {"sha256": "a" * 64}}, "build_seconds": {"total": 0.2}},
}


def test_config_digest_is_canonical_and_ignores_the_results_folder():
    a = {"results": "results", "models": {"seed": 0, "tokenizer": "bpe"}, "novelty": {"n": 3}}
    b = {"novelty": {"n": 3}, "models": {"tokenizer": "bpe", "seed": 0}, "results": "elsewhere"}
    assert config_digest(a) == config_digest(b)
    body = json.dumps({"models": {"seed": 0, "tokenizer": "bpe"}, "novelty": {"n": 3}},
                      sort_keys=True, separators=(",", ":"))  # fmt: skip
    assert config_digest(a) == hashlib.sha256(body.encode()).hexdigest()[:12]
    assert config_digest(a) != config_digest({**a, "novelty": {"n": 4}})


def test_signature_hand_worked(tmp_path):
    rows = f"shard-000/sa.npy:{'a' * 64}\nshard-001/sa.npy:{'b' * 64}"
    shards = hashlib.sha256(rows.encode()).hexdigest()[:12]
    assert index_digest(SHARDS) == shards
    assert signature("0123456789ab", MANIFEST, 7, SHARDS) == (
        f"copyscope:{__version__}|config:0123456789ab|index:{shards}|tokenizer:4fc2499ade16|seed:7"
    )
    assert index_digest({}) == "none"
    # build timings are not content: a rebuild of the same index has the same digest
    rebuilt = {k: {**v, "build_seconds": {"total": 9.0}} for k, v in SHARDS.items()}
    assert index_digest(rebuilt) == shards
    other = {**SHARDS, "shard-000": {"files": {"sa.npy": {"sha256": "c" * 64}}}}
    assert index_digest(other) != shards
    # read from an index folder: index.json and each shard's meta.json
    (tmp_path / "index.json").write_text(json.dumps(MANIFEST))
    for name, meta in SHARDS.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "meta.json").write_text(json.dumps(meta))
    assert shard_metas(tmp_path / "index.json") == SHARDS


def test_summary_line_names_the_signature():
    line = signature_line(MANIFEST, {"config_sha256": "0123456789ab", "seed": 0}, SHARDS)
    assert line.startswith("Signature: `copyscope:") and line.endswith("|seed:0`")
