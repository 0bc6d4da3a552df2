# the prompt windows and the human reference from the clean held-out plays; with
# corpus.inject.excerpts also the contaminated human set from the excerpt plays
rule prompts:
    input:
        **(
            {
                "excerpts": f"{R}/tokens/{PLAN.model_tok}/excerpts.npy",
                "excerpts_meta": f"{R}/tokens/{PLAN.model_tok}/excerpts.json",
            }
            if PLAN.excerpts
            else {}
        ),
        # sampling.prompts: PATH, read from the sampling block (--params-json)
        **({"prompts_file": PLAN.prompts_file} if PLAN.prompts_file else {}),
        valid=f"{R}/tokens/{PLAN.model_tok}/valid.npy",
        valid_meta=f"{R}/tokens/{PLAN.model_tok}/valid.json",
        tokenizer=f"{R}/tokenizers/{PLAN.model_tok}",
    output:
        **(
            {"contaminated": f"{R}/samples/human/contaminated.jsonl"}
            if PLAN.excerpts
            else {}
        ),
        prompts=f"{R}/prompts/prompts.jsonl",
        human=f"{R}/samples/human/reference.jsonl",
    log:
        f"{R}/logs/prompts.log",
    benchmark:
        f"{R}/benchmarks/prompts.tsv"
    conda:
        "../envs/models.yaml"
    params:
        sampling=as_json(PLAN.prompts_params()),
        excerpts=lambda w, input, output: args(PLAN.prompts_args(input, output)),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope sample prompts --valid-npy {input.valid} "
        "--valid-json {input.valid_meta} --tokenizer {input.tokenizer} "
        "--params-json {params.sampling:q} --out {output.prompts} "
        "--out-human {output.human} {params.excerpts} > {log} 2>&1"


# A model's sample sets in one job (``copyscope sample model``: one torch/transformers start-up
# and one model load instead of one per decoding), each set seeded by its own (model, decoding,
# prompt length) (copyscope.sample.setting_seed), so each file is the same as generated alone.
# The grid models are sampled under every decoding, the others under sampling.shared_decodings
# (copyscope.plan: Plan.decodings_of, Plan.sample_params, Plan.sample_files).
rule sample:
    input:
        unpack(sample_inputs),
    output:
        PLAN.sample_outputs(PLAN.decodings),
    log:
        f"{R}/logs/sample/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/sample/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.grid_models),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=3000,
        runtime=60,
    params:
        settings=lambda w: as_json(PLAN.sample_params(w.model)),
        files=lambda w, output: args(PLAN.sample_files(w.model, output)),
        device=PLAN.device,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope sample model --model {input.model} "
        "--model-name {wildcards.model} --params-json {params.settings:q} "
        "--prompts {input.prompts} --prompt-tokenizer {input.prompt_tokenizer} "
        "{params.files} --device {params.device} > {log} 2>&1"


use rule sample as sample_shared with:
    output:
        PLAN.sample_outputs(PLAN.shared_decodings),
    wildcard_constraints:
        model=_alternatives(PLAN.shared_models),


# generations from outside copyscope (config generations): each file checked and tokenized
# like the index (the model tokenizer) into a sample set, and its references into the
# setting's own human baseline (copyscope.sample.external)
rule import_generations:
    input:
        generations=lambda w: PLAN.generations[(w.model, w.decoding)],
        tokenizer=f"{R}/tokenizers/{PLAN.model_tok}",
    output:
        f"{R}/samples/{{model}}/{{decoding}}.jsonl",
    log:
        f"{R}/logs/import_generations/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/import_generations/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.external_models),
    conda:
        "../envs/models.yaml"
    params:
        prompt_length=config["sampling"]["prompt_length"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope sample import --generations {input.generations} "
        "--setting {wildcards.model}/{wildcards.decoding} --tokenizer {input.tokenizer} "
        "--prompt-length {params.prompt_length} --out {output} > {log} 2>&1"


rule import_references:
    input:
        generations=lambda w: PLAN.generations[(w.model, w.decoding)],
        tokenizer=f"{R}/tokenizers/{PLAN.model_tok}",
    output:
        f"{R}/samples/human/{{model}}+{{decoding}}.jsonl",
    log:
        f"{R}/logs/import_references/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/import_references/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.external_models),
    conda:
        "../envs/models.yaml"
    params:
        prompt_length=config["sampling"]["prompt_length"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope sample import --generations {input.generations} "
        "--setting {wildcards.model}/{wildcards.decoding} --tokenizer {input.tokenizer} "
        "--prompt-length {params.prompt_length} --out-reference {output} > {log} 2>&1"


# Merrill et al. Fig. 3 (sampling.training_prompts): prompt windows cut from the natural
# training text (the training split before anything is planted), each model's greedy and beam
# continuations of them in one sample job: sample sets of their own under training_prompts/
# (their L_t: rules/analyze.smk; copyscope.plan: Plan.training_jobs)
if PLAN.training_prompts:

    rule training_prompts:
        input:
            **PLAN.training_prompts_inputs(),
        output:
            PLAN.training_prompts_file(),
        log:
            f"{R}/logs/training_prompts.log",
        benchmark:
            f"{R}/benchmarks/training_prompts.tsv"
        conda:
            "../envs/models.yaml"
        params:
            block=as_json(PLAN.training_prompts_params()),
            index=lambda w, input: os.path.dirname(input.index),
        shell:
            "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
            "python -m copyscope sample training-prompts --natural-npy {input.natural} "
            "--natural-json {input.natural_meta} --index {params.index} "
            "--params-json {params.block:q} --out {output} > {log} 2>&1"

    use rule sample as sample_training_prompts with:
        input:
            unpack(lambda w: PLAN.training_sample_inputs(w.model)),
        output:
            PLAN.training_samples(),
        log:
            f"{R}/logs/sample_training_prompts/{{model}}.log",
        benchmark:
            f"{R}/benchmarks/sample_training_prompts/{{model}}.tsv"
        wildcard_constraints:
            model=_alternatives(PLAN.training_models),
        params:
            settings=lambda w: as_json(PLAN.training_sample_params(w.model)),
            files=lambda w, output: args(PLAN.training_sample_files(output)),
            device=PLAN.device,
