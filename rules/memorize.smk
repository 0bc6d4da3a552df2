# The memorization ladder (corpus.inject.ladder): the extraction test of every model on the
# planted and control passages (copyscope.memorize), one job per model.

LADDER = bool(config["corpus"].get("inject", {}).get("ladder"))
MEMORIZATION = config["analysis"]["memorization"]


rule memorize:
    input:
        unpack(model_input),
        manifest=f"{R}/corpus/manifest.json",
    output:
        f"{R}/memorization/{{model}}.csv",
    log:
        f"{R}/logs/memorize/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/memorize/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
        slurm_extra=gpu_request,
    params:
        model_dir=lambda w, input: input.model,
        prompt_tokens=MEMORIZATION["prompt_tokens"],
        suffix_tokens=MEMORIZATION["suffix_tokens"],
        batch_size=MEMORIZATION["batch_size"],
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope memorize extract "
        "--model {params.model_dir} --model-name {wildcards.model} "
        "--manifest {input.manifest} --prompt-tokens {params.prompt_tokens} "
        "--suffix-tokens {params.suffix_tokens} --batch-size {params.batch_size} "
        "--device {params.device} --out {output} > {log} 2>&1"
