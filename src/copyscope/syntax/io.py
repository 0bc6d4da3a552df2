"""The parse cache: one parquet file per text set, read back as :class:`Passage` objects.

Layout: one row per word, in order, with the columns of :data:`COLUMNS` — ``passage``,
``sentence`` (0-based within the passage), ``word`` (1-based within the sentence, the index
``head`` refers to), ``text``, ``tag``, ``head``, ``deprel``, ``generated`` — and ``tree``, the
sentence's constituency tree, stored on the sentence's first word only (null elsewhere and for
backends without constituency). The file's metadata records the set name and every passage
index, so passages without any word (an empty generation) survive the round trip.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError
from ..io import atomic_path
from .types import Passage, Sentence, Word

SCHEMA = pa.schema(
    [
        ("passage", pa.int64()),
        ("sentence", pa.int32()),
        ("word", pa.int32()),
        ("text", pa.string()),
        ("tag", pa.string()),
        ("head", pa.int32()),
        ("deprel", pa.string()),
        ("generated", pa.bool_()),
        ("tree", pa.string()),
    ]
)
COLUMNS = tuple(SCHEMA.names)
META_KEY = b"copyscope.parses"


def parses_table(passages: Iterable[Passage]) -> pa.Table:
    """The parquet table of ``passages`` (one text set)."""
    passages = list(passages)
    names = {p.set_name for p in passages}
    if len(names) > 1:
        raise ValueError(f"one text set per parse file, got {sorted(names)}")
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    for p in passages:
        for s_i, sent in enumerate(p.sentences):
            for w_i, w in enumerate(sent.words, start=1):
                cols["passage"].append(p.passage)
                cols["sentence"].append(s_i)
                cols["word"].append(w_i)
                cols["text"].append(w.text)
                cols["tag"].append(w.tag)
                cols["head"].append(w.head)
                cols["deprel"].append(w.deprel)
                cols["generated"].append(w.generated)
                cols["tree"].append(sent.tree if w_i == 1 else None)
    meta = {"set_name": names.pop() if names else "", "passages": [p.passage for p in passages]}
    table = pa.Table.from_pydict(cols, schema=SCHEMA)
    return table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()})


def write_parses(passages: Iterable[Passage], path) -> int:
    """Write the parses of one text set to ``path`` (atomically); returns the number of words."""
    table = parses_table(passages)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return table.num_rows


def passages_from_table(table: pa.Table, source="parses") -> list[Passage]:
    """The passages of a table written by :func:`parses_table` (``source`` names it in errors)."""
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None or set(COLUMNS) - set(table.column_names):
        raise InputError(source, f"expected a copyscope parse file (columns {', '.join(COLUMNS)})")
    meta = json.loads(raw)
    c = {name: table.column(name).to_pylist() for name in COLUMNS}
    words: dict[int, list[list[Word]]] = {}
    trees: dict[tuple[int, int], str | None] = {}
    for i, (p, s) in enumerate(zip(c["passage"], c["sentence"], strict=True)):
        sents = words.setdefault(p, [])
        if s == len(sents):
            sents.append([])
            trees[p, s] = c["tree"][i]
        elif s != len(sents) - 1:
            raise InputError(
                source, f"sentences of passage {p} in order (found {s} after {len(sents) - 1})"
            )
        sents[s].append(
            Word(c["text"][i], c["tag"][i], c["head"][i], c["deprel"][i], c["generated"][i])
        )
    name = meta["set_name"]
    return [
        Passage(
            name,
            p,
            tuple(Sentence(tuple(ws), trees[p, s]) for s, ws in enumerate(words.get(p, []))),
        )
        for p in meta["passages"]
    ]


def read_parses(path) -> list[Passage]:
    """The passages of one text set, as :func:`write_parses` wrote them."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise InputError(path, f"a parquet parse file ({exc})") from exc
    return passages_from_table(table, path)
