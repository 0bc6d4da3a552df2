"""Config files read strictly: a byte that is not UTF-8, a YAML error, a key written twice in
one mapping or a key that is not text, each named ``FILE:LINE``; ``--config`` overrides typed
as in a file; problems located at the line of their key."""

from __future__ import annotations

from pathlib import Path

import yaml

from .schema import ConfigErrors, key_of, shown


# --------------------------------------------------------------------------- config files
def _scalar(text: str):
    """A ``--config`` scalar as YAML types it ('100' -> 100, 'true' -> True, 'null' -> None);
    text that YAML reads as anything but a scalar stays as it is."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (int, float, bool, type(None), str)) else text


def typed_overrides(overrides) -> dict:
    """The mappings and lists of Snakemake's ``--config`` entries with their scalars typed as
    in a config file: Snakemake reads ``--config index='{shard_tokens: 100}'`` with YAML's
    BaseLoader, which keeps every scalar a string ('100'). Top-level scalars (typed by
    Snakemake itself) are left out."""

    def retype(value):
        if isinstance(value, dict):
            return {k: retype(v) for k, v in value.items()}
        if isinstance(value, list):
            return [retype(v) for v in value]
        return _scalar(value) if isinstance(value, str) and value else value

    return {k: retype(v) for k, v in dict(overrides).items() if isinstance(v, (dict, list))}


def _key_lines(node, path=()) -> dict[str, int]:
    """Dotted config key -> 1-based line of its key in a composed YAML mapping."""
    out = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = (*path, key.value)
            out[key_of(sub)] = key.start_mark.line + 1
            out.update(_key_lines(value, sub))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[key_of((*path, i))] = item.start_mark.line + 1
            out.update(_key_lines(item, (*path, i)))
    return out


def _line_of(key: str, lines: dict[str, int]) -> int | None:
    """The line of ``key`` or of its nearest parent in the file (a missing key: its block)."""
    while key:
        if key in lines:
            return lines[key]
        key = key.rpartition(".")[0]
    return None


def duplicate_keys(node, where: str, path=()) -> list:
    """An :class:`~copyscope.errors.InputError` ``FILE:LINE`` for every key written twice in
    one mapping of a composed YAML document, at any depth (YAML itself keeps the last one
    silently: a block pasted at the end of a config replaced the first), and for every key
    that is not text (``true:``, ``1:``: no config key is)."""
    from ..errors import InputError

    out = []
    if isinstance(node, yaml.MappingNode):
        first: dict = {}
        for key, value in node.value:
            line = key.start_mark.line + 1
            if key.tag != "tag:yaml.org,2002:str":  # true:, 1:, null:, [a]: …
                what = repr(key.value) if isinstance(key, yaml.ScalarNode) else "a " + (
                    "list" if isinstance(key, yaml.SequenceNode) else "mapping"
                )
                out.append(
                    InputError(
                        f"{where}:{line}",
                        f"config key '{key_of(path)}': expected names (text) as keys, found the "
                        f"key {what} (quote it)",
                    )
                )
                continue
            sub = (*path, key.value)
            if key.value in first:
                out.append(
                    InputError(
                        f"{where}:{line}",
                        f"config key '{key_of(sub)}': expected once in its mapping, found it "
                        f"again (first on line {first[key.value]}; YAML would keep only this "
                        "one: merge the two)",
                    )
                )
            first.setdefault(key.value, line)
            out += duplicate_keys(value, where, sub)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out += duplicate_keys(item, where, (*path, i))
    return out


def read_config(path) -> tuple[dict | None, object, list]:
    """The config file ``path`` read strictly: ``(mapping or None, composed YAML node or None,
    problems)``, ``problems`` one :class:`~copyscope.errors.InputError` naming ``FILE:LINE``
    each: a missing file, every line with a byte that is not UTF-8 (the rest is still read),
    a YAML syntax error or a control character, an empty file or one that is not a mapping,
    every duplicate key and every key that is not text (:func:`duplicate_keys`)."""
    from ..errors import InputError
    from ..io import read_lines

    path = Path(path)
    if not path.is_file():
        what = "a folder" if path.is_dir() else "nothing there"
        return None, None, [InputError(path, f"expected a config file (YAML), found {what}")]
    data = path.read_bytes()
    problems = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            read_lines(path, blank=True)
        except InputError as exc:
            problems += getattr(exc, "problems", [exc])
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    loader = None
    try:
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
        config = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as exc:  # a control character (NUL …) YAML does not allow
        line = text[: exc.position].count("\n") + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        what = f"expected YAML text, found the control character #x{char:04x}"
        return None, None, [*problems, InputError(f"{path}:{line}", what)]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, None, [*problems, InputError(where, f"expected valid YAML, found a syntax "
                                                         f"error ({problem})")]  # fmt: skip
    finally:
        if loader is not None:
            loader.dispose()
    if config is None:
        problems.append(InputError(path, "expected a mapping of config keys, found an empty file"))
    elif not isinstance(config, dict):
        problems.append(
            InputError(f"{path}:1", f"expected a mapping of config keys, found {shown(config)}")
        )
        config = None
    keys = duplicate_keys(node, str(path))
    if any("expected names (text) as keys" in str(p) for p in keys):
        config = None  # no config key is other than text: nothing to validate
    return config, node, problems + keys


def load_file(path) -> dict:
    """The config file ``path`` as a mapping; a missing, empty, non-UTF-8, non-YAML or
    non-mapping file, or one with a key written twice in a mapping, is an
    :class:`InputError` naming the file and line (every problem at once,
    :func:`read_config`)."""
    from ..errors import raise_all

    config, _, problems = read_config(path)
    raise_all(problems)
    return config


def load_files(paths) -> None:
    """Read every config file of ``paths`` strictly (:func:`load_file`), each problem of each
    file a line ``FILE:LINE: …``: what the Snakefile does with the files named by
    ``--configfile`` (Snakemake's own loader keeps the last of two equal keys silently)."""
    from ..errors import InputError, raise_all

    problems = []
    for path in paths:
        try:
            load_file(_shown_path(path))
        except InputError as exc:
            problems += getattr(exc, "problems", [exc])
    raise_all(problems)


def _shown_path(path) -> str:
    """``path`` relative to the working directory when it is below it (Snakemake gives the
    ``--configfile`` paths absolute), else as it is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def located(exc: ConfigErrors, path, node) -> list[tuple[str, str, str]]:
    """``(FILE:LINE, key, text)`` of every problem of ``exc``, each at the line of its key
    (or of its nearest parent) in the config file ``path`` composed as ``node``."""
    lines = _key_lines(node)
    out = []
    for key, text in exc.problems:
        line = _line_of(key, lines)
        out.append((f"{path}:{line}" if line else str(path), key, text))
    return out


def located_in_files(exc: ConfigErrors, paths, overridden=()) -> ConfigErrors:
    """``exc`` with each problem at ``FILE:LINE`` of its key (or of its nearest parent) in
    the last of the config files ``paths`` that holds it (:class:`ConfigFileErrors`, the lines
    of ``copyscope config check``), as the workflow reports them; a key under a top-level key
    of ``overridden`` (given with ``--config``) or in no file stays without a place."""
    nodes = []
    for path in paths:
        _, node, problems = read_config(_shown_path(path))
        if node is not None and not problems:
            nodes.append((_shown_path(path), _key_lines(node)))
    out = []
    for key, text in exc.problems:
        where = None
        if key.split(".")[0].split("[")[0] not in overridden:
            exact = [(p, lines[key]) for p, lines in reversed(nodes) if key in lines]
            parent = [(p, _line_of(key, lines)) for p, lines in reversed(nodes)]
            found = exact or [(p, n) for p, n in parent if n]
            where = f"{found[0][0]}:{found[0][1]}" if found else None
        out.append((where, key, text))
    if all(w is None for w, _, _ in out):
        return exc
    return ConfigFileErrors(out)


class ConfigFileErrors(ConfigErrors):
    """Config problems located in their file: one line ``FILE:LINE: config key 'k': text``."""

    def __init__(self, located: list[tuple[str, str, str]]):
        super().__init__([(k, t) for _, k, t in located])
        self.args = (
            "\n".join(f"{w + ': ' if w else ''}config key '{k}': {t}" for w, k, t in located),
        )
