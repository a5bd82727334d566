"""How the scanner reads what breaks the format between and around messages.

A header that never reached ``<|message|>`` (salvaged: what parses is the header, the rest the
body), text whose control tokens a server stripped (``analysis…assistantfinal…``), text
outside any message, a control token where ``<|start|>`` was expected, and a completion that
goes on after ``<|call|>``. Each is a diagnostic, and the content a reader wants is kept.
"""

from __future__ import annotations

from harmony_viz.findings import with_article
from harmony_viz.scanner._events import OUTSIDE
from harmony_viz.scanner._header import Header, parse_header, split_stripped
from harmony_viz.scanner._pieces import Piece, slice_pieces, unit_end, unit_start
from harmony_viz.scanner._vocab import LITERAL_BY_ID
from harmony_viz.tokens import CALL, END, RETURN, START

_STOPS = (END, CALL, RETURN)


class Recovery:
    """The scanner's reading of malformed streams (a part of :class:`~harmony_viz.scanner.Scanner`)."""

    __slots__ = ()

    def _control_outside(self, tid: int, start: int, end: int) -> None:
        """A control token between messages: <|start|> begins a header; anything else means one is missing."""
        if self._after_call:
            self._check_after_call(start, end)
        if tid == START:
            if self._outside:
                self._resolve_outside(START, start)
            self._begin_header(start, None)
        elif tid in _STOPS:
            if self._outside and not "".join(p[0] for p in self._outside).isspace():
                pieces, self._outside = self._outside, []
                self._diag("missing-start", f"text then {LITERAL_BY_ID[tid]} with no <|start|> or header; read as {with_article(self._default_role())} message{self._bare_hint()}", pieces[0][1], start)
                self._open(Header(self._default_role(), None, None, None, None), pieces[0][1], pieces[0][1], [], warn=False)
                for piece in pieces:
                    self._body_text(*piece)
                self._end_message(tid, start, end)
            else:
                self._resolve_outside(START, start)
                self._diag("unexpected-stop", f"{LITERAL_BY_ID[tid]} where a message start was expected; ignored", start, end)
        else:
            # A header with no <|start|> (a dropped token, or `assistant` written as a plain word).
            pieces, self._outside = self._outside, []
            if pieces and not "".join(p[0] for p in pieces).isspace():
                self._diag("missing-start", f"header without <|start|>; read from the text before it{self._bare_hint()}", pieces[0][1], end)
                self._begin_header(pieces[0][1], None)
                for piece in pieces:
                    self._header_piece(*piece)
            else:
                role = self._default_role()
                self._diag("missing-start", f"{LITERAL_BY_ID[tid]} where <|start|> was expected; read as a new {role} message{self._bare_hint()}", start, end)
                self._begin_header(start, role)
            self._control(tid, start, end)

    def _default_role(self) -> str:
        return self._role or "assistant"

    def _bare_hint(self) -> str:
        """What to do when a stream read as a whole transcript opens like a bare completion."""
        if self._role is not None or self._nmsg:
            return ""
        return "; a bare completion (the text after <|start|>assistant)? pass --role assistant (role='assistant' in Python)"

    def _check_after_call(self, start: int, end: int) -> None:
        if self._after_call and self._role is not None and not self._fabricated:
            self._fabricated = True
            self._diag("continues-after-call", "the completion goes on after <|call|>: a fabricated tool result (the caller, not the model, writes it)", start, end)

    def _salvage(self, tid: int | None, start: int, end: int) -> None:
        """A header that never reached <|message|>: keep what parses, the rest is the body."""
        pieces = self._hdr
        text = "".join(p[0] for p in pieces)
        lit = "end of stream" if tid is None else LITERAL_BY_ID[tid]
        split = split_stripped(text) if self._hdr_role is not None else None
        if split is not None:
            self._stripped(pieces, text, split, tid, start, end)
            return
        h = parse_header(text, self._hdr_role, salvage=True, completion=self._role is not None)
        at = len(text) if h.content_at is None else h.content_at
        hdr_end = unit_start(pieces, at) if at < len(text) else start
        if at >= len(text) and (tid is None or tid == START):
            # A header cut off (by the end, or by a new message) with no body: no message, nothing to show.
            where = "stream ended" if tid is None else "<|start|> came"
            self._diag("eos-in-header" if tid is None else "missing-message", f"{where} inside the header {text[:40]!r}, before <|message|>; no message was made", self._hdr_start, start)
            self._state = OUTSIDE
            self._hdr = []
            self._preview = ""
            return
        if tid is None:
            self._diag("eos-in-header", f"stream ended inside the header {text[:40]!r}; the text after the header fields is read as the body", self._hdr_start, start)
        else:
            self._diag("missing-message", f"{lit} ends the header {text[:40]!r} before <|message|>; the text after the header fields is read as the body", self._hdr_start, start)
        self._open(h, self._hdr_start, hdr_end, pieces, warn=False)
        if at < len(text):
            for piece in slice_pieces(pieces, at, len(text)):
                self._body_text(*piece)
        self._finish_body(tid, start, end)

    def _stripped(self, pieces: list[Piece], text: str, split: list[tuple[str, int, int, int]], tid: int | None, start: int, end: int) -> None:
        """``analysis…assistantfinal…``: control tokens were stripped; rebuild the messages."""
        self._diag("control-tokens-stripped", "control tokens were stripped from this text (analysis…assistantfinal…); messages recovered from the channel names", unit_start(pieces, 0), unit_end(pieces, len(text)))
        for i, (channel, h0, b0, b1) in enumerate(split):
            h = Header("assistant", None, None, channel, None)
            self._open(h, unit_start(pieces, h0), unit_start(pieces, b0) if b0 < len(text) else start, [])
            for piece in slice_pieces(pieces, b0, b1):
                self._body_text(*piece)
            if i < len(split) - 1:
                self._close_body_implied(unit_start(pieces, b1))
        self._finish_body(tid, start, end)

    def _finish_body(self, tid: int | None, start: int, end: int) -> None:
        if tid is None:
            self._eos_body(start)
        elif tid == START:
            self._close_body_implied(start)
        else:
            self._end_message(tid, start, end)

    def _resolve_outside(self, tid: int | None, at: int) -> None:
        """Text between messages, settled when the next <|start|> or the end arrives."""
        pieces = self._outside
        if not pieces:
            return
        self._outside = []
        text = "".join(p[0] for p in pieces)
        if text.isspace():
            self._diag("whitespace-outside-message", f"{text!r} between messages (a display separator?); ignored", pieces[0][1], pieces[-1][2])
            return
        split = split_stripped(text)
        if split is not None:
            self._stripped(pieces, text, split, tid, at, at)
            return
        role = self._default_role()
        self._diag("text-outside-message", f"text outside any message ({text.strip()[:40]!r}); read as {with_article(role)} message without header", pieces[0][1], pieces[-1][2])
        self._open(Header(role, None, None, None, None), pieces[0][1], pieces[0][1], [], warn=False)
        for piece in pieces:
            self._body_text(*piece)
        self._finish_body(tid, at, at)
