# Contamination and membership detectors on the planted benchmark (corpus.inject.benchmark):
# each model's probe job (rules/probe.smk) scores every benchmark and baseline text and the
# name cloze items (copyscope.membership); nothing runs without a benchmark.

BENCHMARK = bool(config["corpus"].get("inject", {}).get("benchmark"))
MEMBERSHIP = config["analysis"]["membership"]
