"""Per-id lookup tables for the token fast path, from the o200k_harmony encoding, filled as ids are met."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Final, overload

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
    """The token fast path's tables, each id's entry made the first time a scanner meets it.

    ``fast``: id -> text for tokens that are whole UTF-8 and hold no ``<`` (the hot path);
    ``by_id``: the same as a list indexed by any id of the vocabulary, None for the others (a
    one-token feed indexes it: cheaper than hashing, and a stop token finds its None without an
    IndexError); ``raw``: the bytes of each ordinary token (the slow path decodes these
    incrementally). An id not met yet is ``""`` in ``by_id`` and absent from ``fast``: both send
    it down the slow path, where :meth:`text` fills its entries. Decoding all 200k ids up front
    took 0.065 s of a process's first page; a 131k-token context meets about 15k of them.
    """

    __slots__ = ("fast", "by_id", "raw", "_bytes")

    def __init__(self, n_ordinary: int, token_bytes: Callable[[int], bytes]) -> None:
        self.fast: dict[int, str] = {}
        self.by_id: list[str | None] = [NOT_MET] * n_ordinary + [None] * (N_VOCAB - n_ordinary)
        self.raw = _Raw(n_ordinary, token_bytes)
        self._bytes = token_bytes

    def text(self, tid: int) -> str | None:
        """The fast path's text of ordinary or special id ``tid`` (``0 <= tid < N_VOCAB``): None when it has none."""
        text = self.by_id[tid]
        if text is NOT_MET:
            text = self._met(tid, self._bytes(tid))
        return text

    def meet(self, ids: Iterable[int], token_bytes: Iterable[bytes]) -> list[bool]:
        """Make the entries of ``ids`` (ids of the vocabulary, with their bytes) now, in one pass; whether each has a fast text.

        A trace knows its stream's distinct ids and their bytes before it feeds them: met one by
        one instead, each would leave the fast path once (15k steps more, in a process's first page).
        """
        by_id = self.by_id
        fast = []
        for tid, raw in zip(ids, token_bytes):
            text = by_id[tid]
            if text is NOT_MET:
                text = self._met(tid, raw)
            fast.append(bool(text))
        return fast

    def _met(self, tid: int, raw: bytes) -> str | None:
        try:
            text: str | None = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # part of a multi-byte character: decoded incrementally
        if text is not None and "<" in text:
            text = None
        if text is not None:
            self.fast[tid] = text
        self.by_id[tid] = text
        return text


# What ``Tables.by_id`` holds for an id not met yet: falsy, as None is, so the fast paths pass it by.
NOT_MET: Final = ""


class _Raw(Sequence[bytes]):
    """The bytes of each ordinary token, asked of the encoding when read (the slow path reads few)."""

    __slots__ = ("_n", "_bytes")

    def __init__(self, n: int, token_bytes: Callable[[int], bytes]) -> None:
        self._n = n
        self._bytes = token_bytes

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, tid: int) -> bytes: ...

    @overload
    def __getitem__(self, tid: slice) -> list[bytes]: ...

    def __getitem__(self, tid: int | slice) -> bytes | list[bytes]:
        if isinstance(tid, slice):
            return [self._bytes(i) for i in range(*tid.indices(self._n))]
        if not 0 <= tid < self._n:
            raise IndexError(f"token id {tid} is no ordinary token (0 to {self._n - 1})")
        return self._bytes(tid)


_lock = threading.Lock()
_tables: Tables | None = None


def tables() -> Tables:
    """The lookup tables, made on first use (their entries as ids are met) and kept for the process."""
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                enc = encoding()
                _tables = Tables(len(enc._mergeable_ranks), enc.decode_single_token_bytes)
    return _tables


__all__ = ["CONTROL_IDS", "ENDOFTEXT", "ENDOFTEXT_LITERAL", "ID_BY_LITERAL", "LITERAL_BY_ID", "N_VOCAB", "Tables", "tables"]
