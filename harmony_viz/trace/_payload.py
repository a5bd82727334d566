"""Columnar encoding of a trace for the browser: one binary buffer plus a little JSON.

Per-token, per-step and per-event data are binary columns in the smallest integer type
that holds them, delta-coded where values mostly grow; strings (roles, channels, header
text) are interned once in ``meta["strings"]`` and referred to by index (-1 for None).
Only free-form values (tool-call arguments, diagnostic texts, delta texts that differ from
their span) travel as JSON, so a replay stays well under 16 bytes per token.

Findings placed on the trace (``trace/_findings.py``) are columns too, one entry per
finding in the order they show (by step): ``finding.step`` (delta-coded), ``finding.start``
and ``finding.len`` (its token span; start -1 for none), ``finding.severity`` and
``finding.source`` (indices into ``meta["findings"]["severities"]`` / ``["sources"]``),
``finding.code`` and ``finding.message`` (indices into its interned ``codes`` /
``messages``): 12 to 13 bytes a finding on a long stream, and each distinct message once.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, compress
from operator import attrgetter, itemgetter, ne, sub
from typing import TYPE_CHECKING, Any

from harmony_viz.findings import SEVERITIES
from harmony_viz.scanner import CONTENT_KINDS, Message, Snapshot, visibility
from harmony_viz.tokens import FIRST_SPECIAL
from harmony_viz.trace._findings import SOURCES

if TYPE_CHECKING:
    import numpy as np

    from harmony_viz.trace._findings import Placed
    from harmony_viz.trace._model import Trace

FORMAT_VERSION = 4

_DTYPES = (("u1", 0, 2**8 - 1), ("i1", -(2**7), 2**7 - 1), ("u2", 0, 2**16 - 1), ("i2", -(2**15), 2**15 - 1),
           ("u4", 0, 2**32 - 1), ("i4", -(2**31), 2**31 - 1))

_SNAPSHOT_FIELDS = tuple(f.name for f in dataclasses.fields(Snapshot))
_STATE_FIELDS = tuple(f for f in _SNAPSHOT_FIELDS if f != "position")  # a trace's states, in order
_MESSAGE_INTS = ("index", "start", "header_end", "end", "step_started", "step_ended", "t_start", "t_header_end", "t_end")
_MESSAGE_STRS = ("role", "name", "recipient", "channel", "content_type", "kind", "terminator", "call_id", "tool_name")
_EVENT_TYPES = ("MessageStart", "ToolCallStart", "ToolCallEnd", "MessageEnd", "Diagnostic")


_CODES = {"u1": "B", "i1": "b", "u2": "H", "i2": "h", "u4": "I", "i4": "i"}  # the array module's, for each column type, in _DTYPES' order
assert all(array(c).itemsize == int(name[1]) for name, c in _CODES.items())


def _smallest(lo: int, hi: int) -> str:
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
        """A column of integers (a list, an array, a numpy column) in the smallest type that holds them, or of floats as given."""
        if hasattr(values, "dtype"):  # a numpy column (log-probs, a caller's): numpy is loaded already
            self._add_numpy(name, values, delta, dtype)
            return
        if delta and len(values):
            values = list(map(sub, values, chain((0,), values)))  # each as its step from the one before (the first from 0)
        if dtype is None:
            # the smallest type that holds them is the first the array module takes them in (its own range check, in C)
            for dt, code in _CODES.items():
                try:
                    column = array(code, values)
                except OverflowError:
                    continue
                self._append(name, _little(column), dt, len(column), delta)
                return
            dtype = _smallest(min(values), max(values))  # none holds them: says which values do not fit
        self._append(name, _little(array(_CODES[dtype], values)), dtype, len(values), delta)

    def add_ints(self, name: str, values: Iterable[int], bounds: tuple[int, int], *, delta: bool, dtype: str | None = None) -> None:
        """A column of integers as they are (already delta-coded when ``delta``), whose least and greatest are ``bounds``."""
        dt = dtype or _smallest(*bounds)
        column = values if isinstance(values, array) and values.typecode == _CODES[dt] else array(_CODES[dt], values)
        self._append(name, _little(column), dt, len(column), delta)

    def _add_numpy(self, name: str, values: np.ndarray, delta: bool, dtype: str | None) -> None:
        import numpy as np

        if values.dtype.kind == "f":  # floats (log-probs) as IEEE halves or singles, as given
            dt = "f2" if values.dtype.itemsize <= 2 else "f4"
            self._append(name, values.astype("<" + dt).reshape(-1).tobytes(), dt, int(values.size), False)
            return
        arr = np.asarray(values, dtype=np.int64).reshape(-1)
        if delta and arr.size:
            arr = np.diff(arr, prepend=0)
        dt = dtype or (_smallest(int(arr.min()), int(arr.max())) if arr.size else _smallest(0, 0))
        self._append(name, arr.astype("<" + dt).tobytes(), dt, int(arr.size), delta)

    def add_bytes(self, name: str, raw: bytes) -> None:
        self._append(name, raw, "u1", len(raw), False)

    def _append(self, name: str, raw: bytes, dtype: str, length: int, delta: bool) -> None:
        self.descriptors.append({"name": name, "dtype": dtype, "offset": self.size, "length": length, "delta": delta})
        pad = (-len(raw)) % 4  # keep every column 4-byte aligned
        self.parts.append(raw + b"\0" * pad)
        self.size += len(raw) + pad


def _little(column: array) -> bytes:
    """The column's bytes, little-endian as the browser reads them."""
    if sys.byteorder == "big":
        column = array(column.typecode, column)
        column.byteswap()
    return column.tobytes()


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

    def all(self, values: Sequence[str | None]) -> list[int]:
        """``[self(v) for v in values]``, each distinct value looked up once."""
        codes = {v: self(v) for v in dict.fromkeys(values)}  # in the order they first come
        return list(map(codes.__getitem__, values))


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


