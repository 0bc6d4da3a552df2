"""The run plan's command lines and analysis settings: the :class:`CommandLines` part of
:class:`copyscope.plan.Plan` (each model job's ``--params-json`` and labelled flag lists, and
the setting blocks the analyses read)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..clikit import labelled
from .base import ANALYSIS_OUTPUTS, EXPLORER_FILES


class CommandLines:
    """The argument lists of the model jobs and the analyses' setting blocks (a part of
    :class:`copyscope.plan.Plan`, whose ``__init__`` sets the attributes it reads)."""

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
        a ladder the extraction's prompt, suffix and batch size, with a contamination set or the name
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
        membership step the name cloze's passages, ``--out-texts`` and ``--out-cloze``."""
        args: list[str] = []
        if self.ladder:
            args += ["--out-ladder", outputs["ladder"]]
        if self.cloze:
            args += [
                "--cloze-passages", inputs["cloze_passages"],
                "--out-texts", outputs["texts"], "--out-cloze", outputs["cloze"],
            ]  # fmt: skip
        return args

    def cloze_passages_params(self) -> dict:
        """``membership passages --params-json``: the keys of analysis.membership the name
        cloze's candidate passages depend on (``ner_model``, ``cloze_distractors``, ``seed``;
        with the language, :meth:`with_language`), not ``cloze_per_play`` (each job draws its
        own items)."""
        m = self.membership
        return self.with_language({k: m[k] for k in ("ner_model", "cloze_distractors", "seed")})

    def prompts_params(self) -> dict:
        """``sample prompts --params-json``: the block ``sampling`` without
        ``training_prompts`` (the held-out windows do not depend on it, so a changed block
        re-runs its own jobs only, and a config without it keeps its earlier parameters)."""
        return {k: v for k, v in self.config["sampling"].items() if k != "training_prompts"}

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
            if m in self.zoo and self.retokenized(m):  # its prompts in its own ids
                args += ["--prompt-tokenizer", m, self.tokenizer_dir(m)]
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
        """The config's model zoo with its evaluators (``zoo``, ``evaluator``, ``evaluators``,
        ``judge``: the name of ``models.judge`` or None);
        each checkpoint of a series (:func:`with_checkpoints`) a model of the zoo, with its
        model's entry of ``evaluators``."""
        models = self.config["models"]
        given = models.get("evaluators") or {}
        extra = {m: given[self.series_of(m)] for m in self.checkpoints if self.series_of(m) in given}
        return {
            "zoo": self.zoo,
            "evaluator": models["evaluator"],
            "evaluators": {**given, **extra},
            "judge": self.judge["name"] if self.judge else None,
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
