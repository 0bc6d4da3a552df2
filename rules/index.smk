# Every tokenizer's index of the training split: a shard plan, one job per shard, a manifest.
# A tokenizer with `index:` (an index built elsewhere) is verified and linked instead
# (copyscope.plan: Plan.external_index, Plan.built_index).


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
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
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
    priority: INDEX_PRIORITY
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index shard --tokens {input.tokens} "
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
    wildcard_constraints:
        tok=_alternatives(PLAN.built_index),
    priority: INDEX_PRIORITY
    conda:
        "../envs/index.yaml"
    params:
        kind=lambda w: config["tokenizers"][w.tok]["kind"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index manifest --plan {input.plan} --shards {input.shards} "
        "--tokenizer {input.tokenizer} --tokenizer-name {wildcards.tok} "
        "--tokenizer-kind {params.kind:q} --out {output} > {log} 2>&1"


rule index_link:
    # an index built elsewhere: every file checked against its sha256, the tokenizer against the
    # index's recorded fingerprint, then a manifest in results/ that queries its shards in place
    # (an infini-gram index: its files checked, the tokenizer's ids within its token width)
    input:
        index=lambda w: PLAN.external_index[w.tok],
        tokenizer=f"{R}/tokenizers/{{tok}}",
    output:
        f"{R}/index/{{tok}}/index.json",
    log:
        f"{R}/logs/index_link/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/index_link/{{tok}}.tsv"
    wildcard_constraints:
        tok=_alternatives(list(PLAN.external_index)),
    conda:
        "../envs/index.yaml"
    params:
        kind=lambda w: config["tokenizers"][w.tok]["kind"],
        flags=lambda w: PLAN.link_flags[w.tok],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index link --index {input.index} --tokenizer {input.tokenizer} "
        "--tokenizer-name {wildcards.tok} --tokenizer-kind {params.kind:q} {params.flags} "
        "--out {output} > {log} 2>&1"


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
    priority: INDEX_PRIORITY
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    params:
        out=lambda w, output: os.path.dirname(output[0]),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index build {input.tokens} "
        "{params.out} --join-documents > {log} 2>&1"


rule index_natural:
    # the natural training text (before any planting), indexed like the training split (one
    # process; -joined: as one stream, like index_joined); queried by the analyses directly,
    # never through the per-shard fan-out
    input:
        tokens=f"{R}/tokens/{{tok}}/natural.npy",
        meta=f"{R}/tokens/{{tok}}/natural.json",
    output:
        f"{R}/index/{{tok}}-natural{{joined}}/index.json",
    log:
        f"{R}/logs/index_natural/{{tok}}{{joined}}.log",
    benchmark:
        f"{R}/benchmarks/index_natural/{{tok}}{{joined}}.tsv"
    wildcard_constraints:
        joined="|-joined",
    priority: INDEX_PRIORITY
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    params:
        out=lambda w, output: os.path.dirname(output[0]),
        join=lambda w, input: args(PLAN.natural_index_args(bool(w.joined), input.meta)),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index build {input.tokens} "
        "{params.out} {params.join} > {log} 2>&1"


# Per-shard fan-out (index.query_fanout): one job per (query set, shard), one merge job per
# query set; the query sets are written by novelty_queries and analyze_queries.
rule shard_matches:
    input:
        queries=f"{R}/fanout/{{qset}}/queries.npz",
        index=lambda w: f"{R}/index/{PLAN.fanout_index(w.qset)}/index.json",
    output:
        f"{R}/fanout/{{qset}}/{{shard}}.npz",
    log:
        f"{R}/logs/shard_matches/{{qset}}/{{shard}}.log",
    benchmark:
        f"{R}/benchmarks/shard_matches/{{qset}}/{{shard}}.tsv"
    conda:
        "../envs/index.yaml"
    threads: 2
    resources:
        mem_mb=shard_query_mem_mb,
        runtime=30,
    params:
        shard=lambda w: shard_dir(PLAN.fanout_index(w.qset), w.shard),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index shard-matches "
        "--shard {params.shard} --queries {input.queries} --out {output} > {log} 2>&1"


rule merge_matches:
    input:
        index=lambda w: f"{R}/index/{PLAN.fanout_index(w.qset)}/index.json",
        parts=fanout_parts,
    output:
        f"{R}/fanout/{{qset}}/matches.npz",
    log:
        f"{R}/logs/merge_matches/{{qset}}.log",
    benchmark:
        f"{R}/benchmarks/merge_matches/{{qset}}.tsv"
    conda:
        "../envs/index.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        index_dir=lambda w, input: os.path.dirname(input.index),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope index merge-matches --index {params.index_dir} "
        "--parts {input.parts} --out {output} > {log} 2>&1"
