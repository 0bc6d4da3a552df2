"""The explorer page of the tiny run in a real browser: headless Chromium (Debian's chromium and
chromium-driver, installed by tests/browser/setup.sh, which `make test` runs) driven by Selenium.

What the page shows is checked against the run's analysis files and the index, not against the
page's own data: the copied spans of a known text are highlighted, hovering one shows its
training count and source document, the "spans ≥ k" filter hides them, two settings sit side
by side, RAVEN's words replace the tokens, the ladder marks every first divergence, and a
``copyscope trace --batch … --format json`` file opens. A screenshot is stored under
``results/tests/`` (``$COPYSCOPE_SCREENSHOTS`` to put it elsewhere).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support.workflow import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = Path(os.environ.get("COPYSCOPE_SCREENSHOTS", ROOT / "results" / "tests"))
CFG = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
MIN_SPAN = CFG["explorer"]["min_span"]
PROMPT_LENGTH = CFG["sampling"]["prompt_length"]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip("no chromium/chromedriver: run `bash tests/browser/setup.sh` as root")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--allow-file-access-from-files"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingOptions", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _known_text(run: Path):
    """The human reference text (at the explorer's prompt length) with the most copied spans
    of at least MIN_SPAN tokens, from tokens.parquet: window, ids, L, C and its spans."""
    from copyscope.index import maximal_spans

    samples = pd.read_json(run / "samples/human/reference.jsonl", lines=True)
    tokens = pd.read_parquet(run / "analysis/human/reference/tokens.parquet")
    best = None
    for k in samples.index[samples["prompt_length"] == PROMPT_LENGTH]:
        t = tokens[tokens["text"] == k].sort_values("t")
        spans = maximal_spans(t["L"].to_numpy(), MIN_SPAN)
        if best is None or len(spans) > len(best["spans"]):
            best = {"window": int(samples.loc[k, "window"]), "text": int(k), "spans": spans,
                    "ids": t["id"].to_numpy(), "L": t["L"].tolist(), "C": t["C"].tolist()}  # fmt: skip
    return best


def _select(driver, element_id: str, text: str | None = None, value: str | None = None):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sel = Select(driver.find_element(By.ID, element_id))
    if text is not None:
        match = [o.get_attribute("value") for o in sel.options if o.text.startswith(text)]
        assert match, (element_id, text, [o.text for o in sel.options])
        value = match[0]
    sel.select_by_value(value)


def _set_min_span(driver, k: int):
    driver.execute_script(
        "const e = document.getElementById('minspan'); e.value = arguments[0];"
        "e.dispatchEvent(new Event('input'));",
        k,
    )


def test_explorer_in_a_browser(tiny_run, browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from copyscope.index import Index

    page = tiny_run / "explorer" / "index.html"
    size = page.stat().st_size
    assert 0 < size < 10e6
    t0 = time.perf_counter()
    browser.get(page.as_uri())
    opened = time.perf_counter() - t0
    d = browser
    known = _known_text(tiny_run)
    assert known["spans"], "the tiny human reference has no copied span to check"
    span_tokens = {i for s, e in known["spans"] for i in range(s, e)}

    # the known text: prompt greyed, every token shaded by its L_t, the spans highlighted
    _select(d, "setting", text="human / reference")
    pane = d.find_element(
        By.CSS_SELECTOR, f'.pane[data-setting="0"][data-window="{known["window"]}"]'
    )
    assert len(pane.find_elements(By.CSS_SELECTOR, ".tok.prompt")) == PROMPT_LENGTH
    shaded = pane.find_elements(By.CSS_SELECTOR, ".tok:not(.prompt)")
    assert [int(x.get_attribute("data-l")) for x in shaded] == known["L"]
    assert len({x.value_of_css_property("background-color") for x in shaded}) > 1
    marked = pane.find_elements(By.CSS_SELECTOR, ".tok.cp")
    assert {int(x.get_attribute("data-i")) for x in marked} == span_tokens

    # hovering a span: its length, training count (C_t at its end) and a source (the index)
    index = Index(tiny_run / "index" / "bpe")
    el = marked[0]
    ActionChains(d).move_to_element(el).perform()
    detail = d.find_element(By.ID, "detail")
    j = int(el.get_attribute("data-span"))
    texts = json.loads(d.execute_script("return JSON.stringify(DATA.settings[0].texts)"))
    s, e = next(t for t in texts if t["w"] == known["window"])["s"][j][:2]
    assert (s, e) in known["spans"]
    assert detail.find_element(By.CLASS_NAME, "len").text == str(e - s)
    assert detail.find_element(By.CLASS_NAME, "count").text == str(known["C"][e - 1])
    assert known["C"][e - 1] == index.count(known["ids"][s:e])
    docs = [x.text for x in detail.find_elements(By.CLASS_NAME, "doc")]
    assert docs and docs[0] == index.locate(known["ids"][s:e], 3)[0][0]
    assert "class" in detail.text and detail.find_element(By.CLASS_NAME, "cls").text
    SHOTS.mkdir(parents=True, exist_ok=True)
    d.save_screenshot(str(SHOTS / "explorer.png"))

    # the filter: spans shorter than k are not highlighted; "only texts with such a span"
    longest = max(e - s for s, e in known["spans"])
    _set_min_span(d, longest + 1)
    pane = d.find_element(
        By.CSS_SELECTOR, f'.pane[data-setting="0"][data-window="{known["window"]}"]'
    )
    assert pane.find_elements(By.CSS_SELECTOR, ".tok.cp") == []
    d.find_element(By.ID, "hideempty").click()
    assert not d.find_elements(By.CSS_SELECTOR, f'.text[data-window="{known["window"]}"]')
    d.find_element(By.ID, "hideempty").click()
    _set_min_span(d, longest)
    pane = d.find_element(
        By.CSS_SELECTOR, f'.pane[data-setting="0"][data-window="{known["window"]}"]'
    )
    kept = {i for s, e in known["spans"] if e - s >= longest for i in range(s, e)}
    assert {
        int(x.get_attribute("data-i")) for x in pane.find_elements(By.CSS_SELECTOR, ".tok.cp")
    } == kept
    _set_min_span(d, MIN_SPAN)

    # side by side: the same prompt under another setting
    _select(d, "compare", text="gpt2-b / greedy")
    card = d.find_element(By.CSS_SELECTOR, f'.text[data-window="{known["window"]}"]')
    assert len(card.find_elements(By.CSS_SELECTOR, ".pane")) == 2
    _select(d, "compare", value="")

    # RAVEN: the text in Moses words, scored from the context
    _select(d, "mode", value="rc")
    words = pd.read_parquet(tiny_run / "analysis/human/reference/words.parquet")
    n_words = int((words["text"] == known["text"]).sum())
    pane = d.find_element(
        By.CSS_SELECTOR, f'.pane[data-setting="0"][data-window="{known["window"]}"]'
    )
    assert len(pane.find_elements(By.CSS_SELECTOR, ".tok.word")) == n_words > 0
    _select(d, "mode", value="tokens")

    # the memorization ladder: one section per model, every non-exact passage's divergence
    d.find_element(By.ID, "tab-ladder").click()
    for model in CFG["models"]["zoo"]:
        ladder = pd.read_csv(tiny_run / "memorization" / f"{model}.csv")
        section = d.find_element(By.CSS_SELECTOR, f'section.model[data-model="{model}"]')
        rows = section.find_elements(By.CSS_SELECTOR, ".passage")
        assert len(rows) == len(ladder)
        diverged = [r for r in rows if r.find_elements(By.CSS_SELECTOR, "td.div")]
        assert len(diverged) == int((ladder["exact"] == 0).sum())
        lcp = dict(zip(ladder["passage"], ladder["lcp"], strict=True))
        assert all(
            int(r.get_attribute("data-lcp")) == lcp[r.get_attribute("data-passage")] for r in rows
        )
    d.save_screenshot(str(SHOTS / "explorer-ladder.png"))
    d.find_element(By.ID, "tab-texts").click()

    # a user's own trace: copyscope trace --batch … --format json, opened from disk
    batch = tmp_path / "mine.txt"
    batch.write_text("Is this a dagger which I see before me\nzqxj vvq kkz\n")
    proc = subprocess.run(
        [sys.executable, "-m", "copyscope", "trace", str(tiny_run / "index" / "bpe"), "--batch",
         str(batch), "--format", "json", "--min-len", str(MIN_SPAN)],  # fmt: skip
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    (tmp_path / "mine.json").write_text(proc.stdout)
    before = len(d.find_elements(By.CSS_SELECTOR, "#setting option"))
    d.find_element(By.ID, "tracefile").send_keys(str(tmp_path / "mine.json"))
    WebDriverWait(d, 10).until(
        lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#setting option")) == before + 1
    )
    _select(d, "sort", value="w")
    cards = d.find_elements(By.CSS_SELECTOR, ".text")
    assert len(cards) == 2
    for card, row in zip(cards, rows, strict=True):
        want = {i for sp in row["copied"] for i in range(sp["start"], sp["end"])}
        got = {
            int(x.get_attribute("data-i")) for x in card.find_elements(By.CSS_SELECTOR, ".tok.cp")
        }
        assert got == want
    assert rows[0]["copied"] and not rows[1]["copied"]
    severe = [m for m in d.get_log("browser") if m["level"] == "SEVERE"]
    assert not severe, severe
    (SHOTS / "explorer.json").write_text(
        json.dumps({"page_bytes": size, "open_seconds": round(opened, 3)}) + "\n"
    )


def test_explore_command_finds_the_run_files(tiny_run, tmp_path):
    """``copyscope explore --results DIR`` finds the same inputs the workflow's rule passes."""
    out = tmp_path / "page.html"
    decodings = CFG["explorer"]["decodings"]
    proc = subprocess.run(
        [sys.executable, "-m", "copyscope", "explore", "--results", str(tiny_run),
         "--decodings", *decodings, "--min-span", str(MIN_SPAN), "--prompt-length",
         str(PROMPT_LENGTH), "--out", str(out)],  # fmt: skip
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr

    def data(path):
        text = path.read_text()
        return json.loads(re.search(r'<script id="data"[^>]*>(.*?)</script>', text, re.S)[1])

    mine, run = data(out), data(tiny_run / "explorer" / "index.html")
    assert [(s["model"], s["decoding"]) for s in mine["settings"]] == [
        (s["model"], s["decoding"]) for s in run["settings"]
    ]
    assert mine == run


def test_span_options_are_said_and_kept_in_a_browser(tiny_run, browser, tmp_path):
    """A page written with trace's span options says them above the texts, and every text
    shows at most ceil(D x tokens) spans, each found at most F times, sources from distinct
    documents; a page without options says nothing about them."""
    import math

    from selenium.webdriver.common.by import By

    out = tmp_path / "opts.html"
    density, most, docs = 0.05, 1000, 2
    proc = subprocess.run(
        [sys.executable, "-m", "copyscope", "explore", "--results", str(tiny_run),
         "--decodings", *CFG["explorer"]["decodings"], "--min-span", "1",
         "--prompt-length", str(PROMPT_LENGTH), "--max-span-count", str(most),
         "--max-span-density", str(density), "--rank-spans-by", "unigram_logprob_sum",
         "--docs-per-span", str(docs), "--out", str(out)],  # fmt: skip
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    browser.get(out.as_uri())
    said = browser.find_element(By.ID, "spanopts")
    assert said.is_displayed()
    for part in (f"at most {most} times", f"{density} ", "rarest", f"up to {docs} documents"):
        assert part in said.text, (part, said.text)
    settings = json.loads(browser.execute_script("return JSON.stringify(DATA.settings)"))
    shown = 0
    for s in settings:
        for t in s["texts"]:
            assert len(t["s"]) <= math.ceil(density * len(t["g"])), t["w"]
            for sp in t["s"]:
                assert sp[2] <= most
                documents = [src[0] for src in sp[4]]
                assert len(documents) == len(set(documents)) <= docs
            shown += len(t["s"])
    assert shown, "no span left to check"
    browser.get((tiny_run / "explorer" / "index.html").as_uri())
    assert not browser.find_element(By.ID, "spanopts").is_displayed()
