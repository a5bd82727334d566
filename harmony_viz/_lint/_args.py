"""Checks on a function call's body: one JSON object, valid against the tool's schema.

Paths are written JSONPath-style (``$.locations[2]``) and each finding points at the
tokens of the offending key or value, found in the raw body text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from harmony_viz._lint._codes import diagnostic
from harmony_viz._lint._tools import DeclaredTool
from harmony_viz.scanner import Diagnostic, Message

_ENTITY_RE = re.compile(r"&(?:amp|lt|gt|quot|apos|nbsp|#\d{1,6}|#x[0-9a-fA-F]{1,6});")


def json_path(parts: Any) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(part)) else f"[{json.dumps(part)}]")
    return out


def _locate(raw: str, parts: Any) -> tuple[int, int]:
    """Character range in ``raw`` of the value at ``parts`` (approximate: by key order)."""
    pos, found = 0, (0, len(raw))
    for part in parts:
        if isinstance(part, int):
            continue
        m = re.compile(re.escape(json.dumps(part, ensure_ascii=False)) + r"\s*:").search(raw, pos)
        if m is None:
            break
        found, pos = (m.start(), m.end()), m.end()
    return found


def check_arguments(view: Message, tool: DeclaredTool | None) -> list[Diagnostic]:
    """Diagnostics for the body of call ``view`` against ``tool`` (None: schema unknown)."""
    raw = view.text
    out: list[Diagnostic] = []
    decoder = json.JSONDecoder()
    lead = len(raw) - len(raw.lstrip())
    try:
        value, end = decoder.raw_decode(raw, lead)
    except json.JSONDecodeError as exc:
        span = view.span_of(exc.pos, exc.pos + 1) if raw.strip() else view.body
        out.append(diagnostic("arguments-not-json", f"arguments to {view.recipient} are not JSON ({exc.msg} at character {exc.pos}); the body must be one JSON object", span))
        return out
    except RecursionError:  # json's decoder recurses once per level
        out.append(diagnostic("arguments-not-json", f"arguments to {view.recipient} are nested too deep to read (more levels than Python's recursion limit); the body must be one JSON object", view.body))
        return out
    rest = raw[end:].strip()
    if rest:
        more = _count_values(raw, end)
        if more:
            out.append(diagnostic("calls-in-one-message", f"{more + 1} JSON values in one call to {view.recipient}; send each call as its own message ending in <|call|>", view.span_of(end, len(raw))))
        else:
            out.append(diagnostic("arguments-not-json", f"text after the JSON arguments to {view.recipient}: {rest[:40]!r}; the body must be one JSON object", view.span_of(end, len(raw))))
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        out.append(diagnostic("calls-in-one-message", f"a JSON array of {len(value)} objects sent to {view.recipient}; send each call as its own message ending in <|call|>", view.body))
        return out
    if isinstance(value, str) and _holds_object(value):
        out.append(diagnostic("arguments-double-encoded", f"the arguments to {view.recipient} are a JSON string holding the JSON object (encoded twice); send the object itself: {value[:60]}", view.body))
        return out
    if not isinstance(value, Mapping):
        out.append(diagnostic("arguments-not-json", f"arguments to {view.recipient} are a JSON {type(value).__name__}, not an object", view.body))
        return out
    out.extend(_html_entities(view, value))
    if tool is not None and tool.parameters is not None:
        out.extend(_schema(view, value, tool.parameters))
    return out


def _holds_object(text: str) -> bool:
    """``text`` (a decoded JSON string) is itself a JSON object: the arguments were encoded twice."""
    try:
        return isinstance(json.loads(text), Mapping)
    except (ValueError, RecursionError):
        return False


def _count_values(raw: str, pos: int) -> int:
    decoder, n = json.JSONDecoder(), 0
    while True:
        rest = raw[pos:]
        stripped = rest.lstrip()
        if not stripped:
            return n
        try:
            _v, end = decoder.raw_decode(raw, pos + len(rest) - len(stripped))
        except json.JSONDecodeError:
            return 0
        n, pos = n + 1, end


def _strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, (*path, i))


def _html_entities(view: Message, value: Any) -> list[Diagnostic]:
    out = []
    raw = view.text
    search_from = 0
    for path, text in _strings(value):
        m = _ENTITY_RE.search(text)
        if m is None:
            continue
        entity = m.group(0)
        at = raw.find(entity, search_from)
        span = view.span_of(at, at + len(entity)) if at >= 0 else view.body
        search_from = at + 1 if at >= 0 else search_from
        plain = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}.get(entity, "the character itself")
        out.append(diagnostic("html-escape", f"{entity!s} in {json_path(path)} of the call to {view.recipient}: JSON strings need no HTML escaping; write {plain}", span))
    return out


def _no_remote(uri: str) -> Any:
    # A declared schema is checked offline: a $ref to another document is not fetched.
    raise ValueError(f"{uri} is another document; the lint does not fetch schemas")


def _schema(view: Message, value: Mapping[str, Any], schema: Mapping[str, Any]) -> list[Diagnostic]:
    # jsonschema-rs: imports in milliseconds and lists every error (issue 22: lint stays quick at the door)
    import jsonschema_rs

    try:
        # validator_for checks the schema against its meta-schema first
        validator = jsonschema_rs.validator_for(schema, validate_formats=False, retriever=_no_remote)
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        why = getattr(exc, "message", None) or str(exc).splitlines()[0]
        return [diagnostic("schema-violation", f"the declared schema of {view.recipient} is itself invalid ({why}); arguments were not checked", view.header)]
    out = []
    required_here = _required_map(schema)
    for error in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.instance_path))):
        parts = tuple(error.instance_path)
        path = json_path(parts)
        start, end = _locate(view.text, parts)
        span = view.span_of(start, end)
        hint = ""
        if error.instance is None and parts and parts[-1] not in required_here.get(parts[:-1], set()):
            hint = "; leave an unset optional argument out instead of sending null"
        out.append(diagnostic("schema-violation", f"{path} in the call to {view.recipient}: {error.message}{hint}", span))
    out.extend(_nulls_and_extras(view, value, schema, ()))
    return out


def _required_map(schema: Mapping[str, Any], path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], set[str]]:
    found = {path: set(schema.get("required", []) or [])}
    for key, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, Mapping):
            found.update(_required_map(sub, (*path, key)))
    return found


def _allows_null(schema: Mapping[str, Any]) -> bool:
    t = schema.get("type")
    return t == "null" or (isinstance(t, list) and "null" in t) or not schema or any(isinstance(s, Mapping) and _allows_null(s) for s in schema.get("oneOf", []) + schema.get("anyOf", []))


def _nulls_and_extras(view: Message, value: Mapping[str, Any], schema: Mapping[str, Any], path: tuple[Any, ...]) -> list[Diagnostic]:
    out = []
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return out
    required = set(schema.get("required", []) or [])
    for key, item in value.items():
        sub = props.get(key)
        here = (*path, key)
        if sub is None:
            if schema.get("additionalProperties", True) is not False:  # False: the schema check already said so
                out.append(diagnostic("unknown-argument", f"{json_path(here)} is not a parameter of {view.recipient} (it has {', '.join(props) or 'none'})", view.span_of(*_locate(view.text, here))))
            continue
        if item is None and key not in required and isinstance(sub, Mapping) and _allows_null(sub):
            out.append(diagnostic("null-optional", f"{json_path(here)} is null in the call to {view.recipient}; leave unset optional arguments out", view.span_of(*_locate(view.text, here))))
        elif isinstance(item, Mapping) and isinstance(sub, Mapping):
            out.extend(_nulls_and_extras(view, item, sub, here))
    return out
