"""Name the differences between paired messages (see ``_codes.CODES``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from harmony_viz.templates._align import Pair, double_encoded
from harmony_viz.templates._codes import Difference, difference
from harmony_viz.templates._side import RenderedMessage, Side

_WS = re.compile(r"\s+")
_DATE_LINE = re.compile(r"^Current date: .*$", re.MULTILINE)
_TOOLS_HEADING = "# Tools"


def _squeeze(text: str) -> str:
    return _WS.sub("", text)


class _Pair:
    """Quoting helpers for one pair of messages."""

    def __init__(self, o: RenderedMessage, t: RenderedMessage) -> None:
        self.o, self.t = o, t

    def header(self, code: str, message: str) -> Difference:
        return difference(code, message, self.o.header, self.t.header, (self.o.start, self.o.header_end), (self.t.start, self.t.header_end))

    def body(self, code: str, message: str, ours: str | None = None, theirs: str | None = None) -> Difference:
        return difference(code, message, self.o.body if ours is None else ours, self.t.body if theirs is None else theirs,
                          (self.o.header_end, self.o.body_end), (self.t.header_end, self.t.body_end))

    def whole(self, code: str, message: str) -> Difference:
        return difference(code, message, self.o.raw, self.t.raw, (self.o.start, self.o.end), (self.t.start, self.t.end))


def _where(m: RenderedMessage) -> str:
    what = f"call to {m.recipient}" if m.is_call else ("result from " + m.author if m.is_tool_result else m.author)
    return f"{what} (message {m.message.index})"


def _header(p: _Pair) -> list[Difference]:
    o, t = p.o, p.t
    out: list[Difference] = []
    if o.author != t.author and o.is_tool_result and t.is_tool_result:
        out.append(p.header("other", f"{_where(o)}: the template names it {t.author} (tokens {t.start}-{t.header_end}); it names every result after the first call of the last assistant message"))
    elif o.author != t.author:
        out.append(p.header("other", f"{_where(o)}: written by {o.author} in ours, {t.author} in the template (tokens {o.start}-{o.header_end} / {t.start}-{t.header_end})"))
    if o.channel != t.channel:
        if o.is_preamble and t.channel == "analysis":
            out.append(p.header("preamble-as-analysis", f"the preamble next to a tool call (message {o.message.index}) is on the analysis channel in the template: it becomes chain of thought"))
        else:
            out.append(p.header("other", f"{_where(o)}: channel {o.channel!r} in ours, {t.channel!r} in the template"))
    if o.recipient != t.recipient:
        out.append(p.header("other", f"{_where(o)}: recipient {o.recipient!r} in ours, {t.recipient!r} in the template"))
    if o.message.content_type != t.message.content_type:
        if o.message.content_type == "<|constrain|>json" and t.message.content_type == "json":
            out.append(p.header("constrain-missing", f"{_where(o)}: the template writes 'json' where the format has '<|constrain|>json'"))
        else:
            out.append(p.header("other", f"{_where(o)}: content type {o.message.content_type!r} in ours, {t.message.content_type!r} in the template"))
    if o.recipient == t.recipient and o.recipient_in_role is not None and t.recipient_in_role is not None and o.recipient_in_role != t.recipient_in_role:
        where = ("in the role section in ours, after the channel in the template" if o.recipient_in_role
                 else "after the channel in ours, in the role section in the template")
        out.append(p.header("recipient-layout", f"{_where(o)}: the recipient is {where}"))
    if not out and o.header != t.header:
        code = "whitespace" if _squeeze(o.header) == _squeeze(t.header) else "other"
        out.append(p.header(code, f"{_where(o)}: the headers differ ({o.header!r} / {t.header!r})"))
    return out


def _system(p: _Pair) -> list[Difference]:
    o, t = p.o.body, p.t.body
    if _DATE_LINE.sub("", o) == _DATE_LINE.sub("", t):
        od, td = _DATE_LINE.search(o), _DATE_LINE.search(t)
        return [p.body("date-varies", "the system message differs only in its date line",
                       od.group(0) if od else "", td.group(0) if td else "")]
    return [_plain(p)]


def _developer(p: _Pair) -> list[Difference]:
    o, t = p.o.body, p.t.body
    oi, ti = o.find(_TOOLS_HEADING), t.find(_TOOLS_HEADING)
    out: list[Difference] = []
    if oi >= 0 and ti >= 0 and o[oi:] != t[ti:]:
        if _squeeze(o[oi:]) == _squeeze(t[ti:]):
            out.append(p.body("whitespace", "the tool declarations differ only in whitespace", o[oi:], t[ti:]))
        else:
            out.append(p.body("schema-text", "the TypeScript of the tools differs", o[oi:], t[ti:]))
        o, t = o[:oi], t[:ti]
    elif (oi >= 0) != (ti >= 0):
        out.append(p.body("other", f"the tools are declared on one side only (ours: {oi >= 0}, template: {ti >= 0})"))
        return out
    if o != t:
        code = "whitespace" if _squeeze(o) == _squeeze(t) else "other"
        out.append(p.body(code, "the developer instructions differ" + (" only in whitespace" if code == "whitespace" else ""), o, t))
    return out


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
    if o.is_tool_result and double_encoded(o.body, t.body):
        return [p.body("tool-result-double-encoded", f"{_where(o)}: the tool result is JSON-encoded as a string (quotes and escapes added)")]
    if o.author == "system" and t.author == "system":
        return _system(p)
    if o.author == "developer" and t.author == "developer":
        return _developer(p)
    return [_plain(p)]


def _paired(o: RenderedMessage, t: RenderedMessage) -> list[Difference]:
    if o.raw == t.raw:
        return []
    p = _Pair(o, t)
    out = _header(p) + _body(p)
    if o.message.terminator != t.message.terminator:
        out.append(difference("other", f"{_where(o)}: ends in {o.message.terminator} in ours, {t.message.terminator} in the template",
                              o.raw, t.raw, (o.start, o.end), (t.start, t.end)))
    return out


def _dropped(o: RenderedMessage, before: Sequence[RenderedMessage]) -> Difference:
    """A message of ours the template does not render; ``before`` are our messages before it, in its turn."""
    span = (o.start, o.end)
    if o.is_call and any(m.is_call for m in before):
        return difference("parallel-calls-dropped", f"{_where(o)} is missing: the template renders only the first tool call of an assistant message", o.raw, "", span)
    if o.is_preamble:
        return difference("preamble-dropped", f"the preamble next to a tool call (message {o.message.index}) is missing from the template's render", o.raw, "", span)
    if o.author == "assistant" and o.channel == "analysis":
        return difference("analysis-dropped", f"the template drops the chain of thought of message {o.message.index}, which the format keeps", o.raw, "", span)
    return difference("other", f"{_where(o)} is missing from the template's render (tokens {o.start}-{o.end})", o.raw, "", span)


def _added(t: RenderedMessage) -> Difference:
    span = (t.start, t.end)
    if t.author == "assistant" and t.channel == "analysis":
        return difference("analysis-kept", f"the template keeps chain of thought (its message {t.message.index}) that the format drops", "", t.raw, None, span)
    return difference("other", f"the template adds {_where(t)} (tokens {t.start}-{t.end})", "", t.raw, None, span)


def _turn(pairs: Sequence[Pair], k: int) -> list[RenderedMessage]:
    """Our messages of the assistant run that holds pair ``k``, before it."""
    out: list[RenderedMessage] = []
    for o, _t in reversed(pairs[:k]):
        if o is None:
            continue
        if o.author != "assistant":
            break
        out.append(o)
    return out


def differences(pairs: Sequence[Pair], ours: Side, theirs: Side) -> list[Difference]:
    """Every difference between the two sides, in stream order; anything unexplained is ``other``."""
    out: list[Difference] = []
    for k, (o, t) in enumerate(pairs):
        if o is not None and t is not None:
            out.extend(_paired(o, t))
        elif o is not None:
            out.append(_dropped(o, _turn(pairs, k)))
        elif t is not None:
            out.append(_added(t))
    if not out and ours.text != theirs.text:
        out.append(_leftover(ours, theirs))
    return out


def _leftover(ours: Side, theirs: Side) -> Difference:
    """The first stretch of text that differs, when no message-level rule saw it (text outside messages)."""
    a, b = ours.text, theirs.text
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    da, db = a[i:len(a) - j], b[i:len(b) - j]
    code = "whitespace" if _squeeze(da) == _squeeze(db) else "other"
    return difference(code, f"the renders differ at character {i} ({da[:60]!r} / {db[:60]!r})", da, db)
