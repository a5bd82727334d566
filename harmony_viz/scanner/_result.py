"""Whole-stream scanning: ``scan()`` and the messages it assembles from the events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from harmony_viz.findings import Unit
from harmony_viz.scanner._events import ContentDelta, Diagnostic, Event, MessageEnd, MessageStart, ToolCallEnd, ToolCallStart
from harmony_viz.scanner._message import Message, MessageFold
from harmony_viz.scanner._scanner import Scanner


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Everything one scan produced: the events in order, the messages, the diagnostics."""

    events: list[Event]
    messages: list[Message]
    diagnostics: list[Diagnostic]

    def to_json(self) -> dict[str, Any]:
        """``{"messages": [...], "diagnostics": [...]}``, as ``harmony-viz parse`` prints it."""
        return {"messages": [m.to_json() for m in self.messages], "diagnostics": [d.to_json() for d in self.diagnostics]}


def assemble(events: Sequence[Event], *, unit: Unit = "tokens") -> ScanResult:
    """Build messages and the diagnostic list from a complete event sequence (spans counted in ``unit``)."""
    fold = MessageFold(unit)
    diagnostics: list[Diagnostic] = []
    for ev in events:
        if type(ev) is Diagnostic:
            diagnostics.append(ev)
        else:
            fold.add(ev)
    return ScanResult(list(events), fold.messages(), diagnostics)


def scan(source: str | Sequence[int], *, role: str | None = None) -> ScanResult:
    """Scan a whole stream (Harmony text or token ids) in one go.

    >>> r = scan("<|start|>assistant<|channel|>final<|message|>Hi<|return|>")
    >>> r.messages[0].to_json()
    {'role': 'assistant', 'name': None, 'content': [{'type': 'text', 'text': 'Hi'}], 'channel': 'final'}
    >>> r.diagnostics
    []
    """
    scanner = Scanner(role=role)
    events = scanner.feed(source)
    events.extend(scanner.flush())
    return assemble(events, unit="chars" if isinstance(source, str) else "tokens")


_TYPE_NAMES = {
    MessageStart: "message_start",
    ContentDelta: "content_delta",
    ToolCallStart: "tool_call_start",
    ToolCallEnd: "tool_call_end",
    MessageEnd: "message_end",
    Diagnostic: "diagnostic",
}
_FIELDS: dict[type, tuple[str, ...]] = {
    ContentDelta: ContentDelta._fields,
    **{cls: tuple(f.name for f in fields(cls)) for cls in (MessageStart, ToolCallStart, ToolCallEnd, MessageEnd)},
    Diagnostic: ("code", "severity", "message", "start", "end"),  # its span as two numbers, as every other event
}


def event_to_json(event: Event) -> dict[str, Any]:
    """One event as a JSON-able dict: ``{"type": "content_delta", "message": 0, ...}``."""
    cls = type(event)
    out: dict[str, Any] = {"type": _TYPE_NAMES[cls]}
    for name in _FIELDS[cls]:
        out[name] = getattr(event, name)
    return out
