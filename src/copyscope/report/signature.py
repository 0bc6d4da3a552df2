"""A one-line signature of a run's results, as sacreBLEU signs its scores: which copyscope,
which configuration, which training index and tokenizer, which seed. Two results with the same
signature come from the same inputs (and, on the same hardware class, are the same bytes).

``copyscope:<version>|config:<sha>|index:<sha>|tokenizer:<sha>|seed:<models.seed>``, each sha
the first 12 hex digits of a SHA-256:

* config — of the validated config as canonical JSON (sorted keys), without ``results`` (the
  output folder does not change a result);
* index — of the training index's content: every shard's files and their sha256 (each shard's
  ``meta.json``: ``files``), not of the metadata files themselves (they hold build timings);
* tokenizer — the index's ``tokenizer_sha256`` (the tokenizer it was built with).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

SHORT = 12


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:SHORT]


def config_digest(config: Mapping) -> str:
    """The config's digest: canonical JSON (sorted keys, no ``results``), SHA-256, 12 hex."""
    body = {k: v for k, v in config.items() if k != "results"}
    return _sha(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str))


def index_digest(shard_metas: Mapping[str, Mapping]) -> str:
    """The training index's digest from its shards' ``meta.json`` (shard name → meta): the
    sorted (shard, file, sha256) of every file it holds; ``none`` without shards."""
    rows = sorted(
        f"{shard}/{name}:{entry['sha256']}"
        for shard, meta in shard_metas.items()
        for name, entry in (meta.get("files") or {}).items()
    )
    return _sha("\n".join(rows)) if rows else "none"


def shard_metas(index_json) -> dict[str, dict]:
    """Shard name → its ``meta.json``, for the index whose ``index.json`` is ``index_json``
    (the shards it lists, in its folder)."""
    from ..io import read_json

    folder = Path(index_json).parent
    manifest = read_json(index_json)
    return {s: read_json(folder / s / "meta.json") for s in manifest.get("shards", [])}


def signature(config_sha: str, manifest: Mapping, seed, shards: Mapping | None = None) -> str:
    """The signature line of a run (see the module docstring): ``manifest`` is the index's
    ``index.json``, ``shards`` its shards' metadata (:func:`shard_metas`)."""
    from .. import __version__

    tokenizer = str(manifest.get("tokenizer_sha256") or "none")[:SHORT]
    return (
        f"copyscope:{__version__}|config:{config_sha}|index:{index_digest(shards or {})}"
        f"|tokenizer:{tokenizer}|seed:{seed}"
    )
