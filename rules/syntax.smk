# Syntax stage: every text set parsed once (copyscope.syntax); a corpus split's sentence tag
# documents feed the pos tokenizer (rules/tokenize.smk) and so the POS-tag index.


rule parse_split:
    input:
        docs=f"{R}/corpus/{{split}}.jsonl",
    output:
        f"{R}/syntax/{{split}}.parquet",
    log:
        f"{R}/logs/parse/{{split}}.log",
    benchmark:
        f"{R}/benchmarks/parse/{{split}}.tsv"
    conda:
        "../envs/syntax.yaml"
    threads: config["syntax"]["n_process"]
    params:
        syntax=as_json(PLAN.with_language(config["syntax"])),
    shell:
        "OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 "
        "python -m copyscope syntax parse --params-json {params.syntax:q} "
        "--set-name {wildcards.split} --corpus {input.docs} --out {output} > {log} 2>&1"


# every sample set parsed in one job: one parser start-up instead of one per set (each set's
# file is the same as parsed alone: texts are parsed independently)
rule parse_samples:
    input:
        samples=[x[1] for x in PLAN.sample_sets()],
        tokenizers=sorted({x[2] for x in PLAN.sample_sets()}),
    output:
        PLAN.parse_files(),
    log:
        f"{R}/logs/parse/samples.log",
    benchmark:
        f"{R}/benchmarks/parse/samples.tsv"
    conda:
        "../envs/syntax.yaml"
    threads: config["syntax"]["n_process"]
    params:
        syntax=as_json(PLAN.with_language(config["syntax"])),
        prompt_length=config["sampling"]["prompt_length"],
        sets=lambda w, output: labelled("--set", PLAN.sample_sets(), output),
    shell:
        "OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 "
        "python -m copyscope syntax parse-samples --params-json {params.syntax:q} "
        "--prompt-length {params.prompt_length} {params.sets} > {log} 2>&1"


rule pos_tags:
    input:
        f"{R}/syntax/{{split}}.parquet",
    output:
        f"{R}/syntax/{{split}}-tags.jsonl",
    log:
        f"{R}/logs/pos_tags/{{split}}.log",
    benchmark:
        f"{R}/benchmarks/pos_tags/{{split}}.tsv"
    conda:
        "../envs/syntax.yaml"
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope syntax tags --parses {input} --out {output} > {log} 2>&1"


# Style vs exact memorization (Shaib et al. §8): repeated training n-grams sampled from the
# index and decoded per model (in its probe job, rules/probe.smk); then the ladder's and these
# continuations POS-tagged in one job.
rule style_memorization:
    input:
        ladder=PLAN.ladder_files(),
        repeats=PLAN.model_files("style/repeats/{model}.csv", PLAN.models),
    output:
        PLAN.model_files("style/measures/{model}.csv", PLAN.models),
    log:
        f"{R}/logs/style_memorization.log",
    benchmark:
        f"{R}/benchmarks/style_memorization.tsv"
    conda:
        "../envs/syntax.yaml"
    params:
        ladder=lambda w, input: labelled("--ladder", PLAN.ladder_models, input.ladder),
        repeats=lambda w, input: labelled("--repeats", PLAN.models, input.repeats),
        out=lambda w, output: labelled("--out", PLAN.models, output),
        syntax=as_json(PLAN.with_language({**config["syntax"], "n_process": 1})),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope syntax style {params.ladder} {params.repeats} {params.out} "
        "--params-json {params.syntax:q} > {log} 2>&1"
