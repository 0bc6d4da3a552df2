"""MkDocs hook: the documentation's generated parts, written at build time from the files that
define them, never copied by hand.

A page asks for one with a marker line ``<!-- generated: NAME -->``:

* ``config-reference`` — every key of the config schema (``src/copyscope/schema.yaml``, the one
  that :func:`copyscope.config.validate` uses): its type and bounds, default and description,
  one table per top-level block;
* ``runtime`` — ``docs/runtime.csv`` (every rule of the default run: jobs, summed wall seconds,
  peak memory; written by ``make figures``) as a table;
* ``index-bench`` — the tables that ``benchmarks/index_bench.py --out docs/performance/
  index_bench.json`` wrote into that file, with the command and the machine it recorded;
  ``infinigram-bench`` the same of ``docs/performance/infinigram_bench.json`` (``make
  bench-infinigram``: copyscope and infini-gram on infini-gram's own index);
* ``other-figures`` — links to the figures of ``docs/figures/`` that the page does not show;
* ``output-map`` — every output of the analyses (their declarations in ``copyscope.report``):
  file → rule → command → the function that computes it (read from the module's source).

``mkdocs.yml`` names this file under ``hooks:``; the functions below are plain (schema or file
in, Markdown/HTML out) so that ``tests/workflow/test_docs.py`` can check them without MkDocs.
"""

from __future__ import annotations

import ast
import csv
import html
import importlib.util
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "src" / "copyscope" / "schema.yaml"
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)
LONG_DEFAULT = 80  # characters: a longer default is folded into a <details> element


# --------------------------------------------------------------------------- config reference
def inline(text: str) -> str:
    """``text`` as HTML: escaped, with its `backtick spans` as <code>."""
    parts = str(text).split("`")
    return "".join(
        f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts)
    )


