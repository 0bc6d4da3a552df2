# Per-setting analyses (see copyscope.analyze.analyze_setting for why a setting's analyses are
# one command), one job per model and one for the human reference, which also runs the
# completion loss of every model.


rule analyze_queries:
    # index.query_fanout: the texts analyze queries (model tokens, Moses words)
    input:
        unpack(index_tokenizer_input),
        samples=f"{R}/samples/{{model}}/{{decoding}}.jsonl",
        words=f"{R}/tokenizers/{PLAN.words}",
    output:
        tokens=f"{R}/fanout/analysis/{{model}}/{{decoding}}/tokens/queries.npz",
        words=f"{R}/fanout/analysis/{{model}}/{{decoding}}/words/queries.npz",
    log:
        f"{R}/logs/analyze_queries/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/analyze_queries/{{model}}_{{decoding}}.tsv"
    conda:
        "../envs/models.yaml"
    params:
        index_tokenizer=lambda w: args(PLAN.retokenize_flags(w.model)),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope analyze queries --samples {input.samples} "
        "--word-tokenizer {input.words} {params.index_tokenizer} --out-tokens {output.tokens} "
        "--out-words {output.words} > {log} 2>&1"


# A model's sample sets analysed in one job (``copyscope analyze model``: one torch/transformers
# start-up and one evaluator load instead of one per set), each set's files the same as
# ``analyze setting`` writes alone. The human reference, the grid models' and the others' sets are the
# rules analyze_human, analyze and analyze_shared (the same rule, other decodings).
rule analyze:
    input:
        unpack(analyze_inputs),
    output:
        PLAN.analysis_outputs(PLAN.decodings),
    log:
        f"{R}/logs/analyze/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/analyze/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.grid_models),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=index_query_mem_mb,
        runtime=60,
    params:
        evaluator=lambda w: PLAN.evaluator(analyzed(w)),
        same_tokenizer=lambda w: args(PLAN.same_tokenizer_flag(analyzed(w))),
        ngram_tokenizer=lambda w: args(PLAN.index_tokenizer_flags(analyzed(w))),
        index=lambda w, input: os.path.dirname(input.index),
        natural_index=lambda w, input: os.path.dirname(input.natural_index),
        word_index=lambda w, input: os.path.dirname(input.word_index),
        natural_word_index=lambda w, input: os.path.dirname(input.natural_word_index),
        supercopy_min=config["analysis"]["supercopy_min"],
        planted_min=config["analysis"]["planted_min_copy"],
        device=PLAN.device,
        sets=lambda w, input, output: args(
            PLAN.analyze_files(analyzed(w), input, output)
        ),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope analyze model --tokenizer {input.model_tokenizer} "
        "--index {params.index} --natural-index {params.natural_index} "
        "--word-tokenizer {input.words} --word-index {params.word_index} "
        "--natural-word-index {params.natural_word_index} --manifest {input.manifest} "
        "--evaluator {input.evaluator} --evaluator-name {params.evaluator} "
        "{params.same_tokenizer} {params.ngram_tokenizer} "
        "--supercopy-min {params.supercopy_min} "
        "--planted-min {params.planted_min} {params.sets} --device {params.device} "
        "> {log} 2>&1"


use rule analyze as analyze_shared with:
    output:
        PLAN.analysis_outputs(PLAN.shared_decodings),
    wildcard_constraints:
        model=_alternatives(PLAN.shared_models),


# the human sets (the reference; with excerpts also human/contaminated), and then (reading the
# reference's tokens.parquet) the completion loss of every model in the model tokenizer on
# it: one start-up for all of them
use rule analyze as analyze_human with:
    input:
        unpack(analyze_inputs),
        **PLAN.completion_inputs(),
    output:
        PLAN.analysis_outputs(PLAN.human_decodings, "human"),
        PLAN.completion_outputs(),
    log:
        f"{R}/logs/analyze/human.log",
    benchmark:
        f"{R}/benchmarks/analyze/human.tsv"


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
        tokenizer=f"{R}/tokenizers/{PLAN.model_tok}",
        index=PLAN.index_file(PLAN.model_tok),
        natural_index=PLAN.index_file(PLAN.natural_index(PLAN.model_tok)),
        words=f"{R}/tokenizers/{PLAN.words}",
        word_index=PLAN.index_file(PLAN.word_index),
        natural_word_index=PLAN.index_file(PLAN.natural_index(PLAN.word_index)),
        manifest=f"{R}/corpus/manifest.json",
    output:
        **PLAN.external_analysis_outputs(),
    log:
        f"{R}/logs/analyze/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/analyze/{{model}}_{{decoding}}.tsv"
    wildcard_constraints:
        model=_alternatives(
            PLAN.external_models + (["human"] if PLAN.external_references else [])
        ),
        decoding=_alternatives([d for _, d in PLAN.external_settings]),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=index_query_mem_mb,
        runtime=60,
    params:
        supercopy_min=config["analysis"]["supercopy_min"],
        planted_min=config["analysis"]["planted_min_copy"],
        ngram_tokenizer=PLAN.model_tok,
        index=lambda w, input: os.path.dirname(input.index),
        natural_index=lambda w, input: os.path.dirname(input.natural_index),
        word_index=lambda w, input: os.path.dirname(input.word_index),
        natural_word_index=lambda w, input: os.path.dirname(input.natural_word_index),
        fanout=fanout_flags(
            **{"--token-matches": "token_matches", "--word-matches": "word_matches"}
        ),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope analyze setting "
        "--samples {input.samples} --tokenizer {input.tokenizer} "
        "--index {params.index} --natural-index {params.natural_index} "
        "--word-tokenizer {input.words} --word-index {params.word_index} "
        "--natural-word-index {params.natural_word_index} --manifest {input.manifest} "
        "--supercopy-min {params.supercopy_min} --ngram-tokenizer {params.ngram_tokenizer} "
        "--planted-min {params.planted_min} --out-tokens {output.tokens} "
        "--out-words {output.words} --out-supercopies {output.supercopies} "
        "--out-planted {output.planted} {params.fanout} > {log} 2>&1"


# the training-prompt sets' L_t against the training and the natural text's index
# (tokens.parquet alone, the file analyze writes for a setting), for the report job
# training-prompts (Merrill et al. Fig. 3; sampling.training_prompts)
if PLAN.training_prompts:

    rule analyze_training_prompts:
        input:
            unpack(lambda w: PLAN.training_analysis_inputs(w.model)),
        output:
            PLAN.training_tokens(),
        log:
            f"{R}/logs/analyze_training_prompts/{{model}}.log",
        benchmark:
            f"{R}/benchmarks/analyze_training_prompts/{{model}}.tsv"
        wildcard_constraints:
            model=_alternatives(PLAN.training_models),
        conda:
            "../envs/models.yaml"
        resources:
            mem_mb=index_query_mem_mb,
        params:
            sets=lambda w, input, output: args(
                PLAN.training_analysis_files(input, output)
            ),
        shell:
            "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
            "python -m copyscope analyze tokens "
            "--tokenizer {input.tokenizer} --index {input.index} "
            "--natural-index {input.natural_index} --manifest {input.manifest} "
            "{params.sets} > {log} 2>&1"
