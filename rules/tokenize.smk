rule tokenizer_fit:
    input:
        unpack(tokenizer_source),
        train=lambda w: PLAN.tokenizer_docs(w.tok, "train"),
    output:
        directory(f"{R}/tokenizers/{{tok}}"),
    log:
        f"{R}/logs/tokenizer_fit/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/tokenizer_fit/{{tok}}.tsv"
    conda:
        "../envs/tokenize.yaml"
    params:
        spec=lambda w: as_json(PLAN.with_language(config["tokenizers"][w.tok])),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope tokenize fit --tokenizer-name {wildcards.tok} "
        "--params-json {params.spec:q} --train {input.train} --out {output} > {log} 2>&1"


rule tokenize:
    input:
        model=f"{R}/tokenizers/{{tok}}",
        docs=lambda w: PLAN.tokenizer_docs(w.tok, w.split),
    output:
        npy=f"{R}/tokens/{{tok}}/{{split}}.npy",
        meta=f"{R}/tokens/{{tok}}/{{split}}.json",
    log:
        f"{R}/logs/tokenize/{{tok}}_{{split}}.log",
    benchmark:
        f"{R}/benchmarks/tokenize/{{tok}}_{{split}}.tsv"
    conda:
        "../envs/tokenize.yaml"
    params:
        kind=lambda w: config["tokenizers"][w.tok]["kind"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope tokenize encode --tokenizer-name {wildcards.tok} "
        "--tokenizer-kind {params.kind:q} --tokenizer {input.model} --docs {input.docs} "
        "--out-npy {output.npy} --out-json {output.meta} > {log} 2>&1"
