"""A one-line signature of a run's results, as sacreBLEU signs its scores: which copyscope,
which configuration, which training index and tokenizer, which seed. Two results with the same
signature come from the same inputs (and, on the same hardware class, are the same bytes).

``copyscope:<version>|config:<sha>|index:<sha>|tokenizer:<sha>|seed:<models.seed>``, each sha
the first 12 hex digits of a SHA-256:

* config — of the validated config as canonical JSON (sorted keys), without ``results`` (the
  output folder does not change a result);
* index — of the training index's shard digests (``index.json``: ``shard_meta_sha256``, sorted);
* tokenizer — the index's ``tokenizer_sha256`` (the tokenizer it was built with).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

SHORT = 12


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:SHORT]


def config_digest(config: Mapping) -> str:
    """The config's digest: canonical JSON (sorted keys, no ``results``), SHA-256, 12 hex."""
    body = {k: v for k, v in config.items() if k != "results"}
    return _sha(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str))


def index_digest(manifest: Mapping) -> str:
    """The training index's digest from its ``index.json``: its shards' digests, sorted."""
    shards = manifest.get("shard_meta_sha256") or {}
    if not shards:
        return "none"
    return _sha("\n".join(sorted(str(v) for v in shards.values())))


def signature(config_sha: str, manifest: Mapping, seed) -> str:
    """The signature line of a run (see the module docstring)."""
    from .. import __version__

    tokenizer = str(manifest.get("tokenizer_sha256") or "none")[:SHORT]
    return (
        f"copyscope:{__version__}|config:{config_sha}|index:{index_digest(manifest)}"
        f"|tokenizer:{tokenizer}|seed:{seed}"
    )
