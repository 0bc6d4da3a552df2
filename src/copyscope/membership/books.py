"""Name cloze on a researcher's own prose books (Chang et al. 2023, "Speak, Memory"; Zhang et
al. 2024): the items and scoring of :mod:`copyscope.membership.cloze`, from two inputs
(config ``analysis.membership.books``).

**A plain-text book** (UTF-8 ``.txt``). A book is one document; its paragraphs are separated
by blank lines and their lines joined by single spaces (:func:`paragraphs`: hard-wrapped
text reads as one line, so a name at the start of a wrapped line is not taken for a line
start). Passages are runs of whole sentences inside one paragraph (:func:`~copyscope.membership.cloze.sentences`),
with the item rules of the plays (:func:`~copyscope.membership.cloze.build_items`: 42–60 word
and punctuation tokens, exactly one single-token person name, no other proper name, the
stop-list — for books with the titles of :data:`TITLES` added — and the name not recurring).
The person names are

* with a **character list** (a ``.txt``, one character per line): every capitalised word of
  ≥ 2 letters of a line that is not stop-listed or a title, up to a word "of", title-cased
  (:func:`character_names`; "Mr. Fitzwilliam Darcy" gives Fitzwilliam and Darcy, "Duke of
  Albany" none), as :func:`~copyscope.membership.cloze.gazetteer` does for speaker labels;
* without one, **copyscope's stand-in for BookNLP's character clustering**: the single-token
  ``PERSON`` mentions (stop-listed words, titles and a possessive left out) that the entity
  recognizer ``analysis.membership.ner_model`` finds at least :data:`MIN_MENTIONS` times in
  the book (:func:`ner_names`); with ``ner_model: null`` the capitalised words not starting a
  sentence that occur so often (:func:`capitalised_names`; places are names too then).

Mentions are found as for the plays: the recognizer's entities restricted to the names
(:func:`~copyscope.membership.cloze.ner_mentions`), or the capitalisation rule without one.

**BookNLP's own files** (the authors' input, :func:`read_tokens`, :func:`read_entities`):
``.tokens`` and ``.entities``, tab-separated with a header. A passage is a run of whole
consecutive sentences (``sentence_ID``) inside one paragraph (``paragraph_ID``) with ``40 <
last − first < 60`` on the ``token_ID_within_document`` of its first and last token
(:func:`booknlp_items`). Its proper names are the entities with ``prop == PROP``: one whose
``cat`` is ``PER``, spans one token and is not stop-listed is a person mention, every other
one (another category, several tokens, stop-listed, or crossing the passage's edge) another
proper name; the rejection reasons are those of the plays
(:func:`~copyscope.membership.cloze.name_reason`). The passage text is rebuilt from its
tokens: one space between two tokens where the book had whitespace between them
(``byte_onset`` of a token after the ``byte_offset`` of the one before, the authors' rule),
none elsewhere ("Olivia's" stays one word, no space before a comma). The candidate names of
a BookNLP book are its single-token ``PROP`` ``PER`` entity texts, not stop-listed, each in
its most frequent spelling (:func:`booknlp_names`).

**Candidates and scoring** (:func:`book_rows`): the book's own names plus
``cloze_distractors`` names drawn (seeded) from the **other books'** names
(:func:`~copyscope.membership.cloze.candidate_names`; the plays' speaker names are not drawn
from, so the books job needs nothing of the corpus and a book's chance level does not depend
on it); chance is 1 / candidates. Each model ranks the candidates by the log-likelihood of
the filled passage (:func:`~copyscope.membership.cloze.rank_candidates`), as for the plays.

**What differs from the authors' item builder** (``create_name_cloze_from_booknlp.py`` of
bamman-group/gpt4-books): they cut passages across paragraph boundaries and build one
passage per name, the run of sentences around it closest to 50 tokens; copyscope keeps
passages inside one paragraph, considers every run and draws up to ``cloze_per_play``
non-overlapping accepted ones (seeded), as for the plays. English sentence ends follow
:func:`~copyscope.membership.cloze.sentences` (the period of "Mr." ends a sentence in a text
book; BookNLP's own sentences are used for a BookNLP book).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import NamedTuple

import pandas as pd

from ..errors import InputError, check_all
from ..io import read_lines, read_text_file
from . import cloze
from .stage import CLOZE_COLUMNS, ner_pipeline, score_items

log = logging.getLogger(__name__)

__all__ = [
    "BOOK_COLUMNS",
    "BOOKNLP_ENTITY_COLUMNS",
    "BOOKNLP_TOKEN_COLUMNS",
    "MIN_MENTIONS",
    "TITLES",
    "book_items",
    "book_rows",
    "booknlp_items",
    "booknlp_names",
    "capitalised_names",
    "character_names",
    "ner_names",
    "paragraphs",
    "read_entities",
    "read_text",
    "read_tokens",
    "score_books_file",
    "text_book_items",
]

TITLES = frozenset(
    """mr mrs miss ms mx dr doctor st mister missus madame mme mlle mademoiselle monsieur
    herr frau fraulein signor signora don dona senor senora professor prof rev reverend
    colonel captain major general lieutenant sergeant admiral judge""".split()
)
"""Titles of address (lower case) never taken for a book's person names, beside the
stop-list of the language (:data:`copyscope.membership.cloze.STOP`)."""

MIN_MENTIONS = 2
"""A single-token person mention found this many times in a book makes it one of its names
(when no character list is given)."""

BOOKNLP_TOKEN_COLUMNS = (
    "paragraph_ID",
    "sentence_ID",
    "token_ID_within_sentence",
    "token_ID_within_document",
    "word",
    "lemma",
    "byte_onset",
    "byte_offset",
    "POS_tag",
    "fine_POS_tag",
    "dependency_relation",
    "syntactic_head_ID",
    "event",
)
"""The columns of BookNLP's ``.tokens`` file (its header)."""

