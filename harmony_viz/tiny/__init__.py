"""The tiny random gpt-oss model that the recorder and the replay servers run offline.

- ``make_tiny_model(DIR)``: a ``GptOssForCausalLM`` with the real vocabulary and a Hugging Face
  tokenizer whose ids equal tiktoken's (vLLM serves it);
- ``make_gguf(DIR, OUT, converter=…)``: the same weights as a GGUF for llama.cpp, converted by
  llama.cpp's own ``convert_hf_to_gguf.py``;
- ``gguf_tokens(OUT, gguf_py=…)``: the vocabulary a GGUF carries, to check its special ids.

>>> from harmony_viz.tiny import make_tiny_model
>>> make_tiny_model("tiny")   # doctest: +SKIP
"""

from harmony_viz.tiny._gguf import gguf_tokens, make_gguf
from harmony_viz.tiny._model import HEAD_DIM, PAD_ID, make_tiny_model
from harmony_viz.tiny._tokenizer import build_tokenizer_json, merge_of, write_tokenizer

__all__ = ["HEAD_DIM", "PAD_ID", "build_tokenizer_json", "gguf_tokens", "make_gguf", "make_tiny_model", "merge_of", "write_tokenizer"]
