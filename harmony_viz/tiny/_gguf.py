"""The tiny model as a GGUF, converted by llama.cpp's own ``convert_hf_to_gguf.py``.

llama.cpp's gpt-oss loader needs an ``output.weight`` tensor, which a model with tied
embeddings does not have: we save an untied copy (``lm_head`` = a clone of the embedding
table) and convert that. The converter runs in this Python (it needs numpy, torch,
transformers and safetensors, as the ``record`` extra has) and finds its ``gguf-py`` beside
itself, so the GGUF writer is always the one of the tree that serves it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harmony_viz.extras import require

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json")


def _untied_copy(model_dir: Path, out: Path) -> None:
    torch = require("torch")
    transformers = require("transformers")
    logging = transformers.utils.logging
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # bars for one small shard are noise
    try:
        model = transformers.GptOssForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
        model.config.tie_word_embeddings = False
        model.lm_head.weight = torch.nn.Parameter(model.get_input_embeddings().weight.detach().clone())
        model.save_pretrained(str(out))
    finally:
        if enabled:
            logging.enable_progress_bar()
    for name in TOKENIZER_FILES:
        if (model_dir / name).is_file():
            shutil.copy2(model_dir / name, out / name)


def make_gguf(model_dir: str | os.PathLike[str], out: str | os.PathLike[str], *, converter: str | os.PathLike[str], timeout: float = 600.0) -> Path:
    """Convert the tiny model in ``model_dir`` to the f32 GGUF ``out`` with ``converter`` (a ``convert_hf_to_gguf.py``).

    Raises RuntimeError with the converter's last lines when it fails.
    """
    model_dir, out, converter = Path(model_dir), Path(out), Path(converter)
    if not converter.is_file():
        raise FileNotFoundError(f"{converter}: no such converter (llama.cpp's convert_hf_to_gguf.py)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tiny-untied-") as tmp:
        _untied_copy(model_dir, Path(tmp))
        partial = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        env = {k: v for k, v in os.environ.items() if k != "NO_LOCAL_GGUF"}
        proc = subprocess.run([sys.executable, str(converter), tmp, "--outfile", str(partial), "--outtype", "f32"],
                              capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
        if proc.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"convert_hf_to_gguf.py failed (exit {proc.returncode}):\n{tail}")
        partial.replace(out)  # atomic: a parallel maker never loads half a file
    return out


def gguf_tokens(path: str | os.PathLike[str], *, gguf_py: str | os.PathLike[str]) -> list[str]:
    """The token strings of a GGUF's vocabulary, in id order, read with the tree's own ``gguf-py`` reader."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import gguf; r = gguf.GGUFReader(sys.argv[2]); "
            "f = r.fields['tokenizer.ggml.tokens']; "
            "print(json.dumps([bytes(f.parts[i]).decode('utf-8', 'replace') for i in f.data]))")
    proc = subprocess.run([sys.executable, "-c", code, str(gguf_py), str(path)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot read {path}: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
    import json

    return json.loads(proc.stdout)
