"""Loading a gpt-oss checkpoint, with a sensible device and dtype, and saying what was chosen.

Order of choice: CUDA when present, else CPU. MXFP4 checkpoints (the released
``openai/gpt-oss-20b`` / ``-120b``) keep their MXFP4 weights where the GPU (compute
capability ≥ 7.5), Triton ≥ 3.4 and the ``kernels`` package allow, and are dequantized to
bf16 otherwise. Unquantized checkpoints load in bf16 on a GPU and in fp32 on CPU when small
(fp32 is the fast CPU path; a big model on CPU stays bf16 to halve its memory).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz.extras import require

# Above this many parameters a model "needs a GPU": running it on CPU takes minutes per
# token and tens of GB of RAM, so it is only done when asked for with device="cpu".
GPU_REQUIRED_PARAMS = 3_000_000_000

_DTYPES = ("auto", "bfloat16", "float16", "float32")


class ModelLoadError(RuntimeError):
    """The model could not be loaded: bad path, not gpt-oss, no GPU…; the message says what to do."""


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A loaded ``GptOssForCausalLM`` and how it was loaded (written into each run's metadata)."""

    model: Any
    name: str
    device: str
    dtype: str
    kernels: str
    parameters: int

    def describe(self) -> dict[str, Any]:
        """The loading facts as run metadata (device, dtype, kernels, library versions)."""
        import torch
        import transformers

        return {
            "dtype": self.dtype,
            "kernels": self.kernels,
            "parameters": self.parameters,
            "attn_implementation": getattr(self.model.config, "_attn_implementation", None),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }


def estimate_parameters(config: Any) -> int:
    """Parameter count of a gpt-oss config, from its shapes (no weights needed)."""
    h = int(config.hidden_size)
    vocab = int(config.vocab_size)
    inter = int(config.intermediate_size)
    experts = int(config.num_local_experts)
    heads = int(config.num_attention_heads)
    kv = int(config.num_key_value_heads)
    head_dim = int(getattr(config, "head_dim", None) or h // heads)
    attention = h * head_dim * (heads + 2 * kv) + heads * head_dim * h
    mlp = experts * (h * 2 * inter + inter * h) + h * experts
    embeddings = vocab * h * (1 if getattr(config, "tie_word_embeddings", False) else 2)
    return embeddings + int(config.num_hidden_layers) * (attention + mlp)


def load_model(model: str | os.PathLike[str], *, device: str = "auto", dtype: str = "auto", progress: bool = True) -> LoadedModel:
    """Load a gpt-oss checkpoint by hub id (``openai/gpt-oss-20b``) or local folder.

    ``device`` is ``auto`` (CUDA if available, else CPU), ``cuda``, ``cuda:N`` or ``cpu``;
    ``dtype`` is ``auto`` or a torch dtype name; ``progress`` False hides transformers'
    loading bars. Raises ``ModelLoadError`` with a one-line
    reason for an unknown path, a non-gpt-oss checkpoint, or a large model with no GPU.
    """
    torch = require("torch")
    transformers = require("transformers")
    name = str(model)
    if dtype not in _DTYPES:
        raise ModelLoadError(f"unknown dtype {dtype!r}; expected one of {', '.join(_DTYPES)}")
    source = _resolve(name)
    try:
        config = transformers.AutoConfig.from_pretrained(source)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"cannot read a model config from {name!r} ({_first_line(exc)}); pass a folder written by "
            f"`harmony-viz make-tiny-model DIR` or save_pretrained, or a hub id such as openai/gpt-oss-20b"
        ) from None
    model_type = getattr(config, "model_type", None)
    if model_type != "gpt_oss":
        raise ModelLoadError(
            f"{name!r} is a {model_type!r} checkpoint, not gpt-oss (model_type 'gpt_oss'); "
            f"the recorder drives GptOssForCausalLM models such as openai/gpt-oss-20b"
        )
    params = estimate_parameters(config)
    dev = _choose_device(torch, device, name, params)
    quant = getattr(config, "quantization_config", None)
    quant_method = quant.get("quant_method") if isinstance(quant, dict) else getattr(quant, "quant_method", None)
    kwargs: dict[str, Any] = {}
    if str(quant_method).lower().endswith("mxfp4"):
        if dev.startswith("cuda") and _mxfp4_kernels_usable(torch):
            kernels, torch_dtype = "mxfp4 (triton kernels)", torch.bfloat16
        else:
            kwargs["quantization_config"] = transformers.Mxfp4Config(dequantize=True)
            kernels, torch_dtype = "bf16 (dequantized from mxfp4)", torch.bfloat16
    else:
        torch_dtype = _choose_dtype(torch, dtype, dev, params)
        kernels = f"{_dtype_name(torch_dtype)} (unquantized)"
    try:
        with _quiet(transformers, not progress):
            loaded = transformers.GptOssForCausalLM.from_pretrained(
                source, dtype=torch_dtype, device_map=dev if dev != "cpu" else None, **kwargs
            )
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelLoadError(f"loading {name!r} failed: {_first_line(exc)}") from None
    if dev == "cpu":
        loaded = loaded.to("cpu")
    loaded.eval()
    actual_dtype = _dtype_name(next(loaded.parameters()).dtype)
    return LoadedModel(loaded, name, dev, actual_dtype, kernels, params)


