"""What an answer made of each token of a completion (its fate), beside what the format makes of it.

The server lens's own alignment (the one ``_compare`` reads) placed token by token: the server
tab colours each chip by it, and a mismatch is exactly a token of a span the comparison reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.servers.core._answer import Answer, answer_of
from harmony_viz.servers.core._compare import Norms, body, compact, messages_of
from harmony_viz.servers.core._result import CheckResult

# A token's fate: where an answer put its text. 0 is none (a prompt token, or one no message holds);
# a header or stop token is ``control``; a call's recipient in its header is ``call-name``.
FATES = ("", "control", "content", "reasoning", "call-name", "call-arguments", "dropped")
_NONE, _CONTROL, _CONTENT, _REASONING, _CALL_NAME, _CALL_ARGS, _DROPPED = range(len(FATES))
# An empty body says nothing about where its text went: it keeps the place its kind gives it, on both sides.
_BY_VISIBILITY = {"visible": _CONTENT, "reasoning": _REASONING, "call": _CALL_ARGS}


@dataclass(frozen=True, slots=True)
class Fates:
    """What one answer made of each token of a completion, beside what the format makes of it.

    ``fate[t]`` and ``expected[t]`` are indices into :data:`FATES`: where the server's answer put
    token ``t``'s text, and where our projection of the same tokens puts it (the format's
    expectation, through the one visibility rule). They are worked out by the alignment
    :func:`compare` reads: a message body is in the content, the reasoning, a call's arguments,
    or nowhere, as a whole. A token whose fate differs from the expected one is a mismatch;
    those are the tokens of the spans where :func:`compare` reports ``reasoning-in-content``,
    ``preamble-hidden``, ``text-dropped``, ``tool-json-in-content``, ``tool-call-missing`` or
    (the whole answer lost) ``server-error``.
    """

    fate: bytes
    expected: bytes

    def names(self) -> list[str]:
        """Each token's fate by name ('' for none)."""
        return [FATES[c] for c in self.fate]

    def mismatches(self) -> list[int]:
        """The tokens whose fate differs from the format's."""
        return [t for t, (a, b) in enumerate(zip(self.fate, self.expected)) if a != b]


def _name_tokens(m: Any, pieces: Sequence[str]) -> range:
    """The header tokens that spell a call's recipient (``functions.get_weather``), or none."""
    head = pieces[m.start:m.header_end]
    text = "".join(head)
    for name in (m.recipient, m.tool_name):
        at = text.rfind(name) if name else -1
        if at >= 0:
            break
    else:
        return range(0)
    lo = hi = None
    pos = 0
    for k, piece in enumerate(head):
        a, b = pos, pos + len(piece)
        if b > at and a < at + len(name) and piece:
            lo = k if lo is None else lo
            hi = k + 1
        pos = b
    return range(m.start + lo, m.start + hi) if lo is not None else range(0)


def _placed(side: Answer | None, messages: Sequence[Any], calls: frozenset[str], norms: Norms) -> list[tuple[int | None, int]]:
    """Where ``side`` put each message: (body fate or None for an empty body, recipient fate). None: the answer was lost."""
    if side is None:
        return [(_DROPPED if norms[body(m)] else None, _DROPPED) for m in messages]
    contains = norms.contains
    args_text = "\n".join(c.arguments for c in side.calls)
    unmatched: dict[str, int] = {}
    for c in side.calls:
        unmatched[c.name] = unmatched.get(c.name, 0) + 1
    out: list[tuple[int | None, int]] = []
    for m in messages:
        text = body(m)
        if m.tool_name and m.tool_name in calls:
            made = unmatched.get(m.tool_name, 0) > 0  # matched in order, as _compare_calls matches them
            if made:
                unmatched[m.tool_name] -= 1
            name = _CALL_NAME if made else _CONTENT if contains(side.content, m.tool_name) else _DROPPED
            if not norms[text]:
                out.append((None, name))
            elif contains(side.content, text) or contains(side.content, compact(text)):
                out.append((_CONTENT, name))  # a call read as text (tool-json-in-content), even beside the call
            else:
                out.append((_CALL_ARGS if made else _REASONING if contains(side.reasoning, text) else _DROPPED, name))
            continue
        if not norms[text]:
            out.append((None, _CONTROL))
        elif contains(side.content, text):
            out.append((_CONTENT, _CONTROL))
        elif contains(side.reasoning, text):
            out.append((_REASONING, _CONTROL))
        elif contains(args_text, text):
            out.append((_CALL_ARGS, _CONTROL))
        else:
            out.append((_DROPPED, _CONTROL))
    return out


def fates(server: Answer | None, expected: Answer, messages: Sequence[Any], ids: Sequence[int]) -> Fates:
    """Each token's fate in ``server``'s answer and in ``expected`` (our projection), for a completion ``ids``
    and its scanner ``messages``; ``server`` None when the answer was lost to an error (every text token dropped).

    Header and stop tokens are ``control``, a call's recipient ``call-name``; each body token takes
    the place its message's body has in the answer. Later messages win where recovered spans overlap.
    """
    from harmony_viz.tokens import encoding

    enc = encoding()
    n = len(ids)
    pieces = [enc.decode_single_token_bytes(int(t)).decode("utf-8", errors="replace") for t in ids]
    calls = frozenset(c.name for c in expected.calls)
    norms = Norms()
    sides = (_placed(server, messages, calls, norms), _placed(expected, messages, calls, norms))
    out = (bytearray(n), bytearray(n))
    for i, m in enumerate(messages):
        end = m.end if m.end is not None else n
        names = _name_tokens(m, pieces) if m.tool_name and m.tool_name in calls else range(0)
        fallback = _BY_VISIBILITY.get(m.visibility, _DROPPED)
        for side, column in zip(sides, out):
            text_fate, name_fate = side[i]
            column[m.start:min(m.header_end, n)] = bytes([_CONTROL]) * max(0, min(m.header_end, n) - m.start)
            for t in names:
                column[t] = name_fate
            code = fallback if text_fate is None else text_fate
            for a, b in m.spans:
                column[a:min(b, n)] = bytes([code]) * max(0, min(b, n) - a)
            if m.stop_start is not None and m.stop_start < end:
                column[m.stop_start:min(end, n)] = bytes([_CONTROL]) * max(0, min(end, n) - m.stop_start)
    return Fates(bytes(out[0]), bytes(out[1]))


def result_fates(result: CheckResult) -> Fates | None:
    """What the result's answer made of each token of its completion (:func:`fates`); None without an answer to
    place (an API not served, no token ids). An answer lost to a server error drops every token's text."""
    if not result.served or not result.token_ids or result.expected is None:
        return None
    if result.error is None and result.server is None:
        return None
    server = None if result.error is not None else answer_of(result.api, result.server)
    ids = list(result.token_ids)
    return fates(server, answer_of(result.api, result.expected), messages_of(ids), ids)


def fate_runs(f: Fates | None, offset: int = 0) -> dict[str, list[int]] | None:
    """``{"lengths", "values"}``: a result's fates run-length coded over the replayed stream (the prompt's
    ``offset`` tokens first, value 0); each value is ``fate | expected << 3 | mismatch << 6``."""
    if f is None:
        return None
    lengths, values = ([offset], [0]) if offset else ([], [])
    for a, b in zip(f.fate, f.expected):
        v = a | b << 3 | (a != b) << 6
        if values and values[-1] == v:
            lengths[-1] += 1
        else:
            lengths.append(1)
            values.append(v)
    return {"lengths": lengths, "values": values}
