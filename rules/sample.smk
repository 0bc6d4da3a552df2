rule prompts:
    input:
        valid=f"{R}/tokens/{MODEL_TOK}/valid.npy",
        valid_meta=f"{R}/tokens/{MODEL_TOK}/valid.json",
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
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
    shell:
        "python -m copyscope sample prompts --valid-npy {input.valid} "
        "--valid-json {input.valid_meta} --tokenizer {input.tokenizer} "
        "--params-json {params.sampling:q} --out {output.prompts} "
        "--out-human {output.human} > {log} 2>&1"


rule sample:
    input:
        unpack(model_input),
        prompts=f"{R}/prompts/prompts.jsonl",
        prompt_tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
    output:
        f"{R}/samples/{{model}}/{{decoding}}.jsonl",
    log:
        f"{R}/logs/sample/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/sample/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        method=lambda w: as_json(config["sampling"]["decodings"][w.decoding]),
        lengths=lambda w: " ".join(map(str, prompt_lengths_for(w.model, w.decoding))),
        model_dir=lambda w, input: input.model,
        new_tokens=config["sampling"]["new_tokens"],
        seed=config["sampling"]["seed"],
        batch_size=config["sampling"]["batch_size"],
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope sample generate "
        "--model {params.model_dir} --model-name {wildcards.model} "
        "--decoding {wildcards.decoding} --params-json {params.method:q} "
        "--prompts {input.prompts} --prompt-tokenizer {input.prompt_tokenizer} "
        "--prompt-lengths {params.lengths} --new-tokens {params.new_tokens} "
        "--seed {params.seed} --batch-size {params.batch_size} "
        "--device {params.device} --out {output} > {log} 2>&1"
