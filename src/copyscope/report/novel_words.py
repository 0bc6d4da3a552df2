"""RAVEN's novel words (McCoy et al. 2023, §7 and Tables 2–4): the words of the generated text
that never occur in the training split, and how many of them are well-formed.

A **novel word** is a Moses word (the RAVEN unit, :mod:`copyscope.tokenize.moses`, with its
escaping undone) of a generation that is not in the training split's word vocabulary (the
``words`` tokenizer, fitted on the training split) and contains a letter (numbers and
punctuation are not words). Counted against training alone: a novel word repeated later in the
same text is still novel (the paper's novel words are new to the training data).

The paper judges well-formedness by hand (GPT-2: 96% of novel words well-formed, the human
baseline 99%). copyscope applies a fixed rule instead (:func:`analyse_word`): a novel word is
**well-formed** when it is made of at least :data:`MIN_STEM` letters (with inner hyphens or
apostrophes), without a change of case inside a word, and either

* ``case`` — its lower-case form is a training word (``THEE`` beside ``thee``);
* ``compound`` — hyphenated parts, each a training word (``sword-hand``);
* ``affix`` (English only) — one prefix of :data:`PREFIXES` and/or one suffix of
  :data:`SUFFIXES` around a training word of at least three letters that is not a function
  word (spaCy's English stop words: ``the`` + ``er`` is a fragment), allowing for English
  spelling at the boundary (:func:`stems`: a dropped ``e``, a doubled consonant, ``y`` →
  ``i``): ``unkingly`` = un + king + ly, ``happiness`` = happy + ness.

Anything else is not well-formed: a word with other characters (``letters``: ``ab3``, ``'er-``;
a leading apostrophe is an elision and allowed: ``'tis``), a word of fewer than
:data:`MIN_STEM` letters (``short``: a new one- or two-letter form is a fragment of a cut word,
``S``, ``Se``, as the training split holds every common short word), a word whose case changes
inside it (``mixed``: two words run together, ``hisGONZALO``; lower, Title and UPPER case are
words), and anything no rule takes (``none``: ``thst``, ``arenight``: closed-up compounds are
not taken, as any two words run together would be one).

Every rule relates the word to the training vocabulary: there is no dictionary of the language
offline (wordfreq's lists hold web fragments, ``sen`` 4.01, ``ion`` 4.15, ``ight`` 2.96 Zipf,
beside real words of the same frequency, so they cannot tell a word from a fragment). So an
unseen proper name or an unseen real word is not well-formed by the rule: the names of the
held-out plays' characters (``BASSANIO``) lower the human baseline's share. The rule checks
form only; the paper's second judgement (the word used grammatically, 94%) is not made. The
word list shows every judgement.

Sets: each model's ``findings.raven_decoding`` samples (top-40, the paper's) and
``findings.pure_decoding`` samples, and the human continuations, at the main prompt length.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache

import pandas as pd

from ..io import read_jsonl, write_csv
from ..language import language_of
from . import require
from .jobs import Input, Output, Params

NAME = "novel-words"
HELP = "RAVEN §7: novel words (not in the training vocabulary) per set, and the well-formed share"


def _sets(p) -> list[tuple[str, str]]:
    """The settings of the table: each model's findings.raven_decoding and
    findings.pure_decoding sets, then the human continuations (settings() order)."""
    f = p.config["findings"]
    wanted = {f["raven_decoding"], f["pure_decoding"]}
    return [
        (m, d)
        for m, d in p.settings()
        if (m, d) == ("human", "reference") or (m != "human" and d in wanted)
    ]


INPUTS = {
    "samples": Input(
        ("MODEL", "DECODING"),
        "samples (.jsonl) of a setting",
        files=lambda p: (_sets(p), [f"{p.results}/samples/{m}/{d}.jsonl" for m, d in _sets(p)]),
    ),
    "words": Input(
        ("TOKENIZER",),
        "the Moses word tokenizer's folder (its vocabulary is the training split's words)",
        files=lambda p: ([p.words], [f"{p.results}/tokenizers/{p.words}"]),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/raven_novel_words.csv",
        "per set: novel words, the well-formed share (Wilson CI) and examples (.csv)",
        "raven_novel_words",
        "raven",
    ),
    "list": Output(
        "tables/raven_novel_word_list.csv",
        "every novel word of every set with its count and the rule that judged it (.csv)",
    ),
}
PARAMS = Params(
    "the main prompt length (sampling.prompt_length) and the sets' decodings "
    "(findings.raven_decoding, findings.pure_decoding), with the corpus language",
    of=lambda p: p.with_language(
        {
            "prompt_length": p.config["sampling"]["prompt_length"],
            "raven_decoding": p.config["findings"]["raven_decoding"],
            "pure_decoding": p.config["findings"]["pure_decoding"],
        }
    ),
)

PREFIXES = ("counter", "under", "over", "fore", "out", "dis", "mis", "non", "pre", "un",
            "re", "be", "en", "em", "im", "in")  # fmt: skip
"""English prefixes the ``affix`` rule strips (longest first)."""
SUFFIXES = ("nesses", "ness", "less", "ful", "ment", "ship", "hood", "dom", "ity", "able",
            "ible", "ish", "like", "ling", "ing", "eth", "est", "ers", "er", "ed", "ly", "es",
            "s", "y")  # fmt: skip
"""English inflectional and derivational suffixes the ``affix`` rule strips (longest first;
``eth``/``est`` also the archaic verb endings of the plays: ``goeth``, ``lovest``); after an
apostrophe, the rest is taken as the ending (``know'st`` = know + st)."""
MIN_STEM = 3
"""The shortest stem or compound part the rules accept (letters)."""
EXAMPLES = 6
"""Novel words listed per set in the table (the most frequent, well-formed and not)."""
RULES = ("case", "compound", "affix")
"""The rules that make a word well-formed, in the order they are tried."""
WORD = re.compile(r"'?[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
UNESCAPE = {"&apos;": "'", "&quot;": '"', "&amp;": "&", "&lt;": "<", "&gt;": ">",
            "&#124;": "|", "&#91;": "[", "&#93;": "]"}  # fmt: skip
"""sacremoses' escapes (RAVEN's units keep them; the word is judged without them)."""


def unescape(word: str) -> str:
    """A Moses word without sacremoses' escaping: ``don&apos;t`` → ``don't``."""
    for k, v in UNESCAPE.items():
        word = word.replace(k, v)
    return word


def has_letter(word: str) -> bool:
    """Whether ``word`` contains a letter (a number or punctuation is not a word)."""
    return any(c.isalpha() for c in word)


def stems(word: str, suffix: str) -> list[str]:
    """The stems ``word`` may have with ``suffix`` removed, English spelling at the boundary:
    the bare rest; before a suffix that starts with a vowel (or ``y``; not ``es``), the rest +
    ``e`` (``loving`` → love) and the rest with a doubled final consonant undone (``stopped``
    → stop); ``i`` back to ``y`` (``happiness`` → happy). ``es`` follows only a sibilant, ``o``
    or that ``i`` (``kisses``, ``goes``, ``flies``). None when ``word`` does not end with
    ``suffix``."""
    if not word.endswith(suffix) or len(word) <= len(suffix):
        return []
    rest = word[: -len(suffix)]
    if suffix == "es" and not rest.endswith(("s", "x", "z", "ch", "sh", "o", "i")):
        return []
    out = [rest]
    if suffix[0] in "aeiouy" and suffix != "es":
        out.append(rest + "e")
        if len(rest) > 1 and rest[-1] == rest[-2] and rest[-1] not in "aeiou":
            out.append(rest[:-1])
    if rest.endswith("i"):
        out.append(rest[:-1] + "y")
    return out


def analyse_word(word: str, training: set[str], english: bool = True) -> tuple[bool, str, str]:
    """(well-formed, rule, analysis) of a novel word by the rule of the module docstring:
    ``training`` the training words in lower case, ``english`` whether the affix rule
    applies. ``rule`` is one of :data:`RULES` when well-formed, else ``letters``, ``short``,
    ``mixed`` or ``none``; ``analysis`` shows the parts (``un+king+ly``). Examples (training
    {king, sword, hand}): ``KING`` case; ``sword-hand`` compound sword+hand; ``swordhand``
    none; ``unkingly`` affix un+king+ly; ``kingg`` none; ``Se`` short; ``ab3`` letters;
    ``kingHand`` mixed."""
    w = unescape(word).replace("’", "'")
    low = w.lower()
    if not WORD.fullmatch(w):
        return False, "letters", ""
    if sum(c.isalpha() for c in w) < MIN_STEM:
        return False, "short", ""
    if not all(_one_case(part) for part in re.split(r"['-]", w) if part):
        return False, "mixed", ""
    if low in training:
        return True, "case", low
    plain = "-" not in low
    if not plain:
        parts = low.split("-")
        if all(p in training for p in parts):
            return True, "compound", "+".join(parts)
    if english and plain:
        found = _affixed(low, lambda x: x in training and x not in _stop_words())
        if found:
            return True, "affix", found
    return False, "none", ""


@cache
def _stop_words() -> frozenset[str]:
    """spaCy's English stop words (``spacy.lang.en.stop_words``): function words are no stems
    (``the`` + ``er``, ``you`` + ``s`` are fragments, not derived words)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _one_case(part: str) -> bool:
    """Whether a word part is lower, Title or UPPER case (no case change inside a word)."""
    return part.islower() or part.isupper() or (part[0].isupper() and part[1:].islower())


def _affixed(low: str, known: Callable[[str], bool]) -> str:
    """``prefix+stem+suffix`` (either affix optional, at least one) of a lower-case word whose
    stem is known and at least :data:`MIN_STEM` letters long, or ``""``."""
    base = low.split("'", 1)[0] if "'" in low else low  # know'st → know + st
    tail = low[len(base) + 1 :] if "'" in low else ""
    candidates = [("", base)] + [(p, base[len(p) :]) for p in PREFIXES if base.startswith(p)]
    for prefix, rest in candidates:
        options = [("", rest)] if prefix else []
        options += [(s, stem) for s in SUFFIXES for stem in stems(rest, s)]
        if tail:
            options = [(tail, rest)]
        for suffix, stem in options:
            if len(stem) >= MIN_STEM and known(stem):
                return "+".join(x for x in (prefix, stem, suffix) if x)
    return ""


def novel_words(texts: Iterable[list[str]], vocab: Mapping | set) -> Counter:
    """Novel word → its occurrences over ``texts`` (each a list of Moses words): the words
    with a letter that ``vocab`` (the training words, exact) does not hold."""
    out: Counter = Counter()
    for words in texts:
        out.update(w for w in words if w not in vocab and has_letter(w))
    return out


LIST_COLUMNS = ["model", "decoding", "word", "count", "well_formed", "rule", "analysis"]
TABLE_COLUMNS = ["model", "decoding", "texts", "words", "novel_tokens", "novel_types",
                 "novel_share", "well_formed", "well_formed_share", "well_formed_share_lo", "well_formed_share_hi",
                 *(f"rule_{r}" for r in RULES), "examples_well_formed",
                 "examples_not"]  # fmt: skip


def word_list(model: str, decoding: str, counts: Counter, judge) -> pd.DataFrame:
    """One row per novel word type of a set (:data:`LIST_COLUMNS`), most frequent first
    (ties alphabetical); ``judge(word)`` is :func:`analyse_word` with its vocabulary."""
    rows = [(model, decoding, w, c, *judge(w))
            for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]  # fmt: skip
    return pd.DataFrame(rows, columns=LIST_COLUMNS)


def set_row(model: str, decoding: str, texts: int, words: int, listed: pd.DataFrame) -> dict:
    """A set's row of the table (:data:`TABLE_COLUMNS`): ``words`` generated words with a
    letter, the novel ones (tokens and types; ``novel_share`` = novel tokens / words), the
    well-formed types with their share and its Wilson 95% interval over the novel types,
    the types per rule and :data:`EXAMPLES` examples of each kind (most frequent first)."""
    from scipy.stats import binomtest

    types, good = len(listed), int(listed["well_formed"].sum())
    lo = hi = share = float("nan")
    if types:
        ci = binomtest(good, types).proportion_ci(method="wilson")
        share, lo, hi = good / types, float(ci.low), float(ci.high)
    novel = int(listed["count"].sum())
    rules = listed["rule"].value_counts()
    return {
        "model": model, "decoding": decoding, "texts": texts, "words": words,
        "novel_tokens": novel, "novel_types": types,
        "novel_share": novel / words if words else float("nan"),
        "well_formed": good, "well_formed_share": share, "well_formed_share_lo": lo, "well_formed_share_hi": hi,
        **{f"rule_{r}": int(rules.get(r, 0)) for r in RULES},
        "examples_well_formed": " · ".join(
            f"{w} ({a})" if a and r != "case" else w
            for w, r, a in listed.loc[listed["well_formed"], ["word", "rule", "analysis"]]
            .head(EXAMPLES).itertuples(index=False)),
        "examples_not": " · ".join(listed.loc[~listed["well_formed"], "word"].head(EXAMPLES)),
    }  # fmt: skip


def judge_of(vocab: Iterable[str], language: str) -> Callable[[str], tuple[bool, str, str]]:
    """:func:`analyse_word` with the training words ``vocab`` (the Moses vocabulary: escaped,
    exact) in lower case, unescaped; the affix rule only for ``language`` ``en``."""
    training = {w.lower() for w in map(unescape, vocab)}
    return lambda w: analyse_word(w, training, english=language == "en")


def text_words(path, tok, prompt_length: int | None = None) -> dict[int, list[list[str]]]:
    """The Moses words (``tok``'s, RAVEN's escaping) of every generation of a sample file
    (.jsonl), by prompt length (only ``prompt_length``'s when given), in file order."""
    from ..tokenize.moses import moses_words

    out: dict[int, list[list[str]]] = {}
    for r in read_jsonl(path):
        if prompt_length is None or r["prompt_length"] == prompt_length:
            words = moses_words(r["text"], tok._moses)
            out.setdefault(int(r["prompt_length"]), []).append(words)
    return out


def set_of(model: str, decoding: str, texts: list[list[str]], vocab, judge):
    """(row of the table, word list) of one set of texts (Moses words each):
    :func:`novel_words` against ``vocab``, judged by ``judge`` (:func:`judge_of`)."""
    listed = word_list(model, decoding, novel_words(texts, vocab), judge)
    words = sum(has_letter(w) for t in texts for w in t)
    return set_row(model, decoding, len(texts), words, listed), listed


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each set's samples at the main prompt length, tokenize the generations into Moses
    words, list the novel words and judge them."""
    from ..tokenize import load

    require(inputs["samples"], "--samples", "sample set")
    require(inputs["words"], "--words", "word tokenizer")
    tok = load("moses", inputs["words"][0][1])
    vocab = tok.vocab.index
    judge = judge_of(vocab, language_of(params))
    rows, lists = [], []
    for model, decoding, path in inputs["samples"]:
        texts = text_words(path, tok, params["prompt_length"]).get(params["prompt_length"], [])
        row, listed = set_of(model, decoding, texts, vocab, judge)
        rows.append(row)
        lists.append(listed)
    write_csv(out["table"], pd.DataFrame(rows, columns=TABLE_COLUMNS))
    write_csv(out["list"], pd.concat(lists, ignore_index=True) if lists else
              pd.DataFrame(columns=LIST_COLUMNS))  # fmt: skip
