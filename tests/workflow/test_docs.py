"""The documentation stays true to the code: the site's generated parts (``docs/hooks/generated.py``)
say what the files they read say, every page is in the navigation, every config key the pages
and the README name exists in the schema, and the README stays a short front page whose
commands exist. ``make lint`` builds the site itself (``mkdocs build --strict``)."""

from __future__ import annotations

import html
import importlib.util
import re

import pytest
import yaml

from copyscope.config import SCHEMA_PATH, load_schema
from support.workflow import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
FILE_SUFFIXES = (".json", ".jsonl", ".csv", ".png", ".md", ".yaml", ".npy", ".parquet", ".html",
                 ".tsv", ".npz", ".txt")  # fmt: skip
BLOCKS = "|".join(load_schema()["properties"])
KEY = re.compile(rf"`((?:{BLOCKS})\.[A-Za-z0-9_.<>-]*[A-Za-z0-9_>])")


def hook():
    """``docs/hooks/generated.py`` as a module."""
    spec = importlib.util.spec_from_file_location("generated", DOCS / "hooks" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_keys(node: dict, key: str = "") -> set[str]:
    """Every key path of the schema read independently of the hook: ``a.b``, ``<name>`` for an
    entry of a mapping of named entries; ``$ref`` and ``oneOf`` alternatives followed."""
    root = load_schema()
    if "$ref" in node:
        target = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **node}
    found = {key} if key else set()
    prefix = f"{key}." if key else ""
    for name, sub in node.get("properties", {}).items():
        found |= schema_keys(sub, prefix + name)
    if isinstance(node.get("additionalProperties"), dict):
        found |= schema_keys(node["additionalProperties"], prefix + "<name>")
    for alt in node.get("oneOf", []):
        found |= schema_keys(alt.get("items", alt), key) - {key}
    items = node.get("items")
    if isinstance(items, dict) and "properties" in items:  # a list of objects: key[].name
        found |= schema_keys(items, f"{key}[]") - {f"{key}[]"}
    return found


def descriptions(node, out: list[str]) -> list[str]:
    """Every description under a ``properties`` mapping of the raw schema."""
    if isinstance(node, dict):
        for sub in node.get("properties", {}).values():
            if isinstance(sub, dict) and "description" in sub:
                out.append(sub["description"])
        for value in node.values():
            descriptions(value, out)
    elif isinstance(node, list):
        for value in node:
            descriptions(value, out)
    return out


# --------------------------------------------------------------------------- config reference
def test_the_config_reference_lists_every_key_with_its_description():
    text = hook().config_reference(yaml.safe_load(SCHEMA_PATH.read_text()))
    rows = set(re.findall(r'<tr id="config-([^"]+)"><td><code>([^<]+)</code>', text))
    listed = {html.unescape(key) for _, key in rows}
    top = set(load_schema()["properties"])
    assert listed == schema_keys(load_schema()) - top
    for block in top:
        assert f"## `{block}`" in text
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    missing = [d for d in descriptions(load_schema(), []) if d.replace("`", "") not in plain]
    assert missing == []


def test_the_config_reference_states_types_bounds_and_defaults():
    schema = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"type": "object", "description": "block `a`", "required": ["n"],
                  "properties": {
                      "n": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3,
                            "description": "a count <small>"},
                      "mode": {"enum": ["x", "y"], "default": "x", "description": "m"},
                      "named": {"type": "object", "description": "entries",
                                "additionalProperties": {
                                    "type": "object", "description": "one",
                                    "properties": {"k": {"$ref": "#/$defs/k"}}}},
                  },
                  "allOf": [{"if": {"properties": {"mode": {"const": "y"}}},
                             "then": {"required": ["named"],
                                      "properties": {"n": {"default": 5}}}}]},
        },
        "$defs": {"k": {"type": "number", "exclusiveMinimum": 0, "description": "k > 0"}},
    }  # fmt: skip
    text = hook().config_reference(schema)
    row = re.search(r'<tr id="config-a.n">(.*?)</tr>', text).group(1)
    assert "<em>(required)</em>" in row and "integer (≥ 1, ≤ 9)" in row
    assert "<code>3</code>" in row and "a count &lt;small&gt;" in row
    assert "one of <code>x</code>, <code>y</code>" in text
    row = re.search(r'<tr id="config-a.named._name_.k">(.*?)</tr>', text).group(1)
    assert "number (&gt; 0)" in row and "k &gt; 0" in row  # through the $ref
    assert "<p>block <code>a</code> <em>(required; mapping)</em></p>" in text
    # an if/then case: a note on each key it requires or gives another default
    row = re.search(r'<tr id="config-a.named">(.*?)</tr>', text).group(1)
    assert "<br><em>with <code>mode: y</code></em>: required" in row
    row = re.search(r'<tr id="config-a.n">(.*?)</tr>', text).group(1)
    assert "<em>with <code>mode: y</code></em>: default <code>5</code>" in row


