# the prompt windows and the human reference from the clean held-out plays; with
# corpus.inject.excerpts also the contaminated human set from the excerpt plays
rule prompts:
    input:
        **(
            {
                "excerpts": f"{R}/tokens/{MODEL_TOK}/excerpts.npy",
                "excerpts_meta": f"{R}/tokens/{MODEL_TOK}/excerpts.json",
            }
            if EXCERPTS
            else {}
        ),
        # sampling.prompts: PATH, read from the sampling block (--params-json)
        **({"prompts_file": PROMPTS_FILE} if PROMPTS_FILE else {}),
        valid=f"{R}/tokens/{MODEL_TOK}/valid.npy",
        valid_meta=f"{R}/tokens/{MODEL_TOK}/valid.json",
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
        **(
            {"contaminated": f"{R}/samples/human/contaminated.jsonl"}
            if EXCERPTS
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
        sampling=as_json(config["sampling"]),
        excerpts=lambda w, input, output: (
            f"--excerpts-npy {input.excerpts} --excerpts-json {input.excerpts_meta} "
            f"--out-contaminated {output.contaminated}"
            if EXCERPTS
            else ""
        ),
    shell:
        "python -m copyscope sample prompts --valid-npy {input.valid} "
        "--valid-json {input.valid_meta} --tokenizer {input.tokenizer} "
        "--params-json {params.sampling:q} --out {output.prompts} "
        "--out-human {output.human} {params.excerpts} > {log} 2>&1"


# A model's sample sets in one job (``copyscope each``: one torch/transformers start-up instead
# of one per decoding): one ``sample generate`` per decoding, each seeded by its own (model,
# decoding, prompt length) (copyscope.sample.setting_seed), so each file is the same as
# generated alone. The grid models are sampled under every decoding, the others under
# sampling.shared_decodings (common.smk: decodings_of).
rule sample:
    input:
        unpack(model_input),
        prompts=f"{R}/prompts/prompts.jsonl",
        prompt_tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
        expand(f"{R}/samples/{{{{model}}}}/{{decoding}}.jsonl", decoding=DECODINGS),
    log:
        f"{R}/logs/sample/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/sample/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(GRID_MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        commands=sample_commands,
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope each {params.commands} > {log} 2>&1"


use rule sample as sample_shared with:
    output:
        expand(
            f"{R}/samples/{{{{model}}}}/{{decoding}}.jsonl", decoding=SHARED_DECODINGS
        ),
    wildcard_constraints:
        model=_alternatives(SHARED_MODELS),


# generations from outside copyscope (config generations): each file checked and tokenized
# like the index (the model tokenizer) into a sample set, and its references into the
# setting's own human baseline (copyscope.sample.external)
rule import_generations:
    input:
        generations=lambda w: GENERATIONS[(w.model, w.decoding)],
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
        f"{R}/samples/{{model}}/{{decoding}}.jsonl",
    log:
        f"{R}/logs/import_generations/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/import_generations/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(EXTERNAL_MODELS),
    conda:
        "../envs/models.yaml"
    params:
        prompt_length=config["sampling"]["prompt_length"],
    shell:
        "python -m copyscope sample import --generations {input.generations} "
        "--setting {wildcards.model}/{wildcards.decoding} --tokenizer {input.tokenizer} "
        "--prompt-length {params.prompt_length} --out {output} > {log} 2>&1"


rule import_references:
    input:
        generations=lambda w: GENERATIONS[(w.model, w.decoding)],
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
        f"{R}/samples/human/{{model}}+{{decoding}}.jsonl",
    log:
        f"{R}/logs/import_references/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/import_references/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(EXTERNAL_MODELS),
    conda:
        "../envs/models.yaml"
    params:
        prompt_length=config["sampling"]["prompt_length"],
    shell:
        "python -m copyscope sample import --generations {input.generations} "
        "--setting {wildcards.model}/{wildcards.decoding} --tokenizer {input.tokenizer} "
        "--prompt-length {params.prompt_length} --out-reference {output} > {log} 2>&1"
