# Training dynamics (analysis.dynamics): every checkpoint of a trained model that keeps them
# (models.train.checkpoints) scored in one job (copyscope.dynamics); which models and what each
# job reads: copyscope.plan (Plan.dynamics_*). The report's dynamics job gathers the tables.


rule dynamics:
    input:
        unpack(lambda w: PLAN.dynamics_inputs(w.model)),
    output:
        f"{R}/dynamics/{{model}}.csv",
    log:
        f"{R}/logs/dynamics/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/dynamics/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.dynamics_models),
    conda:
        "../envs/models.yaml"
    threads: config["models"]["probe_threads"]
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=3000,
        runtime=60,
    params:
        settings=as_json(PLAN.dynamics_params()),
        files=lambda w, input: args(PLAN.dynamics_args(input)),
        device=PLAN.device,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope dynamics score --model {input.model} "
        "--model-name {wildcards.model} --params-json {params.settings:q} "
        "--manifest {input.manifest} {params.files} --device {params.device} "
        "--out {output} > {log} 2>&1"
