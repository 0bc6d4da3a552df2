rule train_model:
    input:
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
        train=f"{R}/tokens/{MODEL_TOK}/train.npy",
        train_meta=f"{R}/tokens/{MODEL_TOK}/train.json",
        valid=f"{R}/tokens/{MODEL_TOK}/valid.npy",
        valid_meta=f"{R}/tokens/{MODEL_TOK}/valid.json",
    output:
        model=directory(f"{R}/models/{{model}}"),
        log_csv=f"{R}/tables/training/{{model}}.csv",
    log:
        f"{R}/logs/train_model/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/train_model/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(TRAINED),
    conda:
        "../envs/models.yaml"
    threads: 2
    resources:
        mem_mb=4000,
        runtime=train_runtime,
        slurm_extra=gpu_request,
    params:
        spec=lambda w: as_json(model_spec(w.model)),
        seed=config["models"]["seed"],
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope lm train --model-name {wildcards.model} "
        "--params-json {params.spec:q} --tokenizer {input.tokenizer} "
        "--train-npy {input.train} --train-json {input.train_meta} "
        "--valid-npy {input.valid} --valid-json {input.valid_meta} "
        "--seed {params.seed} --device {params.device} --out {output.model} "
        "--log-csv {output.log_csv} > {log} 2>&1"
