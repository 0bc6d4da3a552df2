"""The HTML report's look (issue 40 §3): every output in the report sits in the category of the
paper it is an analog of, as the pages ``docs/papers/*.md`` list it, or in one of the run's own
categories; every figure's caption states its conditions (decoding, prompt, models, texts) from
the run's config, never as a number written into the caption."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
import yaml

from copyscope.config import validate
from copyscope.report import analyses
from copyscope.report.jobs import CATEGORIES, PAPERS, Output, category_title

ROOT = Path(__file__).resolve().parents[2]
RUN_OWN = [c for c in CATEGORIES if c not in PAPERS]
FACETS = ("decoding", "prompt", "models", "texts")
CONDITIONS = re.compile(r"^\*\*Conditions\.\*\*(.*?)(?:\n\s*\n|\Z)", re.S | re.M)
FILE = re.compile(r"([a-z0-9_]+\.(?:png|csv|md))")


def declared() -> list[tuple[str, str, str]]:
    """(file name, caption, category key) of every output in the HTML report: the analyses'
    declarations, then the report() outputs written by hand in the rule files."""
    out = [
        (Path(o.path).name, o.caption, o.category)
        for m in analyses()
        for o in m.OUTPUTS.values()
        if o.caption
    ]
    keys = {title: key for key, title in CATEGORIES.items()}
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for call in re.findall(r"\breport\(\n(.*?)\n\s*\)", smk.read_text(), re.S):
            first = call.strip().splitlines()[0].strip().rstrip(",")  # a path or its variable
            path = re.fullmatch(r'f?"([^"]+)"', first).group(1) if '"' in first else first
            caption = re.search(r'caption="\.\./report/([\w.]+)\.rst"', call).group(1)
            key = re.search(r'category_title\("([\w ]+)"\)', call)
            assert key, f"{smk.name}: the report output {path} names its category by key"
            category_title(key.group(1))
            out.append((Path(path).name, caption, keys[category_title(key.group(1))]))
    return out


def listed_on(page: str) -> set[str]:
    """The files the analog table of ``docs/papers/<page>.md`` lists (its rows: lines that
    start with ``|``)."""
    rows = [ln for ln in (ROOT / "docs" / "papers" / f"{page}.md").read_text().splitlines()
            if ln.startswith("|")]  # fmt: skip
    return {name for row in rows for name in FILE.findall(row)}


def test_the_categories_are_the_papers_pages_then_the_runs_own():
    assert list(PAPERS) == list(CATEGORIES)[: len(PAPERS)]
    assert sorted(p.stem for p in (ROOT / "docs" / "papers").glob("*.md")) == sorted(PAPERS)
    assert {"known answers", "models", "summary"} <= set(RUN_OWN)
    # a title is a reST link target in every caption: no colon, no backquote
    assert not [t for t in CATEGORIES.values() if re.search(r"[:`_]", t)]
    with pytest.raises(ValueError, match="report category 'syntax'"):
        Output("figures/x.png", "x", "x", "syntax")
    with pytest.raises(ValueError, match="a caption and a category"):
        Output("figures/x.png", "x", "x")


def test_every_report_output_is_grouped_by_the_paper_whose_page_lists_it():
    """A figure of a paper's category is in the analog table of that paper's page; a figure or
    table listed on a page is in the category of that page (of one of them, where several list
    it: the claim it decides); a table no page lists may be anywhere."""
    outputs = declared()
    assert len(outputs) > 80
    pages = {p: listed_on(p) for p in PAPERS}
    wrong = []
    for name, _, category in outputs:
        listing = [p for p, names in pages.items() if name in names]
        if listing and category not in listing:
            wrong.append(f"{name}: {category}, listed on {listing}")
        if name.endswith(".png") and not listing and category in PAPERS:
            wrong.append(f"{name}: {category}, but docs/papers/{category}.md does not list it")
    assert wrong == []
    # every figure the pages list is in the report
    names = {name for name, _, _ in outputs}
    for page, listed in pages.items():
        assert {n for n in listed if n.endswith(".png")} <= names, page
    # each paper has figures of its own in the report; every category holds something
    for key in CATEGORIES:
        assert any(c == key for _, _, c in outputs), key
        assert key not in PAPERS or any(c == key and n.endswith(".png") for n, _, c in outputs), key


@pytest.fixture(scope="module")
def configs() -> dict[str, dict]:
    """The shipped configs, validated (defaults filled in), as the report renders a caption."""
    shipped = ["config", "tiny", "tiny-fr", "pretrained"]
    shipped += [f"papers/{p.stem}" for p in (ROOT / "config" / "papers").glob("*.yaml")]
    return {
        name: validate(yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text()))
        for name in shipped
    }


class Snakemake:
    """What a caption's Jinja sees (Snakemake's report: ``snakemake.config`` and the job's
    params, input and output, unused by the captions)."""

    def __init__(self, config):
        self.config, self.params, self.input, self.output, self.wildcards = config, {}, [], [], {}


def render(caption: str, config: dict) -> str:
    text = (ROOT / "report" / f"{caption}.rst").read_text()
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    return env.from_string(text).render(snakemake=Snakemake(config), categories={}, files=[])


def figure_captions() -> list[str]:
    return sorted({c for name, c, _ in declared() if name.endswith(".png")})


def test_every_figure_caption_states_its_conditions_from_the_config(configs):
    """A figure's caption ends with one paragraph ``**Conditions.** Decoding: …; prompt: …;
    models: …; texts: ….``, each facet named (or said not to apply); every number in it comes
    from the config (a Jinja expression), none is written into the caption: the raw paragraph
    has no digit outside ``{{ }}`` and ``{% %}``. It renders on every shipped config."""
    captions = figure_captions()
    assert len(captions) > 35
    missing, numbers = [], []
    for caption in captions:
        raw = (ROOT / "report" / f"{caption}.rst").read_text()
        found = CONDITIONS.findall(raw)
        if len(found) != 1:
            missing.append(caption)
            continue
        plain = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", found[0], flags=re.S)
        if re.search(r"\d", plain):
            numbers.append(f"{caption}: {plain.strip()}")
    assert missing == [] and numbers == []
    for name, config in configs.items():
        for caption in captions:
            try:
                text = render(caption, config)
            except jinja2.TemplateError as e:
                raise AssertionError(f"report/{caption}.rst on config {name}: {e}") from e
            (paragraph,) = CONDITIONS.findall(text)
            words = re.sub(r"\s+", " ", paragraph).lower()
            labels = [f"{f}:" for f in FACETS]
            assert all(lab in words for lab in labels), (name, caption, words)
            at = [words.index(lab) for lab in labels]
            assert at == sorted(at), (name, caption, words)
            # every facet says something: no empty list where the config has none
            for lab, nxt in zip(labels, [*labels[1:], None], strict=True):
                said = words[words.index(lab) + len(lab) : words.index(nxt) if nxt else None]
                assert re.search(r"\w", said) and ", ," not in said, (name, caption, lab, words)


def test_a_conditions_paragraph_that_hard_codes_a_number_is_caught(tmp_path):
    """The checks above can fail: a paragraph with a written number, or without a facet."""
    bad = "Body.\n\n**Conditions.** Decoding: pure; prompt: 32 tokens; models: all; texts: 100.\n"
    (found,) = CONDITIONS.findall(bad)
    assert re.search(r"\d", re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", found))
    good = bad.replace("32", '{{ snakemake.config["sampling"]["prompt_length"] }}')
    good = good.replace("100", '{{ snakemake.config["sampling"]["prompts"] }}')
    (found,) = CONDITIONS.findall(good)
    assert not re.search(r"\d", re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", found))
    assert not CONDITIONS.findall("Body.\n\nConditions: decoding pure.\n")