def test_every_config_key_the_documentation_names_exists():
    keys = schema_keys(load_schema())

    def known(name: str) -> bool:
        paths = {""}
        for part in name.split("."):
            paths = {f"{p}.{o}".lstrip(".") for p in paths for o in (part, "<name>")}
            paths = {p for p in paths if any(k == p or k.startswith(p + ".") for k in keys)}
        return bool(paths & keys)

    unknown = []
    for path in [*PAGES, ROOT / "README.md"]:
        for match in KEY.finditer(path.read_text()):
            name = match.group(1)
            if not name.endswith(FILE_SUFFIXES) and not known(name):
                unknown.append(f"{path.relative_to(ROOT)}: {name}")
    assert unknown == []


# --------------------------------------------------------------------------- generated tables
def test_the_runtime_table_is_the_file(tmp_path):
    path = tmp_path / "runtime.csv"
    path.write_text("rule,jobs,seconds,max_seconds,max_rss_mb\ntrain_model,2,100.5,60,900\n"
                    "sample,3,20,10,500.5\n")  # fmt: skip
    text = hook().runtime_table(path)
    assert "| `train_model` | 2 | 100.5 | 60 | 900 |" in text
    assert "2 rules, 5 jobs, 120 job-seconds" in text


def test_the_output_map_leads_from_every_output_to_its_code():
    """Every output an analysis declares has one row: rule, command and a function that
    exists; hand-checked rows for a figure, a table computed by a helper, a figure drawn in a
    loop and a table written from a dict of tables."""
    import importlib

    from copyscope.report import analyses

    rows = hook().output_map_rows()
    paths = [r[0].strip("`") for r in rows]
    declared = [
        o.path for m in analyses() if not getattr(m, "NO_REPORT_JOB", None) for o in m.OUTPUTS.values()
    ]
    assert paths == declared and len(set(paths)) == len(paths)
    for _, rule, command, producer in rows:
        module, _, name = producer.strip("`").rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), producer
        assert rule.startswith("`report_") and command.startswith("`copyscope report ")
    by_path = {r[0].strip("`"): r[3].strip("`") for r in rows}
    assert by_path["figures/planted.png"] == "copyscope.report.figures.planted"
    assert by_path["tables/memorization.csv"] == "copyscope.report.memorization.memorization_table"
    assert by_path["figures/membership_roc_training.png"] == "copyscope.report.figures.membership_roc"
    assert by_path["tables/membership_detectors.csv"] == "copyscope.report.membership.detector_table"
    assert by_path["figures/syntax_paths.png"] == "copyscope.report.syntax_figures.path_novelty"
    assert "<!-- generated: output-map -->" in (DOCS / "architecture.md").read_text()


def test_the_benchmark_pages_render_the_recorded_files():
    """The Performance page's benchmark parts are the JSON files the benchmark wrote: the
    command it recorded, its tables and its target lines (infini-gram's own index: the
    comparison table and the infini-gram targets)."""
    import json

    module = hook()
    for name, file in (("index-bench", "index_bench.json"),
                       ("infinigram-bench", "infinigram_bench.json")):  # fmt: skip
        data = json.loads((DOCS / "performance" / file).read_text())
        text = module.generate(name)
        assert f"`python benchmarks/{' '.join(data['command'])}`" in text
        assert f"docs/performance/{file}" in " ".join(data["command"])  # written where shown
        for table in data["tables"].values():
            assert table in text
    text = module.generate("infinigram-bench")
    assert "--peers infinigram" in text and "copyscope on infini-gram's index" in text
    assert "PASS: L_t/C_t on infini-gram's index vs infini-gram's fastest" in text
    assert "FAIL" not in text
    page = (DOCS / "performance.md").read_text()
    assert "<!-- generated: infinigram-bench -->" in page


def test_every_marker_has_a_generator():
    module = hook()
    for page in PAGES:
        for name in module.MARKER.findall(page.read_text()):
            assert module.generate(name, page.read_text()).strip(), (page, name)
    with pytest.raises(ValueError, match="unknown generated part"):
        module.generate("no-such-part")


