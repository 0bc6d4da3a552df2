# Contamination and membership detectors on the planted benchmark (corpus.inject.benchmark):
# one job per model scores every benchmark and baseline text and the name cloze items
# (copyscope.membership); nothing runs without a benchmark.

BENCHMARK = bool(config["corpus"].get("inject", {}).get("benchmark"))
MEMBERSHIP = config["analysis"]["membership"]


rule membership:
    input:
        unpack(model_input),
        manifest=f"{R}/corpus/manifest.json",
        names=f"{R}/corpus/names.json",
        train=f"{R}/corpus/train.jsonl",
        valid=f"{R}/corpus/valid.jsonl",
    output:
        texts=f"{R}/membership/{{model}}/texts.csv",
        cloze=f"{R}/membership/{{model}}/cloze.csv",
    log:
        f"{R}/logs/membership/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/membership/{{model}}.tsv"
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
        config=as_json(MEMBERSHIP),
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope membership score "
        "--model {params.model_dir} --model-name {wildcards.model} "
        "--manifest {input.manifest} --names {input.names} --train {input.train} "
        "--valid {input.valid} --params-json {params.config:q} --device {params.device} "
        "--out-texts {output.texts} --out-cloze {output.cloze} > {log} 2>&1"
