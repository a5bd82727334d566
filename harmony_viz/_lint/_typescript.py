"""Rendered ``namespace … { … }`` TypeScript read back into tool names and parameter schemas.

The renderer turns each tool's JSON Schema into a TypeScript-like type; this module parses
that text back into names and parameter schemas, so a prompt's own words say which calls
are legal. The TypeScript is lossy (``integer`` becomes ``number``, ``anyOf`` and ``const``
become ``any``, integer enums vanish), so a schema read back from text accepts at least
what the original accepted; a schema from JSON (``--tools``, conversation JSON) is exact.

>>> text = '''namespace functions {
... // Gets the weather.
... type get_weather = (_: {
... city: string,
... unit?: "c" | "f", // default: c
... }) => any;
... } // namespace functions'''
>>> [t.recipient for t in tools_from_typescript(text)]
['functions.get_weather']
>>> tools_from_typescript(text)[0].parameters["required"]
['city']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from harmony_viz._lint._tools import DeclaredTool, ToolParseError

__all__ = ["TypeScriptProblem", "read_typescript", "tools_from_typescript"]

_NAMESPACE_RE = re.compile(r"^namespace (\S+) \{\s*$", re.M)
_PYTHON_RE = re.compile(r"^## python\s*$", re.M)
_TYPE_RE = re.compile(r"^type ([^\s=]+)\s*=\s*\((.*)$")
_FIELD_RE = re.compile(r"^(?P<name>[^:/|{}\s][^:]*?)(?P<opt>\?)?:(?P<rest>.*)$")
_PRIMITIVES = {"string": "string", "number": "number", "boolean": "boolean", "null": "null"}
_NAMED_RE = re.compile(r"[A-Za-z_$][\w$.]*(<[^<>]*(<[^<>]*>[^<>]*)*>)?")
_NAMED_OBJECT_RE = re.compile(r"object|Object|Record<.*>|\{\s*\[\s*\w+\s*:\s*string\s*\]\s*:.*\}")
_NUMBER_RE = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


@dataclass(frozen=True, slots=True)
class TypeScriptProblem:
    """A part of a namespace that could not be read: ``line``/``column`` count from 1 in the text read.

    ``recovered`` says whether the namespace still gave declarations (a problem with one
    declaration's parameters, or a stray line); ``start``/``end`` are offsets (``offset`` added).
    """

    namespace: str
    message: str
    line: int
    column: int
    start: int
    end: int
    recovered: bool


def tools_from_typescript(text: str, *, offset: int = 0) -> list[DeclaredTool]:
    """Every tool declared in ``text`` (a system or developer message body); never raises.

    Reads each ``namespace X { … } // namespace X`` block and a ``## python`` section (the
    builtin that takes free text). ``offset`` is added to the spans, so they can point
    into a larger document. A declaration whose parameters cannot be read still declares
    its tool (with ``parameters=None``); :func:`read_typescript` also says what went wrong.
    """
    return read_typescript(text, offset=offset)[0]


def read_typescript(text: str, *, offset: int = 0) -> tuple[list[DeclaredTool], list[TypeScriptProblem]]:
    """The tools declared in ``text`` and the problems met reading them, each declaration on its own."""
    tools: list[DeclaredTool] = []
    problems: list[TypeScriptProblem] = []
    for m in _NAMESPACE_RE.finditer(text):
        namespace = m.group(1)
        close = text.find(f"}} // namespace {namespace}", m.end())
        if close < 0:
            close = len(text)
        found, bad = _parse_namespace(namespace, text, m.end(), close, offset)
        if not found and not bad and text[m.end() : close].strip():
            # Text that reads as nothing (a description with no declaration after it) is still unreadable.
            line_no = text.count("\n", 0, m.start()) + 1
            column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            bad = [TypeScriptProblem(namespace, f"no declaration in namespace {namespace}", line_no, column, offset + m.start(), offset + m.end(), recovered=False)]
        tools.extend(found)
        # Only a namespace that gave nothing is unreadable; the others lost at most a detail.
        problems.extend(replace(b, recovered=True) for b in bad) if found else problems.extend(bad[:1])
    for m in _PYTHON_RE.finditer(text):
        tools.append(DeclaredTool(None, "python", "", None, offset + m.start(), offset + m.end()))
    return tools, problems


class _Lines:
    """A cursor over (line text stripped, start offset, end offset), the raw lines beside them."""

    def __init__(self, text: str, start: int, end: int, offset: int) -> None:
        self.items: list[tuple[str, int, int]] = []
        self.raw: list[str] = []
        pos = start
        for raw in text[start:end].split("\n"):
            lead = len(raw) - len(raw.lstrip())
            self.items.append((raw.strip(), offset + pos + lead, offset + pos + len(raw.rstrip())))
            self.raw.append(raw)
            pos += len(raw) + 1
        self.i = 0

    def peek(self) -> str | None:
        return self.items[self.i][0] if self.i < len(self.items) else None

    def take(self) -> tuple[str, int, int]:
        if self.i >= len(self.items):
            raise ToolParseError("tool declaration ends early: a '}' or ',' is missing")
        item = self.items[self.i]
        self.i += 1
        return item


# What a declaration's parameters may fail with on text no renderer wrote; each is caught
# per declaration, so one odd tool never hides the others.
_PARSE_ERRORS = (ToolParseError, ValueError, IndexError, KeyError, TypeError, RecursionError)


def _parse_namespace(namespace: str, text: str, start: int, end: int, offset: int) -> tuple[list[DeclaredTool], list[TypeScriptProblem]]:
    lines = _Lines(text, start, end, offset)
    tools: list[DeclaredTool] = []
    problems: list[TypeScriptProblem] = []

    def problem(message: str, at: int) -> None:
        item = lines.items[min(at, len(lines.items) - 1)]
        pos = item[1] - offset
        line_no = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        problems.append(TypeScriptProblem(namespace, message, line_no, column, item[1], item[2], recovered=False))

    comments: list[str] = []
    decl_start = -1
    while lines.peek() is not None:
        line, s, _e = lines.take()
        if not line:
            comments, decl_start = [], -1
            continue
        if line.startswith("//"):
            comments.append(_comment(line))
            decl_start = s if decl_start < 0 else decl_start
            continue
        m = _TYPE_RE.match(line)
        if m is None:
            if comments:  # a description's later lines lose their '//' (renderer quirk)
                comments.append(line)
                continue
            problem(f"expected 'type NAME = (…) => any;', got {line[:80]!r}", lines.i - 1)
            continue
        name, rest = m.group(1), m.group(2).strip()
        first = lines.i - 1
        params: dict[str, Any] | None = None
        try:
            if rest.startswith(")"):
                params = None
            elif rest.startswith("_:"):
                params = _parse_type_after(rest[2:].strip(), lines)
            else:
                raise ToolParseError(f"cannot read the parameters of {name!r}: {line[:80]!r}")
        except _PARSE_ERRORS as exc:
            # The name was read, so the tool is declared; only its parameters are unknown.
            problem(f"{name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", max(first, lines.i - 1))
            params = None
            lines.i = _resync(lines, first + 1)
        tools.append(DeclaredTool(namespace, name, "\n".join(comments), params, decl_start if decl_start >= 0 else s, lines.items[lines.i - 1][2]))
        comments, decl_start = [], -1
    return tools, problems


def _resync(lines: _Lines, i: int) -> int:
    """The line after a broken declaration's ``}) => any;``, or the next ``type`` line."""
    for k in range(i, len(lines.items)):
        text = lines.items[k][0]
        if _TYPE_RE.match(text) and not lines.raw[k][:1].isspace():
            return k
        if text.startswith("})") and "=> any" in text:
            return k + 1
    return len(lines.items)


