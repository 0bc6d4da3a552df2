"""Model construction and loading: GPT-2 and an LSTM language model, both Hugging Face models.

``build_model`` makes a fresh model from a config spec (``models.<name>`` in the config):

* ``{"kind": "gpt2", "n_layer", "n_embd", "n_head", "n_ctx", ["dropout": 0.1]}`` →
  ``GPT2LMHeadModel(GPT2Config(...))`` (tied input/output embeddings);
* ``{"kind": "lstm", "n_embd", "n_hidden", "n_layer", "n_ctx", ["dropout": 0.1]}`` →
  :class:`LSTMForCausalLM`: embedding → ``n_layer`` LSTM layers of ``n_hidden`` units →
  linear projection to ``n_embd`` → output layer tied to the embedding.

``LSTMForCausalLM`` is a ``PreTrainedModel`` registered with ``AutoConfig`` and
``AutoModelForCausalLM`` (``model_type = "copyscope-lstm"``), so ``save_pretrained`` /
``from_pretrained`` / :func:`load_model` treat it like any other Hugging Face causal LM.
Its recurrent state ``(h, c)`` travels in ``past_key_values``.

Devices: :func:`resolve_device` maps ``"auto"`` to CUDA when available, else CPU. Asking for
``"cuda"`` on a machine without a GPU logs a warning and falls back to the CPU.
Threads: if the environment variable ``COPYSCOPE_TORCH_THREADS`` is set, it is passed to
``torch.set_num_threads``; otherwise torch's default (which honours ``OMP_NUM_THREADS``) is kept.
Sharing: while ``COPYSCOPE_SHARE_MODELS`` is set (:func:`shared_models` sets it for the steps
of one model job, ``copyscope each`` for the commands it runs in one process),
:func:`load_model` keeps the last model it loaded and hands the same objects to the next command that asks for the same file on the same device, instead of reading
it again (a GGUF model is dequantized and its tokenizer converted at every read: about a
minute on a CPU for SmolLM2-135M). Nothing a command does changes a loaded model: every caller
scores or generates in eval mode, and sampling draws from its own seeded generator.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import torch
from torch import nn
from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedConfig,
    PreTrainedModel,
)
from transformers.modeling_outputs import CausalLMOutputWithPast

from ..errors import ConfigError, InputError

log = logging.getLogger(__name__)

THREADS_ENV = "COPYSCOPE_TORCH_THREADS"
# set by ``copyscope each``: load_model keeps its last model for the next command (module doc)
SHARE_ENV = "COPYSCOPE_SHARE_MODELS"
_shared: dict[tuple[str, str], tuple] = {}


@contextlib.contextmanager
def shared_models() -> Iterator[None]:
    """Inside the block, :func:`load_model` hands the model it loaded last to the next caller
    that asks for the same file on the same device (the steps of one model job: sample sets,
    analysed sets, probes); the environment is restored after it."""
    before = os.environ.get(SHARE_ENV)
    os.environ[SHARE_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SHARE_ENV, None)
        else:
            os.environ[SHARE_ENV] = before


# --------------------------------------------------------------------------- LSTM model
class LSTMConfig(PreTrainedConfig):
    """Configuration of :class:`LSTMForCausalLM`."""

    model_type = "copyscope-lstm"
    attribute_map = {"hidden_size": "n_embd", "num_hidden_layers": "n_layer"}

    vocab_size: int = 8192
    n_embd: int = 256
    n_hidden: int = 512
    n_layer: int = 2
    dropout: float = 0.1
    n_ctx: int = 256
    tie_word_embeddings: bool = True
    bos_token_id: int | None = 0
    eos_token_id: int | None = 0
    pad_token_id: int | None = 0


class LSTMForCausalLM(PreTrainedModel):
    """A multi-layer LSTM language model with the Hugging Face model interface.

    ``forward(input_ids, attention_mask=None, past_key_values=None)`` returns a
    ``CausalLMOutputWithPast`` whose ``past_key_values`` is the LSTM state ``(h, c)``, each of
    shape ``(n_layer, batch, n_hidden)``; pass it back to continue the sequences.
    A padded batch must be padded on the right: with an ``attention_mask`` the returned state
    is the state after each row's last real token (the logits of real positions never depend
    on padding).
    """

    config_class = LSTMConfig
    base_model_prefix = "lstm_lm"
    main_input_name = "input_ids"
    _tied_weights_keys = {"lm_head.weight": "embed.weight"}

    def __init__(self, config: LSTMConfig):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        self.lstm = nn.LSTM(
            config.n_embd,
            config.n_hidden,
            config.n_layer,
            batch_first=True,
            dropout=config.dropout if config.n_layer > 1 else 0.0,
        )
        self.proj = nn.Linear(config.n_hidden, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.post_init()

    @torch.no_grad()
    def _init_weights(self, module):
        """Embedding N(0, 1/n_embd) (unit-norm rows), LSTM U(±1/sqrt(n_hidden)) with
        forget-gate bias 1, projection N(0, 1/n_hidden); the output layer is the embedding."""
        from transformers import initialization as init

        cfg = self.config
        if isinstance(module, nn.Embedding):
            init.normal_(module.weight, mean=0.0, std=cfg.n_embd**-0.5)
        elif isinstance(module, nn.LSTM):
            bound = module.hidden_size**-0.5
            h = module.hidden_size
            for name, param in module.named_parameters():
                if name.startswith("weight"):
                    init.uniform_(param, -bound, bound)
                elif name.startswith("bias_ih"):  # gates are ordered i, f, g, o
                    init.copy_(
                        param, torch.cat([torch.zeros(h), torch.ones(h), torch.zeros(2 * h)])
                    )
                else:
                    init.zeros_(param)
        elif isinstance(module, nn.Linear) and module is not self.lm_head:
            init.normal_(module.weight, mean=0.0, std=module.in_features**-0.5)
            if module.bias is not None:
                init.zeros_(module.bias)

    def get_input_embeddings(self):
        return self.embed

    def set_input_embeddings(self, value):
        self.embed = value

    def get_output_embeddings(self):
        return self.lm_head

    def set_output_embeddings(self, value):
        self.lm_head = value

    def forward(
        self,
        input_ids: torch.LongTensor,
        attention_mask: torch.Tensor | None = None,
        past_key_values: tuple[torch.Tensor, torch.Tensor] | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> CausalLMOutputWithPast:
        x = self.drop(self.embed(input_ids))
        state = tuple(past_key_values) if past_key_values is not None else None
        padded = attention_mask is not None and not bool(attention_mask.bool().all())
        if padded:
            mask = attention_mask.long()
            if bool((mask[:, 1:] > mask[:, :-1]).any()):
                raise ValueError("an LSTM batch must be padded on the right")
            lengths = mask.sum(1)
            if bool((lengths == 0).any()):
                raise ValueError("every row of a padded LSTM batch needs at least one token")
            packed = nn.utils.rnn.pack_padded_sequence(
                x, lengths.cpu(), batch_first=True, enforce_sorted=False
            )
            out, state = self.lstm(packed, state)
            out, _ = nn.utils.rnn.pad_packed_sequence(
                out, batch_first=True, total_length=x.shape[1]
            )
        else:
            out, state = self.lstm(x, state)
        logits = self.lm_head(self.proj(self.drop(out)))
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(
                logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                labels[:, 1:].reshape(-1),
                ignore_index=-100,
            )
        return CausalLMOutputWithPast(
            loss=loss, logits=logits, past_key_values=state if use_cache is not False else None
        )


AutoConfig.register(LSTMConfig.model_type, LSTMConfig, exist_ok=True)
AutoModelForCausalLM.register(LSTMConfig, LSTMForCausalLM, exist_ok=True)


# --------------------------------------------------------------------------- building
def config_prefix(spec: dict, name: str | None) -> str:
    """Config key of a model spec in messages: ``models.<name>``, or ``name`` itself when it
    already is a full key (starts with ``models.``, e.g. ``models.zoo.lstm``)."""
    name = name or (spec.get("name") if isinstance(spec, dict) else None)
    if not name:
        return "models.<name>"
    return name if name.startswith("models.") else f"models.{name}"


def _dropout(spec: dict, *keys: str) -> dict:
    """``spec["dropout"]`` under each of ``keys``; none when absent (the model config's own
    default, 0.1, which is also the schema's default)."""
    return {k: float(spec["dropout"]) for k in keys} if "dropout" in spec else {}


def _gpt2(spec: dict, vocab_size: int, eos_id: int):
    config = GPT2Config(
        vocab_size=int(vocab_size),
        n_positions=int(spec["n_ctx"]),
        n_embd=int(spec["n_embd"]),
        n_layer=int(spec["n_layer"]),
        n_head=int(spec["n_head"]),
        bos_token_id=int(eos_id),
        eos_token_id=int(eos_id),
        pad_token_id=int(eos_id),
        **_dropout(spec, "resid_pdrop", "embd_pdrop", "attn_pdrop"),
    )
    return GPT2LMHeadModel(config)


def _lstm(spec: dict, vocab_size: int, eos_id: int):
    config = LSTMConfig(
        vocab_size=int(vocab_size),
        n_embd=int(spec["n_embd"]),
        n_hidden=int(spec["n_hidden"]),
        n_layer=int(spec["n_layer"]),
        n_ctx=int(spec["n_ctx"]),
        bos_token_id=int(eos_id),
        eos_token_id=int(eos_id),
        pad_token_id=int(eos_id),
        **_dropout(spec, "dropout"),
    )
    return LSTMForCausalLM(config)


_BUILDERS = {"gpt2": _gpt2, "lstm": _lstm}


def build_model(spec: dict, vocab_size: int, eos_id: int):
    """A freshly initialised model for ``spec`` (see the module docstring for the kinds).

    ``spec`` is a ``models.zoo`` entry as :func:`copyscope.config.validate` checks it (the
    keys, their bounds, ``n_head`` dividing ``n_embd``). The caller seeds torch beforehand for
    a reproducible init.
    """
    return _BUILDERS[spec["kind"]](spec, vocab_size, eos_id)


# --------------------------------------------------------------------------- devices, threads
def apply_thread_env() -> int:
    """Apply ``COPYSCOPE_TORCH_THREADS`` (if set) to torch; return the thread count in use."""
    value = os.environ.get(THREADS_ENV)
    if value:
        try:
            n = int(value)
            if n < 1:
                raise ValueError
        except ValueError:
            raise ConfigError(THREADS_ENV, f"expected a positive integer, got {value!r}") from None
        if torch.get_num_threads() != n:
            torch.set_num_threads(n)
    return torch.get_num_threads()


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """``"auto"`` → CUDA if available, else CPU; ``"cpu"``; ``"cuda"``/``"cuda:N"``.

    A CUDA device requested on a machine without one is not an error: a warning is logged
    and the CPU is used instead.
    """
    if isinstance(device, torch.device):
        device = str(device)
    if not isinstance(device, str):
        raise ConfigError("device", f"expected auto, cpu or cuda[:N], got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError):
        raise ConfigError("device", f"expected auto, cpu or cuda[:N], got {device!r}") from None
    if dev.type == "cpu":
        return dev
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            log.warning("device %r requested but CUDA is not available: using the CPU", device)
            return torch.device("cpu")
        return dev
    raise ConfigError("device", f"expected auto, cpu or cuda[:N], got {device!r}")


def context_length(model) -> int | None:
    """Maximum number of positions the model accepts (None if it declares no limit).

    ``n_ctx`` for the LSTM (its training length), ``n_positions`` for GPT-2,
    ``max_position_embeddings`` for other Hugging Face models.
    """
    config = model.config
    if isinstance(config, LSTMConfig):
        return int(config.n_ctx)
    for key in ("n_positions", "max_position_embeddings", "n_ctx", "max_sequence_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


# --------------------------------------------------------------------------- loading
_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.json", "tokenizer.model")


def load_model(model_dir, device: str = "auto"):
    """``(model, tokenizer)`` from a trained model directory, any local Hugging Face causal LM,
    or a GGUF model file (``<dir>/<name>.gguf``: weights and tokenizer in one file, read by
    ``transformers``' GGUF loader, which dequantizes the weights; needs the ``gguf`` package).

    Nothing is downloaded (``local_files_only=True``). The model is loaded in float32, moved to
    :func:`resolve_device` ``(device)`` and put in eval mode.
    """
    from ..tokenize import load_hf_tokenizer
    from ..tokenize.hf import is_gguf

    path = Path(model_dir)
    expected = (
        "a trained model directory, a local Hugging Face causal LM directory or a GGUF file"
    )
    if is_gguf(path):
        if not path.is_file():
            raise InputError(path, f"GGUF file not found; expected {expected}")
        where, extra = path.parent, {"gguf_file": path.name}
    else:
        _check_model_dir(path, expected)
        where, extra = path, {}
    apply_thread_env()
    dev = resolve_device(device)
    key = (str(path.resolve()), str(dev))
    if os.environ.get(SHARE_ENV) and key in _shared:
        model, tokenizer = _shared[key]
        model.eval()
        return model, tokenizer
    _shared.clear()
    tokenizer = load_hf_tokenizer(path)
    try:
        model = AutoModelForCausalLM.from_pretrained(
            str(where), local_files_only=True, dtype=torch.float32, **extra
        )
    except Exception as exc:  # transformers raises OSError/ValueError/KeyError variants
        raise InputError(path, f"could not load a causal language model ({exc})") from exc
    model.to(dev)
    model.eval()
    if os.environ.get(SHARE_ENV):
        _shared[key] = (model, tokenizer)
    return model, tokenizer


def _check_model_dir(path: Path, expected: str) -> None:
    """InputError unless ``path`` is a directory with config.json, weights and a tokenizer."""
    if not path.is_dir():
        raise InputError(path, f"directory not found; expected {expected}")
    if not (path / "config.json").is_file():
        raise InputError(path, f"no config.json; expected {expected}")
    if not any((path / f).is_file() for f in _WEIGHT_FILES):
        raise InputError(
            path, f"no model weights ({', '.join(_WEIGHT_FILES)}); expected {expected}"
        )
    if not any((path / f).is_file() for f in _TOKENIZER_FILES):
        raise InputError(
            path, f"no tokenizer files ({', '.join(_TOKENIZER_FILES)}); expected {expected}"
        )
