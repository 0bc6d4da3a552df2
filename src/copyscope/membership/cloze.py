"""Name cloze (Chang et al. 2023, "Speak, Memory"; Zhang et al. 2024) adapted to the plays.

**Items.** A passage is a run of whole sentences inside one speech (the lines of a paragraph
after its ``NAME:`` speaker line, so no speaker line is inside), 40–60 tokens long (word and
punctuation tokens, :func:`word_tokens`, as BookNLP's tokens), containing exactly one mention
of a single-token person name and no other proper-name mention. The name is replaced by
``[MASK]``. A passage is rejected when

* ``length`` — no run of whole sentences of the speech is 40–60 tokens long;
* ``no_name`` — it mentions no person name (a stop-listed word is never a name);
* ``several_names`` — it mentions two different person names;
* ``name_recurs`` — its one name occurs more than once;
* ``other_proper_name`` — it mentions another proper name.

Up to ``per_play`` items per play are drawn (seeded) among the accepted passages, never two
overlapping.

**Person names without BookNLP or NER (copyscope's adaptation).** The gazetteer is built from
the corpus's speaker names (``names.json``, :func:`gazetteer`): every all-capital word of a
speaker label, minus titles, the kinship/religious stop-list (:data:`STOP`) and words after
"OF" ("DUKE OF VENICE" gives no name), title-cased ("SIR TOBY BELCH" gives Toby and Belch).
Role labels in lower case ("First Witch") give none. In a passage (:func:`capitalisation_mentions`),
a *person mention* is a word whose title-case form is in the gazetteer and which is written
capitalised; *another proper name* is any other capitalised word that does not start a line
or a sentence and is not "I", "O" or stop-listed (verse capitalises every line, so line starts
are never counted). The rule favours precision: a capitalised common noun mid-line
("Fortune") rejects the passage. An entity recognizer can replace the rule: pass
``mentions=`` any function with the signature of :func:`capitalisation_mentions`.

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

import numpy as np

__all__ = [
    "MASK",
    "REJECTIONS",
    "STOP",
    "build_items",
    "candidate_names",
    "capitalisation_mentions",
    "cloze_accuracy",
    "gazetteer",
    "passages_of_speech",
    "rank_candidates",
    "sentences",
    "speeches",
    "word_tokens",
]

MASK = "[MASK]"
REJECTIONS = ("length", "no_name", "several_names", "name_recurs", "other_proper_name")

STOP = frozenset(
    """god gods lord lords lady ladies sir madam mistress master father mother brother sister
    son daughter uncle aunt cousin nephew niece husband wife king queen prince princess duke
    duchess earl count countess friar saint jesu jesus christ heaven heavens hell devil
    all both first second third fourth fifth servant messenger of the and""".split()
)
"""Kinship, religious and title words (lower case) that are never person names."""

_WORD = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
_SENTENCE_END = re.compile(r"[.!?]+['\")\]]*(?=\s|$)")
_SPEAKER = re.compile(r"^[^\s].*:$")


def word_tokens(text: str) -> list[str]:
    """Word and punctuation tokens (``\\w+`` runs joined by apostrophes or hyphens; every
    other non-space character alone): the token count of the 40–60 rule."""
    return _TOKEN.findall(text)


def gazetteer(names: dict[str, list[str]], stop=STOP) -> dict[str, list[str]]:
    """Per play, its single-token person names (title case, sorted) from its speaker labels
    (see the module docstring): all-capital words of ≥ 2 letters, minus ``stop`` and the
    words after "OF"."""
    out = {}
    for play, labels in names.items():
        found = set()
        for label in labels:
            words = label.split()
            if "OF" in words:
                words = words[: words.index("OF")]
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


def sentences(speech: str) -> list[tuple[int, int]]:
    """``[start, end)`` character spans of the sentences of a speech: each ends after a run of
    ``.``, ``!`` or ``?`` (and closing quotes or brackets) followed by whitespace or the end;
    trailing text without such an end is not a whole sentence and is dropped."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(speech):
        while start < m.end() and speech[start].isspace():
            start += 1
        if start < m.end():
            spans.append((start, m.end()))
        start = m.end()
    return spans


