"""Findings placed on a trace: the token span each one marks, and the step from which it shows.

Every lens reports :class:`~harmony_viz.findings.Finding` records with spans in its own
stream's unit. The replay draws them on token chips, so each is placed once here, in
Python: its span as tokens of the trace, and the step at which it was found. The scanner's
diagnostics carry that step (the step that reported them); a finding of any other lens
(the lints, the server lens, the prompt lens) judges whole messages, so it shows once its
span has been fed and the message holding the span's last token has ended (the end of the
stream for an open one). A finding with no span marks no chip and shows at the last step.

>>> from harmony_viz.trace import Trace
>>> t = Trace.build([200006, 173781, 200005, 1721, 200008, 12194, 200002], "token")  # <|channel|> final
>>> [(p.code, p.source, p.tokens, p.step) for p in scanner_findings(t)]
[('bad-channel', 'scanner', (2, 4), 5)]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harmony_viz.findings import SEVERITIES, Finding, Severity

if TYPE_CHECKING:
    from harmony_viz.trace._model import Trace

# Where a finding came from; a page lists them in this order.
SOURCES: tuple[str, ...] = ("scanner", "lint", "server", "prompt")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@dataclass(frozen=True, slots=True)
class Placed:
    """One finding of a stream as the replay draws it.

    ``tokens`` is its span as tokens of the trace, ``[start, end)`` (possibly empty, as a
    lens wrote it; the page marks the token at an empty span), or None when it points at no
    token of this stream; ``step`` is the first step that shows it.
    """

    code: str
    severity: Severity
    message: str
    source: str
    tokens: tuple[int, int] | None
    step: int


def token_span(trace: Trace, start: int, end: int) -> tuple[int, int]:
    """The tokens ``[a, b)`` that a span in the trace's unit covers (the span itself for token units)."""
    if trace.unit == "tokens":
        return start, max(start, end)
    starts = trace.token_char_starts
    n = trace.n_tokens
    a = min(bisect.bisect_right(starts, start) - 1, n)
    b = bisect.bisect_right(starts, end - 1) if end > start else a
    return max(0, a), max(a, min(b, n))


def scanner_findings(trace: Trace) -> list[Placed]:
    """The scanner's diagnostics of the trace, each at the step that reported it."""
    out = []
    for step, d in trace.diagnostics:
        out.append(Placed(d.code, d.severity, d.message, "scanner", token_span(trace, d.start, d.end), step))
    return out


class _Steps:
    """When a span of tokens is found: fed, and the message holding its last token ended."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.last = trace.n_steps - 1
        headers = trace.headers
        self.starts = [m.start for m in headers]
        self.ends = [m.end for m in headers]
        self.ended = [m.step_ended for m in headers]

    def of(self, spans: Sequence[tuple[int, int] | None]) -> list[int]:
        """The step from which each span shows (one search of the steps for all of them)."""
        trace, last = self.trace, self.last
        n = trace.n_tokens
        out = [last] * len(spans)
        rows, tokens = [], []
        for j, span in enumerate(spans):
            if span is None:
                continue
            a, b = span
            t = min(max(a, b - 1), n - 1)  # the last token of the span; an empty span's own token
            if t >= 0:
                rows.append(j)
                tokens.append(t)
        if not rows:
            return out
        if trace.unit == "chars":
            char_starts = trace.token_char_starts.tolist()
            unit_end, unit_t = [char_starts[t + 1] for t in tokens], [char_starts[t] for t in tokens]
        else:
            unit_end, unit_t = [t + 1 for t in tokens], tokens
        fed = [min(trace.step_fed(u), last) for u in unit_end]
        starts, ends, ended = self.starts, self.ends, self.ended
        for j, f, u in zip(rows, fed, unit_t):
            i = bisect.bisect_right(starts, u) - 1
            if i >= 0 and (ends[i] is None or u < ends[i]):
                e = ended[i]
                out[j] = max(f, last if e is None else e)
            else:
                out[j] = f
        return out


def place(trace: Trace, found: Iterable[tuple[Finding, str, tuple[int, int] | None]]) -> list[Placed]:
    """Place ``(finding, source, token span or None)`` triples of lenses other than the scanner (see the module docstring)."""
    found = list(found)
    steps = _Steps(trace).of([span for _, _, span in found])
    return [Placed(f.code, f.severity, f.message, source, span, step) for (f, source, span), step in zip(found, steps)]


def merge(scanner: Sequence[Placed], others: Sequence[Placed]) -> list[Placed]:
    """One list, in the order findings show: by step, then position, then severity.

    A finding that repeats a scanner diagnostic's code on an overlapping span is left out
    (the scanner's wins: the rule ``lint`` applies beside the scanner), and so is an exact
    repeat (same code, span, message and source).
    """
    by_code: dict[str, list[tuple[int, int]]] = {}
    for p in scanner:
        if p.tokens is not None:
            by_code.setdefault(p.code, []).append(p.tokens)
    for spans in by_code.values():
        spans.sort()

    def repeats_scanner(p: Placed) -> bool:
        spans = by_code.get(p.code)
        if p.tokens is None or not spans:
            return False
        a, b = p.tokens
        # the scanner's spans of one code do not nest: the last one starting at or before b decides
        i = bisect.bisect_right(spans, (b, b)) - 1
        return i >= 0 and (spans[i] == (a, b) or (spans[i][0] < b and spans[i][1] > a))

    seen: set[tuple[str, tuple[int, int] | None, str, str]] = set()
    out = []
    for p in [*scanner, *(p for p in others if not repeats_scanner(p))]:
        key = (p.code, p.tokens, p.message, p.source)
        if key not in seen:
            seen.add(key)
            out.append(p)
    out.sort(key=lambda p: (p.step, p.tokens[0] if p.tokens else 1 << 31, _RANK[p.severity], p.code))
    return out

