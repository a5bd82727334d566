"""Columnar encoding of a trace for the browser: one binary buffer plus a little JSON.

Per-token, per-step and per-event data are binary columns in the smallest integer type
that holds them, delta-coded where values mostly grow; strings (roles, channels, header
text) are interned once in ``meta["strings"]`` and referred to by index (-1 for None).
Only free-form values (tool-call arguments, diagnostic texts, delta texts that differ from
their span) travel as JSON, so a replay stays well under 16 bytes per token.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

import numpy as np

from harmony_viz.scanner import ContentDelta, Snapshot
from harmony_viz.tokens import FIRST_SPECIAL

if TYPE_CHECKING:
    from harmony_viz.trace._model import Trace

FORMAT_VERSION = 2

_DTYPES = (("u1", 0, 2**8 - 1), ("i1", -(2**7), 2**7 - 1), ("u2", 0, 2**16 - 1), ("i2", -(2**15), 2**15 - 1),
           ("u4", 0, 2**32 - 1), ("i4", -(2**31), 2**31 - 1))

_SNAPSHOT_FIELDS = tuple(f.name for f in dataclasses.fields(Snapshot))
_MESSAGE_INTS = ("index", "start", "header_end", "end", "step_started", "step_ended", "t_start", "t_header_end", "t_end")
_MESSAGE_STRS = ("role", "name", "recipient", "channel", "content_type", "kind", "terminator", "call_id", "tool_name")
_EVENT_TYPES = ("MessageStart", "ToolCallStart", "ToolCallEnd", "MessageEnd", "Diagnostic")


def _smallest(values: np.ndarray) -> str:
    lo, hi = (int(values.min()), int(values.max())) if values.size else (0, 0)
    for name, a, b in _DTYPES:
        if a <= lo and hi <= b:
            return name
    raise ValueError(f"values {lo}..{hi} do not fit in 32 bits")


class _Columns:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.descriptors: list[dict[str, Any]] = []

    def add(self, name: str, values: Any, *, delta: bool = False, dtype: str | None = None) -> None:
        arr = np.asarray(values, dtype=np.int64).reshape(-1)
        if delta and arr.size:
            arr = np.diff(arr, prepend=0)
        dt = dtype or _smallest(arr)
        self._append(name, arr.astype("<" + dt).tobytes(), dt, int(arr.size), delta)

    def add_bytes(self, name: str, raw: bytes) -> None:
        self._append(name, raw, "u1", len(raw), False)

    def _append(self, name: str, raw: bytes, dtype: str, length: int, delta: bool) -> None:
        self.descriptors.append({"name": name, "dtype": dtype, "offset": self.size, "length": length, "delta": delta})
        pad = (-len(raw)) % 4  # keep every column 4-byte aligned
        self.parts.append(raw + b"\0" * pad)
        self.size += len(raw) + pad


class _Strings:
    """Interned strings; index -1 stands for None."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, value: str | None) -> int:
        if value is None:
            return -1
        i = self.index.get(value)
        if i is None:
            i = self.index[value] = len(self.items)
            self.items.append(value)
        return i


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


