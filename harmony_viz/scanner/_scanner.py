"""The streaming scanner: Harmony text or token ids in, events out, one chunk at a time.

Three states: ``outside`` (between messages), ``header`` (after ``<|start|>``, before
``<|message|>``) and ``body``. Token ids take a fast path while in a body: one dict lookup
per id and a coalesced content delta per feed. Everything else (control tokens, pieces of
multi-byte characters, text that may hold a control token spelled out) goes through the
slow path, which is also what text input uses.

``<|endoftext|>`` ends the stream wherever it comes (a completion ends at its stop token; batch
generation pads a finished one with ``<|endoftext|>``): what is open is settled there as at
the end, and what follows is read no further, only counted, so no reader of the events
(projections, usage, lints, statistics, the replay) ever sees it as a message. It is one
finding at the end: ``padding`` (info, naming how many tokens) or, when more than padding and
whitespace follows, ``after-endoftext``.

The scanner never raises on model output: what breaks the format becomes a ``Diagnostic``
and the scanner recovers the content a reader wants. It raises ``ValueError`` only for
misuse (ids outside the vocabulary, mixing text and ids).
"""

from __future__ import annotations

import codecs
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from harmony_viz.findings import Span
from harmony_viz.scanner._arguments import is_complete_json, is_json_call, parse_arguments
from harmony_viz.scanner._codes import DIAGNOSTIC_CODES
from harmony_viz.scanner._events import (
    BODY,
    HEADER,
    OUTSIDE,
    ContentDelta,
    Diagnostic,
    Event,
    ScanState,
    Snapshot,
    Terminator,
    ToolCallEnd,
    ToolCallStart,
    message_end,
    message_start,
)
from harmony_viz.scanner._header import ROLES, Header, RawDiag, header_warnings, parse_header
from harmony_viz.scanner._lexer import Lexer
from harmony_viz.scanner._pieces import Piece, unit_end, unit_start
from harmony_viz.scanner._recover import Recovery
from harmony_viz.scanner._tail import Tail
from harmony_viz.scanner._vocab import CONTROL_IDS, ENDOFTEXT, LITERAL_BY_ID, N_VOCAB, tables
from harmony_viz.tokens import CALL, CHANNEL, CONSTRAIN, END, MESSAGE, RETURN, START, id_error, special_by_id


def _no_fast(tid: Any) -> str | None:
    """The fast path before any token id came: none."""
    return None


_TERMINATORS: dict[int, Terminator] = {END: "<|end|>", CALL: "<|call|>", RETURN: "<|return|>"}
_STOP_LITERALS = frozenset(_TERMINATORS.values())


class _Call(NamedTuple):
    """The tool call of the open message: what its end needs to know."""

    call_id: str
    name: str
    recipient: str
    content_type: str | None
_STOPS = (END, CALL, RETURN)
# ContentDelta is a NamedTuple; building it through tuple.__new__ skips its Python-level __new__.
_new_tuple = tuple.__new__
_PREVIEW = 256  # Snapshot.pending_header keeps this many characters, so snapshots stay O(1)
# Headers repeat (`assistant<|channel|>analysis`, …): each one read is kept, by its text, the
# prompt role and whether the stream is a completion, with its kind and warnings; a Header is
# not changed once read. Only short ones, and only so many (cleared when full).
_Read = tuple[Header, str, list[RawDiag]]
_READ_HEADERS: dict[tuple[str, str | None, bool], _Read] = {}
_READ_HEADERS_KEPT = 1024