def resolve(node: dict, root: dict) -> dict:
    """``node`` with its ``$ref`` (a JSON pointer into ``root``) merged in: the node's own
    keywords (description, default) take precedence over the referenced schema's."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        target = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        seen += 1
        assert seen < 20, "a $ref cycle in the schema"
    return node


def _value(value) -> str:
    """A default or bound as one line of YAML flow style."""
    return yaml.safe_dump(value, default_flow_style=True, width=10**6, allow_unicode=True).strip(
        "\n"
    ).removesuffix("\n...").strip()


def type_text(node: dict, root: dict) -> str:
    """What a value of ``node`` must be: type, enum, bounds (HTML)."""
    node = resolve(node, root)
    if "enum" in node:
        text = "one of " + ", ".join(f"<code>{html.escape(_value(v))}</code>" for v in node["enum"])
    elif "const" in node:
        text = f"<code>{html.escape(_value(node['const']))}</code>"
    elif "oneOf" in node or "anyOf" in node:
        alts = node.get("oneOf") or node.get("anyOf")
        text = " or ".join(type_text(a, root) for a in alts)
    else:
        kinds = node.get("type", "object" if "properties" in node else "any")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        names = []
        for kind in kinds:
            if kind == "array":
                items = node.get("items")
                inner = type_text(items, root) if isinstance(items, dict) else "values"
                names.append(f"list of {inner}")
            elif kind == "object" and isinstance(node.get("additionalProperties"), dict):
                names.append("mapping of named entries")
            elif kind == "object":
                names.append("mapping")
            else:
                names.append(kind)
        text = " or ".join(names)
    bounds = []
    for word, sign in [("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"),
                       ("exclusiveMaximum", "<")]:  # fmt: skip
        if word in node:
            bounds.append(f"{html.escape(sign)} {html.escape(_value(node[word]))}")
    if node.get("minLength", 0) >= 1:
        bounds.append("non-empty")
    if "minItems" in node:
        bounds.append(f"at least {node['minItems']} item(s)")
    if "maxItems" in node:
        bounds.append(f"at most {node['maxItems']} item(s)")
    if node.get("uniqueItems"):
        bounds.append("distinct items")
    if node.get("minProperties", 0) >= 1:
        bounds.append(f"at least {node['minProperties']} entry")
    if "pattern" in node:
        bounds.append(f"matching <code>{html.escape(node['pattern'])}</code>")
    names = node.get("propertyNames", {})
    if "pattern" in names:
        bounds.append(f"names matching <code>{html.escape(names['pattern'])}</code>")
    return text + (" (" + ", ".join(bounds) + ")" if bounds else "")


def config_rows(node: dict, root: dict, key: str = "", required: bool = False) -> list[dict]:
    """One row per key at and below ``node``: ``key`` (dotted; ``<name>`` for an entry of a
    mapping of named entries, ``[]`` for a list item), ``type``, ``default``, ``description``,
    ``required``. Keys reached by several alternatives (``oneOf``) appear once."""
    node = resolve(node, root)
    rows = []
    if key:
        rows.append({
            "key": key,
            "type": type_text(node, root),
            "default": _value(node["default"]) if "default" in node else None,
            "description": node.get("description", ""),
            "required": required,
        })  # fmt: skip
    prefix = f"{key}." if key else ""
    needed = set(node.get("required", []))
    for name, sub in node.get("properties", {}).items():
        rows += config_rows(sub, root, prefix + name, name in needed)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        rows += config_rows(extra, root, prefix + "<name>")
    for alt in node.get("oneOf", []) + node.get("anyOf", []):
        alt = resolve(alt, root)
        if alt.get("type") == "array" and isinstance(alt.get("items"), dict):
            alt = resolve(alt["items"], root)
        for row in config_rows({k: v for k, v in alt.items() if k != "description"}, root, key):
            if row["key"] != key and all(r["key"] != row["key"] for r in rows):
                rows.append(row)
    for case in node.get("allOf", []):
        if "if" in case and "then" in case:
            add_conditions(rows, case, root, prefix)
    items = node.get("items")
    if node.get("type") == "array" and isinstance(items, dict):
        items = resolve(items, root)
        if "properties" in items:
            rows += config_rows(items, root, key + "[]")[1:]
    return rows


def condition_text(test: dict) -> str:
    """``if: {properties: {kind: {const: gpt2}}}`` as "with `kind: gpt2`" (HTML)."""
    parts = []
    for name, sub in test.get("properties", {}).items():
        values = [sub["const"]] if "const" in sub else sub.get("enum", [])
        shown = " or ".join(_value(v) for v in values)
        parts.append(f"<code>{html.escape(name)}: {html.escape(shown)}</code>")
    return "with " + " and ".join(parts)


def add_conditions(rows: list[dict], case: dict, root: dict, prefix: str) -> None:
    """The keys an ``if``/``then`` case requires, and the defaults and descriptions it sets,
    as notes on the rows of those keys (a key only the case names gets a row of its own)."""
    when = condition_text(case["if"])
    then = case["then"]
    notes: dict[str, list[str]] = {}
    for name in then.get("required", []):
        notes.setdefault(name, []).append("required")
    for name, sub in then.get("properties", {}).items():
        sub = resolve(sub, root)
        if "default" in sub:
            notes.setdefault(name, []).append(
                f"default <code>{html.escape(_value(sub['default']))}</code>"
            )
        if sub.get("description"):
            notes.setdefault(name, []).append(inline(sub["description"]))
    for name, parts in notes.items():
        key = prefix + name
        row = next((r for r in rows if r["key"] == key), None)
        if row is None:
            row = {"key": key, "type": "", "default": None, "description": "",
                   "required": False}  # fmt: skip
            rows.append(row)
        row.setdefault("conditions", []).append(f"<em>{when}</em>: " + "; ".join(parts))


def _default_cell(default: str | None) -> str:
    if default is None:
        return ""
    code = f"<code>{html.escape(default)}</code>"
    if len(default) <= LONG_DEFAULT:
        return code
    return f"<details><summary>{len(default)} characters</summary>{code}</details>"


def config_reference(schema: dict) -> str:
    """The configuration reference: a section per top-level key of ``schema`` (HTML tables)."""
    out = []
    needed = set(schema.get("required", []))
    for block, sub in schema["properties"].items():
        sub = resolve(sub, schema)
        rows = config_rows(sub, schema, block, block in needed)
        top, rows = rows[0], rows[1:]
        state = "required" if top["required"] else "optional"
        out.append(f"## `{block}`\n")
        out.append(f"<p>{inline(top['description'])} <em>({state}; {top['type']}"
                   + (f"; default <code>{html.escape(top['default'])}</code>"
                      if top["default"] is not None else "") + ")</em></p>\n")  # fmt: skip
        if not rows:
            continue
        lines = ['<table class="config-reference">',
                 "<thead><tr><th>key</th><th>type</th><th>default</th><th>description</th>"
                 "</tr></thead><tbody>"]  # fmt: skip
        for row in rows:
            anchor = "config-" + re.sub(r"[^A-Za-z0-9_.-]", "_", row["key"])
            req = " <em>(required)</em>" if row["required"] else ""
            lines.append(
                f'<tr id="{anchor}"><td><code>{html.escape(row["key"])}</code>{req}</td>'
                f"<td>{row['type']}</td><td>{_default_cell(row['default'])}</td>"
                f"<td>{inline(row['description'])}"
                + "".join(f"<br>{c}" for c in row.get("conditions", []))
                + "</td></tr>"
            )
        lines.append("</tbody></table>\n")
        out.append("\n".join(lines))
    return "\n".join(out)


# --------------------------------------------------------------------------- tables from files
def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (cells are inserted as given)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def runtime_table(path: Path) -> str:
    """``runtime.csv`` (rule, jobs, seconds, max_seconds, max_rss_mb) as a Markdown table, with
    the sum of the rules' job-seconds below it."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    header = ["rule", "jobs", "wall s (all jobs)", "longest job s", "peak RSS MB"]
    body = [[f"`{r['rule']}`", r["jobs"], r["seconds"], r["max_seconds"], r["max_rss_mb"]]
            for r in rows]  # fmt: skip
    total = sum(float(r["seconds"]) for r in rows)
    jobs = sum(int(r["jobs"]) for r in rows)
    return (markdown_table(header, body)
            + f"\n{len(rows)} rules, {jobs} jobs, {total:,.0f} job-seconds in all (the sum of "
            "the column; jobs that ran side by side overlap in wall time).\n")  # fmt: skip


