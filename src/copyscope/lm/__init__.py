"""Language-model stage: train small LMs, score text, and generate continuations.

* :func:`build_model` / :func:`load_model` — GPT-2 or LSTM models from a config spec, or any
  local Hugging Face causal LM (Pythia, GPT-2 …); all are Hugging Face ``PreTrainedModel``\\ s.
* :func:`train_model` — seeded, deterministic training from tokenized documents (each
  preceded by the eos id) with AdamW, warm-up + cosine decay and optional bf16 autocast;
  the model and its tokenizer are saved atomically; with ``train.checkpoints`` the weights at
  log-spaced steps are kept and an interrupted training resumes from its last checkpoint with
  the same bytes (:mod:`copyscope.lm.checkpoints`: :func:`read_checkpoints`,
  :func:`load_checkpoint`).
* :func:`token_logprobs`, :func:`perplexity` — per-token natural-log probabilities given eos
  (and an optional unscored context), batched with padding; :func:`token_moments` adds, from
  the same forward pass, the mean and variance of the next-token distribution's
  log-probabilities at every token (Min-K%++).
* :func:`generate` — sampling (temperature/top-k/top-p), greedy and beam search, implemented
  here with cached state, at most ``max_new_tokens`` per prompt (a generation ends at its
  first eos, which is not recorded), with the untempered log-probability of every generated
  token.

The eos id (``<|endoftext|>``, id 0 for the project's BPE) marks document starts in training
and precedes every scored sequence and every prompt.
"""

from .checkpoints import load_checkpoint, read_checkpoints
from .decode import generate
from .models import (
    LSTMConfig,
    LSTMForCausalLM,
    apply_thread_env,
    build_model,
    context_length,
    load_model,
    resolve_device,
    shared_models,
)
from .score import perplexity, token_logprobs, token_moments
from .train import train_model

__all__ = [
    "LSTMConfig",
    "LSTMForCausalLM",
    "apply_thread_env",
    "build_model",
    "context_length",
    "generate",
    "load_checkpoint",
    "load_model",
    "perplexity",
    "read_checkpoints",
    "resolve_device",
    "shared_models",
    "token_logprobs",
    "token_moments",
    "train_model",
]
