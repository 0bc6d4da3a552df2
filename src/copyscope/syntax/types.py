"""The parse data model shared by every syntax backend and every syntactic analysis.

A *passage* is one text of a text set (a training document, or a prompt + continuation), parsed
into sentences. Each word carries its Penn Treebank fine tag and its dependency arc; each word
also says whether it lies in generated text (``generated``) or in the prompt / training text.
RAVEN's counting rule (McCoy et al. 2023) needs that flag per word.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Word:
    """One word of a parsed sentence.

    ``head`` is the 1-based index of the head word within the sentence (0 = the root);
    ``deprel`` is the dependency label in the backend's label set (ClearNLP for spaCy's English
    pipeline, Universal Dependencies for stanza); ``generated`` is True for a word of generated
    (model or human-continuation) text, False for prompt or training text.
    """

    text: str
    tag: str
    head: int
    deprel: str
    generated: bool = False


@dataclass(frozen=True)
class Sentence:
    """A parsed sentence: its words, and its constituency tree in Penn Treebank bracket
    notation when the backend produced one (``None`` otherwise)."""

    words: tuple[Word, ...]
    tree: str | None = None

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(w.tag for w in self.words)

    @property
    def any_generated(self) -> bool:
        return any(w.generated for w in self.words)


@dataclass(frozen=True)
class Passage:
    """One text of a text set: ``set_name`` (e.g. ``train``, ``human/reference``,
    ``gpt2-medium/pure``), its index ``passage`` within the set, and its sentences in order."""

    set_name: str
    passage: int
    sentences: tuple[Sentence, ...] = field(default_factory=tuple)