def encode(trace: Trace) -> tuple[dict[str, Any], bytes]:
    """``(meta, buffer)`` for the widget's ``_meta`` and ``_columns`` traits."""
    cols = _Columns()
    strings = _Strings()
    ids = trace.tokens
    uniq, inverse = np.unique(ids, return_inverse=True)
    vocab = [trace.token_bytes_of(int(t)) for t in uniq]
    cols.add("vocab_ids", uniq, dtype="u4")
    cols.add("vocab_offsets", np.concatenate([[0], np.cumsum([len(b) for b in vocab])]).astype(np.int64), delta=True)
    cols.add_bytes("vocab_bytes", b"".join(vocab))
    cols.add("tokens", inverse)  # each token as an index into the vocabulary table
    cols.add("step_ends", [s.end for s in trace.steps], delta=True)
    if trace.unit == "chars":
        # the text itself is not sent: the browser decodes it from the token bytes it already has
        cols.add("token_chars", trace.token_char_starts, delta=True)

    messages = _messages(trace)
    kind_of = {m["index"]: m["kind"] for m in messages}
    unit_text = _unit_text(trace)
    deltas: dict[str, list[int]] = {"step": [], "message": [], "start": [], "len": []}
    events: dict[str, list[int]] = {"step": [], "after": [], "type": [], "message": [], "start": [], "len": [], "extra": []}
    overrides: dict[str, str] = {}
    delta_kinds: dict[str, str] = {}
    extras = _Strings()  # event-specific fields as interned JSON: most repeat (terminators, headers)
    for s in trace.steps:
        for e in s.events:
            if isinstance(e, ContentDelta):
                i = len(deltas["step"])
                if unit_text(e.start, e.end) != e.text:
                    overrides[str(i)] = e.text
                if kind_of.get(e.message) != e.kind:
                    delta_kinds[str(i)] = e.kind
                deltas["step"].append(s.index)
                deltas["message"].append(e.message)
                deltas["start"].append(e.start)
                deltas["len"].append(e.end - e.start)
            else:
                fields = {f.name: _jsonable(getattr(e, f.name)) for f in dataclasses.fields(e) if f.name not in ("start", "end", "where")}
                events["step"].append(s.index)
                events["after"].append(len(deltas["step"]))  # deltas before it: lets the browser interleave
                events["type"].append(_EVENT_TYPES.index(type(e).__name__))
                # Diagnostic.message is its text, not a message index
                events["message"].append(fields.pop("message") if isinstance(fields.get("message"), int) else -1)
                start, end = e.start, e.end  # a Diagnostic's are its span's
                events["start"].append(start)
                events["len"].append(end - start)
                events["extra"].append(extras(json.dumps(fields, ensure_ascii=False, sort_keys=True)) if fields else -1)
    starts = np.asarray(deltas["start"], dtype=np.int64)
    ends = starts + np.asarray(deltas["len"], dtype=np.int64)
    cols.add("delta.step", deltas["step"], delta=True)
    cols.add("delta.message", deltas["message"], delta=True)
    # starts coded against the previous delta's end: contiguous deltas become zeros
    cols.add("delta.gap", starts - np.concatenate([[0], ends[:-1]]) if starts.size else starts)
    cols.add("delta.len", deltas["len"])
    for name in ("step", "after", "start"):
        cols.add(f"event.{name}", events[name], delta=True)
    for name in ("type", "message", "len", "extra"):
        cols.add(f"event.{name}", events[name])

    tool_calls: dict[str, Any] = {}
    for m in messages:
        if m.get("arguments") is not None or m.get("parsed") is not None:
            tool_calls[str(m["index"])] = {"arguments": m["arguments"], "parsed": m["parsed"], "error": m["arguments_error"]}
    for f in _MESSAGE_INTS:
        cols.add(f"message.{f}", [-1 if m[f] is None else m[f] for m in messages])
    for f in _MESSAGE_STRS:
        cols.add(f"message.{f}", [strings(m[f]) for m in messages])

    snapshot_kinds = _snapshots(trace, cols, strings)
    meta: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "unit": trace.unit,
        "chunking": str(trace.chunking),
        "n_tokens": int(ids.size),
        "n_steps": trace.n_steps,
        "n_messages": len(messages),
        "columns": cols.descriptors,
        "strings": strings.items,
        "event_types": list(_EVENT_TYPES),
        "event_extras": extras.items,
        "message_fields": {"ints": list(_MESSAGE_INTS), "strings": list(_MESSAGE_STRS)},
        "snapshot_fields": snapshot_kinds,
        "overrides": overrides,
        "delta_kinds": delta_kinds,
        "tool_calls": tool_calls,
        "specials": _specials(uniq),
    }
    return meta, b"".join(cols.parts)


def _unit_text(trace: Trace):  # type: ignore[no-untyped-def]
    if trace.unit == "chars":
        text = trace.text or ""
        return lambda a, b: text[a:b]
    tb = trace.token_bytes
    return lambda a, b: b"".join(tb[a:b]).decode("utf-8", errors="replace")


def _snapshots(trace: Trace, cols: _Columns, strings: _Strings) -> dict[str, str]:
    """Each snapshot field as two columns listing only the steps where it changed."""
    kinds: dict[str, str] = {}
    ends = [s.end for s in trace.steps]
    for name in _SNAPSHOT_FIELDS:
        values = [getattr(s.snapshot, name) for s in trace.steps]
        if name == "position" and values == ends:
            kinds[name] = "fed"  # the usual case: position is what was fed, no column needed
            continue
        is_str = any(isinstance(v, str) for v in values) or all(v is None for v in values)
        steps, coded = [], []
        prev: Any = object()
        for i, v in enumerate(values):
            if v != prev:
                steps.append(i)
                coded.append(strings(v) if is_str else int(v))
                prev = v
        cols.add(f"snap.{name}.step", steps, delta=True)
        cols.add(f"snap.{name}.value", coded)
        kinds[name] = "str" if is_str else "int"
    return kinds


def _messages(trace: Trace) -> list[dict[str, Any]]:
    out = []
    starts = trace.token_char_starts if trace.unit == "chars" else None
    n = int(trace.tokens.size)
    for m in trace.messages:
        d = _jsonable(m.record())
        end = m.end if m.end is not None else trace.steps[-1].end
        if starts is not None:
            # token spans for drawing: a token belongs to the message its first character does
            d["t_start"] = max(0, min(int(np.searchsorted(starts, m.start, side="right") - 1), n))
            d["t_header_end"] = min(int(np.searchsorted(starts, m.header_end, side="left")), n)
            d["t_end"] = min(int(np.searchsorted(starts, end, side="left")), n)
        else:
            d["t_start"], d["t_header_end"], d["t_end"] = m.start, m.header_end, end
        out.append(d)
    return out


def _specials(ids: np.ndarray) -> dict[str, str]:
    from harmony_viz.tokens import special_by_id

    out = {}
    for t in ids[ids >= FIRST_SPECIAL].tolist():
        sp = special_by_id(int(t))
        if sp is not None:
            out[str(t)] = sp.literal
    return out
