"""The run's signature line (sacreBLEU-style): what it hashes, what it ignores, and that
summary.md carries it."""

from __future__ import annotations

import hashlib
import json

from copyscope import __version__
from copyscope.report.signature import config_digest, index_digest, signature
from copyscope.report.summary import signature_line

MANIFEST = {
    "shard_meta_sha256": {"shard-001": "b" * 64, "shard-000": "a" * 64},
    "tokenizer_sha256": "4fc2499ade1667a2f098f18b85c9fd26c1c478a092a971493ec02a1efda1969d",
}


def test_config_digest_is_canonical_and_ignores_the_results_folder():
    a = {"results": "results", "models": {"seed": 0, "tokenizer": "bpe"}, "novelty": {"n": 3}}
    b = {"novelty": {"n": 3}, "models": {"tokenizer": "bpe", "seed": 0}, "results": "elsewhere"}
    assert config_digest(a) == config_digest(b)
    body = json.dumps({"models": {"seed": 0, "tokenizer": "bpe"}, "novelty": {"n": 3}},
                      sort_keys=True, separators=(",", ":"))  # fmt: skip
    assert config_digest(a) == hashlib.sha256(body.encode()).hexdigest()[:12]
    assert config_digest(a) != config_digest({**a, "novelty": {"n": 4}})


def test_signature_hand_worked():
    shards = hashlib.sha256(("a" * 64 + "\n" + "b" * 64).encode()).hexdigest()[:12]
    assert index_digest(MANIFEST) == shards
    assert signature("0123456789ab", MANIFEST, 7) == (
        f"copyscope:{__version__}|config:0123456789ab|index:{shards}|tokenizer:4fc2499ade16|seed:7"
    )
    assert index_digest({}) == "none"
    other = {**MANIFEST, "shard_meta_sha256": {"shard-000": "c" * 64}}
    assert index_digest(other) != index_digest(MANIFEST)


def test_summary_line_names_the_signature():
    line = signature_line(MANIFEST, {"config_sha256": "0123456789ab", "seed": 0})
    assert line.startswith("Signature: `copyscope:") and line.endswith("|seed:0`")