# --------------------------------------------------------------------------- site and README
def nav_pages(nav) -> list[str]:
    """The page files of a MkDocs ``nav`` (nested lists of ``{title: page or list}``)."""
    found = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def test_every_page_is_in_the_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert len(pages) == len(set(pages))
    assert sorted(pages) == sorted(str(p.relative_to(DOCS)) for p in PAGES)
    hooks = [ROOT / h for h in config["hooks"]]
    assert hooks == [DOCS / "hooks" / "generated.py"]
    assert "--8<-- \"CHANGELOG.md\"" in (DOCS / "changelog.md").read_text()


def test_the_readme_is_a_short_front_page():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    make = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z-]+):", make, re.M))
    named = set(re.findall(r"`make ([a-z-]+)", text))
    assert {"run", "test"} <= named and named <= targets, named - targets
    for link in re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", text):
        assert (ROOT / link).is_file(), link
    # the Makefile's lint target builds the site strictly (CI runs `make lint`)
    (lint,) = re.findall(r"^lint:.*\n((?:\t.*\n)+)", make, re.M)
    assert "mkdocs build --strict" in lint
    assert "site/" in (ROOT / ".gitignore").read_text().split()


# --------------------------------------------------------------------------- present tense
COPIED = {"summary.md", "findings.md", "seeds.md", "changelog.md"}  # a run's files, the Changelog
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
CHANGELOG_LINK = re.compile(r"\[Changelog\]\((?:\.\./)?(?:changelog\.md|CHANGELOG\.md)[^)]*\)")


def dated_passages(text: str) -> list[str]:
    """The commit hashes of ``text``, and its dates that are not a pointer into the Changelog
    (a date within 40 characters of a ``[Changelog](…)`` link)."""
    found = [m.group(0) for m in COMMIT.finditer(text)]
    links = [m.span() for m in CHANGELOG_LINK.finditer(text)]
    for m in DATE.finditer(text):
        if not any(m.start() < end + 40 and m.end() > start - 40 for start, end in links):
            found.append(text[max(0, m.start() - 40):m.end() + 40].replace("\n", " "))
    return found


def test_dated_passages_are_commits_and_dates_outside_changelog_pointers():
    assert dated_passages("a run at 56d578e took 29 min") == ["56d578e"]
    assert dated_passages("(2026-12-04, [Changelog](CHANGELOG.md))") == []
    assert dated_passages("in the [Changelog](../changelog.md) (2026-12-01).") == []
    assert dated_passages("On 2026-12-03 the run took 70 minutes.") == [
        "On 2026-12-03 the run took 70 minutes."]
    assert dated_passages("1000000 tokens, 1e6, a sha256 of 64 hex digits: " + "ab12" * 16) == []


def test_the_pages_say_what_holds_now():
    """Dated runs and commits belong in the Changelog: a page names neither, but may point into
    the Changelog at a date (the run's own files, copied into docs/, are exempt)."""
    found = {}
    for path in [*PAGES, ROOT / "README.md"]:
        if path.name in COPIED:
            continue
        if hits := dated_passages(path.read_text()):
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


# --------------------------------------------------------------------------- the paper pages
PAPERS = DOCS / "papers"
PAPER_ITEMS = {
    "merrill.md": ["Fig. 1 (left)", "Fig. 1 (right)", "Fig. 2", "Fig. 3",
                   "Loss by frequency (analysis code)"],
    "raven.md": ["Fig. 1", "Fig. 2", "Fig. 3", "Table 1", "Fig. 5", "Tables 2–4",
                 "§5 supercopying", "Supplement: prompt length",
                 "Supplement: sources of duplication"],
    "shaib.md": ["Table 1", "Table 3", "Fig. 5", "Fig. 2", "Figs. 3–4", "§8 style memorization"],
    "li.md": ["Fig. 3", "Per-format benchmarks", "Detectors beside the placement"],
    "literature.md": ["Table 1", "Genre table", "Popularity table", "OLMo/Dolma excerpts",
                      "Fig. 5", "Fig. 8"],
    "related.md": ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "Power of the rules"],
}  # fmt: skip
"""Each paper page's inventory: the paper's main figures and tables (the related page: its
claims R1…), each of which must be the first cell of a row of the page's overview table and
the start of a ``###`` section."""
PAGE_OF_PAPER = {
    "Merrill et al. 2024": "merrill.md",
    "McCoy et al. 2023": "raven.md",
    "Shaib et al. 2024": "shaib.md",
    "Li 2023": "li.md",
    "Zhang et al. 2024": "literature.md",
}
IMAGE = re.compile(r"\]\(([^)\s]+\.png)\)")
TABLE = re.compile(r"\btables/([a-z0-9_]+)\.csv\b|`([a-z0-9_]+)\.csv`")