BOOKNLP_ENTITY_COLUMNS = ("COREF", "start_token", "end_token", "prop", "cat", "text")
"""The columns of BookNLP's ``.entities`` file (its header)."""


def _stop(language: str) -> frozenset:
    return cloze.cloze_language(language).stop | TITLES


# --------------------------------------------------------------------------- text books
def read_text(path) -> str:
    """A UTF-8 text file (:func:`copyscope.io.read_text_file`: every line with a byte that is
    not UTF-8 named as ``file:line``); InputError when it holds no text."""
    text = read_text_file(path)
    if not text.strip():
        raise InputError(path, "expected text, found an empty file")
    return text.replace("\r\n", "\n")


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a prose book: blank-line separated, each paragraph's lines stripped
    and joined by single spaces; empty paragraphs are dropped."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        joined = " ".join(x.strip() for x in para.split("\n") if x.strip())
        if joined:
            out.append(joined)
    return out


def character_names(path, language: str = "en") -> list[str]:
    """The single-token person names of a character list (one character per line; see the
    module docstring), title case, sorted; InputError when no line gives one."""
    rules = cloze.cloze_language(language)
    stop = _stop(language)
    found = set()
    for line in read_text(path).split("\n"):
        words = rules.word.findall(line)
        cut = [i for i, w in enumerate(words) if w.upper() in rules.of_words]
        for w in words[: cut[0]] if cut else words:
            if len(w) >= 2 and w[0].isupper() and w.lower() not in stop:
                found.add(w.capitalize())
    if not found:
        raise InputError(
            path, "expected at least one character name (a capitalised word, not a title)"
        )
    return sorted(found)


def _frequent(words, min_count: int) -> list[str]:
    counts = Counter(words)
    return sorted(w for w, n in counts.items() if n >= min_count)