def encode(trace: Trace, extra: Mapping[str, Sequence[int]] | None = None, findings: Sequence[Placed] = (),
           findings_error: str | None = None) -> tuple[dict[str, Any], bytes]:
    """``(meta, buffer)`` for the widget's ``_meta`` and ``_columns`` traits, straight from the trace's columns.

    ``extra``: more integer columns to carry in the same buffer (a page's API view data);
    ``findings``: the stream's findings placed on the trace, in the order they show (see the
    module docstring), and ``findings_error`` what kept a lens from reporting, if anything.
    """
    cols = _Columns()
    strings = _Strings()
    uniq = _tokens(trace, cols)
    _deltas(trace, cols)
    extras = _events(trace, cols)
    tool_calls = _messages(trace, cols, strings)
    snapshot_kinds = _snapshots(trace, cols, strings)
    findings_meta = _findings(cols, findings, findings_error)
    for name, values in (extra or {}).items():
        cols.add(name, values)
    d = trace.deltas
    meta: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "unit": trace.unit,
        "chunking": str(trace.chunking),
        "n_tokens": trace.n_tokens,
        "n_steps": trace.n_steps,
        "n_messages": len(trace.headers),
        "columns": cols.descriptors,
        "strings": strings.items,
        "event_types": list(_EVENT_TYPES),
        "event_extras": extras,
        "message_fields": {"ints": list(_MESSAGE_INTS), "strings": list(_MESSAGE_STRS)},
        "snapshot_fields": snapshot_kinds,
        "overrides": {str(i): t for i, t in d.texts.items()},
        "delta_kinds": {str(i): k for i, k in d.kinds.items()},
        "tool_calls": tool_calls,
        "specials": _specials(uniq),
        "special_info": _special_info(uniq),
        "visibility": {kind: visibility(kind) for kind in CONTENT_KINDS},  # the one visibility rule, for the token card
        "findings": findings_meta,
    }
    return meta, b"".join(cols.parts)


