"""Pair the messages of two renders of one conversation.

First difflib on (author, recipient, channel), which lines up everything both sides render
alike. Inside each stretch where they disagree, a message is paired with the next one on
the other side that is plausibly the same message: same author and recipient, or the
same text on another channel (a preamble moved to analysis), or both tool results (a
result named after the wrong call). What stays unpaired was dropped or added.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from harmony_viz.templates._side import RenderedMessage

Pair = tuple[RenderedMessage | None, RenderedMessage | None]


def _key(m: RenderedMessage) -> tuple[str, str | None, str | None]:
    return (m.author, m.recipient, m.channel)


def _same_message(a: RenderedMessage, b: RenderedMessage) -> bool:
    if a.author == b.author and a.recipient == b.recipient and a.channel == b.channel:
        return True
    if a.author == b.author == "assistant" and a.recipient is None and b.recipient is None:
        return a.body.strip() == b.body.strip() and bool(a.body.strip())
    if a.is_tool_result and b.is_tool_result:
        return True
    return a.author == b.author and a.recipient == b.recipient and a.recipient is not None


def _pair_stretch(ours: Sequence[RenderedMessage], theirs: Sequence[RenderedMessage]) -> list[Pair]:
    out: list[Pair] = []
    j = 0
    for o in ours:
        k = next((k for k in range(j, len(theirs)) if _same_message(o, theirs[k])), None)
        if k is None:
            out.append((o, None))
            continue
        out.extend((None, t) for t in theirs[j:k])
        out.append((o, theirs[k]))
        j = k + 1
    out.extend((None, t) for t in theirs[j:])
    return out


def align(ours: Sequence[RenderedMessage], theirs: Sequence[RenderedMessage]) -> list[Pair]:
    """The messages of both sides in order, paired; None where a side has no counterpart."""
    matcher = difflib.SequenceMatcher(None, [_key(m) for m in ours], [_key(m) for m in theirs], autojunk=False)
    out: list[Pair] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(zip(ours[i1:i2], theirs[j1:j2]))
        else:
            out.extend(_pair_stretch(ours[i1:i2], theirs[j1:j2]))
    return _pair_earliest(out)


def _pair_earliest(pairs: list[Pair]) -> list[Pair]:
    """Of several alike messages of ours in a row (parallel calls), pair the first, not the last.

    difflib favours the longest common run, which can pair the template's one call with
    our second; the template renders the first, so the pairing moves back to it.
    """
    out = list(pairs)
    for k, (o, t) in enumerate(out):
        if o is None or t is None:
            continue
        j = k
        while j > 0 and out[j - 1][1] is None and out[j - 1][0] is not None and _key(out[j - 1][0]) == _key(o):
            j -= 1
        if j < k:
            out[j], out[k] = (out[j][0], t), (o, None)
    return out
