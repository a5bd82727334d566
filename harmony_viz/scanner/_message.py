"""One record per message, folded from the scanner's events in one pass.

Every reader builds on :class:`Message`: ``scan()`` returns them, the trace adds the steps a
message started and ended at, the lints read their spans, the run statistics size them.
Header fields are as written (recipients normalised), ``kind`` follows the one visibility
rule, and the spans say where the header, each piece of the body and the terminator are.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, fields
from typing import Any

from harmony_viz.findings import Unit
from harmony_viz.scanner._events import ContentDelta, ContentKind, Event, MessageEnd, MessageStart, Terminator, ToolCallEnd, ToolCallStart
from harmony_viz.scanner._visibility import Visibility, is_assistants, is_visible, visibility

# Roles the format defines; any other author (``functions.x``, ``browser.search``) is a tool.
STANDARD_ROLES = frozenset({"system", "developer", "user", "assistant"})


@dataclass(frozen=True, slots=True)
class Message:
    """One message as read from the stream.

    Spans count the scanner's input unit (``unit``): tokens when it was fed ids, characters
    when it was fed text. ``start``..``header_end`` is the header, ``spans[i]`` the body piece
    whose text starts at ``offsets[i]`` in ``text``, ``stop_start``..``end`` the terminator.
    ``end``, ``stop_start`` and ``terminator`` are None while the message is still open;
    ``step_started`` / ``step_ended`` are set when the events came from a trace's steps.
    """

    index: int
    role: str
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    text: str
    kind: ContentKind
    terminator: Terminator | None
    start: int
    end: int | None
    header_end: int = 0
    stop_start: int | None = None
    spans: tuple[tuple[int, int], ...] = ()
    offsets: tuple[int, ...] = ()
    unit: Unit = "tokens"
    call_id: str | None = None
    tool_name: str | None = None
    arguments: str | None = None
    parsed: Any = None
    arguments_error: str | None = None
    step_started: int | None = None
    step_ended: int | None = None

    # ---------------------------------------------------------------- what it is

    @property
    def visibility(self) -> Visibility:
        """``visible``, ``reasoning``, ``call`` or ``other``, by the one visibility rule."""
        return visibility(self.kind)

    @property
    def is_visible(self) -> bool:
        """Assistant text a user would see (final text, preambles)."""
        return self.role == "assistant" and is_visible(self.kind)  # one call: the lints and the API view ask thousands of times a page

    @property
    def by_assistant(self) -> bool:
        """The assistant wrote it: its role, or a completion's message whose role is in doubt (see ``is_assistants``)."""
        return is_assistants(self.role, self.kind)

    @property
    def is_call(self) -> bool:
        """An assistant message addressed to something other than the assistant."""
        return self.kind == "tool_call"

    @property
    def is_tool_author(self) -> bool:
        return self.role not in STANDARD_ROLES

    @property
    def author(self) -> str:
        """Who wrote the message: the role, or for a tool result the tool (``functions.x``)."""
        if self.role == "tool" and self.name and self.name != "tool":
            return self.name
        return self.role

    # ---------------------------------------------------------------- where it is

    @property
    def header(self) -> tuple[int, int]:
        return (self.start, self.header_end)

    @property
    def stop(self) -> tuple[int, int]:
        """The terminator's span (empty at the end when the message is open or its end implied)."""
        end = self.end if self.end is not None else self.header_end
        return (self.stop_start if self.stop_start is not None else end, end)

    @property
    def body(self) -> tuple[int, int]:
        """The span of the whole body (empty at the header's end when there is none)."""
        if not self.spans:
            return (self.header_end, self.header_end)
        return (self.spans[0][0], self.spans[-1][1])

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """Input-unit span covering characters ``start:end`` of ``text``."""
        if not self.spans:
            return self.body
        first = max(bisect.bisect_right(self.offsets, start) - 1, 0)
        last = max(bisect.bisect_right(self.offsets, max(end - 1, start)) - 1, first)
        return (self._at(first, start, True), self._at(last, end, False))

    def _at(self, piece: int, char: int, is_start: bool) -> int:
        # Text input counts characters, so a position inside a piece is exact; a piece
        # fed as token ids is taken whole (its tokens hold whole characters only jointly).
        lo, hi = self.spans[piece]
        if self.unit == "chars":
            return min(max(lo + char - self.offsets[piece], lo), hi)
        return lo if is_start else hi

    # ---------------------------------------------------------------- as JSON

    def to_json(self) -> dict[str, Any]:
        """The message in the shape ``openai_harmony.Message.to_json()`` uses (as a dict, not a string).

        ``name`` is always present (null when absent); ``channel``, ``recipient`` and
        ``content_type`` are omitted when absent, as the reference does.
        """
        out: dict[str, Any] = {"role": self.role, "name": self.name, "content": [{"type": "text", "text": self.text}]}
        if self.channel is not None:
            out["channel"] = self.channel
        if self.recipient is not None:
            out["recipient"] = self.recipient
        if self.content_type is not None:
            out["content_type"] = self.content_type
        return out

    def record(self) -> dict[str, Any]:
        """Every field but the body's text and pieces, JSON-ready (what a trace's payload carries)."""
        return {f: getattr(self, f) for f in _RECORD_FIELDS}