def _tokens(trace: Trace, cols: _Columns) -> list[int]:
    """The stream's distinct tokens (ids, bytes) and each token as an index among them; the steps' ends. Returns the distinct ids."""
    uniq, inverse, vocab = trace.distinct_tokens()
    cols.add("vocab_ids", uniq, dtype="u4")
    lengths = list(map(len, vocab))  # the offsets' steps: the column of offsets delta-coded
    cols.add_ints("vocab_offsets", [0, *lengths], (0, max(lengths, default=0)), delta=True)
    cols.add_bytes("vocab_bytes", b"".join(vocab))
    cols.add_ints("tokens", inverse, (0, len(uniq) - 1) if len(inverse) else (0, 0), delta=False)
    ends, n = trace._ends, trace.n_tokens
    if trace.unit == "tokens" and len(ends) == n + 2 and ends[-1] == n:  # one token a step (chunks are never empty): 0, 1, ..., 1, 0
        cols.add_ints("step_ends", array("B", b"\0" + b"\1" * n + b"\0"), (0, min(n, 1)), delta=True)
    else:
        cols.add("step_ends", ends, delta=True)
    if trace.unit == "chars":
        # the text itself is not sent: the browser decodes it from the token bytes it already has
        cols.add("token_chars", trace.token_char_starts, delta=True)
    return uniq


def _deltas(trace: Trace, cols: _Columns) -> None:
    """The content deltas: step and message delta-coded, each span as its gap from the previous one and its length.

    Written from the deltas' units (``Deltas.units``): after a run's first delta, each of its
    deltas is one step on, in the same message, right after the one before, one token long.
    """
    d = trace.deltas
    units = d.unit_list()
    firsts, steps, messages, starts, ends, counts = ([u[k] for u in units] for k in range(6))
    firsts_end = [s + 1 if c > 1 else e for s, e, c in zip(starts, ends, counts)]  # a unit's first delta's end
    before_end = [0, *ends[:-1]]  # where the delta before each unit ends
    runs = any(c > 1 for c in counts)
    for name, heads, fill, delta in (("delta.step", list(map(sub, steps, chain((0,), [s + c - 1 for s, c in zip(steps, counts)]))), 1, True),
                                     ("delta.message", list(map(sub, messages, chain((0,), messages))), 0, True),
                                     ("delta.gap", list(map(sub, starts, before_end)), 0, False),
                                     ("delta.len", list(map(sub, firsts_end, starts)), 1, False)):
        bounds = _bounds(heads, fill if runs else None)
        code = _CODES[_smallest(*bounds)]
        column = array(code, [fill]) * d.n  # a run's deltas after its first, then each unit's first written over
        for i, v in zip(firsts, heads):
            column[i] = v
        cols.add_ints(name, column, bounds, delta=delta)


def _bounds(values: list[int], also: int | None) -> tuple[int, int]:
    if also is not None:
        values = [*values, also]
    return (min(values), max(values)) if values else (0, 0)


def _events(trace: Trace, cols: _Columns) -> list[str]:
    """The rare events as columns: step, deltas before it (``after``: lets the browser interleave), type, message, span, and
    its other fields as an index into interned JSON (most repeat: terminators, headers), which is returned."""
    steps, after, events = trace._rare_step, trace._rare_after, trace._rare_event
    shapes = {kind: _shape_of(kind) for kind in dict.fromkeys(map(type, events))}
    number = list(map({kind: shape[0] for kind, shape in shapes.items()}.__getitem__, map(type, events)))
    message: list[int] = [-1] * len(events)
    extra: list[str | None] = [None] * len(events)
    for n, get, names, m in shapes.values():
        at = list(compress(range(len(number)), map(n.__eq__, number)))  # the events of this type
        messages, texts = _own_fields(list(map(get, map(events.__getitem__, at))), names, m)
        for i, v, t in zip(at, messages, texts):
            message[i] = v
            extra[i] = t
    starts = list(map(attrgetter("start"), events))  # a Diagnostic's are its span's
    lengths = list(map(sub, map(attrgetter("end"), events), starts))
    extras = _Strings()
    for name, values, delta in (("step", steps, True), ("after", after, True), ("start", starts, True), ("type", number, False),
                                ("message", message, False), ("len", lengths, False), ("extra", extras.all(extra), False)):
        cols.add(f"event.{name}", values, delta=delta)
    return extras.items