def table_rows(text: str) -> dict[str, list[str]]:
    """First cell → the other cells of every body row of the Markdown tables in ``text`` (the
    header row of a table, the one above its ``|---|`` line, and that line left out)."""
    lines = text.splitlines()
    rows = {}
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line):
            continue
        if i + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1]):
            continue  # a header
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def missing_items(text: str, items: list[str]) -> list[str]:
    """The items of an inventory without a row (first cell, other cells not empty) or without
    a ``### <item>`` section in ``text``."""
    rows = table_rows(text)
    sections = re.findall(r"^### (.+)$", text, re.M)
    return [
        item for item in items
        if not all(rows.get(item, [""])) or not any(s.startswith(item) for s in sections)
    ]  # fmt: skip


def cited_tables(text: str) -> set[str]:
    """The table names ``text`` cites: ``tables/<name>.csv`` and `` `<name>.csv` ``."""
    return {a or b for a, b in TABLE.findall(text)}


def scorecard_claims() -> list:
    """Every claim of the scorecard's registry, as its row (a :class:`Finding`) on no tables:
    id, paper and ``related``, in registry order."""
    from copyscope.config import check_file
    from copyscope.report import findings

    params = {"findings": check_file(ROOT / "config" / "config.yaml")["findings"]}
    return [decide({}, params) for decide in findings.CLAIMS.values()]


def test_the_page_helpers_find_rows_sections_and_tables():
    text = ("| paper | analog | how close |\n|---|---|---|\n| Fig. 1 | `a.png` | close |\n"
            "| Fig. 2 | | none |\n\n### Fig. 1: curves\n\n### Fig. 2: more\n"
            "`tables/raven_summary.csv`, `syntax_table1.csv` and results/tables/<name>.csv\n")  # fmt: skip
    assert table_rows(text) == {"Fig. 1": ["`a.png`", "close"], "Fig. 2": ["", "none"]}
    assert missing_items(text, ["Fig. 1", "Fig. 2", "Fig. 3"]) == ["Fig. 2", "Fig. 3"]
    assert missing_items(text.replace("### Fig. 1", "### Figure 1"), ["Fig. 1"]) == ["Fig. 1"]
    assert cited_tables(text) == {"raven_summary", "syntax_table1"}


def test_every_paper_has_a_page_with_a_row_per_figure_and_table():
    assert sorted(p.name for p in PAPERS.glob("*.md")) == sorted(PAPER_ITEMS)
    missing = {
        page: gaps for page, items in PAPER_ITEMS.items()
        if (gaps := missing_items((PAPERS / page).read_text(), items))
    }  # fmt: skip
    assert missing == {}


def test_the_paper_pages_show_only_the_run_s_figures():
    """Every image a paper page references is a file under docs/ (the figures `make figures`
    copies into docs/figures/; the pages draw nothing of their own)."""
    bad = []
    for page in PAPER_ITEMS:
        for ref in IMAGE.findall((PAPERS / page).read_text()):
            path = (PAPERS / ref).resolve()
            if not path.is_file() or path.parent != (DOCS / "figures").resolve():
                bad.append(f"{page}: {ref}")
    assert bad == []


def test_the_paper_pages_cite_only_tables_an_analysis_writes():
    from copyscope.report.jobs import declared_tables

    declared = set(declared_tables())
    unknown = {
        page: sorted(cited_tables((PAPERS / page).read_text()) - declared) for page in PAPER_ITEMS
    }
    assert {page: names for page, names in unknown.items() if names} == {}


def test_each_scorecard_claim_is_linked_from_its_paper_s_page():
    """A claim of the five papers is named (by its id) on its paper's page, a related claim on
    the related page, in the section of its number R1, R2, … (registry order, as the
    scorecard numbers them)."""
    claims = scorecard_claims()
    assert {c.paper for c in claims if not c.related} == set(PAGE_OF_PAPER)
    text = {page: (PAPERS / page).read_text() for page in PAPER_ITEMS}
    unlinked = [
        c.id for c in claims
        if f"`{c.id}`" not in text["related.md" if c.related else PAGE_OF_PAPER[c.paper]]
    ]  # fmt: skip
    assert unlinked == []
    related = [c.id for c in claims if c.related]
    sections = re.split(r"^### ", text["related.md"], flags=re.M)
    for i, claim_id in enumerate(related, 1):
        (section,) = [s for s in sections if s.startswith(f"R{i}:")]
        assert f"`{claim_id}`" in section, (f"R{i}", claim_id)
    assert sorted(r for r in PAPER_ITEMS["related.md"] if r[0] == "R" and r[1:].isdigit()) == [
        f"R{i}" for i in range(1, len(related) + 1)
    ]
