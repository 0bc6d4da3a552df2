# The memorization ladder (corpus.inject.ladder): the extraction test of every model on the
# planted and control passages (copyscope.memorize); its job is the model's probe (rules/probe.smk).

LADDER = bool(config["corpus"].get("inject", {}).get("ladder"))
MEMORIZATION = config["analysis"]["memorization"]
