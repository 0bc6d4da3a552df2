"""The run plan's training-prompt sets (``sampling.training_prompts``, Merrill et al. Fig. 3):
the :class:`TrainingPrompts` part of :class:`copyscope.plan.Plan`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class TrainingPrompts:
    """The training-prompt sets of a run: their settings, files, jobs and parameters (a part
    of :class:`copyscope.plan.Plan`, whose ``__init__`` sets the attributes it reads)."""

    def training_settings(self) -> list[tuple[str, str]]:
        """(model, decoding) of every training-prompt set (``sampling.training_prompts``),
        model-major in the config's order; none without it."""
        return [(m, d) for m in self.training_models for d in self.training_decodings]

    def training_prompts_file(self) -> str:
        """The prompt windows cut from the natural training text."""
        return f"{self.results}/training_prompts/prompts.jsonl"

    def training_samples(self, model: str = "{model}") -> list[str]:
        """The training-prompt sample sets of ``model``, one per decoding (named apart from the
        held-out sets: under ``training_prompts/``)."""
        R = self.results
        return [f"{R}/training_prompts/samples/{model}/{d}.jsonl" for d in self.training_decodings]

    def training_tokens(self, model: str = "{model}") -> list[str]:
        """The per-token L_t files (tokens.parquet) of ``model``'s training-prompt sets."""
        R = self.results
        return [
            f"{R}/training_prompts/analysis/{model}/{d}/tokens.parquet"
            for d in self.training_decodings
        ]

    def training_token_files(self) -> list[str]:
        """tokens.parquet of every training-prompt set, in the order of training_settings()."""
        return [f for m in self.training_models for f in self.training_tokens(m)]

    def training_prompts_inputs(self) -> dict[str, str]:
        """What the training-prompt windows are cut from: the natural training text in the
        model tokenizer (``natural``: the training split before any planting), and the index of
        the training split (a window is kept when the training text holds it whole)."""
        R = self.results
        return {
            "natural": f"{R}/tokens/{self.model_tok}/natural.npy",
            "natural_meta": f"{R}/tokens/{self.model_tok}/natural.json",
            "index": self.index_file(self.model_tok),
        }

    def training_prompts_params(self) -> dict:
        """``sample training-prompts --params-json``: the block's lengths, prompts and seed,
        and ``sampling.new_tokens`` (each window's continuation slot)."""
        tp = self.training_prompts
        return {
            "lengths": tp["lengths"], "prompts": tp["prompts"], "seed": tp["seed"],
            "new_tokens": self.config["sampling"]["new_tokens"],
        }  # fmt: skip

    def training_sample_inputs(self, model: str) -> dict[str, str]:
        """What a model's training-prompt sample job reads: the model, the windows, their
        tokenizer."""
        return {
            **self.sample_inputs(model),
            "prompts": self.training_prompts_file(),
        }

    def training_sample_params(self, model: str) -> dict:
        """``sample model --params-json`` of a training-prompt sample job: as
        :meth:`sample_params`, with the block's decodings at its prompt lengths and its seed."""
        s, tp = self.config["sampling"], self.training_prompts
        return {
            "new_tokens": s["new_tokens"], "seed": tp["seed"], "batch_size": s["batch_size"],
            "decodings": {d: {"method": s["decodings"][d], "prompt_lengths": sorted(tp["lengths"])}
                          for d in self.training_decodings},
        }  # fmt: skip

    def training_sample_files(self, outputs: Sequence[str]) -> list[str]:
        """``--out DECODING PATH`` of a training-prompt sample job, in the decodings' order."""
        if len(outputs) != len(self.training_decodings):
            raise ValueError(f"{len(self.training_decodings)} decodings, {len(outputs)} files")
        pairs = zip(self.training_decodings, outputs, strict=True)
        return [w for d, out in pairs for w in ("--out", d, out)]

    def training_analysis_inputs(self, model: str) -> dict[str, str]:
        """What the L_t job of a model's training-prompt sets reads: the index of its tokens,
        the natural text's index, its tokenizer, the manifest (planted texts), the samples."""
        tok = self.model_tokenizer(model)
        inputs = {
            "index": self.index_file(tok),
            "natural_index": self.index_file(self.natural_index(tok)),
            "tokenizer": self.tokenizer_dir(model),
            "manifest": f"{self.results}/corpus/manifest.json",
        }
        for d, path in zip(self.training_decodings, self.training_samples(model), strict=True):
            inputs[f"samples_{d}"] = path
        return inputs

    def training_analysis_files(
        self, inputs: Mapping[str, str], outputs: Sequence[str]
    ) -> list[str]:
        """``--set SAMPLES TOKENS`` of every training-prompt set of an L_t job."""
        pairs = zip(self.training_decodings, outputs, strict=True)
        return [w for d, out in pairs for w in ("--set", inputs[f"samples_{d}"], out)]

    def training_jobs(self) -> dict[str, dict]:
        """The training-prompt jobs (rule name and model → what it runs, reads and writes):
        the windows, and per model of the block its sample job and its L_t job."""
        if not self.training_prompts:
            return {}
        jobs = {
            "training_prompts/natural": {
                "steps": ["sample training-prompts"],
                "inputs": self.training_prompts_inputs(),
                "outputs": [self.training_prompts_file()],
            }
        }
        for m in self.training_models:
            jobs[f"sample_training_prompts/{m}"] = {
                "steps": [f"sample generate {d}" for d in self.training_decodings],
                "inputs": self.training_sample_inputs(m),
                "outputs": self.training_samples(m),
            }
            jobs[f"analyze_training_prompts/{m}"] = {
                "steps": [f"analyze tokens {d}" for d in self.training_decodings],
                "inputs": self.training_analysis_inputs(m),
                "outputs": self.training_tokens(m),
            }
        return jobs
