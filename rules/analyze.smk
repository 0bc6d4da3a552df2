# Per-setting analyses: one job per (model, decoding) and the human reference (see
# copyscope.analyze.analyze_setting for why it is one job), and the completion loss per model.


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


rule analyze:
    input:
        unpack(analysis_inputs),
        unpack(
            fanout_matches(
                token_matches="analysis/{model}/{decoding}/tokens",
                word_matches="analysis/{model}/{decoding}/words",
            )
        ),
        samples=f"{R}/samples/{{model}}/{{decoding}}.jsonl",
        words=f"{R}/tokenizers/{WORDS}",
        word_index=f"{R}/index/{WORD_INDEX}/index.json",
        manifest=f"{R}/corpus/manifest.json",
    output:
        tokens=f"{R}/analysis/{{model}}/{{decoding}}/tokens.parquet",
        words=f"{R}/analysis/{{model}}/{{decoding}}/words.parquet",
        quality=f"{R}/analysis/{{model}}/{{decoding}}/quality.csv",
        supercopies=f"{R}/analysis/{{model}}/{{decoding}}/supercopies.csv",
        planted=f"{R}/analysis/{{model}}/{{decoding}}/planted.csv",
    log:
        f"{R}/logs/analyze/{{model}}_{{decoding}}.log",
    benchmark:
        f"{R}/benchmarks/analyze/{{model}}_{{decoding}}.tsv"
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=index_query_mem_mb,
        runtime=30,
        slurm_extra=gpu_request,
    params:
        index_dir=lambda w, input: os.path.dirname(input.index),
        word_index_dir=lambda w, input: os.path.dirname(input.word_index),
        evaluator=lambda w, input: input.evaluator,
        same=lambda w: "--same-tokenizer" if evaluator_same_tokenizer(w.model) else "",
        supercopy_min=config["analysis"]["supercopy_min"],
        planted_min=config["analysis"]["planted_min_copy"],
        device=config["models"]["device"],
        fanout=fanout_flags(
            **{"--token-matches": "token_matches", "--word-matches": "word_matches"}
        ),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope analyze setting --samples {input.samples} "
        "--tokenizer {input.model_tokenizer} --index {params.index_dir} "
        "--word-tokenizer {input.words} --word-index {params.word_index_dir} "
        "--evaluator {params.evaluator} {params.same} --manifest {input.manifest} "
        "--supercopy-min {params.supercopy_min} --planted-min {params.planted_min} "
        "--device {params.device} --out-tokens {output.tokens} --out-words {output.words} "
        "--out-quality {output.quality} --out-supercopies {output.supercopies} "
        "--out-planted {output.planted} {params.fanout} > {log} 2>&1"


rule completion_loss:
    input:
        unpack(model_input),
        samples=f"{R}/samples/human/reference.jsonl",
        tokens=f"{R}/analysis/human/reference/tokens.parquet",
    output:
        f"{R}/analysis/{{model}}/completion_loss.parquet",
    log:
        f"{R}/logs/completion_loss/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/completion_loss/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
        slurm_extra=gpu_request,
    params:
        model_dir=lambda w, input: input.model,
        prompt_length=config["sampling"]["prompt_length"],
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope analyze completion-loss "
        "--model {params.model_dir} --samples {input.samples} --tokens {input.tokens} "
        "--prompt-length {params.prompt_length} --device {params.device} "
        "--out {output} > {log} 2>&1"
