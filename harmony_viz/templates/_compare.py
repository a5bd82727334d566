"""Name the differences between paired messages of our render and another (see ``_codes.CODES``).

The other render is a chat template's text or a server's prompt: :class:`Other` names it in
messages ("the template", "the server") and in the records' JSON (``template``, ``server``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from harmony_viz.templates._align import Pair, double_encoded
from harmony_viz.templates._codes import Difference, difference
from harmony_viz.templates._side import RenderedMessage, Side

_WS = re.compile(r"\s+")
_DATE_LINE = re.compile(r"^Current date: .*$", re.MULTILINE)
_REASONING_LINE = re.compile(r"^Reasoning: .*$", re.MULTILINE)
_TOOLS_HEADING = "# Tools"
_FORMATS_HEADING = "# Response Formats"


@dataclass(frozen=True, slots=True)
class Other:
    """The other render: its name in messages, and its key in JSON."""

    name: str = "the template"
    side: str = "template"


TEMPLATE = Other()
SERVER = Other("the server", "server")


def _squeeze(text: str) -> str:
    return _WS.sub("", text)


class _Pair:
    """Quoting helpers for one pair of messages."""

    def __init__(self, o: RenderedMessage, t: RenderedMessage, other: Other) -> None:
        self.o, self.t, self.other = o, t, other
        self.name = other.name

    def header(self, code: str, message: str) -> Difference:
        return difference(code, message, self.o.header, self.t.header, (self.o.start, self.o.header_end), (self.t.start, self.t.header_end),
                          self.other.side)

    def body(self, code: str, message: str, ours: str | None = None, theirs: str | None = None) -> Difference:
        return difference(code, message, self.o.body if ours is None else ours, self.t.body if theirs is None else theirs,
                          (self.o.header_end, self.o.body_end), (self.t.header_end, self.t.body_end), self.other.side)

    def whole(self, code: str, message: str) -> Difference:
        return difference(code, message, self.o.raw, self.t.raw, (self.o.start, self.o.end), (self.t.start, self.t.end), self.other.side)


def _where(m: RenderedMessage) -> str:
    what = f"call to {m.recipient}" if m.is_call else ("result from " + m.author if m.is_tool_result else m.author)
    return f"{what} (message {m.message.index})"


def _header(p: _Pair) -> list[Difference]:
    o, t, name = p.o, p.t, p.name
    out: list[Difference] = []
    if o.author != t.author and o.is_tool_result and t.is_tool_result:
        out.append(p.header("other", f"{_where(o)}: {name} names it {t.author} (tokens {t.start}-{t.header_end}); it names every result after the first call of the last assistant message"))
    elif o.author != t.author:
        out.append(p.header("other", f"{_where(o)}: written by {o.author} in ours, {t.author} in {name} (tokens {o.start}-{o.header_end} / {t.start}-{t.header_end})"))
    if o.channel != t.channel:
        if o.is_preamble and t.channel == "analysis":
            out.append(p.header("preamble-as-analysis", f"the preamble next to a tool call (message {o.message.index}) is on the analysis channel in {name}: it becomes chain of thought"))
        else:
            out.append(p.header("other", f"{_where(o)}: channel {o.channel!r} in ours, {t.channel!r} in {name}"))
    if o.recipient != t.recipient:
        out.append(p.header("other", f"{_where(o)}: recipient {o.recipient!r} in ours, {t.recipient!r} in {name}"))
    if o.message.content_type != t.message.content_type:
        if o.message.content_type == "<|constrain|>json" and t.message.content_type == "json":
            out.append(p.header("constrain-missing", f"{_where(o)}: {name} writes 'json' where the format has '<|constrain|>json'"))
        else:
            out.append(p.header("other", f"{_where(o)}: content type {o.message.content_type!r} in ours, {t.message.content_type!r} in {name}"))
    if o.recipient == t.recipient and o.recipient_in_role is not None and t.recipient_in_role is not None and o.recipient_in_role != t.recipient_in_role:
        where = (f"in the role section in ours, after the channel in {name}" if o.recipient_in_role
                 else f"after the channel in ours, in the role section in {name}")
        out.append(p.header("recipient-layout", f"{_where(o)}: the recipient is {where}"))
    if not out and o.header != t.header:
        code = "whitespace" if _squeeze(o.header) == _squeeze(t.header) else "other"
        out.append(p.header(code, f"{_where(o)}: the headers differ ({o.header!r} / {t.header!r})"))
    return out


def _line(pattern: re.Pattern[str], text: str) -> str:
    m = pattern.search(text)
    return m.group(0) if m else ""


def _system(p: _Pair) -> list[Difference]:
    o, t = p.o.body, p.t.body
    out: list[Difference] = []
    oe, te = _line(_REASONING_LINE, o), _line(_REASONING_LINE, t)
    if oe != te:
        out.append(p.body("effort-ignored", f"the system message says {te or 'nothing'!r} in {p.name} where the request asks {oe or 'nothing'!r}", oe, te))
        o, t = _REASONING_LINE.sub("", o), _REASONING_LINE.sub("", t)
    od, td = _line(_DATE_LINE, o), _line(_DATE_LINE, t)
    if od != td:
        out.append(p.body("date-varies", "the system message differs in its date line", od, td))
        o, t = _DATE_LINE.sub("", o), _DATE_LINE.sub("", t)
    if o != t:
        code = "whitespace" if _squeeze(o) == _squeeze(t) else "other"
        out.append(p.body(code, "the system message differs" + (" only in whitespace" if code == "whitespace" else f" (tokens {p.o.header_end}-{p.o.body_end} / {p.t.header_end}-{p.t.body_end})"), o, t))
    return out


def _section(text: str, heading: str) -> tuple[str, str]:
    """``text`` without the section under ``heading`` (up to the next top-level heading), and that section."""
    i = text.find(heading)
    if i < 0:
        return text, ""
    j = text.find("\n# ", i + len(heading))
    j = len(text) if j < 0 else j
    start = i - 2 if text[:i].endswith("\n\n") else i  # the blank line before it goes with it
    return text[:start] + text[j:], text[i:j]


def _developer(p: _Pair) -> list[Difference]:
    o, t, name = p.o.body, p.t.body, p.name
    out: list[Difference] = []
    o, of = _section(o, _FORMATS_HEADING)
    t, tf = _section(t, _FORMATS_HEADING)
    if of and not tf:
        out.append(p.body("response-format-missing", f"the request's response_format schema is absent from {name}'s developer message", of, ""))
    elif of != tf:
        code = "whitespace" if _squeeze(of) == _squeeze(tf) else "other"
        out.append(p.body(code, f"the # Response Formats sections differ (ours: {bool(of)}, {name}: {bool(tf)})", of, tf))
    oi, ti = o.find(_TOOLS_HEADING), t.find(_TOOLS_HEADING)
    if oi >= 0 and ti >= 0 and o[oi:] != t[ti:]:
        if _squeeze(o[oi:]) == _squeeze(t[ti:]):
            out.append(p.body("whitespace", "the tool declarations differ only in whitespace", o[oi:], t[ti:]))
        else:
            out.append(p.body("schema-text", "the TypeScript of the tools differs", o[oi:], t[ti:]))
        o, t = o[:oi], t[:ti]
    elif oi >= 0 and ti < 0:
        out.append(p.body("tools-missing", f"the declared tools are absent from {name}'s developer message", o[oi:], ""))
        o = o[:oi]
    elif ti >= 0:
        out.append(p.body("other", f"{name} declares tools the request does not", "", t[ti:]))
        t = t[:ti]
    if o != t:
        code = "whitespace" if _squeeze(o) == _squeeze(t) else "other"
        out.append(p.body(code, "the developer instructions differ" + (" only in whitespace" if code == "whitespace" else ""), o, t))
    return out


def _same_json(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except (ValueError, RecursionError):
        return False


def _plain(p: _Pair) -> Difference:
    code = "whitespace" if _squeeze(p.o.body) == _squeeze(p.t.body) else "other"
    extra = " only in whitespace" if code == "whitespace" else f" (tokens {p.o.header_end}-{p.o.body_end} / {p.t.header_end}-{p.t.body_end})"
    return p.body(code, f"{_where(p.o)}: the text differs{extra}")


def _body(p: _Pair) -> list[Difference]:
    o, t = p.o, p.t
    if o.body == t.body:
        return []
    if o.is_call and double_encoded(o.body, t.body):
        return [p.body("arguments-double-encoded", f"{_where(o)}: the arguments are a JSON string holding the JSON (given as a string, encoded again)")]
    if o.is_call and _same_json(o.body, t.body):
        code = "whitespace" if _squeeze(o.body) == _squeeze(t.body) else "other"
        return [p.body(code, f"{_where(o)}: the arguments are re-serialised (the same JSON, written otherwise)")]
    if o.is_tool_result and double_encoded(o.body, t.body):
        return [p.body("tool-result-double-encoded", f"{_where(o)}: the tool result is JSON-encoded as a string (quotes and escapes added)")]
    if o.author == "system" and t.author == "system":
        return _system(p)
    if o.author == "developer" and t.author == "developer":
        return _developer(p)
    return [_plain(p)]


def _paired(o: RenderedMessage, t: RenderedMessage, other: Other) -> list[Difference]:
    if o.raw == t.raw:
        return []
    p = _Pair(o, t, other)
    out = _header(p) + _body(p)
    if o.message.terminator != t.message.terminator:
        out.append(p.whole("other", f"{_where(o)}: ends in {o.message.terminator} in ours, {t.message.terminator} in {other.name}"))
    return out


def _dropped(o: RenderedMessage, before: Sequence[RenderedMessage], after: Sequence[RenderedMessage], other: Other) -> Difference:
    """A message of ours the other render lacks; ``before`` and ``after`` are our messages around it, in its assistant run."""
    span, name, side = (o.start, o.end), other.name, other.side
    if o.is_call and any(m.is_call for m in before):
        return difference("parallel-calls-dropped", f"{_where(o)} is missing: {name} renders only the first tool call of an assistant message", o.raw, "", span, None, side)
    if o.is_preamble:
        return difference("preamble-dropped", f"the preamble next to a tool call (message {o.message.index}) is missing from {name}'s render", o.raw, "", span, None, side)
    if o.author == "assistant" and o.channel == "analysis":
        why = ("the analysis of a pending tool call: the model loses its reasoning between calls" if any(m.is_call for m in after)
               else "which the format keeps")
        return difference("analysis-dropped", f"{name} drops the chain of thought of message {o.message.index}, {why}", o.raw, "", span, None, side)
    if o.author == "developer" and _TOOLS_HEADING in o.body:
        return difference("tools-missing", f"{name} has no developer message: the declared tools are absent", o.raw, "", span, None, side)
    if o.author == "developer" and _FORMATS_HEADING in o.body:
        return difference("response-format-missing", f"{name} has no developer message: the request's response_format schema is absent", o.raw, "", span, None, side)
    return difference("other", f"{_where(o)} is missing from {name}'s render (tokens {o.start}-{o.end})", o.raw, "", span, None, side)


def _added(t: RenderedMessage, other: Other) -> Difference:
    span, name = (t.start, t.end), other.name
    if t.author == "assistant" and t.channel == "analysis":
        return difference("analysis-kept", f"{name} keeps chain of thought (its message {t.message.index}) that the format drops", "", t.raw, None, span, other.side)
    return difference("other", f"{name} adds {_where(t)} (tokens {t.start}-{t.end})", "", t.raw, None, span, other.side)


def _moved(o: RenderedMessage, t: RenderedMessage, other: Other) -> Difference:
    spans = ((o.start, o.end), (t.start, t.end))
    if o.is_preamble:
        return difference("preamble-moved", f"the preamble next to a tool call (message {o.message.index}) is in another place in {other.name} "
                          f"(tokens {o.start}-{o.end} / {t.start}-{t.end}): the format puts it after the analysis, before the call", o.raw, t.raw, *spans, other.side)
    return difference("other", f"{_where(o)} is in another place in {other.name} (tokens {o.start}-{o.end} / {t.start}-{t.end})", o.raw, t.raw, *spans, other.side)


def _run(pairs: Sequence[Pair], k: int, step: int) -> list[RenderedMessage]:
    """Our assistant messages next to pair ``k`` (before it for ``step`` -1, after it for +1), up to another author."""
    out: list[RenderedMessage] = []
    k += step
    while 0 <= k < len(pairs):
        o = pairs[k][0]
        k += step
        if o is None:
            continue
        if o.author != "assistant":
            break
        out.append(o)
    return out


def _same(o: RenderedMessage, t: RenderedMessage) -> bool:
    return o.header == t.header and _squeeze(o.body) == _squeeze(t.body)


def _moves(pairs: Sequence[Pair]) -> dict[int, int]:
    """Dropped messages of ours that the other side has unpaired elsewhere, the same: pair index -> the other's pair index."""
    dropped = [k for k, (o, t) in enumerate(pairs) if o is not None and t is None]
    added = [k for k, (o, t) in enumerate(pairs) if o is None and t is not None]
    out: dict[int, int] = {}
    for k in dropped:
        match = next((j for j in added if j not in out.values() and _same(pairs[k][0], pairs[j][1])), None)  # type: ignore[arg-type]
        if match is not None:
            out[k] = match
    return out


