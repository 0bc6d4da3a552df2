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
        syntax=as_json(config["syntax"]),
    shell:
        "python -m copyscope syntax parse --params-json {params.syntax:q} "
        "--set-name {wildcards.split} --corpus {input.docs} --out {output} > {log} 2>&1"


rule parse_samples:
    input:
        unpack(sample_tokenizer),
        samples=f"{R}/samples/{{model}}/{{decoding}}.jsonl",
    output:
        f"{R}/syntax/{{model}}/{{decoding}}.parquet",
    log:
        f"{R}/logs/parse/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/parse/{{model}}_{{decoding}}.tsv"
    conda:
        "../envs/syntax.yaml"
    threads: config["syntax"]["n_process"]
    params:
        syntax=as_json(config["syntax"]),
        prompt_length=config["sampling"]["prompt_length"],
    shell:
        "python -m copyscope syntax parse --params-json {params.syntax:q} "
        "--set-name {wildcards.model}/{wildcards.decoding} --samples {input.samples} "
        "--tokenizer {input.tokenizer} --prompt-length {params.prompt_length} "
        "--out {output} > {log} 2>&1"


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
        "python -m copyscope syntax tags --parses {input} --out {output} > {log} 2>&1"
