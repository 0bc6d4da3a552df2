"""A researcher's own benchmark (analysis.membership.benchmarks): formats (hand-written
expected texts), bad lines named, corpus baselines, one model's scores equal to the planted
set's scorer, and the report's placement and detector tables with and without labels."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.errors import InputError
from copyscope.membership import own_benchmarks as ob
from copyscope.report import own_benchmarks as rep
from support.models import make_tokenizer, tiny_model


def write_lines(path, rows) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return str(path)


QA = {"passage": "The cat sat.", "question": "Who sat?", "answer": "The cat"}
MC = {"question": "Two plus two?", "choices": ["three", "four", "five"], "answer": 1}


def test_formats_hand_written():
    assert ob.format_item("text", {"text": "a b c"}) == "a b c"
    assert ob.format_item("qa", QA) == "The cat sat.\n\nQuestion: Who sat?\nAnswer: The cat"
    assert (
        ob.format_item("summarization", {"document": "Long text.", "summary": "Short."})
        == "Long text.\n\nSummary: Short."
    )
    want = "Question: Two plus two?\nA. three\nB. four\nC. five\nAnswer: B. four"
    assert ob.format_item("multiple_choice", MC) == want
    assert ob.format_item("multiple_choice", {**MC, "answer": "four"}) == want


@pytest.mark.parametrize(
    "fmt, obj, message",
    [
        ("qa", {"passage": "p", "question": "q"}, "field 'answer': missing"),
        ("qa", {**QA, "question": 3}, "field 'question': expected a string, found 3"),
        ("summarization", {"document": "d", "summary": "  "}, "field 'summary': expected a non-empty"),
        ("multiple_choice", {**MC, "choices": ["one"]}, "field 'choices': expected a list of 2"),
        ("multiple_choice", {**MC, "answer": 3}, "field 'answer': expected a 0-based index below 3"),
        ("multiple_choice", {**MC, "answer": "six"}, "field 'answer': expected a 0-based index"),
        ("multiple_choice", {**MC, "answer": True}, "field 'answer'"),
        ("poem", {"text": "x"}, "format: expected one of text, qa"),
    ],
)  # fmt: skip
def test_a_bad_item_names_the_field(fmt, obj, message):
    with pytest.raises(InputError, match=message):
        ob.format_item(fmt, obj, "b.jsonl:1")


def test_read_benchmark_ids_labels_and_lines(tmp_path):
    path = write_lines(tmp_path / "b.jsonl", [{**QA, "label": 1}, "", {**QA, "id": "x", "label": False}])
    rows, labelled = ob.read_benchmark(path, "qa")
    assert labelled and [r["id"] for r in rows] == ["1", "x"] and [r["label"] for r in rows] == [1, 0]
    assert [r["line"] for r in rows] == [1, 3]
    rows, labelled = ob.read_benchmark(write_lines(tmp_path / "u.jsonl", [MC, MC]), "multiple_choice")
    assert not labelled and "label" not in rows[0]


@pytest.mark.parametrize(
    "lines, message",
    [
        ([{**QA, "label": 1}, QA], r"u\.jsonl:2: field 'label': every line has one or none does \(present on line 1, absent here\)"),
        ([{**QA, "label": 2}], r"u\.jsonl:1: field 'label': expected 0, 1, true or false, found 2"),
        ([{**QA, "id": "a"}, {**QA, "id": "a"}], r"u\.jsonl:2: field 'id': 'a' again \(first on line 1\)"),
        ([{**QA, "id": [1]}], r"u\.jsonl:1: field 'id': expected a non-empty string or an integer"),
        (["[1, 2]"], r"u\.jsonl:1: expected one JSON object per line, found a list"),
        (["{oops"], r"u\.jsonl:1"),
        ([], r"expected at least one item of format 'qa'"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named(tmp_path, lines, message):
    path = write_lines(tmp_path / "u.jsonl", lines)
    with pytest.raises(InputError, match=message):
        ob.read_benchmark(path, "qa")


def test_check_name():
    assert ob.check_name("squad-v1.1") == "squad-v1.1"
    with pytest.raises(ValueError, match="expected letters"):
        ob.check_name("../x")


NATURAL = ["a b c d e f g h i j", "k l m"]  # the second is too short for a window
VALID = ["v1 v2 v3 v4 v5"]


def test_corpus_baselines_are_seeded_windows_of_the_splits():
    base = ob.corpus_baselines({}, NATURAL, VALID, passages=5, words=4, seed=0)
    assert [b["set"] for b in base] == ["memorised"] * 5 + ["clean"] * 5
    assert [b["label"] for b in base] == [1] * 5 + [0] * 5
    for b in base:
        words = b["text"].split()
        assert len(words) == 4
        src = NATURAL[0] if b["set"] == "memorised" else VALID[0]
        assert f" {b['text']} " in f" {src} "  # a contiguous window of its split
    assert base == ob.corpus_baselines({}, NATURAL, VALID, passages=5, words=4, seed=0)
    assert base != ob.corpus_baselines({}, NATURAL, VALID, passages=5, words=4, seed=1)
    with pytest.raises(InputError, match="at least 9 words"):
        ob.corpus_baselines({}, NATURAL, VALID, passages=1, words=9, seed=0)


def test_corpus_baselines_of_a_planted_set_are_its_own():
    manifest = {
        "contamination": {
            "items": [{"text": "i1", "copies": 1}],
            "memorised": [{"text": "m1"}, {"text": "m2"}],
            "clean": [{"text": "c1"}],
        }
    }
    base = ob.corpus_baselines(manifest, NATURAL, VALID, passages=5, words=4, seed=0)
    assert [(b["set"], b["text"], b["label"]) for b in base] == [
        ("memorised", "m1", 1), ("memorised", "m2", 1), ("clean", "c1", 0)
    ]  # fmt: skip


def test_score_benchmark_file_equals_the_planted_scorer(tmp_path):
    from transformers import AutoTokenizer

    from copyscope.io import write_json
    from copyscope.membership.stage import membership_scores

    make_tokenizer(tmp_path / "tok")
    tok = AutoTokenizer.from_pretrained(str(tmp_path / "tok"), local_files_only=True)
    model = tiny_model("gpt2")
    model.save_pretrained(str(tmp_path / "m"))
    tok.save_pretrained(str(tmp_path / "m"))
    words = [f"w{i}" for i in range(1, 40)]
    natural = write_lines(tmp_path / "natural.jsonl", [{"id": "a", "text": " ".join(words)}])
    valid = write_lines(tmp_path / "valid.jsonl", [{"id": "b", "text": " ".join(words[::-1])}])
    write_json(tmp_path / "manifest.json", {"injected": []})
    items = [{"text": "w1 w2 w3 w4 w5 w6", "label": 1}, {"text": "w9 w8 w7 w6", "label": 0}]
    path = write_lines(tmp_path / "bench.jsonl", items)
    params = {"li_words": 5, "seed": 0, "batch_size": 4, "baseline_passages": 3}
    paths = {"manifest": tmp_path / "manifest.json", "natural": natural, "valid": valid}
    out = tmp_path / "out.csv"
    frame = ob.score_benchmark_file(
        tmp_path / "m", "tiny", "mine", {"path": path, "format": "text"}, paths, params, out, "cpu"
    )
    assert list(frame.columns) == ob.COLUMNS
    assert pd.read_csv(out).shape == frame.shape
    assert frame["set"].tolist() == ["benchmark"] * 2 + ["memorised"] * 3 + ["clean"] * 3
    assert frame["label"].tolist() == [1, 0, 1, 1, 1, 0, 0, 0]
    assert (frame["model"] == "tiny").all() and (frame["benchmark"] == "mine").all()
    base = ob.corpus_baselines({}, [" ".join(words)], [" ".join(words[::-1])], passages=3,
                               words=5, seed=0)  # fmt: skip
    texts = [{"set": "benchmark", "id": str(i + 1), "planted": it["label"], "copies": 0,
              "text": it["text"]} for i, it in enumerate(items)]  # fmt: skip
    texts += [{"set": b["set"], "id": b["id"], "planted": b["label"], "copies": 0,
               "text": b["text"]} for b in base]  # fmt: skip
    want = membership_scores(model, tok, texts, li_words=5, seed=0, batch_size=4, device="cpu")
    np.testing.assert_allclose(frame["li_nll"], [r["li_nll"] for r in want], rtol=1e-6)
    np.testing.assert_allclose(frame["min_k_20"], [r["min_k_20"] for r in want], rtol=1e-6)
    np.testing.assert_allclose(frame["min_k_pp_20"], [r["min_k_pp_20"] for r in want], rtol=1e-6)
    # no training index given: DC-PDD's column is empty and `absent` says why
    assert frame["dc_pdd"].isna().all()
    assert frame["absent"].str.startswith("dc_pdd: no training index").all()
    # with the training index in the model's tokens (w<i> is id i): DC-PDD is there
    from copyscope.index import build_index
    from support.index import stream_of

    build_index(stream_of([list(range(1, 40))]), tmp_path / "index")
    with_index = ob.score_benchmark_file(
        tmp_path / "m", "tiny", "mine", {"path": path, "format": "text"},
        paths | {"index": tmp_path / "index"}, params, tmp_path / "i.csv", "cpu",
    )  # fmt: skip
    assert with_index["dc_pdd"].notna().all() and (with_index["absent"] == "").all()
    np.testing.assert_array_equal(with_index["min_k_20"], frame["min_k_20"])
    # an unlabelled file: the items' label is empty, the baselines keep theirs
    path = write_lines(tmp_path / "u.jsonl", [{"text": it["text"]} for it in items])
    frame = ob.score_benchmark_file(
        tmp_path / "m", "tiny", "u", {"path": path, "format": "text"}, paths, params, out, "cpu"
    )
    assert frame["label"].isna().tolist() == [True, True] + [False] * 6
    assert pd.read_csv(out)["label"].isna().sum() == 2
    # a bad line stops the job before anything is written
    (tmp_path / "bad.csv").unlink(missing_ok=True)
    bad = write_lines(tmp_path / "bad.jsonl", [{"text": "w1 w2"}, {"txt": "w3"}])
    with pytest.raises(InputError, match=r"bad\.jsonl:2: field 'text': missing"):
        ob.score_benchmark_file(tmp_path / "m", "tiny", "bad", {"path": bad, "format": "text"},
                                paths, params, tmp_path / "bad.csv", "cpu")  # fmt: skip
    assert not (tmp_path / "bad.csv").exists()


def test_one_job_scores_every_benchmark_of_a_model_with_the_baselines_once(tmp_path):
    """score_benchmark_files (the per-model job): every file checked before anything is
    written; each table as score_benchmark_file writes it, the baselines' rows shared."""
    from transformers import AutoTokenizer

    from copyscope.io import write_json

    make_tokenizer(tmp_path / "tok")
    tok = AutoTokenizer.from_pretrained(str(tmp_path / "tok"), local_files_only=True)
    tiny_model("gpt2").save_pretrained(str(tmp_path / "m"))
    tok.save_pretrained(str(tmp_path / "m"))
    words = [f"w{i}" for i in range(1, 40)]
    natural = write_lines(tmp_path / "natural.jsonl", [{"id": "a", "text": " ".join(words)}])
    valid = write_lines(tmp_path / "valid.jsonl", [{"id": "b", "text": " ".join(words[::-1])}])
    write_json(tmp_path / "manifest.json", {"injected": []})
    qa = write_lines(tmp_path / "qa.jsonl", [
        {"passage": "w1 w2 w3", "question": "w4", "answer": "w5", "label": 1},
        {"passage": "w9 w8", "question": "w7", "answer": "w6", "label": 0},
    ])  # fmt: skip
    mc = write_lines(tmp_path / "mc.jsonl", [
        {"question": "w3 w2", "choices": ["w1", "w11"], "answer": 1, "label": 1},
    ])  # fmt: skip
    params = {"li_words": 30, "seed": 0, "batch_size": 4, "baseline_passages": 3}
    paths = {"manifest": tmp_path / "manifest.json", "natural": natural, "valid": valid}
    specs = [("q", {"path": qa, "format": "qa"}, tmp_path / "q.csv"),
             ("m", {"path": mc, "format": "multiple_choice"}, tmp_path / "m.csv")]  # fmt: skip
    frames = ob.score_benchmark_files(tmp_path / "m", "tiny", specs, paths, params, "cpu")
    assert list(frames) == ["q", "m"]
    for name, _, out in specs:
        assert pd.read_csv(out).shape == frames[name].shape
    q, m = frames["q"], frames["m"]
    assert q["set"].tolist() == ["benchmark"] * 2 + ["memorised"] * 3 + ["clean"] * 3
    assert m["set"].tolist() == ["benchmark"] + ["memorised"] * 3 + ["clean"] * 3
    assert (m["format"] == "multiple_choice").all() and (q["benchmark"] == "q").all()
    cols = ["set", "id", "label", "n_tokens", "loss", "min_k_20", "li_nll"]
    pd.testing.assert_frame_equal(q[q["set"] != "benchmark"][cols].reset_index(drop=True),
                                  m[m["set"] != "benchmark"][cols].reset_index(drop=True))  # fmt: skip
    alone = ob.score_benchmark_file(tmp_path / "m", "tiny", "q", specs[0][1], paths, params,
                                    tmp_path / "alone.csv", "cpu")  # fmt: skip
    pd.testing.assert_frame_equal(alone[cols], q[cols])  # items shorter than li_words
    # a bad line in the second file: nothing is written, not even the first's table
    bad = write_lines(tmp_path / "bad.jsonl", [{"question": "w1", "choices": ["w2"], "answer": 0}])
    outs = [tmp_path / "q2.csv", tmp_path / "bad.csv"]
    with pytest.raises(InputError, match=r"bad\.jsonl:1: field 'choices'"):
        ob.score_benchmark_files(
            tmp_path / "m", "tiny",
            [("q", specs[0][1], outs[0]), ("b", {"path": bad, "format": "multiple_choice"}, outs[1])],
            paths, params, "cpu",
        )  # fmt: skip
    assert not any(p.exists() for p in outs)


