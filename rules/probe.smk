# A model's probes in one job (one torch/transformers start-up instead of one per probe,
# ``copyscope each``): the style repeats (syntax repeats), with a ladder the extraction test
# (memorize extract), with a benchmark the membership detectors (membership score). Each
# command writes the same file it writes run alone (its randomness is seeded per file).


PROBE_OUTPUTS = {"repeats": f"{R}/style/repeats/{{model}}.csv"}
if LADDER:
    PROBE_OUTPUTS["ladder"] = f"{R}/memorization/{{model}}.csv"
if CLOZE:
    PROBE_OUTPUTS["texts"] = f"{R}/membership/{{model}}/texts.csv"
    PROBE_OUTPUTS["cloze"] = f"{R}/membership/{{model}}/cloze.csv"


rule probe:
    input:
        unpack(probe_inputs),
    output:
        **PROBE_OUTPUTS,
    log:
        f"{R}/logs/probe/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/probe/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
    conda:
        "../envs/models.yaml"
    threads: config["models"]["probe_threads"]
    resources:
        mem_mb=3000,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        index_dir=lambda w, input: os.path.dirname(input.index),
        style=as_json(STYLE),
        device=config["models"]["device"],
        ladder=ladder_command,
        membership=membership_command,
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope each syntax repeats "
        "--model {input.model} --model-name {wildcards.model} "
        "--index {params.index_dir} --manifest {input.manifest} "
        "--params-json {params.style:q} --device {params.device} --out {output.repeats} "
        "{params.ladder} {params.membership} > {log} 2>&1"
