# A model's probes in one job (one torch/transformers start-up instead of one per probe,
# ``copyscope each``): the style repeats (syntax repeats), with a ladder the extraction test
# (memorize extract), with a benchmark or the name cloze the membership detectors (membership
# score); what runs and what it reads and writes: copyscope.plan (Plan.probe_*). Each
# command writes the same file it writes run alone (its randomness is seeded per file).


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
        mem_mb=3000,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        repeats=lambda w, input, output: args(PLAN.repeats_args(w.model, input, output)),
        ladder=lambda w, input, output: args(PLAN.ladder_args(w.model, input, output)),
        membership=lambda w, input, output: args(
            PLAN.membership_args(w.model, input, output)
        ),
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope each {params.repeats} "
        "{params.ladder} {params.membership} > {log} 2>&1"
