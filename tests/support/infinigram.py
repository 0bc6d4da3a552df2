"""Small infini-gram indexes built by the ``infini_gram`` package's own indexer, offline.

The indexer (``python -m infini_gram.indexing``) reads JSONL files and tokenizes each text
with a tokenizer it downloads by name (``gpt2``, ``llama``, ``olmo``), or stores its UTF-8
bytes (no tokenizer: u8). Offline, the texts here are token ids written as numbers and the
downloaded tokenizer is replaced by one that reads them back (``int`` of every word); the
suffix array is then sorted by the package's own compiled indexer (``rust_indexing``), so the
files are those infini-gram writes for these tokens. All indexes of a call are built in one
process (the indexer imports transformers: about two seconds).

The indexer's u32 sorter cannot run here: it allocates one u64 bucket pointer per value up to
the largest token read big-endian, and the separator ``0xFFFFFFFF`` makes that 2**32 of
them (32 GiB; ``memory allocation of 34359738368 bytes failed`` on a machine with less). For
u32 the indexer writes the stream, offsets and metadata, and the table is sorted here by
its definition (:func:`reference_table`: suffixes as byte strings, pointers of the indexer's
width) — the engine's answers on it are what the tests compare with.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

BUILD = r"""
import json, os, resource, sys
import transformers

class Ids:  # the offline stand-in for the downloaded tokenizer: the text's numbers
    def encode(self, text):
        return [int(w) for w in text.split()]

transformers.AutoTokenizer.from_pretrained = lambda *a, **k: Ids()
import infini_gram.indexing as ix

sort = ix.build_sa
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
for job in json.loads(sys.argv[1]):
    here = os.getcwd()
    sys.argv = ["indexing", "--data_dir", job["data"], "--save_dir", job["out"],
                "--token_dtype", job["dtype"], "--shards", str(job["shards"]), "--cpus", "1",
                "--mem", "1", "--ulimit", str(hard)]
    if job["dtype"] != "u8":
        sys.argv += ["--tokenizer", "gpt2"]
    if job["metadata"]:
        sys.argv += ["--add_metadata"]
    ix.build_sa = sort if job["dtype"] != "u32" else (lambda args: None)
    ix.main()
    os.chdir(here)
"""


def write_corpus(folder: Path, docs, dtype: str) -> None:
    """One JSONL file of the documents (``text`` and ``id`` = ``d<i>``): u8 documents are
    ASCII byte values written as the text itself, the others token ids written as numbers."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for i, d in enumerate(docs):
            text = bytes(d).decode("ascii") if dtype == "u8" else " ".join(map(str, d))
            fh.write(json.dumps({"text": text, "id": f"d{i}", "source": f"s{i % 3}"}) + "\n")


def build_infinigram(root: Path, corpora: dict) -> dict[str, Path]:
    """Build one infini-gram index per entry ``name: (docs, dtype, shards, metadata)`` under
    ``root``; returns name -> index folder."""
    jobs, out = [], {}
    for name, (docs, dtype, shards, metadata) in corpora.items():
        data = root / f"{name}-data"
        write_corpus(data, docs, dtype)
        out[name] = root / name
        jobs.append({"data": str(data), "out": str(out[name]), "dtype": dtype,
                     "shards": shards, "metadata": metadata})  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", BUILD, json.dumps(jobs)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TOKENIZERS_PARALLELISM": "false"},
    )
    for name, (_, dtype, _, _) in corpora.items():
        if dtype == "u32" and proc.returncode == 0:
            for f in sorted(out[name].glob("tokenized.*")):
                reference_table(f, 4)
    if proc.returncode != 0 or any(not (p / "table.0").is_file() for p in out.values()):
        raise RuntimeError(
            f"infini-gram indexing failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        )
    return out


def reference_table(tokenized: Path, width: int) -> None:
    """Write ``table.S`` next to ``tokenized.S``: the byte offset of every token, sorted by the
    suffix starting there as a byte string (a shorter suffix before the longer ones it
    begins), each in ``ceil(log2(bytes) / 8)`` bytes little-endian (the indexer's layout)."""
    data = tokenized.read_bytes()
    n = len(data) // width
    order = sorted(range(n), key=lambda i: data[i * width :])
    p = math.ceil(math.log2(len(data)) / 8)
    table = b"".join((i * width).to_bytes(p, "little") for i in order)
    tokenized.with_name(tokenized.name.replace("tokenized", "table")).write_bytes(table)
