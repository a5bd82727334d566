"""Where a server's answer departs from its tokens: discrepancy records with codes and token spans.

Both sides are reduced by ``_answer`` first; the token side (messages, spans, calls) is the
scanner's ``Message`` records of the same completion, and our projection says which text the
tokens keep out of sight (reasoning) and which is visible.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from harmony_viz.findings import Codes, Finding, Span, read_codes
from harmony_viz.servers.core._answer import Answer, Call

# code -> (severity, what it means), kept in codes.json beside this module; the docs' code tables are written from it.
CODES: Codes = read_codes(Path(__file__).with_name("codes.json"))

@dataclass(frozen=True, slots=True)
class Discrepancy(Finding):
    """One finding of the server lens: ``where`` is the token span ``[start, end)`` of the message
    involved (None when no message is), ``message_index`` that message (-1: the whole stream or a token)."""

    message_index: int = -1

    def to_json(self) -> dict[str, Any]:
        # With token chunking, step k has fed tokens 0..k-1: the span is read at step `end`.
        where = None if self.where is None else {"message": self.message_index, "start": self.where.start, "end": self.where.end, "step": self.where.end}
        return {"code": self.code, "severity": self.severity, "message": self.message, "where": where}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Discrepancy:
        w = obj.get("where")
        span = Span(int(w["start"]), int(w["end"])) if w else None
        return cls(str(obj["code"]), obj["severity"], str(obj["message"]), span, int(w.get("message", -1)) if w else -1)


@dataclass(frozen=True, slots=True)
class At:
    """Where a finding points: a span of tokens and the message it belongs to (-1: none)."""

    span: Span
    message: int = -1


def finding(code: str, message: str, at: At | None = None, *, severity: str | None = None) -> Discrepancy:
    return Discrepancy(code, severity or CODES[code][0], message, at.span if at else None, at.message if at else -1)  # type: ignore[arg-type]


def server_error(error: str, n_tokens: int) -> Discrepancy:
    """The whole stream lost to an HTTP error or an error event."""
    return finding("server-error", f"the server answered with an error: {error}", At(Span(0, n_tokens)))


def at(m: Any, n_tokens: int) -> At:
    """Where message ``m`` (a scanner ``Message``) lies; an unterminated one runs to the end."""
    return At(Span(m.start, m.end if m.end is not None else n_tokens), m.index)


def body(m: Any) -> str:
    """What a message says: a call's arguments, else its text."""
    return m.arguments if m.arguments is not None else m.text


def messages_of(ids: Sequence[int]) -> list[Any]:
    """The scanner's ``Message`` records of a completion that follows ``<|start|>assistant``."""
    from harmony_viz.scanner import scan

    return scan(list(ids), role="assistant").messages


def norm(text: str) -> str:
    """Whitespace-collapsed text, so a server's joining newlines do not count as differences."""
    return " ".join(text.split())


def _contains(haystack: str, needle: str) -> bool:
    n = norm(needle)
    return bool(n) and n in norm(haystack)


class Norms(dict):  # type: ignore[type-arg]
    """:func:`norm` of each text, worked out once per comparison: the answer's texts are asked
    about once per message, and normalising them each time made a comparison quadratic."""

    def __missing__(self, text: str) -> str:
        out = self[text] = norm(text)
        return out

    def contains(self, haystack: str, needle: str) -> bool:
        """:func:`_contains`, with both sides normalised at most once."""
        n = self[needle]
        return bool(n) and n in self[haystack]


def _json_equal(a: str, b: str) -> bool | None:
    """True/False when both parse as JSON, None when either does not."""
    try:
        return json.loads(a) == json.loads(b)
    except (ValueError, TypeError):
        return None


def _where_of_token(ids: Sequence[int], literal: str) -> At | None:
    from harmony_viz.tokens import SPECIAL_SPELLINGS

    token_id = SPECIAL_SPELLINGS.get(literal)
    if token_id is None or token_id not in ids:
        return None
    k = list(ids).index(token_id)
    return At(Span(k, k + 1))


