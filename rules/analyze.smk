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


# a set of generations from outside copyscope (config generations) or its references: every
# per-setting analysis that needs no model scores (no evaluator, so no quality.csv), one job
# per set
rule analyze_external:
    input:
        unpack(
            fanout_matches(
                token_matches="analysis/{model}/{decoding}/tokens",
                word_matches="analysis/{model}/{decoding}/words",
            )
        ),
        samples=f"{R}/samples/{{model}}/{{decoding}}.jsonl",
        tokenizer=f"{R}/tokenizers/{MODEL_TOK}",
        index=f"{R}/index/{MODEL_TOK}/index.json",
        natural_index=f"{R}/index/{natural_index(MODEL_TOK)}/index.json",
        words=f"{R}/tokenizers/{WORDS}",
        word_index=f"{R}/index/{WORD_INDEX}/index.json",
        natural_word_index=f"{R}/index/{natural_index(WORD_INDEX)}/index.json",
        manifest=f"{R}/corpus/manifest.json",
    output:
        **{
            name.split(".")[0]: f"{R}/analysis/{{model}}/{{decoding}}/{name}"
            for name in ANALYSIS_OUTPUTS
            if name != "quality.csv"
        },
    log:
        f"{R}/logs/analyze/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/analyze/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(
            EXTERNAL_MODELS + (["human"] if EXTERNAL_REFERENCES else [])
        ),
        decoding=_alternatives([d for _, d in EXTERNAL_SETTINGS]),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=index_query_mem_mb,
        runtime=60,
    params:
        supercopy_min=config["analysis"]["supercopy_min"],
        planted_min=config["analysis"]["planted_min_copy"],
        index=lambda w, input: os.path.dirname(input.index),
        natural_index=lambda w, input: os.path.dirname(input.natural_index),
        word_index=lambda w, input: os.path.dirname(input.word_index),
        natural_word_index=lambda w, input: os.path.dirname(input.natural_word_index),
        fanout=fanout_flags(
            **{"--token-matches": "token_matches", "--word-matches": "word_matches"}
        ),
    shell:
        "NUMBA_NUM_THREADS={threads} python -m copyscope analyze setting "
        "--samples {input.samples} --tokenizer {input.tokenizer} "
        "--index {params.index} --natural-index {params.natural_index} "
        "--word-tokenizer {input.words} --word-index {params.word_index} "
        "--natural-word-index {params.natural_word_index} --manifest {input.manifest} "
        "--supercopy-min {params.supercopy_min} "
        "--planted-min {params.planted_min} --out-tokens {output.tokens} "
        "--out-words {output.words} --out-supercopies {output.supercopies} "
        "--out-planted {output.planted} {params.fanout} > {log} 2>&1"