# ------------------------------------------------------------------------------- report
def scores_frame(labelled: bool, gap: float, seed: int = 0) -> pd.DataFrame:
    """Two models' tables of one benchmark: 20 items (10 labelled members whose NLL is
    ``gap`` lower), 20 memorised passages at NLL 2, 20 clean at NLL 4 (plus noise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, n_params in (("big", 200), ("small", 100)):
        for i in range(20):
            member = int(i < 10)
            nll = 3.5 - gap * member + rng.normal(0, 0.1)
            rows.append({"set": "benchmark", "id": str(i), "label": member if labelled else None,
                         "li_nll": nll, "n_params": n_params, "model": model})  # fmt: skip
        for s, mean in (("memorised", 2.0), ("clean", 4.0)):
            for i in range(20):
                rows.append({"set": s, "id": f"{s}-{i}", "label": int(s == "memorised"),
                             "li_nll": mean + rng.normal(0, 0.1), "n_params": n_params,
                             "model": model})  # fmt: skip
    frame = pd.DataFrame(rows)
    for col in ob.COLUMNS:
        if col not in frame:
            frame[col] = frame["li_nll"] if col in ("loss", "min_k_20") else 0.0
    frame["benchmark"], frame["format"] = "mine", "text"
    frame["label"] = frame["label"].astype("Int64")
    return frame[ob.COLUMNS]


def test_placement_and_contrasts_hand_checked():
    s = scores_frame(labelled=True, gap=1.0)
    place = rep.placement_rows(s, n_boot=200, seed=0)
    g = place[place["model"] == "big"].set_index("set")
    assert set(g.index) == {"clean", "benchmark", "benchmark_label_1", "benchmark_label_0", "memorised"}
    b = s[(s["model"] == "big") & (s["set"] == "benchmark")]["li_nll"]
    assert g.loc["benchmark", "mean_nll"] == pytest.approx(b.mean())
    assert g.loc["benchmark_label_1", "position"] == pytest.approx(0.75, abs=0.05)  # (4-2.5)/(4-2)
    d = rep.nll_delta_rows(s, n_boot=200, seed=0)
    r = d[(d["model"] == "big") & (d["contrast"] == "non-members - members")].iloc[0]
    assert r["delta"] == pytest.approx(1.0, abs=0.1) and r["delta_lo"] > 0.8
    # without labels: no label sets, no members contrast
    u = scores_frame(labelled=False, gap=1.0)
    assert "benchmark_label_1" not in set(rep.placement_rows(u, 50, 0)["set"])
    assert "non-members - members" not in set(rep.nll_delta_rows(u, 50, 0)["contrast"])


def test_detectors_only_with_labels(tmp_path):
    items = {"mine": [{"id": str(i), "text": f"item {i} " + ("member " * (i % 3))} for i in range(20)]}
    params = {"bootstrap": 100, "seed": 0, "reference": None}
    det = rep.detector_rows(scores_frame(True, gap=1.0), items, params)
    loss = det[(det["detector"] == "loss") & (det["model"] == "big")].iloc[0]
    assert loss["auc"] == pytest.approx(1.0) and loss["label_set"] == rep.LABEL_SET
    assert loss["n_members"] == 10 and loss["n_nonmembers"] == 10
    assert {"blind_bow", "reference"} <= set(det["detector"])
    null = rep.detector_rows(scores_frame(True, gap=0.0), items, params)
    assert null[null["detector"] == "loss"]["auc"].between(0.15, 0.85).all()
    assert not len(rep.detector_rows(scores_frame(False, gap=1.0), items, params))


def test_run_and_summary_say_when_there_is_no_ground_truth(tmp_path):
    s = scores_frame(labelled=False, gap=1.0)
    s.to_csv(tmp_path / "big.csv", index=False)
    bench = write_lines(tmp_path / "b.jsonl", [{"text": f"item {i}"} for i in range(20)])
    out = {k: tmp_path / f"{k}.csv" for k in rep.OUTPUTS}
    params = {"bootstrap": 50, "seed": 0, "reference": None}
    rep.run({"scores": [("big", "mine", tmp_path / "big.csv")],
             "items": [("mine", "text", bench)]}, out, params)  # fmt: skip
    tables = {f"own_benchmark_{k}": pd.read_csv(p) for k, p in out.items()}
    assert not len(tables["own_benchmark_detectors"])
    lines = rep.summary_section(tables, params)
    assert "## Own benchmarks (Li 2023's placement)" in lines
    assert any("mine (text), big" in x and "no ground truth" in x for x in lines)
    rep.run({"scores": [], "items": []}, out, params)
    assert rep.summary_section({f"own_benchmark_{k}": pd.read_csv(p) for k, p in out.items()},
                               params) == []  # fmt: skip


def test_a_benchmark_labelled_with_one_class_says_why_it_has_no_detector(tmp_path):
    """Every item labelled 1 (issue 41): no detector row can be scored, and the summary says so
    with the label counts instead of leaving the benchmark without a word."""
    items = {"mine": [{"id": str(i), "text": f"item {i}"} for i in range(20)]}
    params = {"bootstrap": 50, "seed": 0, "reference": None}
    s = scores_frame(labelled=True, gap=1.0)
    s.loc[s["set"] == "benchmark", "label"] = 1
    why = "no detector: its labels are all of one class (20 label 1, 0 label 0)"
    rows = rep.detector_rows(s, items, params).to_dict("records")  # the table says it too
    assert [r["model"] for r in rows] == ["big", "small"]  # one row per model
    row = rows[0]
    assert row["benchmark"] == "mine" and row["detector"] == "none"
    assert (row["n_members"], row["n_nonmembers"]) == (20, 0) and pd.isna(row["auc"])
    assert row["reason"].startswith(why) and row["label_set"] == rep.LABEL_SET
    assert rep.no_detector_reason(3, 0).startswith("no detector: its labels are all of one class")
    assert rep.no_detector_reason(0, 4).endswith("a detector needs members and non-members")
    assert rep.no_detector_reason(1, 1) == ""
    tables = {
        "own_benchmark_placement": rep.placement_rows(s, 50, 0),
        "own_benchmark_nll_delta": rep.nll_delta_rows(s, 50, 0),
        "own_benchmark_detectors": rep.detector_rows(s, items, params),
    }
    lines = [x for x in rep.summary_section(tables, params) if "mine (text), big" in x]
    assert len(lines) == 1
    assert "labels are all of one class (20 label 1, 0 label 0)" in lines[0]
    # with both classes the line has its AUCs and no such reason
    both = scores_frame(labelled=True, gap=1.0)
    tables = {
        "own_benchmark_placement": rep.placement_rows(both, 50, 0),
        "own_benchmark_nll_delta": rep.nll_delta_rows(both, 50, 0),
        "own_benchmark_detectors": rep.detector_rows(both, items, params),
    }
    text = "\n".join(rep.summary_section(tables, params))
    assert "AUC loss" in text and "one class" not in text
    assert (tables["own_benchmark_detectors"]["reason"] == "").all()
    assert "none" not in set(tables["own_benchmark_detectors"]["detector"])