def ner_names(
    parts: list[str], entities: list[list[tuple]], language: str = "en", min_count=MIN_MENTIONS
) -> list[str]:
    """The names of a book without a character list: the title case of every ``PERSON``
    entity (``entities[i]``: ``(start, end, label)`` spans of ``parts[i]``) that is one
    capitalised word once stop-listed words, titles and a possessive "'s" are left out, found
    at least ``min_count`` times (sorted)."""
    rules = cloze.cloze_language(language)
    stop = _stop(language)
    words = []
    for text, ents in zip(parts, entities, strict=True):
        for start, end, label in ents:
            if label != rules.person:
                continue
            kept = [
                m.group()
                for m in rules.word.finditer(text, start, end)
                if m.group().lower() not in stop
                and not (m.group() == "s" and m.start() > 0 and text[m.start() - 1] in "'’")
            ]
            if len(kept) == 1 and len(kept[0]) >= 2 and kept[0][0].isupper():
                words.append(kept[0].capitalize())
    return _frequent(words, min_count)


def capitalised_names(parts: list[str], language: str = "en", min_count=MIN_MENTIONS):
    """The names of a book without a character list or recognizer: the title case of every
    capitalised word of ≥ 2 letters not starting a line or sentence, not stop-listed or a
    title (:func:`~copyscope.membership.cloze.capitalisation_mentions` with no names), found at
    least ``min_count`` times (sorted)."""
    stop = _stop(language)
    words = [
        w.capitalize()
        for text in parts
        for _, _, w, _ in cloze.capitalisation_mentions(text, set(), stop, language)
        if len(w) >= 2
    ]
    return _frequent(words, min_count)


def _entities(nlp, texts: list[str], batch_size: int = 64) -> list[list[tuple]]:
    return [
        [(e.start_char, e.end_char, e.label_) for e in d.ents]
        for d in nlp.pipe(texts, batch_size=batch_size)
    ]


def _cached_finder(nlp, cache: dict, names: set[str], stop, language: str):
    """A mention finder for :func:`~copyscope.membership.cloze.build_items`: the entities
    of ``nlp`` (read once per paragraph, kept in ``cache``) through
    :func:`~copyscope.membership.cloze.ner_mentions` with ``names`` and ``stop``."""

    def find(texts: list[str]) -> list[list[cloze.Mention]]:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, _entities(nlp, missing), strict=True))
        return [cloze.ner_mentions(t, cache[t], names, stop, language) for t in texts]

    return find


def text_book_items(
    book: str,
    text: str,
    characters: list[str] | None,
    params: dict,
    nlp=None,
    language: str = "en",
) -> tuple[list[dict], list[str], dict[str, int]]:
    """``(items, names, rejected)`` of a plain-text book (see the module docstring):
    ``characters`` the names of its character list (None: found in the book), ``nlp`` the
    spaCy pipeline of ``ner_model`` (None: the capitalisation rule); ``params`` holds
    ``cloze_per_play`` and ``seed``."""
    parts = paragraphs(text)
    stop = _stop(language)
    cache: dict[str, list[tuple]] = {}
    if characters is None and nlp is not None:
        cache = dict(zip(parts, _entities(nlp, parts), strict=True))
        names = ner_names(list(cache), list(cache.values()), language)
    elif characters is None:
        names = capitalised_names(parts, language)
    else:
        names = list(characters)
    find = _cached_finder(nlp, cache, set(names), stop, language) if nlp is not None else None
    items, rejected = cloze.build_items(
        book,
        text,
        set(names),
        per_play=params["cloze_per_play"],
        seed=params["seed"],
        mentions=find,
        language=language,
        split=paragraphs,
        stop=stop,
    )
    return items, names, rejected


# --------------------------------------------------------------------------- BookNLP files
class Token(NamedTuple):
    """One row of a BookNLP ``.tokens`` file (the columns the name cloze reads)."""

    paragraph: int
    sentence: int
    index: int
    word: str
    onset: int
    offset: int


class Entity(NamedTuple):
    """One row of a BookNLP ``.entities`` file."""

    start: int
    end: int
    prop: str
    cat: str
    text: str


