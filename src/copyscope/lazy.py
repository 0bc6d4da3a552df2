"""Modules imported at their first use: the workflow imports every report module to read its
declaration (NAME, INPUTS, OUTPUTS, PARAMS) on each Snakemake start, and on a cluster once per
job, so a plotting or statistics library is imported only by the job that uses it."""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands for module ``name``: the first attribute read imports it
    (:func:`importlib.import_module`, so its parent packages too) and reads from it."""

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str):
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> LazyModule:
    """A :class:`LazyModule` for module ``name`` (absolute)."""
    return LazyModule(name)
