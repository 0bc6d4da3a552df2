"""Cost of a judge outside the zoo (``models.judge``, e.g. SmolLM2-135M as one GGUF file)
scoring a finished run's sample sets, as the analyze jobs score them.

The judge is loaded as the analyze jobs load it (``copyscope.lm.load_model``: a GGUF file is
dequantized to float32 at every load), then ``--texts`` continuations drawn (seeded) from the
run's sample sets at the main prompt length are scored by ``copyscope.analyze.quality`` with
the judge's own tokenizer (the text read again, no prompt), in batches of ``--batch-size`` on
``--threads`` threads (the analyze jobs run on one). Printed: the load's wall and CPU seconds,
the scoring's wall and CPU seconds per 1,000 continuations, the judge's tokens per
continuation, and the projection for the run: every set at every prompt length (what the
analyze jobs score) plus one load per analyze job. On a shared machine the CPU seconds are the
steadier number: the wall seconds grow with whatever else runs. ``--evaluator`` times a zoo
evaluator (a trained model's directory) on the same texts for comparison; ``--bf16`` scores
under bfloat16 autocast instead (not what the pipeline does: it shows what that would save).
``--row CONFIG`` then judges every set of the run's ``tables/raven_texts.csv`` at the main
prompt length (``CONFIG``: the run's config) and decides the scorecard's novelty–quality
row with those scores, as a run with ``models.judge`` would (the texts' duplication scores are
the run's own), printing the row and each set's judged perplexity.

    nice -n 19 python benchmarks/judge_cost.py --results results \\
        --judge resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \\
        --evaluator results/models/gpt2-small --texts 300
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd


def run_sets(results: Path) -> list[Path]:
    """Every sample set of a finished run (``samples/<model>/<decoding>.jsonl``), the human
    sets included: what the analyze jobs score."""
    sets = sorted((results / "samples").glob("*/*.jsonl"))
    if not sets:
        raise SystemExit(f"no sample sets under {results / 'samples'} (a finished run's results)")
    return sets


def timed(fn):
    """``fn()``'s value, wall seconds and CPU seconds of this process."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def judged_row(results: Path, config: Path, judge, tok, name: str, batch_size: int) -> dict:
    """The novelty–quality row of a finished run with its sets judged again by ``judge``
    (named ``name``): each (model, decoding) of ``tables/raven_texts.csv`` (the human sets
    too, for their perplexity) scored at the main prompt length by
    ``copyscope.analyze.quality``, joined to the texts' duplication scores, and decided by the
    scorecard's claim with ``models.judge`` set to ``name``."""
    import yaml

    from copyscope.analyze import load_samples, quality
    from copyscope.config import validate
    from copyscope.plan import Plan
    from copyscope.report import findings as F

    cfg = validate({**yaml.safe_load(config.read_text()), "results": str(results)})
    plan = Plan.from_config(cfg)
    main_length = cfg["sampling"]["prompt_length"]
    texts = pd.read_csv(results / "tables/raven_texts.csv")
    summary = pd.read_csv(results / "tables/raven_summary.csv")
    judged = []
    for (model, decoding), _ in texts.groupby(["model", "decoding"], sort=False):
        s = load_samples(results / "samples" / model / f"{decoding}.jsonl")
        s = s[s["prompt_length"] == main_length]
        q = quality(s, judge, tok, False, batch_size, "cpu", name)
        judged.append(q.assign(text=s.index.to_numpy(), model=model, decoding=decoding))
    q = pd.concat(judged).rename(columns={"tokens": "nll_tokens"})
    keys = ["model", "decoding", "text"]
    texts = texts.drop(columns=["nll_sum", "nll_tokens", "evaluator"]).merge(
        q[[*keys, "nll_sum", "nll_tokens", "evaluator"]], on=keys
    )
    params = {"findings": cfg["findings"], "sampling": cfg["sampling"],
              "models": {**plan.evaluators(), "judge": name}}  # fmt: skip
    tables = {"raven_summary": summary.assign(evaluator=name), "raven_texts": texts}
    f = F.CLAIMS["novelty-quality"](tables, params)
    sums = texts.groupby(["model", "decoding"], sort=False)[["nll_sum", "nll_tokens"]].sum()
    ppl = np.exp(sums["nll_sum"] / sums["nll_tokens"])
    return {"row_verdict": f.verdict, "row_per_model": f.per_model, "row_measured": f.measured,
            "row_texts": int((texts["model"] != "human").sum()),
            "judged_perplexity": {f"{m}/{d}": float(v) for (m, d), v in ppl.items()}}  # fmt: skip