def _rows(path, columns: tuple[str, ...]) -> list[tuple[str, int, dict]]:
    """``(file:line, line number, {column: value})`` of each row of a tab-separated file
    with a header holding ``columns`` (others may follow); InputError naming ``file:line``
    for a header without them, and for every line that is not UTF-8 or has another number of
    fields than the header (all reported at once)."""
    lines = read_lines(path, lambda where, n, line: (where, n, line))
    if not lines:
        raise InputError(path, "expected a BookNLP header (tab-separated column names) on "
                         "line 1, found an empty file")  # fmt: skip
    _, first, head = lines[0]
    header = head.split("\t")
    missing = [c for c in columns if c not in header]
    if first != 1 or missing:
        raise InputError(
            f"{path}:{first}",
            "expected a BookNLP header (tab-separated column names) on line 1; missing "
            f"{', '.join(missing or columns)}",
        )
    at = {c: header.index(c) for c in columns}

    def row(line: tuple[str, int, str]) -> tuple[str, int, dict]:
        where, n, text = line
        fields = text.split("\t")
        if len(fields) != len(header):
            lacking = [c for c in columns if at[c] >= len(fields)]
            what = f" (no column {lacking[0]})" if lacking else ""
            raise InputError(
                where,
                f"expected {len(header)} tab-separated fields as in the header, found "
                f"{len(fields)}{what}",
            )
        return where, n, {c: fields[i] for c, i in at.items()}

    return check_all(lines[1:], row)


def _int(where: str, row: dict, column: str) -> int:
    try:
        return int(row[column])
    except ValueError:
        raise InputError(
            where, f"column {column}: expected an integer, found {row[column]!r}"
        ) from None


def read_tokens(path) -> list[Token]:
    """The tokens of a BookNLP ``.tokens`` file, in document order; InputError naming
    ``file:line`` and the column for a value that is not an integer, a
    ``token_ID_within_document`` that is not the one after the row before's (0, 1, 2 …) or
    sentence and paragraph IDs that go backwards (every such row reported at once), and for a
    file without tokens."""
    out: list[Token] = []
    before: list = [None, -1]  # the row before's token (None: it was wrong) and token ID

    def token(line: tuple[str, int, dict]) -> Token:
        where, _, row = line
        prev, prev_id = before
        before[:] = [None, prev_id + 1]  # a wrong row counts as the next token
        tid = _int(where, row, "token_ID_within_document")
        before[1] = tid
        if tid != prev_id + 1:
            raise InputError(
                where,
                f"column token_ID_within_document: expected {prev_id + 1} (consecutive from "
                f"0), found {tid}",
            )
        tok = Token(
            _int(where, row, "paragraph_ID"),
            _int(where, row, "sentence_ID"),
            tid,
            row["word"],
            _int(where, row, "byte_onset"),
            _int(where, row, "byte_offset"),
        )
        if prev and (tok.sentence < prev.sentence or tok.paragraph < prev.paragraph):
            column = "sentence_ID" if tok.sentence < prev.sentence else "paragraph_ID"
            raise InputError(
                where,
                f"column {column}: expected a value ≥ the row before's, found "
                f"{getattr(tok, column.split('_')[0])}",
            )
        before[0] = tok
        out.append(tok)
        return tok

    check_all(_rows(path, BOOKNLP_TOKEN_COLUMNS), token)
    if not out:
        raise InputError(path, "expected at least one token row after the header")
    return out


def read_entities(path, n_tokens: int | None) -> list[Entity]:
    """The entities of a BookNLP ``.entities`` file; InputError naming ``file:line`` and the
    column for a token offset that is not an integer or outside ``0 … n_tokens − 1`` (not
    checked with ``n_tokens`` None: the tokens are unknown), or an ``end_token`` before its
    ``start_token`` (every such row reported at once)."""

    def entity(line: tuple[str, int, dict]) -> Entity:
        where, _, row = line
        start = _int(where, row, "start_token")
        end = _int(where, row, "end_token")
        for column, value in (("start_token", start), ("end_token", end)):
            if n_tokens is not None and not 0 <= value < n_tokens:
                raise InputError(
                    where,
                    f"column {column}: expected a token of the .tokens file (0 … "
                    f"{n_tokens - 1}), found {value}",
                )
        if end < start:
            raise InputError(where, f"column end_token: expected ≥ start_token {start}, found {end}")
        return Entity(start, end, row["prop"], row["cat"], row["text"])

    return check_all(_rows(path, BOOKNLP_ENTITY_COLUMNS), entity)


