"""How the scanner reads text: control tokens spelled out, and what it must hold back.

Text input, and token ids whose text holds a ``<``, may spell a special token out
(``<|end|>`` as plain characters). The text is split there: the controls act,
``<|endoftext|>`` ends the stream, a reserved token's spelling is text with a finding. A
suffix that may begin a spelling is held back until the next chunk says, so any chunking
gives the same events; so are the bytes of a character cut across tokens.
"""

from __future__ import annotations

import bisect
import re

from harmony_viz.scanner._pieces import Piece, slice_pieces, unit_end, unit_start
from harmony_viz.scanner._vocab import CONTROL_IDS, ENDOFTEXT, ID_BY_LITERAL
from harmony_viz.tokens import SPECIAL_TOKENS, special_by_literal

# The shape of a special token's spelling; a match is one when the encoding's table has it (a
# dict lookup, not an alternation of 1,090 names): the controls act, <|endoftext|> ends the
# stream, the others (<|startoftext|>, the reserved range) are read as text with a finding.
_LITERAL_RE = re.compile(r"<\|[A-Za-z0-9_]+\|>")
# The special spellings in order: a text suffix that begins one (a proper prefix) is held back. Those that begin with it
# come together in this order, from where it would go (a set of every prefix, 19.5k of them, took 2 ms to import).
_SPELLINGS = sorted(t.literal for t in SPECIAL_TOKENS)


def _begins_a_spelling(text: str) -> bool:
    """Whether ``text`` is a proper prefix of a special token's spelling (more text may make it one)."""
    i = bisect.bisect_left(_SPELLINGS, text)
    return i < len(_SPELLINGS) and _SPELLINGS[i] != text and _SPELLINGS[i].startswith(text)


class Lexer:
    """The scanner's reading of text (a part of :class:`~harmony_viz.scanner.Scanner`)."""

    __slots__ = ()

    def _drain(self) -> None:
        """Release held-back text and undecodable bytes (a control token or the end came)."""
        if self._held:
            pieces = self._held
            self._held, self._held_text = [], ""
            for piece in pieces:
                self._text(*piece)
        if self._dec_start >= 0:
            text = self._dec.decode(b"", final=True)
            self._dec.reset()
            start, self._dec_start = self._dec_start, -1
            if text:
                self._text(text, start, self._pos)

    def _lex(self, text: str, start: int, end: int) -> None:
        """Split text at control tokens spelled out, holding back a suffix that may start one."""
        if not self._held and "<" not in text:
            self._text(text, start, end)
            return
        pieces = [*self._held, (text, start, end)]
        s = self._held_text + text
        self._held, self._held_text = [], ""
        c = 0
        for m in _LITERAL_RE.finditer(s):
            literal = m.group()
            tid = ID_BY_LITERAL.get(literal)
            if tid is None:
                special = special_by_literal(literal)
                # Token ids spelling a reserved token are text; in text, the spelling is the token (as encode() reads it).
                if special is None or (self._mode == "tokens" and special.id != ENDOFTEXT):
                    continue
                tid = special.id
            if m.start() > c:
                self._text_of(pieces, s, c, m.start())
            u0, u1 = unit_start(pieces, m.start()), unit_end(pieces, m.end())
            c = m.end()
            if self._mode == "tokens":
                self._diag("control-token-as-text", f"{literal} spelled as plain-text tokens; read as the control token", u0, u1)
            if tid == ENDOFTEXT:
                self._end_of_text(u0).text(s[c:])
                return
            if tid in CONTROL_IDS:
                self._control(tid, u0, u1)
            else:
                self._diag("reserved-token", f"reserved special token {literal} ({tid}) read as text", u0, u1)
                self._text(literal, u0, u1)
        hold = len(s)
        lt = s.rfind("<", c)
        if lt >= 0 and _begins_a_spelling(s[lt:]):
            hold = lt
        if hold > c:
            self._text_of(pieces, s, c, hold)
        if hold < len(s):
            self._held = slice_pieces(pieces, hold, len(s))
            self._held_text = s[hold:]

    def _text_of(self, pieces: list[Piece], s: str, c0: int, c1: int) -> None:
        self._text(s[c0:c1], unit_start(pieces, c0), unit_end(pieces, c1))