def _own_fields(values: list[tuple[Any, ...]], names: tuple[str, ...], m: int) -> tuple[list[int], list[str | None]]:
    """For events of one type (each its fields ``names`` as ``values``): the message each belongs to (-1: none) and its
    other fields as JSON (None: it has none). A ``message`` is an index except a Diagnostic's, its text, which is a field.
    Each distinct value is written once, unless unhashable (parsed arguments)."""
    messages = [-1] * len(values)
    keys: list[tuple[Any, ...]] = values
    if m >= 0 and not all(type(v[m]) is str for v in values):
        texts = [v[m] for v in values]
        messages = [t if type(t) is int else -1 for t in texts]
        keys = [v[:m] + v[m + 1 :] for v in values]
        if not all(type(t) is int or t is None for t in texts):
            keys = [k if type(t) is int or t is None else (*k, t) for k, t in zip(keys, texts)]
        names = (*names[:m], *names[m + 1 :], "message")  # zip stops at a key's end: no "message" where it is an index or None

    def write(key: tuple[Any, ...]) -> str | None:
        return _EXTRA_JSON.encode({f: _jsonable(v) for f, v in zip(names, key)}) if key else None

    try:
        written = {key: write(key) for key in dict.fromkeys(keys)}
    except TypeError:  # an unhashable value: each written
        return messages, list(map(write, keys))
    return messages, list(map(written.__getitem__, keys))


def _messages(trace: Trace, cols: _Columns, strings: _Strings) -> dict[str, Any]:
    """The messages' integer and string fields as columns; returns the tool calls' arguments, by message index."""
    messages = trace.headers
    tool_calls: dict[str, Any] = {}
    for m in messages:
        if m.arguments is not None or m.parsed is not None:
            tool_calls[str(m.index)] = {"arguments": m.arguments, "parsed": _jsonable(m.parsed), "error": m.arguments_error}
    for f, values in _message_ints(trace, messages).items():
        cols.add(f"message.{f}", values)
    for f in _MESSAGE_STRS:
        cols.add(f"message.{f}", strings.all(list(map(attrgetter(f), messages))))
    return tool_calls


def _findings(cols: _Columns, findings: Sequence[Placed], error: str | None) -> dict[str, Any]:
    """The findings as columns (see the module docstring); their string tables as the meta entry."""
    codes, messages = _Strings(), _Strings()
    spans = [p.tokens if p.tokens is not None else (-1, -1) for p in findings]
    cols.add("finding.step", [p.step for p in findings], delta=True)
    cols.add("finding.start", [a for a, _ in spans])
    cols.add("finding.len", [b - a for a, b in spans])
    cols.add("finding.severity", [SEVERITIES.index(p.severity) for p in findings])
    cols.add("finding.source", [SOURCES.index(p.source) for p in findings])
    cols.add("finding.code", [codes(p.code) for p in findings])
    cols.add("finding.message", [messages(p.message) for p in findings])
    return {"count": len(findings), "severities": list(SEVERITIES), "sources": list(SOURCES), "codes": codes.items,
            "messages": messages.items, "error": error}


def _snapshots(trace: Trace, cols: _Columns, strings: _Strings) -> dict[str, str]:
    """Each snapshot field as two columns listing only the steps where it changed."""
    kinds: dict[str, str] = {}
    at = trace._snap_steps  # the steps where a field other than position changed, and the state there
    columns = dict(zip(_STATE_FIELDS, trace._state_columns))
    for name in _SNAPSHOT_FIELDS:
        if name == "position":
            positions = trace.positions()
            if positions is None:
                kinds[name] = "fed"  # the usual case: position is what was fed, no column needed
                continue
            steps, values = _changes(range(len(positions)), positions)
            cols.add(f"snap.{name}.step", steps, delta=True)
            cols.add(f"snap.{name}.value", values)
            kinds[name] = "int"
            continue
        steps, kept = _changes(at, columns[name])
        types = set(map(type, kept))  # every value is among those kept (each first comes at a change)
        is_str = str in types or types <= {type(None)}
        cols.add(f"snap.{name}.step", steps, delta=True)
        cols.add(f"snap.{name}.value", strings.all(kept) if is_str else [int(v) for v in kept])
        kinds[name] = "str" if is_str else "int"
    return kinds


