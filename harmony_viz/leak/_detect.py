"""A leak detector: Harmony markup where a user or a tool would see it.

Signals, after the OMP dialect's fusion (``utils/harmony-leak.ts``):

====  =====================================================================
H     a raw control spelling: any special token of o200k_harmony (``<|start|>``, ``<|endoftext|>``, ``<|reserved_200013|>``…)
M     a ``to=functions.x`` marker — never enough alone: docs and tests carry it
C     a channel or role word right before M (``commentary to=functions.x``)
G     a known glitch token near M (``changedFiles``, ``RTLU``, ``Jsii``, …)
S     a run of non-Latin script near M inside otherwise ASCII text
B     a cascade: M, ``code``, and another M within 200 characters
R     fabricated results after M: ``code_output`` then ``Cell N:``
T     H or M after the end of the structurally valid tool arguments
====  =====================================================================

Assistant text and thinking leak on H, or on M with any co-signal. Tool arguments are
data that may quote a marker, so there M counts only after the valid JSON (T); but a raw
control spelling is a leak in any argument text, JSON or not (inside a JSON string too: a
host that renders the call back into a prompt reads it as the control token itself, so data
must carry it escaped, as :func:`~harmony_viz.leak.escape_json` writes it). Fenced code
blocks and inline code spans are exempt everywhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from harmony_viz.tokens import special_spellings_in

Surface = Literal["assistant_text", "assistant_thinking", "tool_arg"]
SURFACES: tuple[str, ...] = ("assistant_text", "assistant_thinking", "tool_arg")
SIGNAL_LETTERS: tuple[str, ...] = ("H", "M", "C", "G", "S", "B", "R", "T")

_MARKER_RE = re.compile(r"\bto=functions\.[A-Za-z_]\w*")
_CHANNEL_WORD_RE = re.compile(r"\b(?:analysis|commentary|final|assistant|user|system|developer|tool)\s*(?:<\|channel\|>\s*\w+\s*)?\s+to=functions\.")
# Spelled in pieces so this module does not trip the detector when it is scanned itself.
_GLITCH_RE = re.compile(r"\b(?:changedFiles|RTLU|Jsii(?:_commentary)?|" + "Jap" + r"golly)\b")
_CASCADE_RE = re.compile(r"to=functions\.\w+\s+code\b[\s\S]{0,200}?to=functions\.")
_FAKE_RESULT_RE = re.compile(r"to=functions\.\w+[\s\S]{0,80}?code_output\s*\n\s*Cell\s+\d+:")
_FENCE_RE = re.compile(r"^[ \t]*(```+|~~~+)")
_INLINE_CODE_RE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# CJK, Cyrillic, Thai, Georgian, Armenian, Kannada, Telugu, Devanagari, Arabic, Malayalam.
_SCRIPT_RUN_RE = re.compile(
    "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0400-\u04ff\u0e00-\u0e7f\u10a0-\u10ff"
    "\u0530-\u058f\u0c80-\u0cff\u0c00-\u0c7f\u0900-\u097f\u0600-\u06ff\u0d00-\u0d7f]{2,}"
)


@dataclass(frozen=True, slots=True)
class LeakSignal:
    """One finding: its signal letters (``("M", "C")``), span and text."""

    letters: tuple[str, ...]
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class LeakReport:
    """The verdict on one text: ``leak``, every signal letter seen, and the findings."""

    surface: Surface
    leak: bool
    signals: tuple[str, ...]
    findings: tuple[LeakSignal, ...]

    def to_json(self) -> dict[str, Any]:
        return {"leak": self.leak, "signals": list(self.signals)}


def exempt_ranges(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks (an unclosed fence runs to the end) and inline code spans."""
    ranges: list[tuple[int, int]] = []
    pos = 0
    fence_start: int | None = None
    fence_char = ""
    for line in text.splitlines(keepends=True):
        m = _FENCE_RE.match(line)
        if fence_start is None:
            if m:
                fence_start, fence_char = pos, m.group(1)[0]
            elif "`" in line:  # the pattern has no literal start to search by: skip lines it cannot match
                for im in _INLINE_CODE_RE.finditer(line):
                    ranges.append((pos + im.start(), pos + im.end()))
        elif m and m.group(1)[0] == fence_char:
            ranges.append((fence_start, pos + len(line)))
            fence_start = None
        pos += len(line)
    if fence_start is not None:
        ranges.append((fence_start, len(text)))
    return sorted(ranges)