def _is_person(e: Entity, stop) -> bool:
    """A single-token ``PROP`` ``PER`` entity that is not stop-listed: a person mention."""
    single = e.prop == "PROP" and e.cat == "PER" and e.start == e.end
    return single and e.text.strip().lower() not in stop


def booknlp_names(entities: list[Entity], language: str = "en") -> list[str]:
    """The candidate names of a BookNLP book: the texts of its person mentions
    (single-token ``PROP`` ``PER`` entities, not stop-listed), each name (case-insensitive) in
    its most frequent spelling (the first in sorted order on a tie), sorted."""
    stop = _stop(language)
    counts = Counter(e.text.strip() for e in entities if _is_person(e, stop) and e.text.strip())
    best: dict[str, tuple[int, str]] = {}
    for text, k in sorted(counts.items()):
        key = text.lower()
        if key not in best or k > best[key][0]:
            best[key] = (k, text)
    return sorted(text for _, text in best.values())


def _rebuild(tokens: list[Token]) -> tuple[str, list[tuple[int, int]]]:
    """The text of consecutive ``tokens`` (one space where the book had whitespace: a token's
    byte onset after the byte offset of the one before) and each token's character span."""
    parts, spans, at = [], [], 0
    for k, t in enumerate(tokens):
        if k and t.onset > tokens[k - 1].offset:
            parts.append(" ")
            at += 1
        parts.append(t.word)
        spans.append((at, at + len(t.word)))
        at += len(t.word)
    return "".join(parts), spans


def _sentences(tokens: list[Token]) -> list[list[tuple[int, int]]]:
    """Per paragraph, the ``(first, last)`` token IDs of its sentences (a sentence ID seen in
    two paragraphs is cut at the paragraph boundary)."""
    paras: list[list[tuple[int, int]]] = []
    for t in tokens:
        prev = tokens[t.index - 1] if t.index else None
        if prev is None or t.paragraph != prev.paragraph:
            paras.append([(t.index, t.index)])
        elif t.sentence != prev.sentence:
            paras[-1].append((t.index, t.index))
        else:
            paras[-1][-1] = (paras[-1][-1][0], t.index)
    return paras


def booknlp_items(
    book: str,
    tokens: list[Token],
    entities: list[Entity],
    *,
    per_play: int = 100,
    seed: int = 0,
    lo: int = 40,
    hi: int = 60,
    language: str = "en",
) -> tuple[list[dict], dict[str, int]]:
    """Name cloze items of a BookNLP book (see the module docstring): ``(items, rejected)``
    as :func:`~copyscope.membership.cloze.build_items` returns them (``speech`` the index of
    the paragraph, ``start``/``end`` token IDs; ``first`` and ``last`` the passage's token
    IDs)."""
    stop = _stop(language)
    word = cloze.cloze_language(language).word
    proper = sorted((e for e in entities if e.prop == "PROP"), key=lambda e: (e.start, e.end))
    accepted, rejected = [], dict.fromkeys(cloze.REJECTIONS, 0)
    for p, sents in enumerate(_sentences(tokens)):
        for i in range(len(sents)):
            for j in range(i, len(sents)):
                first, last = sents[i][0], sents[j][1]
                if not lo < last - first < hi:
                    rejected["length"] += 1
                    if last - first >= hi:
                        break
                    continue
                text, spans = _rebuild(tokens[first : last + 1])
                mentions = []
                for e in proper:
                    if e.end < first or e.start > last:
                        continue
                    inside = first <= e.start and e.end <= last
                    a = spans[max(e.start, first) - first][0]
                    b = spans[min(e.end, last) - first][1]
                    person = inside and _is_person(e, stop)
                    mentions.append((a, b, text[a:b] if person else e.text, person))
                reason, mention = cloze.name_reason(text, mentions, word)
                if reason is not None:
                    rejected[reason] += 1
                    continue
                ms, me, name, _ = mention
                accepted.append(
                    {
                        "play": book,
                        "text": text[:ms] + cloze.MASK + text[me:],
                        "passage": text,
                        "answer": name,
                        "speech": p,
                        "start": first,
                        "end": last + 1,
                        "first": first,
                        "last": last,
                    }
                )
    rejected["accepted"] = len(accepted)
    return cloze.draw_items(book, accepted, per_play, seed), rejected