def compare(api: str, server: Answer, expected: Answer, messages: Sequence[Any], ids: Sequence[int], *,
            tools_withheld: bool = False) -> list[Discrepancy]:
    """Every discrepancy between ``server`` and our ``expected`` answer for the same tokens.

    ``tools_withheld``: the request declared tools that the replay could not send (llama.cpp's
    grammar), so a missing call is the replay's doing, reported at info severity.
    """
    from harmony_viz.tokens import special_spellings_in

    out: list[Discrepancy] = []
    args_text = "\n".join(c.arguments for c in server.calls)
    everything = "\n".join((server.content, server.reasoning, args_text))
    expected_calls = frozenset(c.name for c in expected.calls)  # a set: looked up once per message
    n = len(ids)
    norms = Norms()
    contains = norms.contains
    texts = [m for m in messages if norms[body(m)] and not (m.tool_name and m.tool_name in expected_calls)]
    for m in texts:
        text, where, label = body(m), at(m, n), m.channel or "no channel"
        visible = contains(expected.content, text)
        hidden = not visible and contains(expected.reasoning, text)
        if hidden and contains(server.content, text):
            out.append(finding("reasoning-in-content", f"message {m.index} ({label}) is reasoning by its tokens but is in the server's content", where))
        if m.kind == "preamble" and visible and not contains(server.content, text):
            place = ("a reasoning item" if server.reasoning_in_items else "reasoning") if contains(server.reasoning, text) else "nowhere"
            out.append(finding("preamble-hidden", f"the preamble in message {m.index} is not visible: it is in {place}", where))
        if not contains(everything, text):
            out.append(finding("text-dropped", f"the body of message {m.index} ({label}, {len(text)} chars) appears nowhere in the answer", where))
    calls = [m for m in messages if m.tool_name and m.tool_name in expected_calls]
    for m in calls:
        if norms[body(m)] and (contains(server.content, body(m)) or contains(server.content, compact(body(m)))):
            out.append(finding("tool-json-in-content", f"the arguments of the call to {m.tool_name} (message {m.index}) are in the content", at(m, n)))
    out += _compare_calls(server.calls, expected.calls, calls, n, missing_severity="info" if tools_withheld else None, texts=texts, norms=norms)
    ours: str | None = None
    for literal in sorted({m.group() for m in special_spellings_in(everything)}):
        if ours is None:  # joined once, not once per literal
            ours = "\n".join((expected.content, expected.reasoning, *(c.arguments for c in expected.calls)))
        if everything.count(literal) > ours.count(literal):
            out.append(finding("control-token-in-content", f"{literal} is spelled out in the server's text", _where_of_token(ids, literal)))
    if server.finish != expected.finish:
        last = at(messages[-1], n) if messages else None
        out.append(finding("finish-reason-mismatch", f"the server says {server.finish!r}, the tokens {expected.finish!r}", last))
    if server.reasoning_tokens is not None and expected.reasoning_tokens is not None and server.reasoning_tokens != expected.reasoning_tokens:
        out.append(finding("reasoning-tokens-mismatch", f"usage counts {server.reasoning_tokens} reasoning tokens, the tokens hold {expected.reasoning_tokens}"))
    if api.startswith("responses"):
        out += _item_order(server, messages, n, norms)
        for c in (c for c in server.calls if c.late):
            m = next((m for m in calls if m.tool_name == c.name), None)
            out.append(finding("call-not-streamed", f"the call to {c.name} arrives only whole in response.output_item.done: no output_item.added, "
                               "no function_call_arguments.delta", at(m, n) if m is not None else None))
    elif server.reasoning_fields and not set(server.reasoning_fields) & set(expected.reasoning_fields or ("reasoning_content",)):
        ours = "/".join(expected.reasoning_fields or ("reasoning_content",))
        out.append(finding("field-name", f"reasoning comes as `{'/'.join(server.reasoning_fields)}`; our projection writes `{ours}`"))
    return out


def compact(text: str) -> str:
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except (ValueError, TypeError):
        return text