class Scanner(Lexer, Recovery):
    """Streaming Harmony scanner: ``feed`` chunks of text or token ids, then ``flush``.

    ``role="assistant"`` means the stream is a completion that follows a prompt ending in
    ``<|start|>assistant``, so it opens inside a header whose role is already known.

    >>> s = Scanner()
    >>> events = s.feed([200006, 173781, 200005, 17196, 200008, 12194, 200007])
    >>> [type(e).__name__ for e in events]
    ['MessageStart', 'ContentDelta', 'MessageEnd']
    >>> events[1].kind, events[1].text, (events[1].start, events[1].end)
    ('final', 'Hi', (5, 6))
    """

    __slots__ = (
        "_role", "_mode", "_pos", "_state", "_out", "_clean", "_hot", "_fast", "_by_id", "_raw", "_n_raw", "_fast_text",
        "_held", "_held_text", "_dec", "_dec_start",
        "_hdr", "_hdr_start", "_hdr_role", "_preview", "_outside",
        "_msg", "_nmsg", "_ndiag", "_m", "_kind", "_call", "_args",
        "_run", "_run_start", "_run_end", "_after_call", "_fabricated", "_last_end",
        "_tail",
    )  # fmt: skip

    def __init__(self, role: str | None = None) -> None:
        if role is not None and role not in ROLES:
            raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}; pass role='assistant' for a completion that follows '<|start|>assistant', or None for a full transcript")
        self._role = role
        self._mode: str | None = None
        self._pos = 0
        self._state: ScanState = HEADER if role else OUTSIDE
        self._out: list[Event] = []
        # _clean: in a body with nothing held, so ids may take the fast path; _hot: also not a tool call.
        self._clean = self._hot = False
        # The vocabulary's tables come with the first token ids: text never needs them.
        self._fast: Callable[[Any], str | None] = _no_fast
        self._by_id: list[str | None] = []
        self._raw: Sequence[bytes] = ()
        self._n_raw = 0  # len(self._raw): the ordinary tokens' count, read for every token of a header
        self._fast_text: Callable[[int], str | None] = _no_fast  # an id's fast text, its table entries made when first met
        self._held: list[Piece] = []
        self._held_text = ""
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        self._dec_start = -1
        self._hdr: list[Piece] = []
        self._hdr_start = 0
        self._hdr_role = role
        self._preview = ""
        self._outside: list[Piece] = []
        self._msg = -1
        self._nmsg = 0
        self._ndiag = 0
        self._m: Header | None = None
        self._kind = "other"
        self._call: _Call | None = None
        self._args: list[str] | None = None
        self._run: list[str] | None = None
        self._run_start = self._run_end = 0
        self._after_call = False
        self._fabricated = False
        self._last_end: str | None = None  # the terminator of the last message closed
        self._tail: Tail | None = None  # what came from <|endoftext|> on

    # ----------------------------------------------------------------- public API

    def feed(self, chunk: str | Sequence[int]) -> list[Event]:
        """Scan the next chunk (Harmony text, or token ids); returns the events it completed."""
        if len(chunk) == 1:
            tid = chunk[0]
            if self._hot:
                # One body token at a time, the commonest call when replaying a stream: a list
                # index (not a dict lookup); a negative id, or no int, takes the way below.
                try:
                    text = self._by_id[tid] if tid >= 0 else None
                except (IndexError, TypeError):
                    text = None
                if text:
                    pos = self._pos
                    # One int object shared by the delta's end and the position (a trace keeps both).
                    self._pos = end = pos + 1
                    return [_new_tuple(ContentDelta, (self._msg, self._kind, text, pos, end))]
            if self._mode == "tokens" and not isinstance(chunk, str):
                return self._feed_one(tid)
        if isinstance(chunk, str):
            return self._feed_text(chunk)
        if self._mode != "tokens":
            if self._mode == "text":
                raise ValueError("this Scanner was fed text; feed token ids to a new Scanner (one stream, one input kind)")
            if len(chunk) == 0:
                return []
            self._mode = "tokens"
            t = tables()
            self._fast, self._by_id, self._raw, self._fast_text = t.fast.get, t.by_id, t.raw, t.text
            self._n_raw = len(t.raw)
        out = self._out = []
        fast = self._fast
        pos = self._pos
        parts: list[str] | None = None
        run = pos
        for tid in chunk:
            if self._clean:
                text = fast(tid)
                if text is not None:
                    if parts is None:
                        parts = [text]
                        run = pos
                    else:
                        parts.append(text)
                    pos += 1
                    continue
            if parts is not None:
                self._body_text(parts[0] if len(parts) == 1 else "".join(parts), run, pos)
                parts = None
            self._pos = pos
            self._token(tid)
            pos += 1
        self._pos = pos
        if parts is not None:
            text = parts[0] if len(parts) == 1 else "".join(parts)
            if self._run is None and self._args is None:
                out.append(_new_tuple(ContentDelta, (self._msg, self._kind, text, run, pos)))
                return out
            self._body_text(text, run, pos)
        if self._run is not None:
            self._flush_run()
        return out

    @staticmethod
    def meet(ids: Iterable[int], token_bytes: Iterable[bytes]) -> list[bool]:
        """Make the fast path's entries of token ids ``ids`` (with their bytes) before they are fed; whether each takes the fast path.

        An id met for the first time in a process leaves the fast path once, to have its entries
        made; a trace, which knows its stream's distinct ids before it feeds them, makes them all
        at once, and learns which tokens :meth:`feed_run` may take (a body token of an id that
        takes the fast path, in a hot scanner, adds its text and nothing else).
        """
        return tables().meet(ids, token_bytes)

    def feed_run(self, n: int) -> tuple[int, int, str]:
        """Feed ``n`` body tokens the caller knows take the fast path (:meth:`meet` said so of their ids), at once.

        Returns ``(n, message, kind)``, ``n`` 0 when the scanner is not hot: each token gave
        what ``feed([t])`` gives on the fast path, ``[ContentDelta(message, kind, text of t,
        pos, pos + 1)]``, and the state is as it was but for ``position``. A replay of 131k
        one-token steps spends most of them here, where its trace knows the runs of them end.
        """
        if not self._hot or n <= 0:
            return 0, self._msg, self._kind
        self._pos += n
        return n, self._msg, self._kind

    def feed_id(self, tid: int) -> list[Event]:
        """``feed([tid])``, without the list: a trace feeds its ten thousand header and stop tokens one by one."""
        if self._mode == "tokens" and not self._hot:
            return self._feed_one(tid)  # what feed([tid]) does off the hot path
        return self.feed((tid,))

    def _feed_one(self, tid: Any) -> list[Event]:
        """One token that needs more than the hot path (a header's, a stop token, a tool call's): no loop to set up."""
        out = self._out = []
        pos = self._pos
        text = self._fast(tid) if self._clean else None
        if text is not None:
            self._body_text(text, pos, pos + 1)
        else:
            self._token(tid)
        self._pos = pos + 1
        if self._run is not None:
            self._flush_run()
        return out

    def flush(self) -> list[Event]:
        """End of stream: settle whatever is pending and close the open message."""
        out = self._out = []
        tail = self._tail
        if tail is not None:
            code, message = tail.finding(self._pos, "tokens" if self._mode == "tokens" else "characters")
            self._diag(code, message, tail.start, self._pos)
            return out
        self._drain()
        self._settle(self._pos)
        if self._run is not None:
            self._flush_run()
        self._clean = self._hot = False
        return out

    def _settle(self, pos: int) -> None:
        """The stream ends at ``pos``: close the open message, salvage a header, read stray text."""
        if self._state is BODY:
            self._eos_body(pos)
        elif self._state is HEADER:
            if "".join(p[0] for p in self._hdr).strip():
                self._salvage(None, pos, pos)
            elif self._hdr_role is None:
                self._diag("eos-in-header", "stream ended right after <|start|>, before any header", self._hdr_start, pos)
            self._state = OUTSIDE
        else:
            self._resolve_outside(None, pos)

    @property
    def hot(self) -> bool:
        """True when the next one-token feed of a body token only adds content: the snapshot
        then changes in ``position`` alone, so a trace need not take one."""
        return self._hot

    def snapshot(self) -> Snapshot:
        """The state after the last feed, in O(1) (no copy of the stream)."""
        return Snapshot(*self.state())

    def state(self) -> tuple[Any, ...]:
        """:meth:`snapshot`'s fields in order, as a plain tuple: what a trace reads after every step (``Snapshot(*state)`` is the snapshot).

        A frozen Snapshot is made field by field; a trace compares ten thousand states and keeps the few that differ.
        """
        m = self._m
        if m is None:
            return (self._state, self._preview, self._held_text, -1, self._hdr_role if self._state is HEADER else None, None, None, None, None,
                    self._nmsg, self._ndiag, self._pos)
        return (self._state, self._preview, self._held_text, self._msg, m.role, m.name, m.recipient, m.channel, m.content_type, self._nmsg,
                self._ndiag, self._pos)

    # ------------------------------------------------------------ input handling

    def _feed_text(self, chunk: str) -> list[Event]:
        if self._mode != "text":
            if self._mode == "tokens":
                raise ValueError("this Scanner was fed token ids; feed text to a new Scanner (one stream, one input kind)")
            if not chunk:
                return []
            self._mode = "text"
        out = self._out = []
        if chunk:
            start = self._pos
            self._pos = start + len(chunk)
            if self._tail is not None:
                self._tail.text(chunk)
                return out
            self._lex(chunk, start, self._pos)
        if self._run is not None:
            self._flush_run()
        return out

    def _token(self, tid: int) -> None:
        pos = self._pos
        if type(tid) is not int:
            try:
                tid = operator.index(tid)  # numpy and torch integers
            except TypeError:
                raise id_error(pos, tid) from None
        if self._tail is not None:
            if tid < 0 or tid >= N_VOCAB:
                raise id_error(pos, tid)
            self._tail.token(tid, self._raw)
            return
        if tid in CONTROL_IDS:
            if self._held or self._dec_start >= 0:
                self._drain()
            self._control(tid, pos, pos + 1)
        elif tid < 0 or tid >= N_VOCAB:
            raise id_error(pos, tid)
        elif tid == ENDOFTEXT:
            self._drain()
            self._end_of_text(pos)
        elif tid >= self._n_raw:
            self._drain()
            special = special_by_id(tid)
            literal = special.literal if special is not None else f"<|reserved_{tid}|>"
            self._diag("reserved-token", f"reserved special token {literal} ({tid}) read as text", pos, pos + 1)
            self._text(literal, pos, pos + 1)
        elif self._dec_start < 0 and not self._held and (text := self._by_id[tid] or self._fast_text(tid)) is not None:
            self._text(text, pos, pos + 1)  # whole characters, no `<`: what _lex does with it
        else:
            raw = self._raw[tid]
            text = None
            if self._dec_start < 0:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    pass
            if text is not None:
                self._lex(text, pos, pos + 1)
            else:
                # Part of a multi-byte character: decode across tokens so it never shows as U+FFFD.
                start = self._dec_start if self._dec_start >= 0 else pos
                text = self._dec.decode(raw)
                if not self._dec.getstate()[0]:
                    self._dec_start = -1
                else:
                    # Still inside a character: it began at `start`, or at this token if one just ended.
                    self._dec_start = pos if text else start
                if text:
                    self._lex(text, start, pos + 1)
        self._clean = self._state is BODY and not self._held and self._dec_start < 0
        self._hot = self._clean and self._args is None

    # ------------------------------------------------------------- the machine

    def _text(self, text: str, start: int, end: int) -> None:
        state = self._state
        if state is BODY:
            self._body_text(text, start, end)
        elif state is HEADER:
            self._hdr.append((text, start, end))
            if len(self._preview) < _PREVIEW:
                self._preview = (self._preview + text)[:_PREVIEW]
        else:
            if not text.isspace() and self._after_call:
                # Point at the first visible character, so the span does not depend on chunking.
                i = len(text) - len(text.lstrip())
                self._check_after_call(*((start + i, start + i + 1) if end - start == len(text) else (start, end)))
            self._outside.append((text, start, end))

    def _control(self, tid: int, start: int, end: int) -> None:
        state = self._state
        if state is BODY:
            if tid in _STOPS:
                self._end_message(tid, start, end)
            elif tid == START or tid == CHANNEL:
                where = "<|start|>" if tid == START else "<|channel|> in the body"
                self._diag("missing-end", f"{where} while message {self._msg} is open: <|end|> missing; the message ends here", start, end)
                role = None if tid == START or self._m is None else self._m.role
                self._close_body_implied(start, "<|start|>" if tid == START else "<|channel|>")
                self._begin_header(start, role)
                if tid == CHANNEL:
                    self._diag("missing-start", "a new header begins without <|start|>; the role of the previous message is kept", start, end)
                    self._header_piece(LITERAL_BY_ID[tid], start, end)
            else:
                self._diag("control-in-body", f"{LITERAL_BY_ID[tid]} inside a message body; kept as text", start, end)
                self._body_text(LITERAL_BY_ID[tid], start, end)
        elif state is HEADER:
            if tid == MESSAGE:
                self._open_header(end)
            elif tid == CHANNEL or tid == CONSTRAIN:
                self._header_piece(LITERAL_BY_ID[tid], start, end)
            elif tid == START and self._hdr_role is not None and not "".join(p[0] for p in self._hdr).strip():
                # role="assistant" was given but the completion opens its own message.
                self._diag("empty-header", "the stream opens with <|start|>, so the prompt role given was not needed", start, end)
                self._begin_header(start, None)
            else:
                self._salvage(tid, start, end)
                if tid == START:
                    self._begin_header(start, None)
        else:
            self._control_outside(tid, start, end)

    def _begin_header(self, start: int, role: str | None) -> None:
        self._state = HEADER
        self._hdr = []
        self._hdr_start = start
        self._hdr_role = role
        self._preview = ""

    def _header_piece(self, text: str, start: int, end: int) -> None:
        self._hdr.append((text, start, end))
        if len(self._preview) < _PREVIEW:
            self._preview = (self._preview + text)[:_PREVIEW]

    def _open_header(self, end: int) -> None:
        pieces = self._hdr
        text = "".join([p[0] for p in pieces])
        key = (text, self._hdr_role, self._role is not None)
        read = _READ_HEADERS.get(key)
        if read is None:
            h = parse_header(text, self._hdr_role, salvage=False, completion=self._role is not None)
            read = (h, h.kind, header_warnings(h, 0))
            if len(text) <= _PREVIEW:
                if len(_READ_HEADERS) >= _READ_HEADERS_KEPT:
                    _READ_HEADERS.clear()
                _READ_HEADERS[key] = read
        self._open(read[0], self._hdr_start, end, pieces, read=read)

    def _open(self, h: Header, start: int, end: int, pieces: list[Piece], *, warn: bool = True, read: _Read | None = None) -> None:
        """Emit the start of a message (and of its tool call), then read its body.

        ``warn``: add the header warnings; off for implied or salvaged headers, whose error says
        enough. ``read``: the header's kind and warnings when already worked out.
        """
        self._msg = index = self._nmsg
        self._nmsg += 1
        self._m = h
        self._kind = kind = h.kind if read is None else read[1]
        self._emit(message_start(index, h.role, h.name, h.recipient, h.channel, h.content_type, kind, start, end))
        for code, message, c0, c1 in h.diags:
            u0, u1 = (unit_start(pieces, c0), unit_end(pieces, c1)) if pieces else (start, end)
            self._diag(code, message, u0, max(u0, u1))
        if warn:
            for code, message, _, _ in header_warnings(h, 0) if read is None else read[2]:
                self._diag(code, message, start, end)
        if kind == "tool_call":
            recipient = h.recipient or ""
            namespace, dot, rest = recipient.partition(".")
            name = rest if namespace == "functions" and dot else recipient
            call_id = f"call_{index}"
            self._call = _Call(call_id, name, recipient, h.content_type)
            self._args = []
            self._emit(ToolCallStart(index, call_id, name, namespace if dot else None, recipient, start, end))
        else:
            self._call = None
            self._args = None
        self._state = BODY
        self._hdr = []
        self._preview = ""

    def _end_message(self, tid: int, start: int, end: int) -> None:
        call = self._call
        if call is not None:
            if tid == END:
                self._diag("call-ended-by-end", f"tool call to {call.recipient} ended by <|end|> instead of <|call|>", start, end)
            elif tid == RETURN:
                self._diag("call-ended-by-return", f"tool call to {call.recipient} ended by <|return|> instead of <|call|>", start, end)
            self._finish_call(start, end)
        elif tid == CALL:
            self._diag("call-without-recipient", "<|call|> ends a message that has no recipient (no to=…); nothing to call", start, end)
        self._close(_TERMINATORS[tid], start, end)
        if tid == CALL:
            self._after_call = True

    def _eos_body(self, at: int) -> None:
        call = self._call
        if call is not None:
            raw = "".join(self._args or ())
            if not is_json_call(call.recipient, call.content_type) or is_complete_json(raw):
                self._diag("call-cut-off", f"tool call to {call.recipient} cut off at end of stream with complete arguments (servers often strip <|call|>)", at, at)
            else:
                self._diag("call-incomplete", f"stream ended inside the tool call to {call.recipient}; its arguments are not complete JSON", at, at)
            self._finish_call(at, at)
        else:
            self._diag("eos-in-message", f"message {self._msg} has no stop token (the stream ends inside it)", at, at)
        self._close("eos", at, at)

    def _end_of_text(self, at: int) -> Tail:
        """``<|endoftext|>`` at ``at``: the stream ends here; what follows is only counted."""
        after = f"after {self._last_end}" if self._state is OUTSIDE and self._last_end in _STOP_LITERALS else "where no stop token came before it"
        self._settle(at)
        if self._run is not None:
            self._flush_run()
        self._state = OUTSIDE
        self._clean = self._hot = False
        self._tail = Tail(at, after)
        return self._tail

    def _close_body_implied(self, at: int, terminator: Terminator = "<|start|>") -> None:
        """The message ends where ``terminator`` (a <|start|>, or a <|channel|> in the body) begins the next header: an empty span."""
        if self._call is not None:
            self._finish_call(at, at)
        self._close(terminator, at, at)

    def _finish_call(self, start: int, end: int) -> None:
        call = self._call
        if call is None:
            return
        raw = "".join(self._args or ())
        parsed, error = parse_arguments(raw) if is_json_call(call.recipient, call.content_type) else (None, None)
        self._emit(ToolCallEnd(self._msg, call.call_id, call.name, raw, parsed, error, start, end))
        self._call = None
        self._args = None

    def _close(self, terminator: Terminator, start: int, end: int) -> None:
        self._emit(message_end(self._msg, terminator, start, end))
        self._last_end = terminator
        self._msg = -1
        self._m = None
        self._kind = "other"
        self._state = OUTSIDE
        self._clean = self._hot = False

    # ------------------------------------------------------------------ output

    def _body_text(self, text: str, start: int, end: int) -> None:
        if self._args is not None:
            self._args.append(text)
        if self._run is not None:
            if start == self._run_end:
                self._run.append(text)
                self._run_end = end
                return
            self._flush_run()
        self._run = [text]
        self._run_start, self._run_end = start, end

    def _flush_run(self) -> None:
        run = self._run
        self._run = None
        if run:
            text = run[0] if len(run) == 1 else "".join(run)
            self._out.append(_new_tuple(ContentDelta, (self._msg, self._kind, text, self._run_start, self._run_end)))

    def _emit(self, event: Event) -> None:
        if self._run is not None:
            self._flush_run()
        self._out.append(event)

    def _diag(self, code: str, message: str, start: int, end: int) -> None:
        self._ndiag += 1
        self._emit(Diagnostic(code, DIAGNOSTIC_CODES[code][0], message, Span(start, end)))