def index_bench(path: Path) -> str:
    """The tables and target lines that ``benchmarks/index_bench.py`` recorded in its JSON
    output, after the command and the machine facts it recorded."""
    data = json.loads(path.read_text())
    env = data.get("environment", {})
    facts = ", ".join(f"{k} {v}" for k, v in env.items() if v is not None)
    out = [f"Recorded by `python benchmarks/{' '.join(data['command'])}` "
           f"(in `{path.relative_to(ROOT)}`): {facts}.\n"]  # fmt: skip
    for name, table in data["tables"].items():
        out.append(f"**{name}**\n\n{table}\n")
    if data.get("targets"):
        out.append(_bench_module("index_bench").target_lines(data["targets"]) + "\n")
    return "\n".join(out)


def _bench_module(name: str):
    """The script ``benchmarks/NAME.py`` as a module (its own formatting of what it printed)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def other_figures(markdown: str, folder: Path) -> str:
    """Links to every figure of ``folder`` that ``markdown`` does not show already."""
    shown = set(re.findall(r"\(figures/([^)]+\.png)\)", markdown))
    rest = [p for p in sorted(folder.glob("*.png")) if p.name not in shown]
    links = ", ".join(f"[`{p.stem}`](figures/{p.name})" for p in rest)
    return f"More figures of the same run: {links}.\n" if rest else ""


# --------------------------------------------------------------------------- output → code map
def _qualified(obj) -> str | None:
    """``module.function`` of a function or class object, else None."""
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{name}" if module and name and callable(obj) else None


def _callee(call: ast.Call, module) -> str | None:
    """The qualified name of what ``call`` calls in ``module``: a function of the module or one
    it imports (``name(...)``), or a function of a module it holds under a name (``fig.x(...)``,
    a lazy module included); None for anything else."""
    import importlib

    func = call.func
    if isinstance(func, ast.Name):
        return _qualified(getattr(module, func.id, None))
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        from copyscope.lazy import LazyModule

        holder = getattr(module, func.value.id, None)
        lazy = isinstance(holder, LazyModule)
        target = holder._name if lazy else getattr(holder, "__name__", None)
        if isinstance(target, str) and target.startswith("copyscope."):
            return _qualified(getattr(importlib.import_module(target), func.attr, None))
    return None


WRITERS = {"copyscope.io.write_csv", "copyscope.io.write_text", "copyscope.io.write_json"}
NOT_PRODUCERS = {"copyscope.report.figures.not_measured"}  # the figure of an empty run


def _assignments(fn: ast.FunctionDef, module) -> tuple[dict, dict]:
    """In function ``fn``: variable → the function its value was computed by (``x = f(...)``,
    ``a, b = f(...)``), and (dict variable, key) → the same for its entries (``d["k"] =
    f(...)`` or ``d = {"k": x}``)."""
    names: dict[str, str] = {}
    keyed: dict[tuple[str, str], str] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            value = node.value
            callee = _callee(value, module) if isinstance(value, ast.Call) else None
            if isinstance(value, ast.Name):
                callee = names.get(value.id)
            if callee:
                for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(t, ast.Name):
                        names[t.id] = callee
                    elif (
                        isinstance(t, ast.Subscript)
                        and isinstance(t.value, ast.Name)
                        and isinstance(t.slice, ast.Constant)
                    ):
                        keyed[(t.value.id, t.slice.value)] = callee
            if isinstance(node.value, ast.Dict) and isinstance(target, ast.Name):
                for k, v in zip(node.value.keys, node.value.values, strict=True):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Name) and v.id in names:
                        keyed[(target.id, k.value)] = names[v.id]
    return names, keyed


def _loops(fn: ast.FunctionDef) -> dict[str, set[str]]:
    """Loop variable → the dict variables it runs over (``for k, v in d.items()``)."""
    loops: dict[str, set[str]] = {}
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr == "items"
            and isinstance(node.iter.func.value, ast.Name)
            and isinstance(node.target, ast.Tuple)
            and isinstance(node.target.elts[0], ast.Name)
        ):
            loops.setdefault(node.target.elts[0].id, set()).add(node.iter.func.value.id)
    return loops


def output_producers(module) -> dict[str, str]:
    """Output name → the function that computes it, read from the source of an analysis
    module: where ``out[NAME]`` is passed to a figure or table function, that function; where
    it is passed to a writer (``write_csv(out["t"], frame)``), the function ``frame`` (or the
    dict entry the loop writes) was computed by in the same function, else the function that
    writes it. A key may be a constant, a loop over a dict's items or an f-string prefix."""
    import inspect

    tree = ast.parse(inspect.getsource(module))
    keys = list(getattr(module, "OUTPUTS", {}))
    found: dict[str, str] = {}
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        names, keyed = _assignments(fn, module)
        loops = _loops(fn)
        for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
            callee = _callee(call, module)
            if callee in NOT_PRODUCERS:
                continue
            for arg in call.args:
                if not (
                    isinstance(arg, ast.Subscript)
                    and isinstance(arg.value, ast.Name)
                    and arg.value.id == "out"
                ):
                    continue
                key = arg.slice
                if isinstance(key, ast.Constant):
                    named = {key.value: None}
                elif isinstance(key, ast.Name) and key.id in loops:
                    named = {k: keyed[(d, k)] for d, k in keyed if d in loops[key.id]}
                elif isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                    named = {k: None for k in keys if k.startswith(key.values[0].value)}
                else:
                    continue
                for name, entry in named.items():
                    producer = callee
                    if producer in WRITERS or producer is None:
                        data = [a.id for a in call.args if isinstance(a, ast.Name)]
                        producer = entry or next(
                            (names[d] for d in data if d in names),
                            f"{module.__name__}.{fn.name}",
                        )
                    found.setdefault(name, producer)
    return found


