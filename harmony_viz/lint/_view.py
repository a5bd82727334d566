"""A per-message view of a scan: the fields, the body text and where each piece came from.

The lint rules work on whole messages but must point at the tokens responsible, so each
view keeps the header, body and stop-token spans, and maps a character range of the body
back to input units (token indices for token feeds, characters for text) through the
content deltas that produced it.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.scanner._events import ContentDelta, MessageEnd, MessageStart
from harmony_viz.scanner._visibility import is_visible

# Roles the format defines; any other author (``functions.x``, ``browser.search``) is a tool.
STANDARD_ROLES = frozenset({"system", "developer", "user", "assistant"})


@dataclass(frozen=True, slots=True)
class MessageView:
    """One message as the lints see it. ``offsets[i]`` is where piece ``i`` starts in ``text``."""

    index: int
    role: str
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    text: str
    kind: str
    terminator: str
    start: int
    end: int
    header: tuple[int, int]
    stop: tuple[int, int]
    offsets: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]
    chars: bool = False

    @property
    def body(self) -> tuple[int, int]:
        """The span of the whole body (empty at the header's end when there is none)."""
        if not self.spans:
            return (self.header[1], self.header[1])
        return (self.spans[0][0], self.spans[-1][1])

    @property
    def is_tool_author(self) -> bool:
        return self.role not in STANDARD_ROLES

    @property
    def author(self) -> str:
        """Who wrote the message: the role, or for a tool result the tool (``functions.x``)."""
        if self.role == "tool" and self.name and self.name != "tool":
            return self.name
        return self.role

    @property
    def is_call(self) -> bool:
        """An assistant message addressed to something other than the assistant."""
        return self.role == "assistant" and bool(self.recipient) and self.recipient != "assistant"

    @property
    def is_visible(self) -> bool:
        """Assistant text a user would see, by the one visibility rule (``harmony_viz.scanner.visibility``)."""
        return self.role == "assistant" and is_visible(self.kind)

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """Input-unit span covering characters ``start:end`` of the body text."""
        if not self.spans:
            return self.body
        first = max(bisect.bisect_right(self.offsets, start) - 1, 0)
        last = max(bisect.bisect_right(self.offsets, max(end - 1, start)) - 1, first)
        return (self._at(first, start, True), self._at(last, end, False))

    def _at(self, piece: int, char: int, is_start: bool) -> int:
        # Text input counts characters, so a position inside a piece is exact; a piece
        # fed as token ids is taken whole (its tokens hold whole characters only jointly).
        lo, hi = self.spans[piece]
        if self.chars:
            return min(max(lo + char - self.offsets[piece], lo), hi)
        return lo if is_start else hi


def build_views(result: Any, *, chars: bool) -> list[MessageView]:
    """Views of every message in a ``ScanResult``, in stream order.

    ``chars`` says the scan was fed text, so spans count characters.
    """
    headers: dict[int, tuple[int, int]] = {}
    stops: dict[int, tuple[int, int]] = {}
    pieces: dict[int, list[tuple[str, int, int]]] = {}
    for event in result.events:
        if isinstance(event, ContentDelta):
            pieces.setdefault(event.message, []).append((event.text, event.start, event.end))
        elif isinstance(event, MessageStart):
            headers[event.message] = (event.start, event.end)
        elif isinstance(event, MessageEnd):
            stops[event.message] = (event.start, event.end)
    views = []
    messages = list(result.messages)
    if messages and _is_open_prompt(messages[-1]):
        messages.pop()  # a prompt ends in ``<|start|>assistant``: the completion's header, not a message
    for message in messages:
        i = message.index
        parts = pieces.get(i, [])
        offsets, spans, text_parts, pos = [], [], [], 0
        for text, start, end in parts:
            offsets.append(pos)
            spans.append((start, end))
            text_parts.append(text)
            pos += len(text)
        text = "".join(text_parts) if parts else (message.text or "")
        header = headers.get(i, (message.start, message.start))
        stop = stops.get(i, (message.end, message.end))
        views.append(
            MessageView(
                index=i,
                role=message.role or "",
                name=message.name,
                recipient=message.recipient,
                channel=message.channel,
                content_type=message.content_type,
                text=text,
                kind=message.kind,
                terminator=message.terminator,
                start=message.start,
                end=message.end,
                header=header,
                stop=stop,
                offsets=tuple(offsets),
                spans=tuple(spans),
                chars=chars,
            )
        )
    return views


def _is_open_prompt(message: Any) -> bool:
    return message.role == "assistant" and message.terminator == "eos" and not message.text and message.channel is None and message.recipient is None


def turns(views: Sequence[MessageView]) -> list[list[MessageView]]:
    """Messages grouped into turns: each turn is what follows one user message.

    Messages before the first user message (system, developer) form their own group.
    """
    groups: list[list[MessageView]] = [[]]
    for view in views:
        if view.role == "user":
            groups.append([])
        else:
            groups[-1].append(view)
    return groups
