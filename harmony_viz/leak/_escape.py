"""Transport escaping of o200k_harmony's control spellings, in plain text and inside JSON.

``<|start|>`` becomes ``<\\|start\\|>`` (a backslash before each bar), which tokenises as
ordinary text, so untrusted data (user text, tool results) can reach a gpt-oss model as
data. Every spelling the encoding reads as a special token is one (``<|endoftext|>``,
``<|reserved_200013|>``…: :data:`harmony_viz.tokens.SPECIAL_SPELLINGS`, the one table).

Escaping is injective, so :func:`unescape` gives back exactly what :func:`escape` was given,
whatever it was: a spelling already escaped k times (``<`` then k backslashes before each bar)
gains one more backslash on each side, and unescaping takes one away. Text that was data
before stays data, one level deeper.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from harmony_viz.tokens import SPECIAL_SPELLINGS

# ``<``, k backslashes, ``|``, a name, the same k backslashes, ``|>``: a control spelling
# escaped k times (k = 0: the spelling itself) when ``<|name|>`` is in the table.
_LEVELS_RE = re.compile(r"<(\\*)\|([A-Za-z0-9_]+)\1\|>")


def _deeper(m: re.Match[str]) -> str:
    if f"<|{m.group(2)}|>" not in SPECIAL_SPELLINGS:
        return m.group()
    bars = m.group(1) + "\\"
    return f"<{bars}|{m.group(2)}{bars}|>"


def _shallower(m: re.Match[str]) -> str:
    if not m.group(1) or f"<|{m.group(2)}|>" not in SPECIAL_SPELLINGS:
        return m.group()
    bars = m.group(1)[1:]
    return f"<{bars}|{m.group(2)}{bars}|>"


def escape(text: str) -> str:
    r"""Escape every control spelling in ``text``: it then holds none, and :func:`unescape` gives ``text`` back.

    >>> escape("a<|call|>b<|endoftext|>c<|nope|>")
    'a<\\|call\\|>b<\\|endoftext\\|>c<|nope|>'
    >>> escape("<\\|end\\|>")  # already escaped once: one level deeper
    '<\\\\|end\\\\|>'
    """
    return _LEVELS_RE.sub(_deeper, text)


def unescape(text: str) -> str:
    r"""Undo :func:`escape`: ``unescape(escape(t)) == t`` for every string ``t``.

    >>> unescape("<\\|call\\|> <|end|>")
    '<|call|> <|end|>'
    """
    return _LEVELS_RE.sub(_shallower, text)


def escape_bytes(data: bytes) -> bytes:
    """:func:`escape` of a file's bytes, every other byte kept (CRLF, a lone CR, a BOM, NUL, bytes that are not UTF-8)."""
    return escape(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def unescape_bytes(data: bytes) -> bytes:
    """:func:`unescape` of a file's bytes: ``unescape_bytes(escape_bytes(b)) == b`` for any bytes."""
    return unescape(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


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


def _rewrite_strings(doc: str, level: Callable[[re.Match[str]], str], outside: Callable[[str], str]) -> str:
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
        for m in _LEVELS_RE.finditer(decoded):
            changed = level(m)
            if changed == m.group():
                continue  # not a control spelling: its source text stays as written
            a, b = offsets[m.start()], offsets[m.end()]
            pieces.append(body[last:a])
            pieces.append(json.dumps(changed)[1:-1])
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
    except RecursionError:  # json's decoder recurses once per level of nesting
        return "nested too deep to read (more levels than Python's recursion limit)"
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
    return _rewrite_strings(doc, _deeper, escape)


def unescape_json(doc: str, *, strict: bool = False) -> str:
    """Undo :func:`escape_json`: decoded strings are :func:`unescape`-d, the rest kept."""
    if strict:
        _check_json(doc)
    return _rewrite_strings(doc, _shallower, unescape)
