"""Chunkings: how a stream is cut into the pieces fed to the scanner, one piece per step.

Token chunkings feed token ids; text chunkings feed the decoded Harmony text, the way a
client reads a server's stream. A chunking is written as a short string so it can travel
through a widget trait or a command-line option.
"""

from __future__ import annotations

import codecs
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harmony_viz.findings import Unit

ChunkingKind = Literal["token", "every", "random", "chars", "bytes", "server"]

# name -> (takes a number?, what it means); the order is the order shown to users.
CHUNKINGS: dict[str, str] = {
    "token": "one token per step",
    "every:N": "N tokens per step",
    "random:SEED": "1-8 tokens per step, sizes drawn with SEED (random:SEED:MAX for 1-MAX)",
    "chars:N": "the Harmony text, N characters per step",
    "bytes:N": "the Harmony text as UTF-8, N bytes per step (a split character waits for its last byte)",
    "server": "text deltas as a server streams them: one per token, characters split across tokens held back (server:N for N tokens per delta)",
}

_FORM = re.compile(r"^(token|every|random|chars|bytes|server)(?::(\d+))?(?::(\d+))?$")


@dataclass(frozen=True, slots=True)
class Chunking:
    """A parsed chunking: its kind and numbers. ``str(c)`` gives back the canonical spelling."""

    kind: ChunkingKind
    size: int = 1
    seed: int = 0

    @property
    def unit(self) -> Unit:
        """What the scanner is fed, so what spans count: token ids (``tokens``), or text (``chars``)."""
        return "tokens" if self.kind in ("token", "every", "random") else "chars"

    def __str__(self) -> str:
        if self.kind == "token":
            return "token"
        if self.kind == "random":
            return f"random:{self.seed}" + ("" if self.size == 8 else f":{self.size}")
        if self.kind == "server":
            return "server" if self.size == 1 else f"server:{self.size}"
        return f"{self.kind}:{self.size}"


def parse_chunking(spec: str | Chunking) -> Chunking:
    """Parse ``"token"``, ``"every:4"``, ``"random:7"``, ``"chars:16"``, ``"bytes:3"`` or ``"server"``.

    >>> parse_chunking("every:4")
    Chunking(kind='every', size=4, seed=0)
    """
    if isinstance(spec, Chunking):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"chunking must be a string like 'every:4', not {type(spec).__name__}")
    m = _FORM.match(spec.strip())
    known = ", ".join(CHUNKINGS)
    if m is None:
        raise ValueError(f"unknown chunking {spec!r}; use one of: {known}")
    kind, a, b = m.group(1), m.group(2), m.group(3)
    if kind == "token":
        if a is not None:
            raise ValueError(f"chunking {spec!r}: 'token' takes no number; for N tokens per step write 'every:N'")
        return Chunking("token")
    if kind == "random":
        if a is None:
            raise ValueError(f"chunking {spec!r} needs a seed, e.g. 'random:0'")
        size = int(b) if b is not None else 8
        if size < 1:
            raise ValueError(f"chunking {spec!r}: the largest chunk must be at least 1")
        return Chunking("random", size=size, seed=int(a))
    if b is not None:
        raise ValueError(f"chunking {spec!r} takes one number; use one of: {known}")
    if kind == "server":
        size = int(a) if a is not None else 1
    elif a is None:
        raise ValueError(f"chunking {spec!r} needs a size, e.g. '{kind}:4'")
    else:
        size = int(a)
    if size < 1:
        raise ValueError(f"chunking {spec!r}: the size must be at least 1, got {size}")
    return Chunking(kind, size=size)  # type: ignore[arg-type]


def describe(chunking: str | Chunking) -> str:
    """How a chunking feeds the scanner, in words.

    >>> describe("every:4")
    '4 tokens at a time'
    """
    c = parse_chunking(chunking)
    if c.kind == "token":
        return "one token at a time"
    if c.kind == "every":
        return f"{c.size} tokens at a time"
    if c.kind == "random":
        return f"1 to {c.size} tokens at a time (sizes drawn with seed {c.seed})"
    if c.kind == "chars":
        return f"as text, {c.size} characters at a time"
    if c.kind == "bytes":
        return f"as UTF-8 text, {c.size} bytes at a time"
    return "as text deltas, the way a server streams them" + ("" if c.size == 1 else f" ({c.size} tokens a delta)")


def token_chunks(n_tokens: int, chunking: Chunking) -> Sequence[int]:
    """Ends (exclusive token indices) of each chunk of a token chunking (a range for ``token``: no list of 131k ints)."""
    if chunking.kind == "token":
        return range(1, n_tokens + 1)
    if chunking.kind == "every":
        ends = list(range(chunking.size, n_tokens, chunking.size))
        return [*ends, n_tokens] if n_tokens else []
    if chunking.kind == "random":
        rng = random.Random(chunking.seed)
        ends, pos = [], 0
        while pos < n_tokens:
            pos = min(n_tokens, pos + rng.randint(1, chunking.size))
            ends.append(pos)
        return ends
    raise ValueError(f"chunking {chunking} feeds text, not tokens")


def text_chunks(text: str, token_bytes: Sequence[bytes], chunking: Chunking) -> list[str]:
    """The text pieces of a text chunking, in order; they join to ``text``.

    Byte chunks may end inside a character: that piece is then shorter (possibly empty) and
    the character arrives with the piece holding its last byte, as from an incremental
    UTF-8 decoder.
    """
    if chunking.kind == "chars":
        n = chunking.size
        return [text[i : i + n] for i in range(0, len(text), n)]
    if chunking.kind == "bytes":
        data, n = text.encode("utf-8"), chunking.size
        dec = codecs.getincrementaldecoder("utf-8")("replace")
        return [dec.decode(data[i : i + n], final=i + n >= len(data)) for i in range(0, len(data), n)]
    if chunking.kind == "server":
        # A detokenising server sends the text of each token (or every N tokens) but holds
        # back bytes that do not yet complete a character.
        dec = codecs.getincrementaldecoder("utf-8")("replace")
        pieces: list[str] = []
        pending = ""
        for i, b in enumerate(token_bytes):
            pending += dec.decode(b, final=i == len(token_bytes) - 1)
            if (i + 1) % chunking.size == 0 or i == len(token_bytes) - 1:
                if pending:  # servers send no empty deltas
                    pieces.append(pending)
                pending = ""
        return pieces
    raise ValueError(f"chunking {chunking} feeds tokens, not text")
