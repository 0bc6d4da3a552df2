"""The workflow configuration: one schema, one validation.

:func:`validate` checks a configuration against ``copyscope/schema.yaml`` (JSON Schema, Draft
2020-12), returns a copy with every default of the schema filled in, and then runs the
cross-key checks a schema cannot express (a name that must refer to another entry, context
lengths, tokenizer kinds). Every problem found is reported at once, one line per key:

    config key 'models.zoo.x.dropout': expected a number < 1, found 1

A problem is a pair ``(key, text)``: ``key`` is the dotted path of the config key at fault
(list items as ``[i]``), ``text`` says what was expected and what was found.

A config file is read strictly (:func:`read_config`: a byte that is not UTF-8, a YAML error, a
key written twice in one mapping, a key that is not text, each ``FILE:LINE``), and
:func:`check_paths` reads every file of the researcher's own material completely with the
readers of the jobs (:func:`check_own_material`). ``copyscope config check`` (:func:`check_file`)
and the Snakefile (:func:`load_files`, :func:`located_in_files`) report the same lines, every
problem at once, before any job.
"""

from __future__ import annotations

import copy

from ..errors import ConfigError
from .checks import CROSS_KEY_CHECKS, evaluator_of, model_file, needed_context
from .files import (
    ConfigFileErrors,
    load_file,
    load_files,
    located,
    located_in_files,
    read_config,
    typed_overrides,
)
from .paths import check_own_material, check_paths, language_warnings, pinned_files
from .schema import SCHEMA_PATH, ConfigErrors, Problem, load_schema, schema_problems

__all__ = [
    "SCHEMA_PATH",
    "ConfigError",
    "ConfigErrors",
    "Problem",
    "check_file",
    "check_own_material",
    "check_paths",
    "evaluator_of",
    "load_file",
    "load_files",
    "language_warnings",
    "load_schema",
    "located_in_files",
    "model_file",
    "needed_context",
    "pinned_files",
    "read_config",
    "typed_overrides",
    "validate",
]


def validate(config: dict) -> dict:
    """``config`` checked against the schema, with its defaults filled in (a new dict).

    Raises :class:`ConfigErrors` (a ``ConfigError``) listing every schema violation, or, when
    the schema is satisfied, every failed cross-key check.
    """
    cfg = copy.deepcopy(dict(config))
    problems = schema_problems(cfg, load_schema())
    if not problems:
        from ..language import fill_language_defaults

        fill_language_defaults(config, cfg)
        problems = [p for check in CROSS_KEY_CHECKS for p in check(cfg)]
    if problems:
        raise ConfigErrors(problems)
    return cfg


def check_file(path, warnings: list | None = None) -> dict:
    """``copyscope config check FILE``: the file read strictly (:func:`read_config`),
    validated (:func:`validate`) and its input paths and own material checked
    (:func:`check_paths`), as the workflow will at its start (own material in another
    language adds its line to the list ``warnings``; the caller prints them). Every problem found is one line
    ``FILE:LINE: …`` (``FILE:LINE: config key '…': …`` for a key); the problems of the file
    itself (bytes, duplicate keys) and those of its keys are reported together."""
    from ..errors import InputError, InputErrors

    cfg, node, problems = read_config(path)
    if cfg is None:
        raise InputErrors(problems)
    keys: list[tuple[str, str, str]] = []
    try:
        cfg = validate(cfg)
        check_paths(cfg, warnings=warnings)
    except ConfigErrors as exc:
        keys = located(exc, path, node)
    if problems:
        keys_as_lines = [InputError(w, f"config key '{k}': {t}") for w, k, t in keys]
        raise InputErrors(problems + keys_as_lines)
    if keys:
        raise ConfigFileErrors(keys)
    return cfg
