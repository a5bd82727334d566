"""The o200k_harmony encoding and the table of Harmony special tokens.

The vocabulary is looked for, in order, in ``$TIKTOKEN_ENCODINGS_BASE/o200k_base.tiktoken``
(the folder openai-harmony reads, so one folder serves both), then through tiktoken's own
cache or download. The encoding is built once per process.

>>> enc = encoding()
>>> enc.encode("<|start|>assistant", allowed_special="all")
[200006, 173781]
"""

from __future__ import annotations

import base64
import hashlib
import numbers
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import tiktoken

__all__ = [
    "FIRST_SPECIAL",
    "N_VOCAB",
    "PAT_STR",
    "SPECIAL_TOKENS",
    "SpecialToken",
    "VocabularyError",
    "check_ids",
    "encoding",
    "special_by_id",
    "special_by_literal",
]

O200K_BASE_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
VOCAB_FILE = "o200k_base.tiktoken"
N_VOCAB = 201088  # rows of gpt-oss's embedding; ids are 0..N_VOCAB-1
FIRST_SPECIAL = 199998  # ids from here on are special tokens (<|startoftext|> is the first)

# The o200k pre-tokenisation pattern; it is part of the encoding's definition, the same
# string tiktoken and openai-harmony use.
PAT_STR = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

Kind = Literal["structural", "stop", "reserved"]


@dataclass(frozen=True, slots=True)
class SpecialToken:
    """One special token: its id, how it is spelled, and what it does in the format."""

    id: int
    literal: str
    kind: Kind
    meaning: str


_NAMED: tuple[tuple[int, str, Kind, str], ...] = (
    (FIRST_SPECIAL, "<|startoftext|>", "reserved", "start of text; not used by the Harmony format"),
    (199999, "<|endoftext|>", "reserved", "end of text; not used by the Harmony format"),
    (200002, "<|return|>", "stop", "the assistant is done: ends its final message (history stores <|end|> instead)"),
    (200003, "<|constrain|>", "structural", "in a header: the content type that follows (e.g. json) constrains the body"),
    (200005, "<|channel|>", "structural", "in a header: the channel name follows (analysis, commentary, final)"),
    (200006, "<|start|>", "structural", "begins a message; the header (role, recipient, channel) follows"),
    (200007, "<|end|>", "stop", "ends a message that is complete"),
    (200008, "<|message|>", "structural", "ends the header; the message body follows"),
    (200012, "<|call|>", "stop", "ends a tool call; the caller runs the tool and replies with a tool message"),
)


def _build_table() -> tuple[SpecialToken, ...]:
    named = {i: SpecialToken(i, lit, kind, meaning) for i, lit, kind, meaning in _NAMED}
    table = []
    for i in range(FIRST_SPECIAL, N_VOCAB):
        table.append(named.get(i) or SpecialToken(i, f"<|reserved_{i}|>", "reserved", "reserved; never emitted by a well-behaved model"))
    return tuple(table)


SPECIAL_TOKENS: tuple[SpecialToken, ...] = _build_table()
_BY_ID = {t.id: t for t in SPECIAL_TOKENS}
_BY_LITERAL = {t.literal: t for t in SPECIAL_TOKENS}

START, END, MESSAGE, CHANNEL, CONSTRAIN, CALL, RETURN = 200006, 200007, 200008, 200005, 200003, 200012, 200002


def check_ids(ids: Iterable[object]) -> list[int]:
    """``ids`` as a list of ints, or ValueError naming the first bad entry (the one message every reader uses).

    >>> check_ids([200006, 1428])
    [200006, 1428]
    >>> check_ids([1, 300000])
    Traceback (most recent call last):
    ...
    ValueError: token 1 is 300000, outside the o200k_harmony vocabulary 0..201087
    """
    out: list[int] = []
    for i, t in enumerate(ids):
        if isinstance(t, bool) or not isinstance(t, numbers.Integral):
            raise ValueError(f"token {i} is {t!r}, not an integer id (ids are ints 0..{N_VOCAB - 1})")
        t = int(t)
        if not 0 <= t < N_VOCAB:
            raise ValueError(f"token {i} is {t}, outside the o200k_harmony vocabulary 0..{N_VOCAB - 1}")
        out.append(t)
    return out


def special_by_id(token_id: int) -> SpecialToken | None:
    """The special token with this id, or None for an ordinary token."""
    return _BY_ID.get(token_id)


def special_by_literal(literal: str) -> SpecialToken | None:
    """The special token spelled ``literal`` (e.g. ``"<|call|>"``), or None."""
    return _BY_LITERAL.get(literal)


class VocabularyError(RuntimeError):
    """The o200k_base vocabulary could not be found or did not match its checksum."""


def _ranks_from_file(path: Path) -> dict[bytes, int]:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != O200K_BASE_SHA256:
        raise VocabularyError(
            f"{path} has sha256 {digest[:12]}…, not the o200k_base vocabulary "
            f"({O200K_BASE_SHA256[:12]}…); replace the file or unset TIKTOKEN_ENCODINGS_BASE"
        )
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _load() -> tiktoken.Encoding:
    base = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    if base:
        path = Path(base) / VOCAB_FILE
        if path.is_file():
            return tiktoken.Encoding(
                name="o200k_harmony",
                pat_str=PAT_STR,
                mergeable_ranks=_ranks_from_file(path),
                special_tokens={t.literal: t.id for t in SPECIAL_TOKENS},
            )
    try:
        return tiktoken.get_encoding("o200k_harmony")
    except Exception as exc:  # tiktoken raises requests/urllib/OS errors here
        where = f"{base}/{VOCAB_FILE} does not exist" if base else "TIKTOKEN_ENCODINGS_BASE is not set"
        raise VocabularyError(
            f"no o200k_base vocabulary: {where}, nothing in tiktoken's cache (TIKTOKEN_CACHE_DIR) "
            f"and the download failed ({type(exc).__name__}); set TIKTOKEN_ENCODINGS_BASE to a folder "
            f"holding {VOCAB_FILE} or TIKTOKEN_CACHE_DIR to a filled tiktoken cache"
        ) from None


_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


def encoding() -> tiktoken.Encoding:
    """The o200k_harmony tiktoken encoding, loaded on first use and kept."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                _encoding = _load()
    return _encoding