def main(argv=None) -> None:
    import torch

    from copyscope.analyze import load_samples, quality
    from copyscope.lm import load_model

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--judge", default="resources/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    ap.add_argument("--evaluator", help="a zoo evaluator's model directory, timed alike")
    ap.add_argument("--prompt-length", type=int, default=32, help="the run's main length")
    ap.add_argument("--texts", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=20, help="analyze's batch size")
    ap.add_argument("--threads", type=int, default=1, help="analyze jobs run on one")
    ap.add_argument("--analyze-jobs", type=int, default=3, help="judge loads in a run")
    ap.add_argument("--bf16", action="store_true", help="score under bfloat16 autocast")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ap.add_argument("--row", type=Path, metavar="CONFIG", help="the run's config: decide the "
                    "novelty-quality row with the judge's scores")  # fmt: skip
    ap.add_argument("--judge-name", default="smollm2", help="the judge's name in the row")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)

    sets = run_sets(a.results)
    frames = [load_samples(p) for p in sets]
    total = sum(len(f) for f in frames)
    main_len = pd.concat([f[f["prompt_length"] == a.prompt_length] for f in frames])
    main_len = main_len.reset_index(drop=True)
    rng = np.random.default_rng(a.seed)
    pick = main_len.iloc[np.sort(rng.choice(len(main_len), min(a.texts, len(main_len)), False))]
    pick = pick.reset_index(drop=True)
    autocast = torch.autocast("cpu", dtype=torch.bfloat16) if a.bf16 else contextlib.nullcontext()

    out = {"sets": len(sets), "continuations": total, "main_length": len(main_len),
           "texts": len(pick), "threads": a.threads, "batch_size": a.batch_size,
           "bf16": a.bf16}  # fmt: skip
    (judge, tok), load_wall, load_cpu = timed(lambda: load_model(a.judge, "cpu"))
    with autocast:
        q, wall, cpu = timed(lambda: quality(pick, judge, tok, False, a.batch_size, "cpu", "j"))
    per = 1000 / len(pick)
    out |= {
        "judge": str(a.judge),
        "judge_parameters": sum(p.numel() for p in judge.parameters()),
        "load_wall_s": load_wall,
        "load_cpu_s": load_cpu,
        "wall_s_per_1000": wall * per,
        "cpu_s_per_1000": cpu * per,
        "judge_tokens_per_text": float(q["tokens"].mean()),
        "judge_perplexity": float(np.exp(q["nll_sum"].sum() / q["tokens"].sum())),
    }
    for kind in ("wall", "cpu"):
        scoring = out[f"{kind}_s_per_1000"] * total / 1000
        out[f"run_{kind}_min"] = (scoring + a.analyze_jobs * out[f"load_{kind}_s"]) / 60
    if a.evaluator:
        (ev, ev_tok), _, _ = timed(lambda: load_model(a.evaluator, "cpu"))
        _, ev_wall, ev_cpu = timed(lambda: quality(pick, ev, ev_tok, True, a.batch_size, "cpu", "e"))
        out |= {"evaluator": str(a.evaluator), "evaluator_wall_s_per_1000": ev_wall * per,
                "evaluator_cpu_s_per_1000": ev_cpu * per}  # fmt: skip
    if a.row:
        with autocast:
            row, row_wall, row_cpu = timed(
                lambda: judged_row(a.results, a.row, judge, tok, a.judge_name, a.batch_size)
            )
        out |= {**row, "row_wall_s": row_wall, "row_cpu_s": row_cpu}
    for k, v in out.items():
        print(f"{k}\t{v:.4g}" if isinstance(v, float) else f"{k}\t{v}")
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
