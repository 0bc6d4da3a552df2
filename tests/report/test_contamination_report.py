"""The contamination analysis (copyscope.report.contamination) end to end on a tiny corpus with
a planted contamination set and two own benchmarks: planted items flagged, unplanted not, the
known-answer rates, the rates per group and per format, the figure and summary.md's lines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.report import contamination as rc
from copyscope.tokenize import encode_split
from copyscope.tokenize.registry import from_spec

PARAMS = {"ngram": 13, "ngram_unit": "words", "chars": 50, "char_share": 0.8, "rule": "chars"}


def _words(rng, n: int) -> list[str]:
    """``n`` pseudo-words of 4 to 8 letters (seeded): text that repeats nothing by chance."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(4, 9)))) for _ in range(n)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Training documents with planted items, their token (BPE) and word (Moses) indexes, a
    manifest with the planted set, and two own benchmarks (text with labels, qa without)."""
    tmp = tmp_path_factory.mktemp("contam")
    rng = np.random.default_rng(0)
    docs = [_words(rng, 300) for _ in range(4)]
    planted = [" ".join(_words(rng, 20)) for _ in range(4)]
    unplanted = [" ".join(_words(rng, 20)) for _ in range(4)]
    memorised = [" ".join(docs[i][50:70]) for i in range(4)]
    clean = [" ".join(_words(rng, 20)) for _ in range(4)]
    texts = [" ".join(d[:150]) + "\n" + p + "\n" + " ".join(d[150:]) for d, p in
             zip(docs, planted, strict=True)]  # fmt: skip
    (tmp / "train.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    for name, kind, spec in (("bpe", "bpe", {"vocab_size": 400, "min_frequency": 1}),
                             ("words", "moses", {})):  # fmt: skip
        tok = from_spec({"kind": kind, **spec}, name)
        tok.fit(texts, tmp / "tokenizers" / name)
        encode_split(tok, tmp / "train.jsonl", tmp / f"{name}.npy", tmp / f"{name}.json", name)
        assert main(["index", "build", str(tmp / f"{name}.npy"), str(tmp / "index" / name),
                     "--meta", str(tmp / f"{name}.json"), "--tokenizer",
                     str(tmp / "tokenizers" / name), "--tokenizer-name", name,
                     "--tokenizer-kind", kind]) == 0  # fmt: skip
    items = [{"id": f"bench-{i}", "planted": i < 4, "copies": 1 if i < 4 else 0, "text": t}
             for i, t in enumerate(planted + unplanted)]  # fmt: skip
    manifest = {"contamination": {"items": items, "memorised": [{"text": t} for t in memorised],
                              "clean": [{"text": t} for t in clean]}}  # fmt: skip
    (tmp / "manifest.json").write_text(json.dumps(manifest))
    own = [{"text": " ".join(docs[0][200:240]), "label": 1},
           {"text": " ".join(docs[1][10:40]), "label": 1},
           {"text": " ".join(_words(rng, 30)), "label": 0}]  # fmt: skip
    (tmp / "own.jsonl").write_text("".join(json.dumps(r) + "\n" for r in own))
    qa = [{"passage": " ".join(docs[2][100:170]), "question": "who", "answer": "nobody"},
          {"passage": " ".join(_words(rng, 40)), "question": "what", "answer": "nothing"}]  # fmt: skip
    (tmp / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa))
    return tmp


def _run(corpus, out, params=PARAMS, manifest=True):
    args = ["report", "contamination", "--train", "train", corpus / "train.jsonl",
            "--token-index", "tokens", corpus / "index" / "bpe",
            "--word-index", "words", corpus / "index" / "words",
            "--word-tokenizer", "words", corpus / "tokenizers" / "words",
            "--items", "mine", "text", corpus / "own.jsonl",
            "--items", "quiz", "qa", corpus / "qa.jsonl",
            "--params-json", json.dumps(params)]  # fmt: skip
    if manifest:
        args += ["--manifest", "corpus", corpus / "manifest.json"]
    for name, flag in (("items", "table"), ("rates", "rates"), ("known", "known")):
        args += [f"--out-{flag}", out / f"contamination_{name}.csv"]
    args += ["--out-fig", out / "contamination.png"]
    assert main([str(a) for a in args]) == 0
    return {n: pd.read_csv(out / f"contamination_{n}.csv") for n in ("items", "rates", "known")}


@pytest.fixture(scope="module")
def tables(corpus, tmp_path_factory):
    return _run(corpus, tmp_path_factory.mktemp("out"))


def test_planted_items_flagged_and_unplanted_not(tables):
    items = tables["items"]
    planted = items[items["benchmark"] == rc.PLANTED].set_index("group")
    for group, dirty in (("planted", True), ("memorised", True), ("unplanted", False),
                         ("clean", False)):  # fmt: skip
        g = planted.loc[[group]]
        assert len(g) == 4
        assert (g["dirty_ngram"] == dirty).all() and (g["dirty_chars"] == dirty).all(), group
        assert (g["dirty"] == g["dirty_chars"]).all()  # rule: chars
    hit = planted.loc[["planted"]]
    assert (hit["word_share"] == 1).all() and (hit["char_share"] == 1).all()
    assert (hit["char_longest"] == hit["n_chars"]).all()
    assert (hit["word_longest"] == 20).all()
    assert (planted.loc[["unplanted"], "char_share"] < 0.2).all()


def test_known_answers_measured(tables):
    known = tables["known"].set_index(["benchmark", "positive", "rule"])
    for rule in ("ngram", "chars"):
        r = known.loc[(rc.PLANTED, "planted", rule)]
        assert (r["tp"], r["fn"], r["fp"], r["tn"]) == (4, 0, 0, 4)
        assert (r["fnr"], r["fpr"], r["recall"], r["precision"]) == (0, 0, 1, 1)
        assert r["fnr_hi"] == pytest.approx(0.4899, abs=1e-4)  # Wilson, 0 of 4
        m = known.loc[("mine", "label 1", rule)]
        assert (m["tp"], m["fn"], m["fp"], m["tn"]) == (2, 0, 0, 1)
    assert set(known.index.get_level_values("positive")) == {"planted", "memorised", "label 1"}


def test_rates_per_group_and_format(tables):
    rates = tables["rates"]
    quiz = rates[(rates["benchmark"] == "quiz") & (rates["rule"] == "chars")]
    # the qa item whose passage is in training: 70 words, most 50-character windows found
    assert quiz["group"].tolist() == ["all"] and int(quiz["dirty"].iloc[0]) == 1
    by_format = rates[rates["benchmark"] == rc.BY_FORMAT]
    assert sorted(set(by_format["format"])) == ["qa", "text"]
    mine = rates[(rates["benchmark"] == "mine") & (rates["rule"] == "ngram")]
    assert mine.set_index("group")["n"].to_dict() == {"label 1": 2, "label 0": 1, "all": 3}
    row = rates[(rates["benchmark"] == rc.PLANTED) & (rates["group"] == "planted")].iloc[0]
    assert (row["rate"], row["rate_hi"]) == (1.0, 1.0) and row["rate_lo"] == pytest.approx(0.5101, abs=1e-4)


def test_figure_and_summary(tables, corpus, tmp_path):
    out = tmp_path
    t = _run(corpus, out, {**PARAMS, "rule": "ngram"})
    assert (out / "contamination.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (t["items"]["dirty"] == t["items"]["dirty_ngram"]).all()
    summary_params = {"analysis": {"contamination": PARAMS}}  # the summary job's config blocks
    lines = rc.summary_section({"contamination_rates": t["rates"],
                                "contamination_known": t["known"]}, summary_params)  # fmt: skip
    text = "\n".join(lines)
    assert "planted set, planted: ngram 4/4" in text
    assert "planted set, planted vs unplanted, chars: FNR 0/4" in text
    assert "FPR 0/4" in text


def test_the_figures_key_sits_just_above_the_right_panel(tables, monkeypatch, tmp_path):
    """The rules' key of the figure is right above the rates panel, inside the figure: below
    the panel it sat under the x label by a share of the panel's height, far below a tall
    figure (ten groups)."""
    from copyscope import plotting

    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, path, dpi=150: figs.append(fig))
    items = pd.concat([tables["items"]] * 3)
    items["group"] = [f"{g} {k // len(tables['items'])}" for k, g in enumerate(items["group"])]
    rates = pd.concat([tables["rates"].assign(group=lambda r, k=k: r["group"] + f" {k}")
                       for k in range(3)])  # fmt: skip
    rc.figure(items, rates, PARAMS, tmp_path / "c.png")
    fig = figs[0]
    fig.canvas.draw()
    right = fig.axes[1]
    key = right.get_legend().get_window_extent()
    panel = right.get_window_extent()
    assert panel.y1 - 2 <= key.y0 <= panel.y1 + 20 and key.y1 <= fig.bbox.y1
    assert fig.bbox.x0 <= key.x0 and key.x1 <= fig.bbox.x1  # centred on the panel
    assert (key.x0 + key.x1) / 2 == pytest.approx((panel.x0 + panel.x1) / 2, abs=2)


def test_without_a_planted_set_only_the_own_benchmarks(corpus, tmp_path):
    t = _run(corpus, tmp_path, manifest=False)
    assert set(t["items"]["benchmark"]) == {"mine", "quiz"}
    assert rc.summary_section(
        {"contamination_rates": t["rates"].iloc[:0], "contamination_known": t["known"]}, {}
    ) == []


def _known(flags: dict[str, list[bool]]) -> pd.DataFrame:
    """The known-answer table of a planted set whose items are flagged as ``flags`` says
    (group → one flag per item, the same under both rules)."""
    rows = [{"benchmark": rc.PLANTED, "group": g, "dirty_ngram": f, "dirty_chars": f}
            for g, fs in flags.items() for f in fs]  # fmt: skip
    return rc.known_rows(pd.DataFrame(rows))


@pytest.mark.parametrize(
    "planted, unplanted, verdict",
    [
        ([True] * 8, [False] * 8, "holds"),  # 1 − 0 = 1 [0.49, 1]
        ([False] * 8, [True] * 8, "does not hold"),  # the rules flag the wrong items
        ([True, False] * 4, [True, False] * 4, "inconclusive"),  # flagged alike
        ([True] * 2, [False] * 2, "holds"),  # 1 − 0 with 2 items each: [0.069, 1]
        ([True], [False], "inconclusive"),  # 1 − 0 with 1 item each: [-0.12, 1]
    ],
)
def test_scorecard_claim_on_known_answers(planted, unplanted, verdict):
    from copyscope.report import findings as F

    known = _known({"planted": planted, "unplanted": unplanted})
    f = F.CLAIMS["contamination-lookup"]({"contamination_known": known}, {"findings": {}})
    assert f.verdict == verdict
    n = len(planted)
    assert f"ngram: FNR {planted.count(False)}/{n}" in f.measured
    assert f"FPR {unplanted.count(True)}/{len(unplanted)}" in f.measured


def test_scorecard_claim_not_measured_without_a_planted_set(tables):
    from copyscope.report import findings as F

    own = tables["known"][tables["known"]["benchmark"] != rc.PLANTED]
    f = F.CLAIMS["contamination-lookup"]({"contamination_known": own}, {"findings": {}})
    assert f.verdict == "inconclusive" and f.measured.startswith("not measured")
    assert F.CLAIMS["contamination-lookup"]({}, {"findings": {}}).measured.startswith(
        "not measured: no contamination_known"
    )