@contextlib.contextmanager
def _quiet(transformers: Any, quiet: bool) -> Iterator[None]:
    """Hide transformers' progress bars for the duration (its setting is global)."""
    logging = transformers.utils.logging
    was_enabled = logging.is_progress_bar_enabled()
    if quiet and was_enabled:
        logging.disable_progress_bar()
    try:
        yield
    finally:
        if quiet and was_enabled:
            logging.enable_progress_bar()


def _resolve(name: str) -> str:
    """A local folder as a path string; a hub id as given; a path-looking name that is missing → error."""
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    if path.exists():
        raise ModelLoadError(f"{name!r} is a file; pass the checkpoint folder (with config.json) or a hub id")
    looks_local = name.startswith((".", "/", "~")) or name.count("/") != 1 or os.sep != "/" and os.sep in name
    if looks_local:
        raise ModelLoadError(
            f"no model folder {name!r}; create one with `harmony-viz make-tiny-model {name}` "
            f"or pass a hub id such as openai/gpt-oss-20b"
        )
    return name


def _choose_device(torch: Any, device: str, name: str, params: int) -> str:
    has_cuda = torch.cuda.is_available()
    if device == "auto":
        if has_cuda:
            return "cuda"
        if params > GPU_REQUIRED_PARAMS:
            raise ModelLoadError(
                f"{name!r} has about {params / 1e9:.0f}B parameters and needs a CUDA GPU, but none is visible "
                f"(torch.cuda.is_available() is False); pass --device cpu to run it on CPU anyway (very slow)"
            )
        return "cpu"
    if device.startswith("cuda"):
        if not has_cuda:
            raise ModelLoadError(f"device {device!r} asked for, but no CUDA GPU is visible; use --device cpu or auto")
        return device
    if device == "cpu":
        return "cpu"
    raise ModelLoadError(f"unknown device {device!r}; expected auto, cpu, cuda or cuda:N")


def _choose_dtype(torch: Any, dtype: str, device: str, params: int) -> Any:
    if dtype != "auto":
        return getattr(torch, dtype)
    if device != "cpu" or params > GPU_REQUIRED_PARAMS:
        return torch.bfloat16
    return torch.float32


def _mxfp4_kernels_usable(torch: Any) -> bool:
    """The same conditions transformers checks before keeping MXFP4 weights on a GPU."""
    from transformers.utils.import_utils import is_kernels_available, is_triton_available

    return torch.cuda.get_device_capability() >= (7, 5) and is_triton_available("3.4.0") and is_kernels_available()


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
