"""Transport escaping of Harmony's seven control spellings, in plain text and inside JSON.

``<|start|>`` becomes ``<\\|start\\|>`` (a backslash before each bar), which tokenises as
ordinary text, so untrusted data (user text, tool results) can reach a gpt-oss model as
data. Escaping is idempotent; unescaping is its exact inverse on any text that held no
escaped spelling to begin with (an escaped spelling is ambiguous: it may have been data).
"""

from __future__ import annotations

import json
import re

CONTROL_NAMES: tuple[str, ...] = ("start", "end", "message", "channel", "constrain", "call", "return")
CONTROL_SPELLINGS: tuple[str, ...] = tuple(f"<|{n}|>" for n in CONTROL_NAMES)

_ALT = "|".join(CONTROL_NAMES)
_PLAIN_RE = re.compile(rf"<\|({_ALT})\|>")
_ESCAPED_RE = re.compile(rf"<\\\|({_ALT})\\\|>")


def escape(text: str) -> str:
    r"""Escape every control spelling in ``text``.

    >>> escape("a<|call|>b")
    'a<\\|call\\|>b'
    """
    return _PLAIN_RE.sub(r"<\\|\1\\|>", text)


def unescape(text: str) -> str:
    r"""Undo :func:`escape`.

    WARNING: lossy on text that already held an escaped spelling (``<\|end\|>``) before
    escaping: that one is turned into a control spelling too.
    """
    return _ESCAPED_RE.sub(r"<|\1|>", text)


def _string_end(doc: str, i: int) -> tuple[int, bool]:
    """Index just past the string literal opening at ``doc[i] == '"'``, and whether it was closed."""
    j = i + 1
    n = len(doc)
    while j < n:
        c = doc[j]
        if c == "\\":
            j += 2
        elif c == '"':
            return j + 1, True
        else:
            j += 1
    return n, False


def _decode_literal(body: str) -> tuple[str, list[int]]:
    """Decode a JSON string body; also return, per decoded char, its source offset (plus the end)."""
    chars: list[str] = []
    offsets: list[int] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        offsets.append(i)
        if c != "\\" or i + 1 >= n:
            chars.append(c)
            i += 1
            continue
        e = body[i + 1]
        simple = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
        if e in simple:
            chars.append(simple[e])
            i += 2
        elif e == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            code = int(body[i + 2 : i + 6], 16)
            i += 6
            low = body[i + 2 : i + 6] if body[i : i + 2] == "\\u" else ""
            if 0xD800 <= code < 0xDC00 and re.fullmatch(r"[dD][c-fC-F][0-9a-fA-F]{2}", low):
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                i += 6
            chars.append(chr(code))
        else:  # invalid escape in a malformed document: keep it as written
            chars.append(c)
            i += 1
    offsets.append(n)
    return "".join(chars), offsets


def _rewrite_strings(doc: str, pattern: re.Pattern[str], replacement: str, outside) -> str:
    out: list[str] = []
    i = 0
    n = len(doc)
    while i < n:
        q = doc.find('"', i)
        if q < 0:
            out.append(outside(doc[i:]))
            break
        out.append(outside(doc[i:q]))
        end, closed = _string_end(doc, q)
        body = doc[q + 1 : end - 1] if closed else doc[q + 1 : end]
        decoded, offsets = _decode_literal(body)
        pieces: list[str] = []
        last = 0
        for m in pattern.finditer(decoded):
            a, b = offsets[m.start()], offsets[m.end()]
            pieces.append(body[last:a])
            pieces.append(json.dumps(m.expand(replacement))[1:-1])
            last = b
        pieces.append(body[last:])
        out.append('"' + "".join(pieces) + ('"' if closed else ""))
        i = end
    return "".join(out)


def json_problem(doc: str) -> str | None:
    """Why ``doc`` is not valid JSON (``"Expecting value at line 1, column 7"``), or None if it is."""
    try:
        json.loads(doc)
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")
        return f"{what} at line {exc.lineno}, column {exc.colno}"
    return None


def _check_json(doc: str) -> None:
    problem = json_problem(doc)
    if problem is not None:
        raise ValueError(f"not valid JSON: {problem}; pass strict=False to escape it best-effort, or use escape() for plain text")


def escape_json(doc: str, *, strict: bool = False) -> str:
    r"""Escape control spellings inside the strings of a JSON document; it stays valid JSON.

    Each decoded string equals :func:`escape` of the original decoded string; everything
    else is kept byte for byte. ``strict=True`` first checks that ``doc`` is valid JSON
    (ValueError otherwise); without it a malformed document (say truncated tool
    arguments) is escaped best-effort, plain-text escaping anything outside strings.

    >>> escape_json('{"a": "<|end|>"}')
    '{"a": "<\\\\|end\\\\|>"}'
    """
    if strict:
        _check_json(doc)
    return _rewrite_strings(doc, _PLAIN_RE, r"<\\|\1\\|>", escape)


def unescape_json(doc: str, *, strict: bool = False) -> str:
    """Undo :func:`escape_json`: decoded strings are :func:`unescape`-d, the rest kept."""
    if strict:
        _check_json(doc)
    return _rewrite_strings(doc, _ESCAPED_RE, r"<|\1|>", unescape)
