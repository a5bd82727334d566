"""The o200k_harmony encoding and the special-token table, against tiktoken and openai-harmony."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harmony_viz.tokens import SPECIAL_SPELLINGS, SPECIAL_TOKENS, encoding, special_by_id, special_by_literal, special_spellings_in


def test_encoding_is_loaded_once(enc):
    assert encoding() is enc


def test_encoding_matches_reference_on_text(enc, reference_encoding):
    text = "<|start|>assistant<|channel|>analysis<|message|>Größe 42 — ok 🚀<|end|>"
    assert enc.encode(text, allowed_special="all") == reference_encoding.encode(text, allowed_special="all")
    assert enc.n_vocab == 201088


def test_special_table_agrees_with_reference(reference_encoding):
    reference = reference_encoding.special_tokens_set
    ours = {t.literal for t in SPECIAL_TOKENS}
    # openai-harmony 0.0.8 also knows <|reserved_201088|>, one past the model's 201,088-row
    # embedding (ids 0..201087) and past tiktoken's o200k_harmony; a model cannot emit it.
    assert set(reference) - ours == {"<|reserved_201088|>"}
    assert ours <= set(reference)
    for token in SPECIAL_TOKENS:
        assert reference_encoding.encode(token.literal, allowed_special="all") == [token.id]


def _tiktoken_o200k_harmony_specials(tmp_path) -> dict[str, int]:
    """tiktoken's own o200k_harmony special tokens, built offline: its cache is filled with the vocabulary file."""
    import hashlib
    import shutil

    from tiktoken_ext import openai_public

    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    shutil.copy(os.path.join(os.environ["TIKTOKEN_ENCODINGS_BASE"], "o200k_base.tiktoken"), cache / hashlib.sha1(url.encode()).hexdigest())
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    try:
        return openai_public.o200k_harmony()["special_tokens"]
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def test_special_spellings_are_tiktokens_o200k_harmony_specials(tmp_path):
    # issue 32: escape, leaks and the lints know every spelling tiktoken's o200k_harmony makes
    # special (<|endoftext|>, <|startoftext|>, the reserved range, o200k_base's <|endofprompt|>).
    assert dict(SPECIAL_SPELLINGS) == _tiktoken_o200k_harmony_specials(tmp_path)
    assert len(SPECIAL_SPELLINGS) == 1091


def test_special_spellings_in_finds_exactly_the_table():
    text = "<|start|>a<|endoftext|><|startoftext|>b<|reserved_200013|><|reserved_201087|><|reserved_201088|><|endofprompt|><|Start|><| end|><|<|end|>"
    assert [m.group() for m in special_spellings_in(text)] == ["<|start|>", "<|endoftext|>", "<|startoftext|>", "<|reserved_200013|>", "<|reserved_201087|>", "<|endofprompt|>", "<|end|>"]
    assert [m.start() for m in special_spellings_in("ab<|call|>")] == [2]


def test_lookups_both_ways():
    call = special_by_literal("<|call|>")
    assert call is not None and call.id == 200012 and call.kind == "stop"
    assert special_by_id(200006).literal == "<|start|>"
    assert special_by_id(200006).kind == "structural"
    assert special_by_id(200500).kind == "reserved"
    assert special_by_id(1000) is None
    assert special_by_literal("<|nope|>") is None
    stops = {t.literal for t in SPECIAL_TOKENS if t.kind == "stop"}
    assert stops == {"<|end|>", "<|call|>", "<|return|>"}


def _run_without_vocab(tmp_path, base: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_ENCODINGS_BASE", "TIKTOKEN_CACHE_DIR")}
    env["TIKTOKEN_CACHE_DIR"] = str(tmp_path / "cache")
    # An unroutable proxy makes the download fail fast even where a network exists.
    env["HTTPS_PROXY"] = env["https_proxy"] = "http://127.0.0.1:9"
    if base is not None:
        env["TIKTOKEN_ENCODINGS_BASE"] = base
    code = "from harmony_viz.tokens import encoding\nencoding()"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_no_vocabulary_gives_one_line_naming_both_variables(tmp_path):
    result = _run_without_vocab(tmp_path, str(tmp_path / "empty"))
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("harmony_viz.tokens.VocabularyError: no o200k_base vocabulary")
    assert "TIKTOKEN_ENCODINGS_BASE" in last and "TIKTOKEN_CACHE_DIR" in last


def test_wrong_vocabulary_file_is_refused(tmp_path):
    (tmp_path / "o200k_base.tiktoken").write_bytes(b"YQ== 0\n")
    result = _run_without_vocab(tmp_path, str(tmp_path))
    assert result.returncode != 0
    assert "not the o200k_base vocabulary" in result.stderr


@pytest.mark.parametrize("literal", ["<|start|>", "<|constrain|>", "<|reserved_201087|>"])
def test_every_special_literal_round_trips(enc, literal):
    token = special_by_literal(literal)
    assert enc.decode([token.id]) == literal


def test_cli_without_vocabulary_says_one_line_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_ENCODINGS_BASE", "TIKTOKEN_CACHE_DIR")}
    env.update(TIKTOKEN_CACHE_DIR=str(tmp_path / "cache"), HTTPS_PROXY="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9")
    result = subprocess.run(
        # token ids need the vocabulary (Harmony text is scanned without it)
        [sys.executable, "-m", "harmony_viz", "parse", "-"], input="[200006, 1428, 200008, 3686, 200007]",
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    # what was read, then the one line of the error
    assert lines[:-1] == ["read standard input as token ids"] and lines[-1].startswith("harmony-viz parse: no o200k_base vocabulary")
    assert "TIKTOKEN_ENCODINGS_BASE" in lines[-1] and "TIKTOKEN_CACHE_DIR" in lines[-1]
