# Contamination and membership detectors on the planted contamination set
# (corpus.inject.contamination): each model's probe job (rules/probe.smk) scores every item and
# baseline text of the set and the name cloze items (copyscope.membership), drawn from the
# candidate passages of membership_passages; nothing runs without a contamination set, except
# the name cloze with analysis.membership.cloze (the texts table is then empty). Whether each part
# runs: copyscope.plan (Plan.contamination, Plan.cloze, Plan.books, Plan.own_benchmarks).


# the name cloze's candidate passages of every play, built once per run (spaCy's entity
# recognizer over the speeches, copyscope.membership.stage.cloze_passages_file): each model's
# probe and dynamics jobs draw their items from this file
rule membership_passages:
    input:
        names=f"{R}/corpus/names.json",
        train=f"{R}/corpus/train.jsonl",
        valid=f"{R}/corpus/valid.jsonl",
        excerpts=f"{R}/corpus/excerpts.jsonl",
    output:
        f"{R}/membership/cloze_passages.json",
    log:
        f"{R}/logs/membership_passages.log",
    benchmark:
        f"{R}/benchmarks/membership_passages.tsv"
    conda:
        "../envs/syntax.yaml"
    params:
        config=as_json(PLAN.cloze_passages_params()),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope membership passages "
        "--names {input.names} --train {input.train} --valid {input.valid} "
        "--excerpts {input.excerpts} --params-json {params.config:q} --out {output} "
        "> {log} 2>&1"


# name cloze on a researcher's own books (analysis.membership.books: name -> a text book with
# an optional character list, or BookNLP's .tokens and .entities): one job per model
# (copyscope.membership.books); nothing runs without books
rule membership_books:
    input:
        unpack(model_input),
        **PLAN.book_files(),
    output:
        books=f"{R}/membership/{{model}}/books.csv",
        status=f"{R}/membership/{{model}}/books_status.csv",
    log:
        f"{R}/logs/membership_books/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/membership_books/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(PLAN.models),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        **MODEL_JOB_RESOURCES,
        mem_mb=3000,
        runtime=60,
    params:
        books=lambda w, input: args(
            PLAN.book_args(input.texts, input.characters, input.tokens, input.entities)
        ),
        config=as_json(PLAN.book_params()),
        device=PLAN.device,
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope membership books "
        "--model {input.model} --model-name {wildcards.model} {params.books} "
        "--params-json {params.config:q} --device {params.device} "
        "--out {output.books} --status-out {output.status} > {log} 2>&1"


rule membership_overlap:
    # each contamination-set item and baseline text's 7- and 13-gram overlap with the training split
    # (Duan et al. 2024), from the index of the trained models' tokenizer
    input:
        manifest=f"{R}/corpus/manifest.json",
        index=PLAN.index_file(PLAN.model_tok),
    output:
        f"{R}/membership/overlap.csv",
    log:
        f"{R}/logs/membership_overlap.log",
    benchmark:
        f"{R}/benchmarks/membership_overlap.tsv"
    conda:
        "../envs/index.yaml"
    params:
        index_dir=lambda w, input: os.path.dirname(input.index),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope membership overlap --manifest {input.manifest} "
        "--index {params.index_dir} --out {output} > {log} 2>&1"


# a researcher's own benchmarks (analysis.membership.benchmarks: name -> {path, format}) and
# the planted ones of Li's formats (corpus.inject.format_benchmarks), audited as Li (2023)
# does: one job per model scores every benchmark's items and the corpus's memorised and clean
# baselines (copyscope.membership.own_benchmarks); the index in the model's tokens gives
# DC-PDD its token frequencies
if PLAN.own_benchmarks:

    rule membership_benchmark:
        input:
            unpack(model_input),
            files=[b["path"] for b in PLAN.own_benchmarks.values()],
            manifest=f"{R}/corpus/manifest.json",
            natural=f"{R}/corpus/natural.jsonl",
            valid=f"{R}/corpus/valid.jsonl",
            index=lambda w: PLAN.index_file(PLAN.model_tokenizer(w.model)),
        output:
            [PLAN.own_benchmark_file("{model}", b) for b in PLAN.own_benchmarks],
        log:
            f"{R}/logs/membership_benchmark/{{model}}.log",
        benchmark:
            f"{R}/benchmarks/membership_benchmark/{{model}}.tsv"
        wildcard_constraints:
            model=_alternatives(PLAN.models),
        conda:
            "../envs/models.yaml"
        threads: 1
        resources:
            **MODEL_JOB_RESOURCES,
            mem_mb=3000,
            runtime=30,
        params:
            benchmarks=lambda w: args(PLAN.own_benchmark_args(w.model)),
            config=as_json(PLAN.own_benchmark_params()),
            device=PLAN.device,
        shell:
            "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
            "python -m copyscope membership benchmark "
            "--model {input.model} --model-name {wildcards.model} {params.benchmarks} "
            "--manifest {input.manifest} --natural {input.natural} --valid {input.valid} "
            "--index {input.index} --params-json {params.config:q} "
            "--device {params.device} > {log} 2>&1"