def _changes(steps: Sequence[int], values: Sequence[Any]) -> tuple[list[int], list[Any]]:
    """The steps where ``values`` changed (the first always), and the new values."""
    if not len(values):
        return [], []
    at = [0, *compress(range(1, len(values)), map(ne, values[1:], values))]
    if len(at) == 1:
        return [steps[0]], [values[0]]
    pick = itemgetter(*at)  # both picked in one C loop each
    return list(pick(steps)), list(pick(values))


_FIELDS: dict[type, tuple[str, ...]] = {}
_SHAPES: dict[type, tuple[int, Any, tuple[str, ...], int]] = {}
_EXTRA_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True)  # json.dumps(..., ensure_ascii=False, sort_keys=True), made once


def _shape_of(kind: type) -> tuple[int, Any, tuple[str, ...], int]:
    """An event type's number, a getter of its own fields (as a tuple), their names, and where ``message`` is among them (-1: not)."""
    shape = _SHAPES.get(kind)
    if shape is None:
        names = _fields_of(kind)
        get = attrgetter(*names) if len(names) > 1 else (lambda e: tuple(getattr(e, f) for f in names))
        shape = _SHAPES[kind] = (_EVENT_TYPES.index(kind.__name__), get, names, names.index("message") if "message" in names else -1)
    return shape


def _fields_of(kind: type) -> tuple[str, ...]:
    """An event's own fields, its span apart (a Diagnostic keeps it in ``where``)."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if f.name not in ("start", "end", "where"))
    return names


def _message_ints(trace: Trace, messages: Sequence[Message]) -> dict[str, list[int]]:
    """The integer fields of each message (-1 for None), with its token span for drawing."""
    out = {f: [-1 if v is None else v for v in map(attrgetter(f), messages)] for f in _MESSAGE_INTS if not f.startswith("t_")}
    n = trace.n_tokens
    last = trace._ends[-1]
    end = [last if e < 0 else e for e in out["end"]]
    if trace.unit == "chars":
        # a token belongs to the message its first character does
        starts = trace.token_char_starts.tolist()
        out["t_start"] = [min(max(bisect_right(starts, a) - 1, 0), n) for a in out["start"]]
        out["t_header_end"] = [min(bisect_left(starts, a), n) for a in out["header_end"]]
        out["t_end"] = [min(bisect_left(starts, a), n) for a in end]
    else:
        out["t_start"], out["t_header_end"], out["t_end"] = out["start"], out["header_end"], end
    return {f: out[f] for f in _MESSAGE_INTS}


def _special_info(ids: list[int]) -> dict[str, dict[str, str]]:
    """Each special token of the stream: its kind and what it does in the format (the token card's sentence, ``tokens.SENTENCES``)."""
    from harmony_viz.tokens import special_by_id, token_sentence

    out = {}
    for t in ids[bisect_left(ids, FIRST_SPECIAL) :]:  # ascending
        sp = special_by_id(int(t))
        if sp is not None:
            out[str(t)] = {"kind": sp.kind, "sentence": token_sentence(sp.id) or ""}
    return out


def _specials(ids: list[int]) -> dict[str, str]:
    from harmony_viz.tokens import special_by_id

    out = {}
    for t in ids[bisect_left(ids, FIRST_SPECIAL) :]:  # ascending
        sp = special_by_id(int(t))
        if sp is not None:
            out[str(t)] = sp.literal
    return out
