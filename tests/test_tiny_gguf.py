"""The tiny model as a GGUF, converted by llama.cpp's own converter: every special token keeps tiktoken's id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from harmony_viz.servers.engines.llama_cpp import llama_tree  # noqa: E402
from harmony_viz.tiny import gguf_tokens, make_gguf, make_tiny_model  # noqa: E402
from harmony_viz.tokens import N_VOCAB, SPECIAL_TOKENS  # noqa: E402

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def gguf(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    src = llama_tree() / "src"
    if not (src / "convert_hf_to_gguf.py").is_file():
        why = f"no llama.cpp tree in {src}: run scripts/install-llama-cpp.sh"
        if os.environ.get("HARMONY_VIZ_REQUIRE_SERVER") == "1":
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    root = tmp_path_factory.mktemp("gguf")
    out = make_gguf(make_tiny_model(root / "hf"), root / "tiny.gguf", converter=src / "convert_hf_to_gguf.py")
    return out, gguf_tokens(out, gguf_py=src / "gguf-py")


def test_every_special_token_id_in_the_gguf_is_tiktokens(gguf) -> None:  # noqa: ANN001
    _, tokens = gguf
    assert len(tokens) == N_VOCAB
    wrong = [(t.literal, t.id, tokens[t.id]) for t in SPECIAL_TOKENS if tokens[t.id] != t.literal]
    assert not wrong, wrong[:5]


def test_a_tied_model_gets_an_output_tensor(gguf) -> None:  # noqa: ANN001
    path, _ = gguf
    with path.open("rb") as f:
        header = f.read(64 << 20)  # tensor infos (names, shapes) come after the vocabulary, before the data
    assert b"output.weight" in header and b"token_embd.weight" in header
    with pytest.raises(FileNotFoundError, match="no such converter"):
        make_gguf(path.parent / "hf", path.parent / "x.gguf", converter=path.parent / "missing.py")