def _comment(line: str) -> str:
    body = line[2:]
    return body[1:] if body.startswith(" ") else body


def _parse_type_after(rest: str, lines: _Lines) -> dict[str, Any]:
    """A type that starts with ``rest`` on the current line and may continue below."""
    if rest.startswith("//") or rest == "":
        nxt = lines.peek()
        if nxt is not None and nxt.startswith("|"):
            return _parse_multiline_union(lines)
        if rest == "":
            line, _s, _e = lines.take()
            return _parse_type_after(line, lines)
        # ``o:     // obj desc`` then the object on a later line: the renderer repeats an
        # object's description after the colon, and later description lines lose '//'.
        note = [rest[2:].strip()]
        while nxt is not None and not nxt.startswith("{"):
            note.append(lines.take()[0])
            nxt = lines.peek()
        lines.take()
        schema = dict(_parse_object_body(lines), description="\n".join(note))
        close, _s, _e = lines.take()
        return _apply_array_suffix(schema, close[1:])
    if rest.startswith("{") and rest != "{":
        close = _matching_brace(rest)
        if close > 0:  # the whole object on one line, as chat templates write it
            schema = _parse_inline_object(rest[1:close])
            tail = rest[close + 1 :]
            return _apply_array_suffix(schema, tail.strip())
    if rest.startswith("{"):
        schema = _parse_object_body(lines)
        close, _s, _e = lines.take()
        return _apply_array_suffix(schema, close[1:])
    inline, tail = _split_inline(rest)
    return _apply_array_suffix(_parse_inline(inline), tail)