_RECORD_FIELDS = tuple(f.name for f in fields(Message) if f.name not in ("text", "spans", "offsets"))


class MessageFold:
    """Folds events into :class:`Message` records, one pass, in stream order.

    ``add(event, step)`` takes one event (``step``: the trace step it came from, if any);
    ``messages()`` gives the records so far, open ones included when asked; ``record(i)`` one
    record as read so far. ``spans=False`` keeps no body spans (records then have none), for a
    reader that needs a message's fields and text but not where each piece sits.
    """

    __slots__ = ("unit", "spans", "_open", "_done")

    def __init__(self, unit: Unit = "tokens", *, spans: bool = True) -> None:
        self.unit: Unit = unit
        self.spans = spans
        self._open: dict[int, dict[str, Any]] = {}
        self._done: list[Message] = []

    def add(self, ev: Event, step: int | None = None) -> None:
        if type(ev) is ContentDelta:
            m = self._open.get(ev.message)
            if m is not None:
                if self.spans:
                    m["offsets"].append(m["length"])
                    m["spans"].append((ev.start, ev.end))
                    m["length"] += len(ev.text)
                m["parts"].append(ev.text)
        elif type(ev) is MessageStart:
            values = _TEMPLATE.copy()  # the record's fields in order (a list, made a Message at once: see _build)
            (values[_INDEX], values[_ROLE], values[_NAME], values[_RECIPIENT], values[_CHANNEL], values[_CONTENT_TYPE], values[_KIND],
             values[_START], values[_HEADER_END], values[_STEP_STARTED]) = (
                ev.message, ev.role, ev.name, ev.recipient, ev.channel, ev.content_type, ev.kind, ev.start, ev.end, step)
            self._open[ev.message] = {"fields": values, "parts": [], "spans": [], "offsets": [], "length": 0}
        elif type(ev) is ToolCallStart:
            m = self._open.get(ev.message)
            if m is not None:
                values = m["fields"]
                values[_CALL_ID], values[_TOOL_NAME] = ev.call_id, ev.name
        elif type(ev) is ToolCallEnd:
            m = self._open.get(ev.message)
            if m is not None:
                values = m["fields"]
                values[_CALL_ID], values[_TOOL_NAME], values[_ARGUMENTS], values[_PARSED], values[_ARGUMENTS_ERROR] = (
                    ev.call_id, ev.name, ev.arguments, ev.parsed, ev.error)
        elif type(ev) is MessageEnd:
            m = self._open.pop(ev.message, None)
            if m is not None:
                self._done.append(self._build(m, ev.terminator, ev.start, ev.end, step))

    def feed(self, events: list[Event] | tuple[Event, ...], step: int | None = None) -> None:
        for ev in events:
            self.add(ev, step)

    def record(self, index: int) -> Message | None:
        """Message ``index`` as read so far (no end while it is open); None when it never began."""
        m = self._open.get(index)
        if m is not None:
            return self._build(m, None, None, None, None)
        return next((done for done in reversed(self._done) if done.index == index), None)

    def pieces(self, index: int) -> list[str]:
        """The body pieces of open message ``index`` read so far: the fold's own list, which grows with each delta."""
        return self._open[index]["parts"]

    def messages(self, *, include_open: bool = False) -> list[Message]:
        """The messages read so far (ended ones; open ones too when ``include_open``), in stream order."""
        out = list(self._done)
        if include_open and self._open:
            out.extend(self._build(m, None, None, None, None) for m in self._open.values())
            out.sort(key=lambda m: m.index)
        return out

    def _build(self, m: dict[str, Any], terminator: Terminator | None, stop_start: int | None, end: int | None, step_ended: int | None) -> Message:
        parts = m["parts"]
        values = m["fields"].copy()  # an open message's record is made again as it grows
        values[_TEXT] = parts[0] if len(parts) == 1 else "".join(parts)
        values[_SPANS], values[_OFFSETS], values[_UNIT] = tuple(m["spans"]), tuple(m["offsets"]), self.unit
        values[_TERMINATOR], values[_STOP_START], values[_END], values[_STEP_ENDED] = terminator, stop_start, end, step_ended
        return message_of(values)