def output_map_rows() -> list[list[str]]:
    """One row per output of an analysis (``copyscope.report.ANALYSES``' declarations): the
    file under the results folder, its rule, its command and the function that computes it."""
    from copyscope.report import analyses
    from copyscope.report.jobs import rule_name

    rows = []
    for module in analyses():
        if getattr(module, "NO_REPORT_JOB", None):
            continue
        producers = output_producers(module)
        for name, out in module.OUTPUTS.items():
            rows.append(
                [
                    f"`{out.path}`",
                    f"`{rule_name(module.NAME)}`",
                    f"`copyscope report {module.NAME}`",
                    f"`{producers.get(name, module.__name__ + '.run')}`",
                ]
            )
    return rows


def output_map() -> str:
    """The output → code map of ``docs/architecture.md`` (a Markdown table)."""
    header = ["output (under `results/`)", "rule", "command", "computed by"]
    return markdown_table(header, output_map_rows())


def generate(name: str, markdown: str = "") -> str:
    """The generated Markdown of marker ``name`` (``markdown``: the page it goes into)."""
    if name == "other-figures":
        return other_figures(markdown, ROOT / "docs" / "figures")
    if name == "config-reference":
        return config_reference(yaml.safe_load(SCHEMA.read_text()))
    if name == "runtime":
        return runtime_table(ROOT / "docs" / "runtime.csv")
    if name == "output-map":
        return output_map()
    if name == "index-bench":
        return index_bench(ROOT / "docs" / "performance" / "index_bench.json")
    if name == "infinigram-bench":
        return index_bench(ROOT / "docs" / "performance" / "infinigram_bench.json")
    raise ValueError(f"unknown generated part {name!r} (a '<!-- generated: NAME -->' marker)")


# --------------------------------------------------------------------------- MkDocs events
def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace every marker line of a page by its generated part."""
    return MARKER.sub(lambda m: generate(m.group(1), markdown), markdown)
