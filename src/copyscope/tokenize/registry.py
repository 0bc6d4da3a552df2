"""The tokenizer protocol and the registry of tokenizer kinds.

A kind is a :class:`Tokenizer` subclass registered under a name with :func:`register`.  The
``kind`` of a config entry under ``tokenizers:`` is ``name`` or ``name:arg`` (``hf:<dir>``);
:func:`kind_class` resolves it, :func:`from_spec` makes an unfitted tokenizer from a config block
and :func:`load` a fitted one from the directory that :meth:`Tokenizer.fit` wrote.
"""

from __future__ import annotations

import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..errors import ConfigError, FlagError
from ..io import atomic_path, sha256_tree
from ..streams import default_sep, token_dtype_for

_KINDS: dict[str, type[Tokenizer]] = {}


class Tokenizer(ABC):
    """Texts ↔ integer token ids for one tokenizer kind.

    Subclasses implement :meth:`learn` (when the kind is trained; the default learns nothing),
    :meth:`save`, :meth:`load`, :meth:`encode`, :meth:`decode` and :attr:`vocab_size`.
    ``max_id`` (largest id :meth:`encode` can return), ``dtype`` (smallest unsigned dtype
    holding ``max_id`` with one value to spare) and ``separator`` (the dtype's largest value,
    which ends every document of a token stream) follow from them.
    """

    name: ClassVar[str] = ""  # registry name, set by @register
    arg: ClassVar[str | None] = None  # placeholder of the ``name:<arg>`` argument, if one is needed
    unit: ClassVar[str] = "tokens"  # what one id stands for, in tables
    joiner: ClassVar[str] = ""  # shown between single-token decodes ("pieces")

    def __init__(self, kind: str | None = None, spec: Mapping | None = None):
        self.kind = kind or self.name
        self.spec = dict(spec or {})

    @property
    def argument(self) -> str | None:
        """The text after ``name:`` in :attr:`kind` (``None`` without one)."""
        _, sep, arg = self.kind.partition(":")
        return arg if sep else None

    # ---------------------------------------------------------------- fitting and storage
    def learn(self, texts: Iterable[str]) -> None:  # noqa: B027 (optional hook)
        """Learn from training texts (kinds without training keep this no-op)."""

    def fit(self, texts: Iterable[str], out_dir) -> Tokenizer:
        """:meth:`learn` from ``texts`` and :meth:`save` to ``out_dir`` (atomically)."""
        self.learn(texts)
        with atomic_path(out_dir) as tmp:
            self.save(tmp)
        return self

    @abstractmethod
    def save(self, directory) -> None:
        """Write the fitted tokenizer to a new ``directory``."""

    @classmethod
    @abstractmethod
    def load(cls, directory, kind: str | None = None) -> Tokenizer:
        """The tokenizer that :meth:`save` wrote to ``directory``."""

    # ---------------------------------------------------------------- ids
    @abstractmethod
    def encode(self, text: str) -> np.ndarray:
        """Token ids of ``text`` (int64)."""

    @abstractmethod
    def decode(self, ids) -> str:
        """The text of ``ids``."""

    def piece(self, i: int) -> str:
        """The text of the single id ``i`` (shown per token by ``query`` and ``trace``)."""
        return self.decode([i])

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """Number of ids in the vocabulary."""

    def fingerprint(self) -> str:
        """sha256 naming the mapping text ↔ ids, recorded by an index so that a query with
        another tokenizer is detected: by default, of the files :meth:`save` writes (each
        file's relative path and contents, in path order)."""
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp) / "tokenizer"
            self.save(directory)
            return sha256_tree(directory)

    @property
    def max_id(self) -> int:
        return self.vocab_size - 1

    @property
    def dtype(self):
        return token_dtype_for(self.max_id)

    @property
    def separator(self) -> int:
        return default_sep(self.dtype)


def register(name: str):
    """Class decorator: register a :class:`Tokenizer` subclass as kind ``name``."""

    def add(cls: type[Tokenizer]) -> type[Tokenizer]:
        if not (isinstance(cls, type) and issubclass(cls, Tokenizer)):
            raise TypeError(f"tokenizer kind {name!r}: expected a Tokenizer subclass, got {cls!r}")
        if _KINDS.get(name, cls) is not cls:
            raise ValueError(f"tokenizer kind {name!r} is registered twice")
        cls.name = name
        _KINDS[name] = cls
        return cls

    return add


def kinds() -> list[str]:
    """The registered kind names, sorted."""
    return sorted(_KINDS)


def _forms() -> str:
    return ", ".join(f"{n}:<{c.arg}>" if c.arg else n for n, c in sorted(_KINDS.items()))


def kind_class(kind: str, key: str = "kind") -> type[Tokenizer]:
    """The class registered for ``kind`` (``name`` or ``name:arg``); ``key`` names the config
    key (or, starting with ``--``, the command-line flag) in the error raised for an unknown
    kind or a missing/unexpected argument."""
    name, sep, arg = str(kind).partition(":")
    cls = _KINDS.get(name)
    if cls is None or bool(cls.arg) != bool(sep and arg):
        error = FlagError if key.startswith("--") else ConfigError
        raise error(key, f"expected one of {_forms()}, got {kind!r}")
    return cls


def from_spec(spec: Mapping, name: str = "tokenizer") -> Tokenizer:
    """An unfitted tokenizer for the config block ``tokenizers.<name>``."""
    kind = str(spec.get("kind", ""))
    return kind_class(kind, f"tokenizers.{name}.kind")(kind, spec)


def load(kind: str, directory, key: str = "kind") -> Tokenizer:
    """The fitted tokenizer of kind ``kind`` saved in ``directory``; ``key``: the config key
    or flag (``--tokenizer-kind``) that gave the kind, named in the error for a bad one."""
    return kind_class(kind, key).load(directory, kind)
