"""Sampling cost of ``sampling.training_prompts`` (Merrill et al. Fig. 3) per decoding.

Each model of the block is built as the pipeline builds it (``copyscope.lm.build_model`` on
``models.zoo.<name>``, randomly initialised: the cost of a decoding step does not depend on the
weights) with the vocabulary of ``tokenizers.<models.tokenizer>``; for each decoding given (names
under ``sampling.decodings``, default the block's) it continues ``prompts`` random prompts at every
prompt length of the block by ``sampling.new_tokens`` tokens (``copyscope.lm.generate``,
``stop_at_eos=False``, so every text has its full length), in batches of
``sampling.batch_size``, on one thread as the sample job runs (``OMP_NUM_THREADS=1``). Printed
per decoding: wall and CPU seconds (CPU time is the steadier one on a shared machine).

    OMP_NUM_THREADS=1 python benchmarks/training_prompts_cost.py config/config.yaml \\
        --decodings greedy beam_4 beam_8
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from copyscope.config import validate  # noqa: E402
from copyscope.lm import generate  # noqa: E402
from copyscope.lm.models import build_model  # noqa: E402
from timing import timed  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="a config file (its sampling.training_prompts block)")
    ap.add_argument("--decodings", nargs="+", help="decodings to time (default: the block's)")
    ap.add_argument("--prompts", type=int, help="prompts per length (default: the block's)")
    a = ap.parse_args()
    cfg = validate(yaml.safe_load(Path(a.config).read_text()))
    s, block = cfg["sampling"], cfg["sampling"]["training_prompts"]
    if not block:
        raise SystemExit(f"{a.config}: sampling.training_prompts is off")
    vocab = cfg["tokenizers"][cfg["models"]["tokenizer"]].get("vocab_size", 8192)
    models = block.get("models") or [cfg["models"]["evaluator"]]
    n = a.prompts or block["prompts"]
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    for name in models:
        model = build_model(cfg["models"]["zoo"][name], vocab, 0).eval()
        for d in a.decodings or block["decodings"]:

            def run(method=s["decodings"][d], model=model):
                for p in block["lengths"]:
                    prompts = [rng.integers(1, vocab, p) for _ in range(n)]
                    generate(model, prompts, method, max_new_tokens=s["new_tokens"], eos_id=0,
                             seed=0, batch_size=s["batch_size"], stop_at_eos=False)  # fmt: skip

            _, wall, cpu = timed(run)
            print(f"{name} {d}: {n} prompts x {block['lengths']} tokens x {s['new_tokens']} new: "
                  f"wall {wall:.1f} s, cpu {cpu:.1f} s", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
