"""Findings for people, as a compiler writes them: ``PATH:LINE:COL: severity code message``, the line, a caret.

``parse`` and ``lint`` print these on stderr; their stdout keeps the JSON for scripts. Lines
and columns count from 1, in characters of the text scanned (the decoded stream when the
input was token ids or a run). A request or conversation (JSON) is scanned as rendered: its
positions are in that rendering, not the file, and say so (``PATH: in the rendered prompt, line L, column C``).
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

# A line longer than this is shown as a window around the caret.
_WIDTH = 120


def finding_name(path: str) -> str:
    """The PATH of a finding: the file as given, ``<stdin>`` for standard input."""
    return "<stdin>" if path == "-" else path


def show_findings(findings: Iterable[Any], name: str, source: str | Sequence[int], *, rendered: str | None = None, file: TextIO | None = None) -> None:
    """Print each finding (``code``, ``severity``, ``message``, ``start``, ``end``) against ``source``.

    ``source`` is what was scanned: text (spans count characters) or token ids (spans count tokens).
    ``rendered`` names the text ``source`` is when the file held no such text (``"the rendered prompt"`` of a
    request): a line and column of it are not the file's, so each finding says ``PATH: in the rendered prompt, line L, column C``.
    """
    findings = list(findings)
    if not findings:
        return
    out = file or sys.stderr
    text, to_char = _text_of(source)
    line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    for f in findings:
        start, end = to_char(f.start), to_char(max(f.end, f.start))
        # A span that opens with whitespace (stray text after a newline) is shown at its first visible character.
        while start < end - 1 and text[start].isspace():
            start += 1
        line = bisect.bisect_right(line_starts, start) - 1
        lo = line_starts[line]
        hi = line_starts[line + 1] - 1 if line + 1 < len(line_starts) else len(text)
        where = f"{name}: in {rendered}, line {line + 1}, column {start - lo + 1}" if rendered else f"{name}:{line + 1}:{start - lo + 1}"
        print(f"{where}: {f.severity} {f.code} {f.message}", file=out)
        shown, caret = _excerpt(text[lo:hi], start - lo, min(end, hi) - lo)
        print(f"  {shown}", file=out)
        print(f"  {caret}", file=out)


def _text_of(source: str | Sequence[int]) -> tuple[str, Any]:
    if isinstance(source, str):
        return source, lambda offset: min(max(offset, 0), len(source))
    from harmony_viz.tokens import char_starts, encoding

    enc = encoding()
    pieces = [enc.decode_single_token_bytes(int(t)) for t in source]
    starts = char_starts(pieces)
    text = b"".join(pieces).decode("utf-8", errors="replace")
    last = len(starts) - 1
    return text, lambda offset: min(int(starts[min(max(offset, 0), last)]), len(text))


def _excerpt(line: str, col: int, end: int) -> tuple[str, str]:
    """The line (a window of it when long) and a caret line under ``col``..``end``."""
    first = 0
    if len(line) > _WIDTH:
        first = max(0, min(col - _WIDTH // 3, len(line) - _WIDTH))
        line = line[first : first + _WIDTH]
        col, end = col - first, end - first
    # Tabs stay tabs in the caret's indent, so the caret lines up however tabs are shown.
    indent = "".join(c if c == "\t" else " " for c in line[:col])
    width = max(1, min(end, len(line)) - col)
    return line.replace("\r", " "), indent + "^" + "~" * (width - 1)
