"""Pieces of text with the input span each came from, and mapping characters back to spans.

Text input maps characters to positions one to one; a token's text maps to the token as a
whole (a span inside a token widens to the token).
"""

from __future__ import annotations

Piece = tuple[str, int, int]  # text and the input span it came from


def unit_start(pieces: list[Piece], c: int) -> int:
    """The input position where character ``c`` of the joined pieces begins."""
    off = 0
    for text, s, e in pieces:
        n = len(text)
        if c < off + n:
            # Text input (or a one-character token) maps characters to units one to one.
            return s + (c - off) if e - s == n else s
        off += n
    return pieces[-1][2] if pieces else 0


def unit_end(pieces: list[Piece], c: int) -> int:
    """The input position just after character ``c - 1`` of the joined pieces."""
    if c <= 0:
        return pieces[0][1] if pieces else 0
    off = 0
    for text, s, e in pieces:
        n = len(text)
        if off < c <= off + n:
            return s + (c - off) if e - s == n else e
        off += n
    return pieces[-1][2] if pieces else 0


def slice_pieces(pieces: list[Piece], c0: int, c1: int) -> list[Piece]:
    """The pieces covering characters [c0, c1), trimmed to them."""
    out: list[Piece] = []
    off = 0
    for text, s, e in pieces:
        n = len(text)
        lo, hi = max(c0, off), min(c1, off + n)
        if lo < hi:
            if e - s == n:
                out.append((text[lo - off : hi - off], s + lo - off, s + hi - off))
            else:
                out.append((text[lo - off : hi - off], s, e))
        off += n
    return out
