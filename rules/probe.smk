# A model's probes in one job (``copyscope probe model``: one torch/transformers start-up and
# one model load): the style repeats, with a ladder the extraction test, with a contamination set
# or the name cloze the membership detectors (copyscope.probe); what runs and what it reads and
# writes: copyscope.plan (Plan.probe_*). Each step writes the same file it writes run alone
# (its randomness is seeded per file).


rule probe:
    input:
        unpack(probe_inputs),
    output:
        **PLAN.probe_outputs(),
    log:
        f"{R}/logs/probe/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/probe/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.models),
    conda:
        "../envs/models.yaml"
    threads: config["models"]["probe_threads"]
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=3000,
        runtime=60,
    params:
        settings=as_json(PLAN.probe_params()),
        index=lambda w, input: os.path.dirname(input.index),
        files=lambda w, input, output: args(PLAN.probe_files(input, output)),
        device=PLAN.device,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope probe model --model {input.model} "
        "--model-name {wildcards.model} --params-json {params.settings:q} "
        "--index {params.index} --manifest {input.manifest} "
        "--out-repeats {output.repeats} {params.files} --device {params.device} > {log} 2>&1"