def capitalisation_mentions(text: str, names: set[str], stop=STOP) -> tuple[list, list[str]]:
    """Proper-name mentions by the gazetteer and capitalisation rule (module docstring).

    Returns ``(persons, others)``: ``(start, end, word)`` of every person mention, and the
    other proper names. Words are letter runs, so a possessive "Olivia's" mentions Olivia."""
    persons, others = [], []
    for m in _WORD.finditer(text):
        w = m.group()
        if not w[0].isupper():
            continue
        if w.capitalize() in names and w.lower() not in stop:
            persons.append((m.start(), m.end(), w))
            continue
        before = text[: m.start()].rstrip(" \t\"'(")
        at_start = not before or before.endswith(("\n", ".", "!", "?", ":"))
        if at_start or w in ("I", "O") or w.lower() in stop:
            continue
        others.append(w)
    return persons, others


def _reason(text: str, mentions, lo: int, hi: int):
    """``(reason, mention)`` of a candidate passage: reason None when it is accepted."""
    if not lo <= len(word_tokens(text)) <= hi:
        return "length", None
    persons, others = mentions(text)
    if not persons:
        return "no_name", None
    if len({w.lower() for _, _, w in persons}) > 1:
        return "several_names", None
    if len(persons) > 1:
        return "name_recurs", None
    if others:
        return "other_proper_name", None
    return None, persons[0]


def passages_of_speech(speech: str, mentions, lo: int = 40, hi: int = 60):
    """Every run of whole sentences of ``speech`` with its verdict: a list of
    ``(start, end, reason, mention)`` (``reason`` None = accepted, ``mention`` the person
    mention's ``(start, end, word)`` within the passage); runs are grown from each sentence
    until they exceed ``hi`` tokens, the shortest too-long run included as a ``length``
    rejection."""
    sents = sentences(speech)
    out = []
    for i in range(len(sents)):
        for j in range(i, len(sents)):
            a, b = sents[i][0], sents[j][1]
            reason, mention = _reason(speech[a:b], mentions, lo, hi)
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
    mentions: Callable[[str], tuple[list, list[str]]] | None = None,
) -> tuple[list[dict], dict[str, int]]:
    """Name cloze items of one play (see the module docstring).

    ``names``: the person names (title case) of the gazetteer; ``mentions``: the proper-name
    finder (default :func:`capitalisation_mentions` with ``names``). Returns ``(items,
    rejected)``: up to ``per_play`` non-overlapping accepted passages drawn with a generator
    seeded by ``seed`` (each ``{"play", "item", "text"`` with ``[MASK]``, ``"passage"``,
    ``"answer"``, ``"speech"``, ``"start"``, ``"end"}``), and the count of candidate passages
    per rejection reason (:data:`REJECTIONS`) plus ``accepted``."""
    find = mentions or (lambda t: capitalisation_mentions(t, names))
    accepted, rejected = [], dict.fromkeys(REJECTIONS, 0)
    for s, speech in enumerate(speeches(text)):
        for a, b, reason, mention in passages_of_speech(speech, find, lo, hi):
            if reason is not None:
                rejected[reason] += 1
                continue
            passage = speech[a:b]
            ms, me, word = mention
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
    return items, rejected


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


def rank_candidates(
    model,
    tokenizer,
    items: list[dict],
    candidates: list[list[str]],
    *,
    batch_size: int = 20,
    device="cpu",
) -> list[dict]:
    """For each item, the log-likelihood of its passage filled with each of its candidates
    (``candidates[i]`` for ``items[i]``; token log-probabilities summed, every token read after
    one end-of-text token, all fillings of all items scored in one batched
    :func:`~copyscope.lm.score.token_logprobs` call). Returns per item ``{"item", "answer",
    "predicted"`` (the best candidate; the first in candidate order on a tie),
    ``"n_candidates"``, ``"answer_in_candidates"}``."""
    from ..lm.score import token_logprobs

    texts = [
        it["text"].replace(MASK, c) for it, cs in zip(items, candidates, strict=True) for c in cs
    ]
    ids = [np.asarray(tokenizer.encode(t, add_special_tokens=False), np.int64) for t in texts]
    lps = token_logprobs(
        model, ids, eos_id=tokenizer.eos_token_id, batch_size=batch_size, device=device
    )
    totals = [float(np.sum(x)) for x in lps]
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