def _inside(ranges: list[tuple[int, int]], at: int) -> bool:
    # ``ranges`` are sorted and disjoint (as exempt_ranges returns them): only the last one
    # starting at or before ``at`` can hold it, found by bisection (not a scan per finding).
    from bisect import bisect_right

    i = bisect_right(ranges, (at, float("inf")))
    return i > 0 and at < ranges[i - 1][1]


def _script_mixing(text: str, start: int, end: int) -> bool:
    if not _SCRIPT_RUN_RE.search(text, max(0, start - 32), min(len(text), end + 32)):
        return False
    around = text[max(0, start - 200) : end + 200]
    return sum(ch < "\x80" for ch in around) >= 0.85 * len(around)


def json_parsed_end(text: str) -> int | None:
    """Where the first JSON value in ``text`` ends (after leading blanks), or None if none parses."""
    stripped = len(text) - len(text.lstrip())
    try:
        _, end = json.JSONDecoder().raw_decode(text, stripped)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder can follow
        return None
    return end


def detect_leak(text: str, surface: Surface = "assistant_text", *, parsed_end: int | None | Literal["auto"] = "auto") -> LeakReport:
    """Look for Harmony markup leaked into ``text`` on ``surface``.

    ``parsed_end`` is where the valid tool arguments end; the default ``"auto"`` takes
    the end of the first JSON value for ``tool_arg`` (none for other surfaces).

    >>> detect_leak("I will call it. commentary to=functions.edit code").to_json()
    {'leak': True, 'signals': ['M', 'C']}
    >>> detect_leak("Write `to=functions.edit` in the header.").to_json()
    {'leak': False, 'signals': []}
    """
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}; expected one of {', '.join(SURFACES)}")
    if parsed_end == "auto":
        parsed_end = json_parsed_end(text) if surface == "tool_arg" else None
    exempt = exempt_ranges(text)
    findings: list[LeakSignal] = []
    for m in special_spellings_in(text):
        if _inside(exempt, m.start()):
            continue
        letters = ("H", "T") if parsed_end is not None and m.start() >= parsed_end else ("H",)
        findings.append(LeakSignal(letters, m.start(), m.end(), m.group()))
    for m in _MARKER_RE.finditer(text) if "to=functions." in text else ():  # \b first: no fast search without the guard
        start, end = m.start(), m.end()
        if _inside(exempt, start):
            continue
        found = {"M"}
        if _CHANNEL_WORD_RE.search(text[max(0, start - 64) : end + 16]):
            found.add("C")
        if _GLITCH_RE.search(text[max(0, start - 16) : end + 16]):
            found.add("G")
        if _script_mixing(text, start, end):
            found.add("S")
        forward = text[start : start + 240]
        if _CASCADE_RE.match(forward):
            found.add("B")
        if _FAKE_RESULT_RE.match(forward):
            found.add("R")
        if parsed_end is not None and start >= parsed_end:
            found.add("T")
        findings.append(LeakSignal(tuple(x for x in SIGNAL_LETTERS if x in found), start, end, m.group()))
    findings.sort(key=lambda f: (f.start, f.end))
    if surface == "tool_arg":
        # A control spelling anywhere in the arguments, JSON or not (the call's own stop token swallowed
        # into unfinished JSON is the usual cause); a marker only after the arguments' JSON (T).
        leak = any("H" in f.letters or "T" in f.letters for f in findings)
    else:
        leak = any("H" in f.letters or len(f.letters) > 1 for f in findings)
    seen = {x for f in findings for x in f.letters}
    return LeakReport(surface, leak, tuple(x for x in SIGNAL_LETTERS if x in seen), tuple(findings))
