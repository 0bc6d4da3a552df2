"""The column conventions of the written tables (docs/architecture.md, "Interval columns"):
every interval is two columns ``<quantity>_lo`` / ``<quantity>_hi`` beside the column
``<quantity>`` they bound."""

from __future__ import annotations

import ast
from pathlib import Path

OLD_NAMES = ("lo", "hi", "low", "high", "ci_low", "ci_high", "lower", "upper")
"""Interval column names of before (or of other conventions), wrong as a whole name;
``_ci_low`` / ``_ci_high`` are wrong as a suffix too (``bin_low`` of membership_overlap.csv is
a count of the overlap bin "low", not a bound)."""


def interval_problems(columns) -> list[str]:
    """One line per column of ``columns`` (a table's header) that breaks the convention: a bare
    or suffixed old name (:data:`OLD_NAMES`), or a ``<q>_lo`` / ``<q>_hi`` without its partner
    or without the column ``<q>``."""
    cols = [str(c) for c in columns]
    have = set(cols)
    out = []
    for c in cols:
        if c in OLD_NAMES or c.endswith(("_ci_low", "_ci_high")):
            out.append(f"{c}: an interval column is <quantity>_lo / <quantity>_hi")
            continue
        for end, other in (("_lo", "_hi"), ("_hi", "_lo")):
            if c.endswith(end) and len(c) > len(end):
                q = c[: -len(end)]
                missing = [m for m in (q, q + other) if m not in have]
                if missing:
                    out.append(f"{c}: without {' and '.join(missing)}")
    return out


def declared_headers(root: Path) -> dict[str, list[str]]:
    """The table headers declared as module-level literals under ``root``: every assignment to a
    name containing ``COLUMNS`` or named ``EMPTY`` whose value is a list or tuple of strings (or
    a dict of them, one header per key); starred or computed entries are skipped."""

    def strings(node) -> list[str] | None:
        if isinstance(node, (ast.List, ast.Tuple)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return None

    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else getattr(stmt, "target", None)
            if not isinstance(target, ast.Name) or getattr(stmt, "value", None) is None:
                continue
            if "COLUMNS" not in target.id and target.id != "EMPTY":
                continue
            where = f"{path.relative_to(root)}:{target.id}"
            if (cols := strings(stmt.value)) is not None:
                found[where] = cols
            elif isinstance(stmt.value, ast.Dict):
                for k, v in zip(stmt.value.keys, stmt.value.values, strict=True):
                    if isinstance(k, ast.Constant) and (cols := strings(v)) is not None:
                        found[f"{where}[{k.value}]"] = cols
    return found
