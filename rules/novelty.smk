rule novelty_queries:
    # index.query_fanout: the continuations novelty_valid queries, for the per-shard jobs
    input:
        npy=f"{R}/tokens/{{tok}}/valid.npy",
        meta=f"{R}/tokens/{{tok}}/valid.json",
    output:
        f"{R}/fanout/novelty/{{tok}}/queries.npz",
    log:
        f"{R}/logs/novelty_queries/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/novelty_queries/{{tok}}.tsv"
    conda:
        "../envs/novelty.yaml"
    params:
        novelty=as_json(config["novelty"]),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope novelty queries --valid-npy {input.npy} --valid-json {input.meta} "
        "--params-json {params.novelty:q} --out {output} > {log} 2>&1"


rule novelty_valid:
    input:
        unpack(fanout_matches(matches="novelty/{tok}")),
        index=f"{R}/index/{{tok}}/index.json",
        npy=f"{R}/tokens/{{tok}}/valid.npy",
        meta=f"{R}/tokens/{{tok}}/valid.json",
    output:
        matches=f"{R}/novelty/{{tok}}/valid_matches.parquet",
        curve=f"{R}/novelty/{{tok}}/novelty_valid.csv",
        summary=f"{R}/novelty/{{tok}}/nnsl_valid.csv",
        hist=f"{R}/novelty/{{tok}}/nnsl_hist_valid.csv",
    log:
        f"{R}/logs/novelty_valid/{{tok}}.log",
    benchmark:
        f"{R}/benchmarks/novelty_valid/{{tok}}.tsv"
    priority: INDEX_PRIORITY
    conda:
        "../envs/novelty.yaml"
    threads: 2
    resources:
        mem_mb=index_query_mem_mb,
        runtime=30,
    params:
        novelty=as_json(config["novelty"]),
        index_dir=lambda w, input: os.path.dirname(input.index),
        fanout=fanout_flags(**{"--matches": "matches"}),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope novelty valid --index {params.index_dir} "
        "--tokenizer-name {wildcards.tok} --valid-npy {input.npy} --valid-json {input.meta} "
        "--params-json {params.novelty:q} --out-matches {output.matches} "
        "--out-curve {output.curve} --out-summary {output.summary} "
        "--out-hist {output.hist} {params.fanout} > {log} 2>&1"


rule novelty_plot:
    input:
        curves=expand(
            f"{R}/novelty/{{tok}}/novelty_valid.csv",
            tok=config["novelty"]["tokenizers"],
        ),
        hists=expand(
            f"{R}/novelty/{{tok}}/nnsl_hist_valid.csv",
            tok=config["novelty"]["tokenizers"],
        ),
        summaries=expand(
            f"{R}/novelty/{{tok}}/nnsl_valid.csv", tok=config["novelty"]["tokenizers"]
        ),
    output:
        fig=report(
            f"{R}/figures/novelty_valid.png",
            caption="../report/novelty_valid.rst",
            category=report_jobs_of.category_title("merrill"),
        ),
        hist_fig=report(
            f"{R}/figures/nnsl_hist_valid.png",
            caption="../report/nnsl_hist_valid.rst",
            category=report_jobs_of.category_title("merrill"),
        ),
        table=report(
            f"{R}/tables/novelty_valid.csv",
            caption="../report/novelty_table.rst",
            category=report_jobs_of.category_title("merrill"),
        ),
        summary=report(
            f"{R}/tables/nnsl_valid.csv",
            caption="../report/nnsl_table.rst",
            category=report_jobs_of.category_title("merrill"),
        ),
    log:
        f"{R}/logs/novelty_plot.log",
    benchmark:
        f"{R}/benchmarks/novelty_plot.tsv"
    conda:
        "../envs/novelty.yaml"
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope novelty plot --curves {input.curves} --hists {input.hists} "
        "--summaries {input.summaries} --out-fig {output.fig} "
        "--out-hist-fig {output.hist_fig} --out-table {output.table} "
        "--out-summary {output.summary} > {log} 2>&1"