def differences(pairs: Sequence[Pair], ours: Side, theirs: Side, other: Other = TEMPLATE) -> list[Difference]:
    """Every difference between the two sides, in stream order; anything unexplained is ``other``."""
    out: list[Difference] = []
    moves = _moves(pairs)
    moved_to = set(moves.values())
    for k, (o, t) in enumerate(pairs):
        if o is not None and t is not None:
            out.extend(_paired(o, t, other))
        elif o is not None and k in moves:
            out.append(_moved(o, pairs[moves[k]][1], other))  # type: ignore[arg-type]
        elif o is not None:
            out.append(_dropped(o, _run(pairs, k, -1), _run(pairs, k, 1), other))
        elif t is not None and k not in moved_to:
            out.append(_added(t, other))
    if not out and ours.ids != theirs.ids:
        out.append(_leftover(ours, theirs, other))
    return out


def _leftover(ours: Side, theirs: Side, other: Other) -> Difference:
    """The first stretch of text that differs, when no message-level rule saw it (text outside messages)."""
    a, b = ours.text, theirs.text
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    da, db = a[i:len(a) - j], b[i:len(b) - j]
    if a == b:
        return difference("other", "the same text in other tokens (encoded differently)", "", "", side=other.side)
    code = "whitespace" if _squeeze(da) == _squeeze(db) else "other"
    return difference(code, f"the renders differ at character {i} ({da[:60]!r} / {db[:60]!r})", da, db, side=other.side)
