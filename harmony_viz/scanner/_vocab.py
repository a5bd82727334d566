"""Per-id lookup tables for the token fast path, built once from the o200k_harmony encoding."""

from __future__ import annotations

import threading

from harmony_viz.tokens import CALL, CHANNEL, CONSTRAIN, END, MESSAGE, N_VOCAB, RETURN, START, encoding, special_by_literal

# The structural and stop tokens the scanner acts on; other special ids are reserved.
CONTROL_IDS: frozenset[int] = frozenset((START, END, MESSAGE, CHANNEL, CONSTRAIN, CALL, RETURN))

# How each control token is spelled in text; the text lexer recognises exactly these.
LITERAL_BY_ID: dict[int, str] = {
    START: "<|start|>",
    END: "<|end|>",
    MESSAGE: "<|message|>",
    CHANNEL: "<|channel|>",
    CONSTRAIN: "<|constrain|>",
    CALL: "<|call|>",
    RETURN: "<|return|>",
}
ID_BY_LITERAL: dict[str, int] = {lit: i for i, lit in LITERAL_BY_ID.items()}

# <|endoftext|> ends a stream wherever it comes (what follows is batch padding, or not read).
ENDOFTEXT_LITERAL = "<|endoftext|>"
ENDOFTEXT: int = special_by_literal(ENDOFTEXT_LITERAL).id  # type: ignore[union-attr]


class Tables:
    """``fast``: id -> text for tokens that are whole UTF-8 and hold no ``<`` (the hot path);
    ``by_id``: the same as a list indexed by any id of the vocabulary, None for the others (a
    one-token feed indexes it: cheaper than hashing, and a stop token finds its None without an
    IndexError); ``raw``: id -> bytes for every ordinary token (the slow path decodes these
    incrementally)."""

    __slots__ = ("fast", "by_id", "raw")

    def __init__(self, fast: dict[int, str], raw: list[bytes]) -> None:
        self.fast = fast
        self.by_id: list[str | None] = [None] * N_VOCAB
        for i, text in fast.items():
            self.by_id[i] = text
        self.raw = raw


_lock = threading.Lock()
_tables: Tables | None = None


def tables() -> Tables:
    """The lookup tables, built on first use (about 0.1 s) and kept for the process."""
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                _tables = _build()
    return _tables


def _build() -> Tables:
    ranks = encoding()._mergeable_ranks
    raw: list[bytes] = [b""] * len(ranks)
    fast: dict[int, str] = {}
    for token_bytes, rank in ranks.items():
        raw[rank] = token_bytes
        try:
            text = token_bytes.decode("utf-8")
        except UnicodeDecodeError:
            continue  # part of a multi-byte character: decoded incrementally
        if "<" not in text:
            fast[rank] = text
    return Tables(fast, raw)


__all__ = ["CONTROL_IDS", "ENDOFTEXT", "ENDOFTEXT_LITERAL", "ID_BY_LITERAL", "LITERAL_BY_ID", "N_VOCAB", "Tables", "tables"]
