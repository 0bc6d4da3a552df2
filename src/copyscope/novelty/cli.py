"""``copyscope novelty …``: n-gram novelty of held-out text against the training index."""

from __future__ import annotations

import logging

from ..clikit import add_command, add_group, add_params

log = logging.getLogger("copyscope")


def cmd_valid(a):
    from . import write_validation_novelty

    out = {"matches": a.out_matches, "curve": a.out_curve, "summary": a.out_summary}
    out["hist"] = a.out_hist
    summary = write_validation_novelty(
        a.index, a.valid_npy, a.valid_json, a.params_json, a.tokenizer_name, out, a.matches
    )
    log.info(
        "%s: %d continuations, mean nnsl %.3f",
        a.tokenizer_name,
        summary["texts"].iloc[0],
        summary["mean_nnsl"].iloc[0],
    )


def cmd_queries(a):
    from . import write_validation_queries

    n = write_validation_queries(a.valid_npy, a.valid_json, a.params_json, a.out)
    log.info("%s: %d continuations to query", a.out, n)


def cmd_plot(a):
    from .plots import plot_novelty

    plot_novelty(
        a.curves, a.hists, a.summaries, a.out_fig, a.out_hist_fig, a.out_table, a.out_summary
    )


def register(sub) -> None:
    g = add_group(sub, "novelty", "n-gram novelty of held-out text against the training index")
    f = add_command(g, "valid", cmd_valid, "novelty curve, NNSL summary and L_t histogram")
    f.add_argument("--index", required=True, metavar="DIR", help="index directory of the tokenizer")
    f.add_argument(
        "--tokenizer-name", required=True, help="tokenizer name under tokenizers: (table label)"
    )
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    add_params(f, "the config block novelty")
    f.add_argument("--out-matches", required=True, help="per-token L_t and C_t (.parquet)")
    f.add_argument("--out-curve", required=True, help="novelty curve by n (.csv)")
    f.add_argument("--out-summary", required=True, help="mean/median NNSL summary (.csv)")
    f.add_argument("--out-hist", required=True, help="histogram of L_t (.csv)")
    f.add_argument(
        "--matches",
        help="merged per-shard L_t/C_t of the continuations (.npz, index merge-matches; "
        "index.query_fanout) instead of querying the index here",
    )
    f = add_command(
        g, "queries", cmd_queries, "write the continuations novelty valid queries (fan-out)"
    )
    f.add_argument("--valid-npy", required=True, help="token stream of the validation split")
    f.add_argument("--valid-json", required=True, help="its metadata (.json)")
    add_params(f, "the config block novelty")
    f.add_argument("--out", required=True, help="the queries to write (.npz)")
    f = add_command(g, "plot", cmd_plot, "figures and tables over every novelty tokenizer")
    f.add_argument("--curves", nargs="+", required=True, help="novelty curves (.csv) to plot")
    f.add_argument("--hists", nargs="+", required=True, help="L_t histograms (.csv) to plot")
    f.add_argument("--summaries", nargs="+", required=True, help="NNSL summaries (.csv) to join")
    f.add_argument("--out-fig", required=True, help="novelty figure (.png)")
    f.add_argument("--out-hist-fig", required=True, help="L_t histogram figure (.png)")
    f.add_argument("--out-table", required=True, help="all novelty curves (.csv)")
    f.add_argument("--out-summary", required=True, help="all NNSL summaries (.csv)")
