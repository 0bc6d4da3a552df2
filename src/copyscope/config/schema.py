"""The schema of a configuration (``copyscope/schema.yaml``, JSON Schema Draft 2020-12), its
defaults, and one line per violation: ``(key, text)`` problems."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import jsonschema
import yaml
from jsonschema.exceptions import by_relevance

from ..errors import ConfigError

# shipped inside the package (package data), so an installed copyscope validates a config
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema.yaml"

Problem = tuple[str, str]

HUMAN_DECODINGS = ("reference", "contaminated")
"""The human sets' "decodings" (the clean held-out text and the excerpt plays' text): names
reserved in every table, which no ``sampling.decodings`` or ``generations`` entry may take."""


RENAMED = {"corpus.inject.benchmark": "corpus.inject.contamination"}
"""Config keys that have a new name (old dotted key → new one): a config that still uses the
old name gets one line naming both instead of "unknown key"."""


class ConfigErrors(ConfigError):
    """Several configuration problems; ``str()`` gives one line per problem.

    ``key`` and ``expected`` are those of the first problem; ``problems`` holds them all.
    """

    def __init__(self, problems: list[Problem]):
        super().__init__(*problems[0])
        self.problems = list(problems)
        self.args = ("\n".join(f"config key '{k}': {text}" for k, text in self.problems),)



# --------------------------------------------------------------------------- schema, defaults
@cache
def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    """The configuration schema (``copyscope/schema.yaml``, package data) as a dict."""
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _with_defaults(cls):
    """``cls`` whose ``properties`` keyword first sets missing keys to their ``default``.

    A default is read only from a property's own schema (not through a ``$ref``); it is
    copied, then validated like a given value. Because ``properties`` is applied wherever a
    schema is (``additionalProperties`` entries, ``$ref``, ``then`` branches), defaults are
    filled recursively, including defaults of keys inside a filled default.
    """
    check_properties = cls.VALIDATORS["properties"]

    def properties(validator, props, instance, schema):
        if validator.is_type(instance, "object"):
            for key, sub in props.items():
                if isinstance(sub, dict) and "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from check_properties(validator, props, instance, schema)

    return jsonschema.validators.extend(cls, {"properties": properties})


DefaultsValidator = _with_defaults(jsonschema.Draft202012Validator)


# --------------------------------------------------------------------------- error lines
def key_of(path: Iterable) -> str:
    """Dotted config key of a path (``models.zoo.x``; list items as ``[i]``)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def shown(value) -> str:
    """A short rendering of a config value (mappings and lists are not dumped)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)}" if value else "an empty list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _type_text(types) -> str:
    types = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPE_NAMES.get(t, t) for t in types)


def _subject(schema: dict) -> str:
    """'an integer' or 'a number' for a bound, from the schema's type."""
    types = schema.get("type", "number")
    types = [types] if isinstance(types, str) else types
    return "an integer" if "integer" in types and "number" not in types else "a number"


def _listing(values) -> str:
    return ", ".join(shown(v) if not isinstance(v, str) else v for v in values)


_BOUNDS = {
    "minimum": ">=",
    "exclusiveMinimum": ">",
    "maximum": "<=",
    "exclusiveMaximum": "<",
}


def _lookup(config, path):
    for part in path:
        config = config[part]
    return config


def _name_problems(error, config) -> list[Problem]:
    """Lines for a ``propertyNames`` error: the key itself is the problem."""
    path = list(error.absolute_path)
    obj = _lookup(config, path)
    key = key_of([*path, error.instance])
    if error.validator == "enum":
        kind = obj.get("kind") if isinstance(obj, dict) else None
        what = f"a key of kind {kind}" if kind is not None else "a known key"
        return [(key, f"expected {what} ({_listing(error.validator_value)}), found an unknown key")]
    if error.validator == "pattern":
        text = f"expected a name matching {error.validator_value}"
        return [(key, f"{text}, found a name with other characters")]
    return [(key, f"expected a valid name, found {shown(error.instance)}")]


def _alternative_problems(error, config) -> list[Problem]:
    """Lines for a ``oneOf``/``anyOf`` error: the problems inside the alternatives whose type
    the value has (or, when it has none of their types, the types expected)."""
    inner = [e for e in error.context if not (e.validator == "type" and len(e.relative_path) == 0)]
    if inner:
        return [p for e in inner for p in error_problems(e, config)]
    types = [alt.get("type", "object") for alt in error.validator_value]
    return [
        (
            key_of(error.absolute_path),
            f"expected {_type_text(types)}, found {shown(error.instance)}",
        )
    ]


def _expected(validator: str | None, value, schema: dict) -> str | None:
    """What a value-level keyword (type, enum, bounds, …) expects, in words; None for others."""
    if validator in _BOUNDS:
        return f"{_subject(schema)} {_BOUNDS[validator]} {value}"
    texts = {
        "type": lambda: _type_text(value),
        "enum": lambda: f"one of {_listing(value)}",
        "const": lambda: shown(value),
        "pattern": lambda: f"a string matching {value}",
        "minLength": lambda: "a non-empty string" if value == 1 else f"at least {value} characters",
        "minItems": lambda: f"a list of at least {value} item(s)",
        "minProperties": lambda: f"a mapping of at least {value} entry(ies)",
        "uniqueItems": lambda: "a list without repeated items",
    }
    return texts[validator]() if validator in texts else None


def _unknown(key: str, known) -> str:
    """The text of a key the schema does not know: its new name if it was renamed
    (:data:`RENAMED`), else the keys expected there."""
    if key in RENAMED:
        return f"expected {RENAMED[key]}, found the key's old name (rename it in the config)"
    return f"expected one of {_listing(known)}, found an unknown key"


def error_problems(error, config) -> list[Problem]:
    """One line per config key for a jsonschema error (never the schema or a whole value)."""
    v, value, inst, schema = error.validator, error.validator_value, error.instance, error.schema
    path = list(error.absolute_path)
    key = key_of(path)
    if "propertyNames" in error.relative_schema_path:
        return _name_problems(error, config)
    if v == "additionalProperties":
        known = sorted(schema.get("properties", {}))
        extra = sorted((k for k in inst if k not in known), key=str)
        return [(key_of([*path, k]), _unknown(key_of([*path, k]), known)) for k in extra]
    if v == "required":
        missing = [k for k in value if k not in inst]
        return [(key_of([*path, k]), "expected a value (required), found none") for k in missing]
    if v in ("oneOf", "anyOf"):
        return _alternative_problems(error, config)
    expected = _expected(v, value, schema)
    if expected is not None:
        return [(key, f"expected {expected}, found {shown(inst)}")]
    if v is None:  # a `false` schema
        return [(key, f"expected no such key, found {shown(inst)}")]
    return [(key, error.message if len(error.message) <= 120 else error.message[:117] + "...")]


def schema_problems(config: dict, schema: dict) -> list[Problem]:
    """Fill ``config``'s defaults in place; every schema violation, most relevant first,
    at most one line per key."""
    errors = sorted(DefaultsValidator(schema).iter_errors(config), key=by_relevance(), reverse=True)
    out: dict[str, str] = {}
    for error in errors:
        for key, text in error_problems(error, config):
            out.setdefault(key, text)
    return list(out.items())