def _compare_calls(got: Sequence[Call], want: Sequence[Call], calls: Sequence[Any], n: int, *, missing_severity: str | None = None,
                   texts: Sequence[Any] = (), norms: Norms | None = None) -> list[Discrepancy]:
    """Calls matched by name in order; the rest are missing or extra (an extra call that carries the body of one of
    the text messages ``texts``, such as reasoning read as a call, points at that message)."""
    out: list[Discrepancy] = []
    # By name, found in one look-up each (not a scan of every call per wanted call): the first
    # call of the tokens with a name, and the server's calls of a name not yet matched, in order.
    first_call: dict[str, Any] = {}
    for c in calls:
        first_call.setdefault(c.tool_name, c)
    unmatched: dict[str, deque[int]] = {}
    for j, g in enumerate(got):
        unmatched.setdefault(g.name, deque()).append(j)
    taken: set[int] = set()
    for i, w in enumerate(want):
        m = calls[i] if i < len(calls) and calls[i].tool_name == w.name else first_call.get(w.name)
        where = at(m, n) if m is not None else None
        queue = unmatched.get(w.name)
        if not queue:
            why = " (the replay sent no tools)" if missing_severity else ""
            out.append(finding("tool-call-missing", f"the call to {w.name} is not among the server's tool calls{why}", where, severity=missing_severity))
            continue
        j = queue.popleft()
        taken.add(j)
        match = got[j]
        if match.arguments == w.arguments:
            continue
        same = _json_equal(match.arguments, w.arguments)
        if same:
            out.append(finding("arguments-reserialized", f"{w.name}: {match.arguments!r} is the same JSON as {w.arguments!r}", where))
        else:
            out.append(finding("arguments-changed", f"{w.name}: the server sends {match.arguments!r}, the tokens hold {w.arguments!r}", where))
    norms = Norms() if norms is None else norms
    for j, g in enumerate(got):
        if j not in taken:
            m = next((m for m in texts if norms.contains(g.arguments, body(m))), None)
            carries = f": its arguments carry the body of message {m.index} ({m.channel or 'no channel'})" if m is not None else ""
            out.append(finding("tool-call-extra", f"the server returns a call to {g.name} that the tokens do not make{carries}", at(m, n) if m is not None else None))
    return out


def _item_order(server: Answer, messages: Sequence[Any], n: int, norms: Norms | None = None) -> list[Discrepancy]:
    """Each item mapped to the first unused message it carries; their indices must not go back."""
    norms = Norms() if norms is None else norms
    used: set[int] = set()
    last = -1
    # Call items look their messages up by name; text items scan the messages without a tool
    # name from the first one not yet used (those before it are all taken): in token order,
    # the first one looked at is the one, so the whole pass stays linear.
    by_name: dict[Any, deque[Any]] = {}
    for m in messages:
        by_name.setdefault(m.tool_name, deque()).append(m)
    texts = [m for m in messages if not m.tool_name]
    first = 0
    for item in server.items:
        m = None
        if item.type in ("function_call", "mcp_call"):
            queue = by_name.get(item.text)
            while queue and queue[0].index in used:
                queue.popleft()
            m = queue[0] if queue else None
        elif item.type in ("message", "reasoning"):
            while first < len(texts) and texts[first].index in used:
                first += 1
            m = next((m for m in islice(texts, first, None) if m.index not in used and norms.contains(item.text, body(m))), None)
        if m is None:
            continue
        used.add(m.index)
        if m.index < last:
            return [finding("item-order", f"the {item.type} item for message {m.index} comes after message {last}'s", at(m, n))]
        last = m.index
    return []


def compare_stream_final(stream: Answer, final: Answer) -> list[Discrepancy]:
    """The joined stream against the non-streamed answer for the same tokens (calls compared as JSON)."""
    diffs = []
    if norm(stream.content) != norm(final.content):
        diffs.append("content")
    if norm(stream.reasoning) != norm(final.reasoning):
        diffs.append("reasoning")
    calls_s = [(c.name, c.arguments) for c in stream.calls]
    calls_f = [(c.name, c.arguments) for c in final.calls]
    if len(calls_s) != len(calls_f) or any(a[0] != b[0] or not (a[1] == b[1] or _json_equal(a[1], b[1])) for a, b in zip(calls_s, calls_f)):
        diffs.append("tool calls")
    if not diffs:
        return []
    return [finding("stream-final-mismatch", f"the joined stream and the non-streamed answer differ in {', '.join(diffs)}")]
