# Contamination and membership detectors on the planted benchmark (corpus.inject.benchmark):
# each model's probe job (rules/probe.smk) scores every benchmark and baseline text and the
# name cloze items (copyscope.membership); nothing runs without a benchmark, except the name
# cloze with analysis.membership.cloze (the texts table is then empty).

BENCHMARK = bool(config["corpus"].get("inject", {}).get("benchmark"))
MEMBERSHIP = config["analysis"]["membership"]
# the name cloze and continuation overlap: with a benchmark, or alone (analysis.membership.cloze)
CLOZE = BENCHMARK or MEMBERSHIP["cloze"]


# name cloze on a researcher's own books (analysis.membership.books: name -> a text book with
# an optional character list, or BookNLP's .tokens and .entities): one job per model
# (copyscope.membership.books); nothing runs without books
BOOKS = MEMBERSHIP["books"]
BOOK_TEXTS = [b for b in BOOKS if "text" in BOOKS[b]]
BOOK_CHARACTERS = [b for b in BOOK_TEXTS if "characters" in BOOKS[b]]
BOOK_BOOKNLP = [b for b in BOOKS if "booknlp" in BOOKS[b]]
BOOK_PARAMS = {
    **{
        k: MEMBERSHIP[k]
        for k in (
            "cloze_per_play",
            "cloze_distractors",
            "ner_model",
            "prompt_tokens",
            "new_tokens",
            "batch_size",
            "seed",
        )
    },
    "in_training": {b: BOOKS[b]["in_training"] for b in BOOKS},
}


rule membership_books:
    input:
        unpack(model_input),
        texts=[BOOKS[b]["text"] for b in BOOK_TEXTS],
        characters=[BOOKS[b]["characters"] for b in BOOK_CHARACTERS],
        tokens=[BOOKS[b]["booknlp"]["tokens"] for b in BOOK_BOOKNLP],
        entities=[BOOKS[b]["booknlp"]["entities"] for b in BOOK_BOOKNLP],
    output:
        f"{R}/membership/{{model}}/books.csv",
    log:
        f"{R}/logs/membership_books/{{model}}.log",
    benchmark:
        f"{R}/benchmarks/membership_books/{{model}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
        slurm_extra=gpu_request,
    params:
        books=book_flags,
        config=as_json(with_language(BOOK_PARAMS)),
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope membership books "
        "--model {input.model} --model-name {wildcards.model} {params.books} "
        "--params-json {params.config:q} --device {params.device} "
        "--out {output} > {log} 2>&1"


rule membership_overlap:
    # each benchmark and baseline text's 7- and 13-gram overlap with the training split
    # (Duan et al. 2024), from the index of the trained models' tokenizer
    input:
        manifest=f"{R}/corpus/manifest.json",
        index=f"{R}/index/{MODEL_TOK}/index.json",
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
        "python -m copyscope membership overlap --manifest {input.manifest} "
        "--index {params.index_dir} --out {output} > {log} 2>&1"


# a researcher's own benchmarks (analysis.membership.benchmarks: name -> {path, format}),
# audited as Li (2023) does: every model scores every item and the corpus's memorised and
# clean baselines (copyscope.membership.own_benchmarks)
OWN_BENCHMARKS = MEMBERSHIP["benchmarks"]


rule membership_benchmark:
    input:
        unpack(model_input),
        file=lambda w: OWN_BENCHMARKS[w.bench]["path"],
        manifest=f"{R}/corpus/manifest.json",
        natural=f"{R}/corpus/natural.jsonl",
        valid=f"{R}/corpus/valid.jsonl",
    output:
        f"{R}/membership/{{model}}/own/{{bench}}.csv",
    log:
        f"{R}/logs/membership_benchmark/{{model}}/{{bench}}.log",
    benchmark:
        f"{R}/benchmarks/membership_benchmark/{{model}}/{{bench}}.tsv"
    wildcard_constraints:
        model=_alternatives(MODELS),
        bench=_alternatives(list(OWN_BENCHMARKS)),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
        slurm_extra=gpu_request,
    params:
        format=lambda w: OWN_BENCHMARKS[w.bench]["format"],
        config=as_json(
            {
                k: MEMBERSHIP[k]
                for k in ("li_words", "seed", "batch_size", "baseline_passages")
            }
        ),
        device=config["models"]["device"],
    shell:
        "OMP_NUM_THREADS={threads} python -m copyscope membership benchmark "
        "--model {input.model} --model-name {wildcards.model} --benchmark {wildcards.bench} "
        "--path {input.file} --format {params.format} --manifest {input.manifest} "
        "--natural {input.natural} --valid {input.valid} --params-json {params.config:q} "
        "--device {params.device} --out {output} > {log} 2>&1"
