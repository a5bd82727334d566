"""The tiny model's Hugging Face tokenizer: the same ids as tiktoken's o200k_harmony, specials included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from harmony_viz.tiny import make_tiny_model, merge_of  # noqa: E402
from harmony_viz.tokens import SPECIAL_TOKENS, encoding  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture(scope="module")
def hf_tokenizer(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    import transformers

    folder = make_tiny_model(tmp_path_factory.mktemp("tok") / "model")
    return transformers.AutoTokenizer.from_pretrained(str(folder))


def test_every_special_token_has_tiktokens_id(hf_tokenizer) -> None:  # noqa: ANN001
    assert len(SPECIAL_TOKENS) == 1090
    wrong = [(t.literal, t.id, hf_tokenizer.convert_tokens_to_ids(t.literal)) for t in SPECIAL_TOKENS
             if hf_tokenizer.convert_tokens_to_ids(t.literal) != t.id]
    assert wrong == []
    for t in SPECIAL_TOKENS:
        assert hf_tokenizer.encode(t.literal, add_special_tokens=False) == [t.id]
        assert hf_tokenizer.decode([t.id]) == t.literal


def _texts() -> list[str]:
    texts = [
        "Hello  world!\n\n  indented\tTab\r\nCRLF",
        "I'm sure it's what they'd've said: 1234567 + 89 = ?",
        "日本語のテキスト, émigré, 🤖🎉, Ωmega",
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
        "<|reserved_200013|> literal <|return|>text",
        "    trailing spaces   \n\n\n",
    ]
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.suffix in (".txt", ".md", ".jsonl", ".json"):
            texts.append(path.read_text(encoding="utf-8", errors="replace")[:50_000])
    return texts


def test_text_encodes_to_the_same_ids(hf_tokenizer) -> None:  # noqa: ANN001
    enc = encoding()
    texts = _texts()
    assert len(texts) > 6, "the shared corpus should be there"
    for text in texts:
        ids = enc.encode(text, allowed_special="all")
        assert hf_tokenizer.encode(text, add_special_tokens=False) == ids, text[:80]
        assert hf_tokenizer.decode(ids) == text


def test_the_model_folder_is_small_and_servable(hf_tokenizer, tmp_path_factory: pytest.TempPathFactory) -> None:  # noqa: ANN001
    folder = Path(hf_tokenizer.name_or_path)
    config = json.loads((folder / "config.json").read_text())
    assert config["head_dim"] == 64
    assert (folder / "model.safetensors").stat().st_size < 60_000_000
    # older transformers (vLLM pins its own) must find the class
    assert json.loads((folder / "tokenizer_config.json").read_text())["tokenizer_class"] == "PreTrainedTokenizerFast"


def test_merges_are_rebuilt_from_ranks() -> None:
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4, b"bc": 5}
    assert merge_of(ranks, b"abc", 4) == (b"ab", b"c")
    with pytest.raises(ValueError, match="not a merge"):
        merge_of({b"a": 0, b"b": 1, b"c": 2, b"abc": 3}, b"abc", 3)
