checkpoint index_plan:
    input:
        meta=f"{R}/tokens/{{tok}}/train.json",
    output:
        f"{R}/index/{{tok}}/plan.json",
    log:
        f"{R}/logs/index_plan/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/index_plan/{{tok}}.tsv"
    conda:
        "../envs/index.yaml"
    params:
        shard_tokens=config["index"]["shard_tokens"],
    shell:
        "python -m copyscope index plan --meta {input.meta} --shard-tokens {params.shard_tokens} "
        "--out {output} > {log} 2>&1"


rule index_shard:
    input:
        tokens=f"{R}/tokens/{{tok}}/train.npy",
        meta=f"{R}/tokens/{{tok}}/train.json",
        plan=f"{R}/index/{{tok}}/plan.json",
    output:
        directory(f"{R}/index/{{tok}}/{{shard}}"),
    log:
        f"{R}/logs/index_shard/{{tok}}_{{shard}}.log",
    benchmark:
        f"{R}/benchmarks/index_shard/{{tok}}_{{shard}}.tsv"
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "NUMBA_NUM_THREADS={threads} python -m copyscope index shard --tokens {input.tokens} "
        "--meta {input.meta} --plan {input.plan} --shard {wildcards.shard} "
        "--out {output} > {log} 2>&1"


rule index:
    input:
        plan=f"{R}/index/{{tok}}/plan.json",
        shards=index_shards,
        tokenizer=f"{R}/tokenizers/{{tok}}",
    output:
        f"{R}/index/{{tok}}/index.json",
    log:
        f"{R}/logs/index/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/index/{{tok}}.tsv"
    conda:
        "../envs/index.yaml"
    params:
        kind=lambda w: config["tokenizers"][w.tok]["kind"],
    shell:
        "python -m copyscope index manifest --plan {input.plan} --shards {input.shards} "
        "--tokenizer {input.tokenizer} --tokenizer-name {wildcards.tok} "
        "--tokenizer-kind {params.kind:q} --out {output} > {log} 2>&1"


rule index_joined:
    # RAVEN's training stream: documents concatenated, so n-grams may cross documents
    input:
        tokens=f"{R}/tokens/{{tok}}/train.npy",
    output:
        f"{R}/index/{{tok}}-joined/index.json",
    log:
        f"{R}/logs/index_joined/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/index_joined/{{tok}}.tsv"
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    params:
        out=lambda w, output: os.path.dirname(output[0]),
    shell:
        "NUMBA_NUM_THREADS={threads} python -m copyscope index build {input.tokens} "
        "{params.out} --join-documents > {log} 2>&1"
