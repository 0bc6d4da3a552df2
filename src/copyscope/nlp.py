"""spaCy pipelines, loaded once for every stage that needs one: the syntax stage's parser
(:mod:`copyscope.syntax.parse`) and the name cloze's NER (:mod:`copyscope.membership`)."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import ConfigError


def load_spacy(model: str, exclude: Sequence[str], key: str, language: str | None = None):
    """The installed spaCy pipeline package ``model`` without the components ``exclude``;
    ConfigError naming the config ``key`` when it is not installed, or when ``language`` is
    given and the pipeline is of another language (``corpus.language``)."""
    import spacy

    try:
        nlp = spacy.load(model, exclude=list(exclude))
    except OSError as exc:
        raise ConfigError(key, f"an installed spaCy pipeline package, found {model!r}") from exc
    if language is not None and nlp.lang != language:
        raise ConfigError(
            key,
            f"a spaCy pipeline of the corpus language {language!r} (corpus.language), found "
            f"{model!r} of language {nlp.lang!r}",
        )
    return nlp
