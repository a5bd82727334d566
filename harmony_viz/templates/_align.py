"""Pair the messages of two renders of one conversation.

An alignment in the Needleman-Wunsch manner: each possible pair gets a score for how
plausibly it is the same message (same header and text; same header and the text
JSON-encoded again; a preamble moved to analysis; a tool result named after the wrong
call), leaving a message out costs nothing, and the order is kept. The best total wins.
On ties the earlier of our messages is paired (the template keeps the first of parallel
calls). What stays unpaired was dropped or added.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harmony_viz.templates._side import RenderedMessage

Pair = tuple[RenderedMessage | None, RenderedMessage | None]


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def double_encoded(ours: str, theirs: str) -> bool:
    """``theirs`` is a JSON string whose value is ``ours`` (or the same JSON as ``ours``)."""
    ok, value = _loads(theirs)
    if not ok or not isinstance(value, str):
        return False
    if value == ours:
        return True
    a_ok, a = _loads(value)
    b_ok, b = _loads(ours)
    return a_ok and b_ok and a == b


def _squeezed(m: RenderedMessage) -> str:
    return "".join(m.body.split())


def score(o: RenderedMessage, t: RenderedMessage) -> int:
    """How plausibly ``o`` and ``t`` are one message rendered two ways; 0 means not at all."""
    if (o.author, o.recipient, o.channel) == (t.author, t.recipient, t.channel):
        if _squeezed(o) == _squeezed(t):
            return 10
        return 8 if double_encoded(o.body, t.body) else 4
    if o.author == t.author == "assistant" and o.recipient is None and t.recipient is None:
        return 6 if o.body.strip() and _squeezed(o) == _squeezed(t) else 0  # a preamble moved to analysis
    if o.is_tool_result and t.is_tool_result:
        return 5 if _squeezed(o) == _squeezed(t) or double_encoded(o.body, t.body) else 2  # a result named after another call
    if o.author == t.author and o.recipient == t.recipient and o.recipient is not None:
        return 3
    return 0


def align(ours: Sequence[RenderedMessage], theirs: Sequence[RenderedMessage]) -> list[Pair]:
    """The messages of both sides in order, paired; None where a side has no counterpart."""
    # Messages rendered byte for byte alike at both ends pair at once; the search is for the middle.
    head = 0
    while head < min(len(ours), len(theirs)) and ours[head].raw == theirs[head].raw:
        head += 1
    tail = 0
    while tail < min(len(ours), len(theirs)) - head and ours[-1 - tail].raw == theirs[-1 - tail].raw:
        tail += 1
    middle = _search(ours[head:len(ours) - tail], theirs[head:len(theirs) - tail])
    return [*zip(ours[:head], theirs[:head]), *middle, *zip(ours[len(ours) - tail:], theirs[len(theirs) - tail:])]


def _search(ours: Sequence[RenderedMessage], theirs: Sequence[RenderedMessage]) -> list[Pair]:
    n, m = len(ours), len(theirs)
    scores = [[score(o, t) for t in theirs] for o in ours]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, prev, s = best[i], best[i - 1], scores[i - 1]
        for j in range(1, m + 1):
            pair = prev[j - 1] + s[j - 1] if s[j - 1] else -1
            row[j] = max(prev[j], row[j - 1], pair)
    out: list[Pair] = []
    i, j = n, m
    while i > 0 or j > 0:
        # Walking back from the end: leave out our later message first, so ties pair the earlier one.
        if i > 0 and best[i][j] == best[i - 1][j]:
            out.append((ours[i - 1], None))
            i -= 1
        elif i > 0 and j > 0 and scores[i - 1][j - 1] and best[i][j] == best[i - 1][j - 1] + scores[i - 1][j - 1]:
            out.append((ours[i - 1], theirs[j - 1]))
            i, j = i - 1, j - 1
        else:
            out.append((None, theirs[j - 1]))
            j -= 1
    out.reverse()
    return out