# A Message's fields in order, and where each one the fold sets sits among them.
_FIELDS = tuple(f.name for f in fields(Message))
(_INDEX, _ROLE, _NAME, _RECIPIENT, _CHANNEL, _CONTENT_TYPE, _TEXT, _KIND, _TERMINATOR, _START, _END, _HEADER_END, _STOP_START, _SPANS,
 _OFFSETS, _UNIT, _CALL_ID, _TOOL_NAME, _ARGUMENTS, _PARSED, _ARGUMENTS_ERROR, _STEP_STARTED, _STEP_ENDED) = map(_FIELDS.index, (
    "index", "role", "name", "recipient", "channel", "content_type", "text", "kind", "terminator", "start", "end", "header_end",
    "stop_start", "spans", "offsets", "unit", "call_id", "tool_name", "arguments", "parsed", "arguments_error", "step_started", "step_ended"))


# A record's fields before its message starts: each field's default, None where it has none (the start sets those).
_TEMPLATE = [None if f.default is MISSING else f.default for f in fields(Message)]


class _Fields:
    """A :class:`Message`'s slots, writable: ``message_of`` and ``fold_messages`` fill one, then make it the Message it holds."""

    __slots__ = _FIELDS


assert len(_FIELDS) == 23, "message_of and fold_messages set 23 fields: a field added to Message is set there too"
_new = object.__new__


def fold_messages(stepped: Iterable[tuple[int | None, Event]], unit: Unit = "tokens") -> list[Message]:
    """What :class:`MessageFold` gives for ``(step, event)`` pairs (``messages(include_open=True)``), faster.

    Each record's fields are written to a writable twin of it as they come (see :func:`message_of`),
    which becomes the record at the message's end (MessageFold builds a dict, then the record); a
    body's pieces are joined once, at its end. A trace folds its steps' events with it (messages,
    headers, the whole scan's messages: some four thousand records a 131k-token page);
    ``tests/test_message_fold.py`` holds the two folds equal.
    """
    open_: dict[int, _Fields] = {}
    done: list[Message] = []
    for step, e in stepped:
        kind = type(e)
        if kind is ContentDelta:
            m = open_.get(e.message)
            if m is not None:  # the body so far: its pieces, their spans and offsets (made a string and tuples at the end)
                parts, offsets = m.text, m.offsets
                offsets.append(offsets[-1] + len(parts[-1]) if parts else 0)
                m.spans.append((e.start, e.end))
                parts.append(e.text)
        elif kind is MessageStart:
            m = _new(_Fields)
            m.index, m.role, m.name, m.recipient, m.channel, m.content_type, m.kind, m.start, m.header_end = (
                e.message, e.role, e.name, e.recipient, e.channel, e.content_type, e.kind, e.start, e.end)
            m.text, m.spans, m.offsets, m.unit, m.step_started = [], [], [], unit, step
            m.terminator = m.end = m.stop_start = m.step_ended = m.call_id = m.tool_name = m.arguments = m.parsed = m.arguments_error = None
            open_[e.message] = m
        elif kind is MessageEnd:
            m = open_.pop(e.message, None)
            if m is not None:
                m.terminator, m.stop_start, m.end, m.step_ended = e.terminator, e.start, e.end, step
                done.append(_made(m))
        elif kind is ToolCallStart:
            m = open_.get(e.message)
            if m is not None:
                m.call_id, m.tool_name = e.call_id, e.name
        elif kind is ToolCallEnd:
            m = open_.get(e.message)
            if m is not None:
                m.call_id, m.tool_name, m.arguments, m.parsed, m.arguments_error = e.call_id, e.name, e.arguments, e.parsed, e.error
    if open_:  # still open at the end: no end, in index order among the others (as MessageFold.messages(include_open=True))
        done.extend(map(_made, open_.values()))
        done.sort(key=operator.attrgetter("index"))
    return done


def _made(m: _Fields) -> Message:
    """The record ``m`` holds, its body's pieces joined."""
    parts = m.text
    m.text = parts[0] if len(parts) == 1 else "".join(parts)
    m.spans, m.offsets = tuple(m.spans), tuple(m.offsets)
    m.__class__ = Message  # type: ignore[assignment]
    return m  # type: ignore[return-value]


def message_of(values: list[Any]) -> Message:
    """``Message(*values)``, made faster: the same frozen record, its fields written to a writable twin that then becomes it.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (3.2 µs a record), its slots' setters
    called one by one take half that, plain stores to a twin's slots a sixth; the twin has Message's slots in order, so it
    may take Message's class. :class:`MessageFold` makes its records with it; ``fold_messages`` fills the twin itself.
    """
    m = _new(_Fields)
    (m.index, m.role, m.name, m.recipient, m.channel, m.content_type, m.text, m.kind, m.terminator, m.start, m.end, m.header_end,
     m.stop_start, m.spans, m.offsets, m.unit, m.call_id, m.tool_name, m.arguments, m.parsed, m.arguments_error, m.step_started,
     m.step_ended) = values
    m.__class__ = Message  # type: ignore[assignment]
    return m  # type: ignore[return-value]
