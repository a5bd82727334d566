"""The API view of a replay: the object a streaming client holds at a step.

A client of a streaming server builds its ``chat.completion`` (or ``response``) from the
chunks as they come: the text so far, each item's status, and the finish reason and usage
only with the last chunk. :meth:`ApiViews.at` computes that object in Python, for the step
the widget shows; :meth:`ApiViews.page_data` gives a saved page what it needs to build the
same object for any step in the browser (``js/src/replay/apiview.ts``; the two are checked
equal at every step of real streams).
"""

from __future__ import annotations

import bisect
import json
from typing import TYPE_CHECKING, Any

from harmony_viz._replay._steps import tokens_fed
from harmony_viz.projections import Projector, Turn, open_parts, parts_key
from harmony_viz.scanner import MessageStart, ToolCallEnd, is_assistants
from harmony_viz.trace import collecting_after

if TYPE_CHECKING:
    from harmony_viz.trace import Trace


def _part_json() -> Any:
    """``json.dumps(obj, ensure_ascii=False)``, its C encoder made once (not once a call): a page has a part a message."""
    from json import encoder

    if encoder.c_make_encoder is None:
        return json.JSONEncoder(ensure_ascii=False).encode
    make = encoder.c_make_encoder(None, json.JSONEncoder().default, encoder.encode_basestring, None, ": ", ", ", False, False, True)
    return lambda obj: "".join(make(obj, 0))


_PART_JSON = _part_json()

# (name, object, legacy_vllm): the correct server and vLLM before its preamble fix, side by side
FLAVOURS = (("chat", "chat", False), ("responses", "responses", False),
            ("chat (legacy vLLM)", "chat", True), ("responses (legacy vLLM)", "responses", True))


