# Contamination and membership detectors on the planted benchmark (corpus.inject.benchmark):
# each model's probe job (rules/probe.smk) scores every benchmark and baseline text and the
# name cloze items (copyscope.membership); nothing runs without a benchmark, except the name
# cloze with analysis.membership.cloze (the texts table is then empty).

BENCHMARK = bool(config["corpus"].get("inject", {}).get("benchmark"))
MEMBERSHIP = config["analysis"]["membership"]
# the name cloze and continuation overlap: with a benchmark, or alone (analysis.membership.cloze)
CLOZE = BENCHMARK or MEMBERSHIP["cloze"]


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
