"""Cost of the name cloze's candidate pass on a finished run's model, with the shared prefix
read once (``copyscope.lm.score.shared_prefix_sums``: a transformer continues from its
key/value cache, the LSTM from its recurrent state) against every filled passage scored whole
(``token_logprobs``), as the probe jobs rank the candidates.

The items are drawn from the run's ``membership/cloze_passages.json`` as the probe draws them
(``copyscope.membership.stage.draw_cloze``, ``--per-play`` items per play, the passages'
own ``params``: ner_model, cloze_distractors, seed); the model is the run's final one
(``models/<name>``) on ``--threads`` threads (the probe jobs run on one). Each way is timed
``--repeats`` times, alternating, in this process; printed: the items, sequences and tokens
(the mean position of the masked name), the CPU and wall seconds of each way (the CPU seconds
are the steadier number on a shared machine), their ratio, and whether both ways predict the
same name for every item.

    python benchmarks/cloze_cost.py --results results --model lstm --per-play 20
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=Path("results"), help="a finished run")
    p.add_argument("--model", required=True, help="a trained model of the run (models/<name>)")
    p.add_argument("--per-play", type=int, default=20, help="items per play (the probe: 20)")
    p.add_argument("--batch-size", type=int, default=32, help="analysis.membership.batch_size")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)

    import torch

    from copyscope.lm import load_model, score
    from copyscope.membership import cloze
    from copyscope.membership import stage as mstage

    torch.set_num_threads(a.threads)
    path = a.results / "membership" / "cloze_passages.json"
    built = json.loads(path.read_text())["params"]
    plays = mstage.read_cloze_passages(path, built)
    items, cands = mstage.draw_cloze(plays, a.per_play, built["seed"])
    model, tok = load_model(a.results / "models" / a.model, "cpu")
    ids = [cloze.fill_ids(tok, it, cs) for it, cs in zip(items, cands, strict=True)]
    sizes = np.array([f.size for fills in ids for f in fills])
    prefix = np.array([cloze.common_prefix(fills) for fills in ids for _ in fills])
    print(f"{a.model}: {len(items)} items, {sizes.size} filled passages, {sizes.sum()} tokens "
          f"(mean {sizes.mean():.1f}; the name at token {prefix.mean():.1f} on average)")  # fmt: skip
    kind = score._prefix_cache(model, "cpu", tok.eos_token_id)
    ways = {f"shared prefix ({kind})": score._prefix_cache, "whole passages": lambda *_: None}
    cost, predicted = {w: [] for w in ways}, {}
    try:
        for _ in range(a.repeats):
            for way, how in ways.items():
                score._prefix_cache = how
                w, c = time.perf_counter(), time.process_time()
                ranked = cloze.rank_candidates(model, tok, items, cands, ids=ids,
                                               batch_size=a.batch_size, device="cpu")  # fmt: skip
                cost[way].append((time.process_time() - c, time.perf_counter() - w))
                predicted[way] = [r["predicted"] for r in ranked]
    finally:
        score._prefix_cache = ways[next(iter(ways))]
    for way, runs in cost.items():
        cpu, wall = np.median([r[0] for r in runs]), np.median([r[1] for r in runs])
        print(f"  {way}: {cpu:.1f} CPU s, {wall:.1f} s wall (median of {len(runs)})")
    first, second = (np.median([r[0] for r in runs]) for runs in cost.values())
    same = len(set(map(tuple, predicted.values()))) == 1
    print(f"  ratio (CPU): {first / second:.2f}; same predicted name for every item: {same}")


if __name__ == "__main__":
    main()