class ApiViews:
    """The API views of a trace at any step.

    A server answers one assistant turn, so a view depends only on the steps since the
    turn on show began: moving forward folds in the new steps; moving back, or into another
    turn, folds that turn again from its start.
    """

    def __init__(self, trace: Trace, *, prompt_tokens: int | None = None) -> None:
        self.trace = trace
        self.prompt_tokens = prompt_tokens  # a run's prompt length; else usage counts what precedes the turn
        # steps where a message from anyone but the assistant began a new turn
        self._turns = sorted({m.step_started for m in trace.headers if not is_assistants(m.role, m.kind) and m.step_started is not None})
        self._projectors: tuple[Projector, Projector] | None = None
        self._from = 0
        self._at = -1

    def _new(self) -> tuple[Projector, Projector]:
        # spans count the trace's unit; usage counts the prompt (see Projector)
        kw: dict[str, Any] = {"unit": self.trace.unit, "prompt_tokens": self.prompt_tokens, "tokens_before": self._tokens_before}
        return Projector(**kw), Projector(legacy_vllm=True, **kw)

    def _tokens_before(self, offset: int) -> int:
        """Tokens before a span offset (the offset is a character for a trace fed as text)."""
        if self.trace.unit == "tokens":
            return offset
        import numpy as np

        return int(np.searchsorted(self.trace.token_char_starts, offset, side="left"))

    def at(self, step: int) -> dict[str, Any]:
        """``{"step": k, "views": {name: object}}``, with ``"error"`` when a projection failed."""
        try:
            i = bisect.bisect_right(self._turns, step) - 1
            start = self._turns[i] if i >= 0 else 0
            if self._projectors is None or start != self._from or step < self._at:
                self._projectors, self._from, self._at = self._new(), start, start - 1
            if step > self._at:
                events = self.trace.events(step, since=self._at + 1)
                fed = tokens_fed(self.trace, step)
                for p in self._projectors:
                    p.add(events, fed=fed)
                    if step == self.trace.n_steps - 1:
                        p.finish()
                self._at = step
            return {"step": step, "views": _views(self._projectors)}
        except Exception as exc:  # a projection bug must not take the replay down with it
            self._projectors = None
            return {"step": step, "views": {}, "error": f"projection failed at step {step}: {type(exc).__name__}: {exc}"}

    @collecting_after
    def page_data(self) -> tuple[dict[str, list[int]], dict[str, Any]]:
        """``(columns, meta)`` from which a page builds :meth:`at` for any step.

        Columns, one entry per message of the trace (-1 where unused): ``api.turn`` (which
        turn it belongs to), ``api.position`` (its output index in that turn, assistant
        messages only), ``api.call_step`` (the step its call's arguments were complete) and
        ``api.part.0`` / ``api.part.1`` (its parts of the objects, correct and legacy server,
        as indices into ``meta["parts"]``). ``meta`` adds the empty objects to fill and
        what only the last step has: finish reason, status and usage.
        """
        trace = self.trace
        headers = trace.headers
        row = {m.index: i for i, m in enumerate(headers)}
        cols = {name: [-1] * len(headers) for name in ("api.turn", "api.position", "api.call_step", "api.part.0", "api.part.1")}
        parts: dict[str, int] = {}  # each distinct part's JSON: its index (the page holds each once)
        objects: list[dict[str, Any]] = []  # the parts themselves, in that order
        # one fold gives the turn's messages (a Projector's own Turn, without the streams it would keep: none is read here);
        # which parts they make, correct server or legacy, is open_parts' to say
        turn = Turn()
        shapes: dict[tuple[Any, ...], tuple[int, int]] = {}  # parts_key -> the two parts' indices: most messages repeat a shape
        for step, e in trace.rare_events():
            if type(e) is not MessageStart and type(e) is not ToolCallEnd:
                continue  # only these make a turn message or complete its call
            turn.add((e,))
            if type(e) is MessageStart:
                i = row[e.message]
                cols["api.turn"][i] = turn.resets
                if is_assistants(e.role, e.kind) and turn.messages and turn.messages[-1].message == e.message:
                    position = len(turn.messages) - 1
                    cols["api.position"][i] = position
                    opened = turn.messages[-1]
                    key = parts_key(opened, position)
                    pair = shapes.get(key)
                    if pair is None:
                        correct = open_parts(opened, position, legacy=False)
                        legacy_part = open_parts(opened, position, legacy=True)
                        k = _part_index(parts, objects, correct)
                        # most messages make the same part for both servers: one JSON a message then
                        pair = shapes[key] = (k, k if legacy_part == correct else _part_index(parts, objects, legacy_part))
                    cols["api.part.0"][i], cols["api.part.1"][i] = pair
            elif e.message in row:
                msg = next((m for m in reversed(turn.messages) if m.message == e.message), None)
                if msg is not None and msg.call is not None and cols["api.call_step"][row[e.message]] < 0:
                    cols["api.call_step"][row[e.message]] = step
        last = self.at(trace.n_steps - 1)
        first = self.at(0)
        finals = {}
        for name, kind, _ in FLAVOURS:
            obj = last["views"].get(name, {})
            keys = ("usage",) + (("status", "incomplete_details") if kind == "responses" else ())
            finals[name] = {k: obj.get(k) for k in keys}
            if kind == "chat" and obj:
                finals[name]["finish_reason"] = obj["choices"][0]["finish_reason"]
        meta = {
            "flavours": [{"name": n, "kind": k, "legacy": legacy} for n, k, legacy in FLAVOURS],
            "shells": first["views"],
            "finals": finals,
            "parts": objects,
            "error": last.get("error") or first.get("error"),
        }
        return cols, meta


def _part_index(parts: dict[str, int], objects: list[dict[str, Any]], part: dict[str, Any]) -> int:
    """The index of ``part`` among the page's parts (``parts``: each one's JSON, ``objects``: the parts), added when new."""
    key = _PART_JSON(part)
    i = parts.get(key)
    if i is None:
        i = parts[key] = len(objects)
        objects.append(part)
    return i


def _views(projectors: tuple[Projector, Projector]) -> dict[str, Any]:
    views: dict[str, Any] = {}
    for name, kind, legacy in FLAVOURS:
        p = projectors[legacy]
        obj = p.chat() if kind == "chat" else p.response()
        if not p.finished:
            obj["usage"] = None  # a streaming client gets the usage with the last chunk
        views[name] = obj
    return views