# ---- the one tokenizer of a type's text: quotes, brackets and comments

# A quote ends a literal only when a separator, a closer or the end follows it: the renderers
# write literals without escaping their quotes (``"say "hi", then"``). A quote after a
# backslash never ends one: a hand-written literal escapes its quotes as JSON does. A literal
# with no such quote runs to the end. ``=>`` is an arrow, not a bracket; other text is no token.
_LITERAL = r'"(?:\\.?|"(?!\s*(?:\||,|;|\[\]|\)|\}|>|$))|[^"\\])*(?:"|$)'
_LEXER_RE = re.compile(rf"(?P<literal>{_LITERAL})|(?P<comment>//.*)|(?P<arrow>=>)|(?P<open>[<{{(\[])|(?P<close>[>}})\]])|(?P<sep>[|,;])", re.DOTALL)


class _Token(NamedTuple):
    """A piece of a type's text: a ``literal`` (its quotes included), a ``comment`` (``//`` to the end),
    an ``open`` or ``close`` bracket, or a ``sep`` (``|``, ``,``, ``;``); the text between them is no token.

    ``depth`` is the brackets open around the token (a pair's ``open`` and ``close`` share it)."""

    kind: str
    start: int
    end: int
    depth: int


@lru_cache(maxsize=4096)  # the splitters of one declaration read the same pieces of text again
def _tokens(text: str) -> tuple[_Token, ...]:
    """``text`` cut into tokens; every splitter of the reader reads these, so all agree on what is quoted."""
    out: list[_Token] = []
    depth = 0
    for m in _LEXER_RE.finditer(text):
        kind = m.lastgroup
        if kind == "arrow":
            continue
        if kind == "close":
            depth = max(depth - 1, 0)
        out.append(_Token(kind, m.start(), m.end(), depth))
        if kind == "open":
            depth += 1
    return tuple(out)


def _literal_value(literal: str) -> str:
    """The string a quoted literal holds: JSON-unescaped when it was written with escapes, else as written."""
    inner = literal[1:-1]
    if '\\"' in inner:
        try:
            value = json.loads(literal)
        except ValueError:
            return inner
        return value if isinstance(value, str) else inner
    return inner


def _matching_brace(text: str) -> int:
    """Where the ``{`` that starts ``text`` closes; -1 when not on this line."""
    return next((t.start for t in _tokens(text)[1:] if t.kind == "close" and t.depth == 0), -1)


def _split_inline(rest: str) -> tuple[str, str]:
    """Split ``"a" | "b"[], // default: a`` into the type and what follows it."""
    stop = next((t.start for t in _tokens(rest) if t.depth == 0 and (t.kind == "comment" or (t.kind == "sep" and rest[t.start] == ",")
                                                                  or (t.kind == "close" and rest[t.start] == ")"))), len(rest))  # fmt: skip
    type_text = rest[:stop].rstrip()
    m = re.search(r"(\[\])+$", type_text)
    if m and "|" in type_text and len(_split_top(type_text, "|")) > 1:
        # ``"p" | "q"[]`` is how an array of an enum is written: the brackets apply to
        # the whole union.
        return type_text[: m.start()], type_text[m.start() :] + rest[stop:]
    return type_text, rest[stop:]


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split on ``sep`` outside quotes and brackets (a comment is kept with the part it ends)."""
    if sep not in text:
        return [text.strip()] if text.strip() else []
    cuts = [t.start for t in _tokens(text) if t.kind == "sep" and t.depth == 0 and text[t.start] == sep]
    parts = [text[a + 1 if a >= 0 else 0 : b].strip() for a, b in zip([-1, *cuts], [*cuts, len(text)])]
    return [p for p in parts if p]


def _apply_array_suffix(schema: dict[str, Any], tail: str) -> dict[str, Any]:
    while tail.startswith("[]"):
        schema = {"type": "array", "items": schema}
        tail = tail[2:]
    return schema


def _parse_inline_object(body: str) -> dict[str, Any]:
    """``{a: string, b?: number}`` on one line (chat templates write nested objects so)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in _split_top(body.replace("\n", " "), ","):
        m = _FIELD_RE.match(part.rstrip(";"))
        if m is None:
            raise ToolParseError(f"expected 'name: type' in an inline object, got {part[:60]!r}")
        name = m.group("name").strip().strip("\"'")
        properties[name] = _parse_inline(m.group("rest").strip())
        if not m.group("opt"):
            required.append(name)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def _parse_inline(text: str) -> dict[str, Any]:
    variants = _split_top(text, "|")
    if not variants:
        raise ToolParseError(f"empty type in {text!r}")
    atoms = [_parse_atom(v) for v in variants]
    if len(atoms) == 1:
        return _alone(atoms[0])
    if all("const" in a for a in atoms):
        values = [a["const"] for a in atoms]
        kinds = {type(v) for v in values}
        schema: dict[str, Any] = {"enum": values}
        if kinds == {str}:
            schema = {"type": "string", "enum": values}
        return schema
    if all(set(a) == {"type"} and isinstance(a["type"], str) for a in atoms):
        return {"type": [a["type"] for a in atoms]}
    return {"oneOf": atoms}


