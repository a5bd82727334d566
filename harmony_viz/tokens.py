"""The o200k_harmony encoding and the table of Harmony special tokens.

The vocabulary is looked for, in order, in ``$TIKTOKEN_ENCODINGS_BASE/o200k_base.tiktoken``
(the folder openai-harmony reads, so one folder serves both), then through tiktoken's own
cache or download. The encoding is built once per process.

>>> encode("<|start|>assistant")
[200006, 173781]
"""

from __future__ import annotations

import base64
import hashlib
import numbers
import os
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    import tiktoken

__all__ = [
    "FIRST_SPECIAL",
    "N_VOCAB",
    "PAT_STR",
    "SPECIAL_SPELLINGS",
    "SPECIAL_TOKENS",
    "SpecialToken",
    "VocabularyError",
    "char_starts",
    "check_ids",
    "encode",
    "encoding",
    "id_error",
    "is_token_id",
    "special_by_id",
    "special_by_literal",
    "special_spellings_in",
    "token_sentence",
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

# Every spelling that o200k_harmony (tiktoken's encoding of that name) encodes as one special
# token: the table's 1,090 literals, and ``<|endofprompt|>``, which tiktoken's o200k_harmony
# inherits from o200k_base for id 200018 (openai-harmony and :func:`encode` spell 200018
# ``<|reserved_200018|>`` only). The one table escaping, the leak detector and the lints ask
# "is this a control spelling?": a host tokenising with either encoding reads each of these
# as a control token, so text that carries one is not data.
SPECIAL_SPELLINGS: Mapping[str, int] = {"<|endofprompt|>": 200018, **{t.literal: t.id for t in SPECIAL_TOKENS}}
# A ``<|name|>`` shape; a hit is a control spelling when it is in SPECIAL_SPELLINGS (one
# short pattern and a dict lookup, not an alternation of 1,091 names).
_SPELLING_SHAPE = re.compile(r"<\|([A-Za-z0-9_]+)\|>")


def special_spellings_in(text: str) -> Iterator[re.Match[str]]:
    """Each place ``text`` spells a special token of o200k_harmony, left to right (``m.group()`` is the spelling).

    >>> [m.group() for m in special_spellings_in("a<|end|>b<|endoftext|><|reserved_200013|><|nope|>")]
    ['<|end|>', '<|endoftext|>', '<|reserved_200013|>']
    """
    return (m for m in _SPELLING_SHAPE.finditer(text) if m.group() in SPECIAL_SPELLINGS)


START, END, MESSAGE, CHANNEL, CONSTRAIN, CALL, RETURN = 200006, 200007, 200008, 200005, 200003, 200012, 200002

# What each special token does in the format, in one sentence: the replay's token card says it
# (a page carries the rows of the tokens in its stream). ``meaning`` above is the short gloss
# of the playground's controls; this is the fuller sentence, stop tokens saying what they mean
# for the turn. Every reserved token shares one sentence (:data:`RESERVED_SENTENCE`).
SENTENCES: dict[str, str] = {
    "<|start|>": "begins a message: its header (the role, then any recipient, channel and content type) follows, up to <|message|>",
    "<|message|>": "ends the header: the message's body follows, up to its stop token",
    "<|channel|>": "starts the channel name: analysis, commentary or final",
    "<|constrain|>": "the content type of a tool call's arguments follows (e.g. json)",
    "<|end|>": "stop token: the message is complete and the turn goes on (another message from the model, or the next turn)",
    "<|call|>": "stop token: the message is a tool call; the turn pauses until the tool's result comes back as a message from the tool",
    "<|return|>": "stop token: the final answer is complete and the assistant's turn is over (history keeps it as <|end|>)",
    "<|startoftext|>": "o200k's start-of-text token: the Harmony format never uses it, so a model that writes it has left the format",
    "<|endoftext|>": "o200k's end-of-text token: the Harmony format never uses it; a gpt-oss turn ends in <|return|> or <|call|> instead",
}
RESERVED_SENTENCE = "a reserved token: no part of the Harmony format; the scanner reads it as its literal text (reserved-token)"


def token_sentence(token_id: int) -> str | None:
    """What special token ``token_id`` does in the format, in one sentence; None for an ordinary token.

    >>> token_sentence(200005)
    'starts the channel name: analysis, commentary or final'
    >>> token_sentence(200100) == RESERVED_SENTENCE, token_sentence(1428)
    (True, None)
    """
    sp = _BY_ID.get(token_id)
    if sp is None:
        return None
    return SENTENCES.get(sp.literal, RESERVED_SENTENCE)



def is_token_id(value: object) -> bool:
    """True for an int (not a bool) in the vocabulary, 0..N_VOCAB-1."""
    if type(value) is int:  # the common case, without the slower ABC check
        return 0 <= value < N_VOCAB
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= int(value) < N_VOCAB


def check_ids(ids: Iterable[object]) -> list[int]:
    """``ids`` as a list of ints, or ValueError naming the first bad entry (the one message every reader uses).

    >>> check_ids([200006, 1428])
    [200006, 1428]
    >>> check_ids([1, 300000])
    Traceback (most recent call last):
    ...
    ValueError: token 1 is 300000, outside the o200k_harmony vocabulary 0..201087
    """
    ids = ids if isinstance(ids, (list, tuple)) else list(ids)
    out = [t if type(t) is int and 0 <= t < N_VOCAB else -1 for t in ids]
    if -1 in out:  # a slower second look: numpy integers are ids too; anything else is named
        out = []
        for i, t in enumerate(ids):
            if not is_token_id(t):
                raise id_error(i, t)
            out.append(int(t))
    return out


def id_error(position: int, value: object) -> ValueError:
    """The one message for a bad token id at ``position``: not an integer, or outside the vocabulary."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return ValueError(f"token {position} is {value!r}, not an integer id (ids are ints 0..{N_VOCAB - 1})")
    return ValueError(f"token {position} is {value}, outside the o200k_harmony vocabulary 0..{N_VOCAB - 1}")


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
    import tiktoken  # here, not at the top: commands that read text never load the vocabulary

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


def encode(text: str) -> list[int]:
    """Harmony text as token ids, every ``<|...|>`` spelling of a special token becoming its id.

    The one place text is encoded with special tokens allowed (plain ``encoding().encode``
    refuses them).

    >>> encode("<|start|>assistant<|message|>Hi<|end|>")
    [200006, 173781, 200008, 12194, 200007]
    """
    return encoding().encode(text, allowed_special="all")


def char_starts(pieces: Sequence[bytes]) -> np.ndarray:
    """Where each piece of UTF-8 (a token's bytes) starts in the joined text, in characters, plus the total at the end.

    >>> char_starts([b"a", "é".encode(), b"b"]).tolist()
    [0, 1, 2, 3]
    """
    import numpy as np

    lengths = np.fromiter((len(b) for b in pieces), dtype=np.int64, count=len(pieces))
    byte_starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    # A character starts at every byte that is not a UTF-8 continuation byte.
    leads = np.concatenate([[0], np.cumsum((data & 0xC0) != 0x80)])
    return leads[byte_starts]
