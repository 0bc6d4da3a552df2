# Per-setting analyses (see copyscope.analyze.analyze_setting for why a setting's analyses are
# one command), one job per model and one for the human reference, which also runs the
# completion loss of every model.


rule analyze_queries:
    # index.query_fanout: the texts analyze queries (model tokens, Moses words)
    input:
        samples=f"{R}/samples/{{model}}/{{decoding}}.jsonl",
        words=f"{R}/tokenizers/{WORDS}",
    output:
        tokens=f"{R}/fanout/analysis/{{model}}/{{decoding}}/tokens/queries.npz",
        words=f"{R}/fanout/analysis/{{model}}/{{decoding}}/words/queries.npz",
    log:
        f"{R}/logs/analyze_queries/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/analyze_queries/{{model}}_{{decoding}}.tsv"
    conda:
        "../envs/models.yaml"
    shell:
        "python -m copyscope analyze queries --samples {input.samples} "
        "--word-tokenizer {input.words} --out-tokens {output.tokens} "
        "--out-words {output.words} > {log} 2>&1"


# A model's sample sets analysed in one job (``copyscope each``: one torch/transformers start-up
# for the evaluator instead of one per set): one ``analyze setting`` per set, each writing the
# same files as run alone. The human reference, the grid models' and the others' sets are the
# rules analyze_human, analyze and analyze_shared (the same rule, other decodings).
rule analyze:
    input:
        unpack(analyze_inputs),
    output:
        analysis_outputs(DECODINGS),
    log:
        f"{R}/logs/analyze/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/analyze/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(GRID_MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=index_query_mem_mb,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        commands=analyze_commands,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope each {params.commands} > {log} 2>&1"


use rule analyze as analyze_shared with:
    output:
        analysis_outputs(SHARED_DECODINGS),
    wildcard_constraints:
        model=_alternatives(SHARED_MODELS),


# the human sets (the reference; with excerpts also human/contaminated), and then (reading the
# reference's tokens.parquet) the completion loss of every model in the model tokenizer on
# it: one start-up for all of them
rule analyze_human:
    input:
        unpack(analyze_inputs),
        **{f"model_{m}": model_dir(m) for m in COMPLETION_MODELS},
    output:
        analysis_outputs(HUMAN_DECODINGS, "human"),
        COMPLETION_OUTPUTS,
    log:
        f"{R}/logs/analyze/human.log",
    benchmark:
        f"{R}/benchmarks/analyze/human.tsv"
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=index_query_mem_mb,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        commands=analyze_commands,
        completion=completion_commands,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope each {params.commands} {params.completion} > {log} 2>&1"