# --------------------------------------------------------------------------- scoring
BOOK_COLUMNS = [*CLOZE_COLUMNS, "in_training"]
"""The columns of a model's ``books.csv``: the plays' cloze columns
(:data:`copyscope.membership.stage.CLOZE_COLUMNS`; ``play`` the book, ``split`` ``book``) and
``in_training`` (1, 0, or empty: not known)."""


def book_items(books: dict, params: dict, language: str = "en"):
    """``{book: (items, names)}`` of every book of ``books`` (name → ``{"text", optional
    "characters"}`` or ``{"booknlp": {"tokens", "entities"}}``, the config's paths), in
    name order; the recognizer of ``params["ner_model"]`` is loaded once when a text book
    needs it."""
    nlp = None
    if any("text" in b for b in books.values()):
        nlp = ner_pipeline(params.get("ner_model"), language)
    out = {}
    for name in sorted(books):
        spec = books[name]
        if "booknlp" in spec:
            tokens = read_tokens(spec["booknlp"]["tokens"])
            entities = read_entities(spec["booknlp"]["entities"], len(tokens))
            items, rejected = booknlp_items(
                name,
                tokens,
                entities,
                per_play=params["cloze_per_play"],
                seed=params["seed"],
                language=language,
            )
            names = booknlp_names(entities, language)
        else:
            chars = spec.get("characters")
            characters = character_names(chars, language) if chars else None
            items, names, rejected = text_book_items(
                name, read_text(spec["text"]), characters, params, nlp, language
            )
        log.info("books %s: %d items, %d names; %s", name, len(items), len(names), rejected)
        out[name] = (items, names)
    return out


def book_rows(model, tokenizer, books: dict, params: dict, in_training=None, **kw):
    """The name cloze rows of every book (``books``: name → ``(items, names)``,
    :func:`book_items`): candidates its names plus ``cloze_distractors`` drawn from the other
    books' names (:func:`~copyscope.membership.cloze.candidate_names`), predictions and
    continuation overlap (:func:`copyscope.membership.stage.score_items`). One dict per
    item (:data:`BOOK_COLUMNS` without ``model``): ``play`` the
    book, ``split`` ``book``, ``excerpt_copies`` 0, ``in_training`` 1, 0 or None (unknown,
    ``in_training[book]``)."""
    in_training = in_training or {}
    by_book = {b: names for b, (_, names) in books.items()}
    items, cands = [], []
    for book, (its, _) in books.items():
        cs = cloze.candidate_names(by_book, book, params["cloze_distractors"], params["seed"])
        items += its
        cands += [cs] * len(its)
    rows = []
    for it, r in score_items(model, tokenizer, items, cands, params, **kw):
        known = in_training.get(it["play"])
        rows.append(
            {
                "play": it["play"],
                "split": "book",
                "excerpt_copies": 0,
                **r,
                "in_training": None if known is None else int(bool(known)),
            }
        )
    return rows


def score_books_file(
    model_dir, model_name: str, books: dict, params: dict, out, device="auto"
) -> pd.DataFrame:
    """The books job of one model: the items of every book of ``books`` (:func:`book_items`;
    ``params`` the config block ``analysis.membership`` with ``in_training``, book → true,
    false or null), scored (:func:`book_rows`) and written to ``out``
    (:data:`BOOK_COLUMNS`, atomically); returns the table."""
    from ..io import write_csv
    from ..language import language_of
    from ..lm import load_model

    language = language_of(params)
    items = book_items(books, params, language)
    model, tok = load_model(model_dir, device)
    kw = {"batch_size": params["batch_size"], "device": str(next(model.parameters()).device)}
    rows = book_rows(model, tok, items, params, params.get("in_training"), **kw)
    frame = pd.DataFrame([{"model": model_name, **r} for r in rows], columns=BOOK_COLUMNS)
    frame["in_training"] = frame["in_training"].astype("Int64")
    write_csv(out, frame)
    return frame