def _alone(atom: dict[str, Any]) -> dict[str, Any]:
    """An atom that is a whole type: a single literal is a one-value enum."""
    if isinstance(atom.get("const"), str):
        return {"type": "string", "enum": [atom["const"]]}
    if atom == {"type": "null"}:
        return {"type": ["null"]}  # the renderer writes {"type": "null"} as any
    return atom


def _parse_atom(text: str) -> dict[str, Any]:
    text = text.strip()
    suffix = ""
    while text.endswith("[]"):
        text, suffix = text[:-2].rstrip(), suffix + "[]"
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        schema: dict[str, Any] = {"const": _literal_value(text)}
    elif text in _PRIMITIVES:
        schema = {"type": _PRIMITIVES[text]}
    elif text == "any":
        schema = {}
    elif text in ("true", "false"):
        schema = {"const": text == "true"}
    elif _NUMBER_RE.fullmatch(text):
        schema = {"const": json.loads(text)}
    elif text.startswith("Array<") and text.endswith(">"):
        inner = text[6:-1].strip()
        schema = {"type": "array"} if inner == "any" else {"type": "array", "items": _parse_inline(inner)}
    elif text == "{}" or _NAMED_OBJECT_RE.fullmatch(text):
        schema = {"type": "object"}
    elif text.startswith("{") and text.endswith("}"):
        schema = _parse_inline_object(text[1:-1])
    elif text == "integer":
        schema = {"type": "integer"}  # not TypeScript, but real prompts write it
    elif _NAMED_RE.fullmatch(text):
        # A type name TypeScript does not have (Date, int, Path…): what it allows is unknown.
        schema = {}
    else:
        raise ToolParseError(f"unknown type {text!r}; expected string, number, boolean, null, any, a literal, a type name, Array<…> or {{…}}")
    return _apply_array_suffix(_alone(schema), suffix) if suffix else schema


def _parse_multiline_union(lines: _Lines) -> dict[str, Any]:
    variants: list[dict[str, Any]] = []
    suffix = ""
    while True:
        nxt = lines.peek()
        if nxt is None:
            raise ToolParseError("a multi-line union has no closing ','")
        if not nxt.startswith("|"):
            close, _s, _e = lines.take()  # the lone ',' (or '[],') that ends the union
            suffix = close.rstrip(",")
            break
        line, _s, _e = lines.take()
        body = line[1:].strip()
        if body.startswith("{"):
            variant = _parse_object_body(lines)
            close, _s, _e = lines.take()
            variants.append(_with_comment(_apply_array_suffix(variant, close[1:].strip()), close))
            continue
        last = body.endswith(",")
        if last:
            # An array of a union closes on its last variant: ``| number // note[],``.
            body = body[:-1].rstrip()
            m = re.search(r"(\[\])+$", body)
            if m:
                suffix, body = m.group(0), body[: m.start()].rstrip()
        inline, tail = _split_inline(body)
        variants.append(_with_comment(_apply_array_suffix(_parse_inline(inline), tail.strip()), tail))
        if last:
            break
    return _apply_array_suffix({"oneOf": variants}, suffix)


def _with_comment(schema: dict[str, Any], tail: str) -> dict[str, Any]:
    idx = tail.find("//")
    if idx >= 0:
        note = tail[idx + 2 :].strip()
        if note.startswith("default: "):
            schema = dict(schema, default=_loads_or_text(note[len("default: ") :]))
        else:
            schema = dict(schema, description=note)
    return schema


def _parse_object_body(lines: _Lines) -> dict[str, Any]:
    """Fields up to (not including) the closing ``}`` line."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    comments: list[str] = []
    while True:
        nxt = lines.peek()
        if nxt is None:
            raise ToolParseError("an object type has no closing '}'")
        # After a description's first '//' line, a '}' line is more of it: the renderer
        # always writes the field a description belongs to before closing.
        if nxt.startswith("}") and not comments:
            break
        line, _s, _e = lines.take()
        if line.startswith("//"):
            comments.append(_comment(line))
            continue
        m = _FIELD_RE.match(line)
        if m is None or (comments and not _starts_type(m.group("rest"))):
            if comments:  # continuation of a multi-line description (renderer quirk)
                comments.append(line)
                continue
            raise ToolParseError(f"expected a field 'name: type,' in an object, got {line!r}")
        name = m.group("name").strip()
        field_line = lines.i - 1
        schema = _parse_type_after(m.group("rest").strip(), lines)
        last = lines.items[lines.i - 1][0]
        # A default or note trails the field's own line or the '}' that closes its type.
        trailing = _trailing_comment(lines) if lines.i - 1 == field_line or last.startswith("}") else None
        if trailing is not None:
            trailing = _continued_comment(trailing, lines)
        schema = _attach_comments(schema, comments, trailing)
        properties[name] = schema
        if not m.group("opt"):
            required.append(name)
        comments = []
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def _starts_type(rest: str) -> bool:
    rest = rest.strip()
    if rest == "" or rest.startswith(("//", "{", '"', "Array<")):
        return True
    word = re.match(r"[A-Za-z_]+|-?\d", rest)
    if bool(word) and (word.group(0) in _PRIMITIVES or word.group(0) in ("any", "true", "false", "integer") or word.group(0)[-1].isdigit()):
        return True
    # A type name (``pid: Date,``) only counts as a field when the line reads as one: a type
    # that parses, then ',' and at most a comment; ``Note: see below`` is prose.
    if word is None:
        return False
    type_text, tail = _split_inline(rest)
    if not re.fullmatch(r"(\[\])*\s*,\s*(//.*)?", tail):
        return False
    try:
        _parse_inline(type_text)
    except _PARSE_ERRORS:
        return False
    return True


def _trailing_comment(lines: _Lines) -> str | None:
    # The field's line (or the closing '}' / ',' line of a multi-line type) was the last
    # one taken; its trailing ``// …`` is the default or a note.
    line = lines.items[lines.i - 1][0]
    if "//" not in line:
        return None
    comment = next((t for t in _tokens(line) if t.kind == "comment"), None)
    return line[comment.start + 2 :].strip() if comment is not None else None


def _plausible_next(line: str) -> bool:
    """``line`` could follow a field: a comment, a closer, a union variant or another field."""
    if line.startswith(("//", "}", "|", ",", "]")):
        return True
    m = _FIELD_RE.match(line)
    return m is not None and _starts_type(m.group("rest"))


def _continued_comment(trailing: str, lines: _Lines) -> str:
    """A trailing comment with the lines it runs on to: the renderer writes defaults and
    descriptions with their line breaks, so a ``default: "…`` holding newlines spans lines."""
    if trailing.startswith('default: "') and not (len(trailing) > len('default: "') and trailing.endswith('"')):
        # An open string: it ends at a raw line ending in '"' that a field, comment or
        # closer follows (the first such), else at the last line ending in '"'.
        ends = [k for k in range(lines.i, len(lines.items)) if lines.raw[k].endswith('"')]
        good = [k for k in ends if k + 1 >= len(lines.items) or _plausible_next(lines.items[k + 1][0])]
        pick = good[0] if good else ends[-1] if ends else None
        if pick is not None:
            trailing = "\n".join([trailing, *lines.raw[lines.i : pick + 1]])
            lines.i = pick + 1
        return trailing
    while lines.peek() is not None and not _plausible_next(lines.peek() or ""):
        trailing += "\n" + lines.raw[lines.i]
        lines.i += 1
    return trailing


def _attach_comments(schema: dict[str, Any], comments: list[str], trailing: str | None) -> dict[str, Any]:
    schema = dict(schema)
    if comments:
        lines = list(comments)
        if "Examples:" in lines:
            k = lines.index("Examples:")
            # Only string examples are listed; a bare "Examples:" means the others were
            # dropped by the renderer, so a placeholder keeps the heading on re-render.
            examples = [_loads_or_text(x[2:]) for x in lines[k + 1 :] if x.startswith("- ")]
            schema["examples"] = examples or [None]
            lines = lines[:k]
        if len(lines) >= 2 and lines[1] == "":
            schema["title"] = lines[0]
            lines = lines[2:]
        if lines:
            schema["description"] = "\n".join(lines)
    if trailing and trailing.startswith("default: "):
        schema["default"] = _loads_or_text(trailing[len("default: ") :])
    return schema


def _loads_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]  # a string default the renderer quoted without escaping
    return text
