"""Responses API projection: the ``response`` object and its streaming event sequence.

Correct server (vLLM after seed 001), one output item per message, in order, by the one
visibility rule: reasoning (analysis, and text whose header leaves it in doubt) →
``reasoning``; final *and* preambles → ``message`` with an ``output_text`` part;
``functions.*``, and any other name the request declared → ``function_call`` (name without
``functions.``, arguments verbatim); ``browser.*`` → ``web_search_call``; ``python`` /
``container.*`` → ``reasoning``; any other recipient → ``mcp_call`` with the server label
before the dot (vLLM's rule). Legacy mode (vLLM before the fix): preambles become
``reasoning`` items and stream no events at all.

Fields the SDK's types require and a request would have set (``tools``, ``tool_choice``,
``parallel_tool_calls``, ``logprobs``…) get the values a server sends when the request said
nothing about them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harmony_viz.projections._chat import call_id
from harmony_viz.projections._turn import Turn, TurnMessage
from harmony_viz.projections._usage import Usage

_ID_PREFIX = {"reasoning": "rs", "message": "msg", "function_call": "fc", "web_search_call": "ws", "mcp_call": "mcp"}


def item_type(msg: TurnMessage, legacy: bool) -> str:
    """The Responses output item type a message becomes."""
    call = msg.call
    if call is None:
        if msg.is_reasoning or (legacy and msg.is_preamble):
            return "reasoning"
        return "message"
    if call.category == "function":
        return "function_call"
    if call.category == "mcp":
        return "mcp_call"
    return "web_search_call" if call.name.startswith("browser.") else "reasoning"


def _status(msg: TurnMessage) -> str:
    if msg.terminator is None:
        return "in_progress"
    return "incomplete" if msg.terminator == "eos" else "completed"


def _arguments(msg: TurnMessage) -> Any:
    if msg.parsed is not None:
        return msg.parsed
    try:
        return json.loads(msg.body)
    except ValueError:
        return None


def _search_action(verb: str, args: Any) -> dict[str, Any]:
    """A web search's ``action`` from the browser verb and its arguments (None: not known yet)."""
    args = args if isinstance(args, dict) else {}
    if verb == "open":
        url = args.get("url", args.get("id"))
        return {"type": "open_page", "url": url if isinstance(url, str) else None}
    if verb == "find":
        return {"type": "find_in_page", "pattern": _str(args.get("pattern")), "url": _str(args.get("url", args.get("cursor")))}
    # search, and any verb the API has no action for
    return {"type": "search", "query": _str(args.get("query"))}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


def build_item(msg: TurnMessage, index: int, *, legacy: bool, id_prefix: str, text: str | None = None) -> dict[str, Any]:
    """The output item for ``msg`` at ``index``; ``text`` given means "as just added" (that body, in progress)."""
    kind = item_type(msg, legacy)
    item_id = f"{id_prefix}{_ID_PREFIX[kind]}_{index}"
    status = _status(msg) if text is None else "in_progress"
    body = msg.body if text is None else text
    if kind == "reasoning":
        return {"type": "reasoning", "id": item_id, "summary": [], "content": [{"type": "reasoning_text", "text": body}], "status": status}
    if kind == "message":
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": status,
            "content": [{"type": "output_text", "text": body, "annotations": [], "logprobs": []}],
        }
    assert msg.call is not None
    if kind == "function_call":
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id(id_prefix, msg.function_index),
            "name": msg.call.chat_name if msg.call.category == "function" else msg.call.name,
            "arguments": body,
            "status": status,
        }
    if kind == "mcp_call":
        return {
            "type": "mcp_call",
            "id": item_id,
            "server_label": msg.call.server_label,
            "name": msg.call.name,
            "arguments": body,
            "output": None,
            "error": None,
            "status": status,
        }
    # No event streams a search's arguments: a client learns its action from output_item.done, so none while in progress.
    args = _arguments(msg) if status != "in_progress" else None
    return {"type": "web_search_call", "id": item_id, "status": status, "action": _search_action(msg.call.name.partition(".")[2], args)}


def announced_item(msg: TurnMessage, index: int, *, legacy: bool, id_prefix: str) -> dict[str, Any]:
    """The item as ``response.output_item.added`` carries it: nothing of its body yet.

    A message and a reasoning item come with ``content: []`` and their one part arrives by
    ``response.content_part.added``; announcing the part inside the item too would give a
    client that appends parts (the SDK's accumulator does) an extra empty one. Both real
    servers announce a message so; for reasoning the reference server sends ``[]`` and vLLM
    0.32 ``null``: ``[]`` is followed because it is the type the item ends with, so a client
    can append to it as it does for a message.
    """
    item = build_item(msg, index, legacy=legacy, id_prefix=id_prefix, text="")
    if item["type"] in ("message", "reasoning"):
        item["content"] = []
    return item


def response_status(turn: Turn, finished: bool) -> str:
    if not finished or (turn.messages and turn.messages[-1].terminator is None):
        return "in_progress"
    return "incomplete" if turn.cut_off else "completed"


def response_tools(tools: Sequence[object] | None) -> list[dict[str, Any]]:
    """The request's tools as a Responses object echoes them (function tools; names alone get no schema)."""
    out = []
    for tool in tools or ():
        if isinstance(tool, str):
            out.append({"type": "function", "name": tool, "parameters": None, "strict": None})
        elif isinstance(tool, dict):
            fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
            if isinstance(fn.get("name"), str):
                out.append({"type": "function", "name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters"), "strict": fn.get("strict")})
        elif isinstance(getattr(tool, "name", None), str):  # a declared tool read by the lints
            ns = getattr(tool, "namespace", "functions")
            name = tool.name if ns in (None, "functions") else f"{ns}.{tool.name}"  # type: ignore[attr-defined]
            out.append({"type": "function", "name": name, "description": getattr(tool, "description", None) or None, "parameters": getattr(tool, "parameters", None), "strict": None})
    return out


def response_shell(*, model: str, id_prefix: str, status: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields of a ``response`` object that do not depend on the output."""
    return {
        "id": f"{id_prefix}resp_0",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": status,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "error": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": tools,
        "top_p": None,
        "output": [],
        "usage": None,
    }


def build_response(
    turn: Turn, usage: Usage, *, legacy: bool, model: str, id_prefix: str, finished: bool, tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The ``response`` object for the turn as read so far."""
    out = response_shell(model=model, id_prefix=id_prefix, status=response_status(turn, finished), tools=tools or [])
    out["output"] = [build_item(m, i, legacy=legacy, id_prefix=id_prefix) for i, m in enumerate(turn.messages)]
    out["usage"] = usage.to_responses()
    return out


class ResponseStream:
    """Turns fold changes into Responses streaming events, numbered by ``sequence_number``."""

    def __init__(self, *, legacy: bool, model: str, id_prefix: str, tools: list[dict[str, Any]] | None = None) -> None:
        self.legacy = legacy
        self.model = model
        self.prefix = id_prefix
        self.tools = tools or []
        self._reset()

    def _reset(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._index: dict[int, int] = {}
        self._sent: dict[int, int] = {}

    def _emit(self, out: list[dict[str, Any]], type_: str, **fields: Any) -> None:
        event = {"type": type_, "sequence_number": len(self.events)}
        event.update(fields)
        self.events.append(event)
        out.append(event)

    def _open(self, out: list[dict[str, Any]]) -> None:
        if not self.events:
            # As the API sends it: usage comes with the last event.
            shell = response_shell(model=self.model, id_prefix=self.prefix, status="in_progress", tools=self.tools)
            self._emit(out, "response.created", response=shell)
            self._emit(out, "response.in_progress", response=shell)

    def feed(self, changes: list[tuple[str, TurnMessage, str]]) -> list[dict[str, Any]]:
        """Events for one step's changes (also appended to ``self.events``)."""
        out: list[dict[str, Any]] = []
        for what, msg, text in changes:
            if what == "reset":
                self._reset()
                out.clear()
                continue
            if what == "start":
                self._index[msg.message] = len(self._index)
            index = self._index.get(msg.message)
            if index is None:
                continue
            kind = item_type(msg, self.legacy)
            if self.legacy and msg.is_preamble:
                continue  # the pre-fix bug: preamble tokens sent no events at all
            self._open(out)
            item_id = f"{self.prefix}{_ID_PREFIX[kind]}_{index}"
            if what == "start":
                self._emit(out, "response.output_item.added", output_index=index, item=announced_item(msg, index, legacy=self.legacy, id_prefix=self.prefix))
                if kind in ("message", "reasoning"):
                    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []} if kind == "message" else {"type": "reasoning_text", "text": ""}
                    self._emit(out, "response.content_part.added", item_id=item_id, output_index=index, content_index=0, part=part)
                elif kind == "web_search_call":
                    self._emit(out, "response.web_search_call.in_progress", item_id=item_id, output_index=index)
                elif kind == "mcp_call":
                    self._emit(out, "response.mcp_call.in_progress", item_id=item_id, output_index=index)  # as vLLM and the API send it
            elif what == "delta":
                self._delta(out, kind, msg, item_id, index, text)
            elif what == "call" and kind in ("function_call", "mcp_call", "reasoning"):
                sent = self._sent.get(msg.message, 0)
                if len(text) > sent:
                    self._delta(out, kind, msg, item_id, index, text[sent:])
            elif what == "end":
                self._done(out, kind, msg, item_id, index)
        return out

    def _delta(self, out: list[dict[str, Any]], kind: str, msg: TurnMessage, item_id: str, index: int, text: str) -> None:
        self._sent[msg.message] = self._sent.get(msg.message, 0) + len(text)
        where = {"item_id": item_id, "output_index": index}
        if kind == "message":
            self._emit(out, "response.output_text.delta", **where, content_index=0, delta=text, logprobs=[])
        elif kind == "reasoning":
            self._emit(out, "response.reasoning_text.delta", **where, content_index=0, delta=text)
        elif kind == "function_call":
            self._emit(out, "response.function_call_arguments.delta", **where, delta=text)
        elif kind == "mcp_call":
            self._emit(out, "response.mcp_call_arguments.delta", **where, delta=text)

    def _done(self, out: list[dict[str, Any]], kind: str, msg: TurnMessage, item_id: str, index: int) -> None:
        item = build_item(msg, index, legacy=self.legacy, id_prefix=self.prefix)
        where = {"item_id": item_id, "output_index": index}
        if kind == "message":
            self._emit(out, "response.output_text.done", **where, content_index=0, text=msg.text, logprobs=[])
            self._emit(out, "response.content_part.done", **where, content_index=0, part=item["content"][0])
        elif kind == "reasoning":
            self._emit(out, "response.reasoning_text.done", **where, content_index=0, text=msg.body)
            self._emit(out, "response.content_part.done", **where, content_index=0, part=item["content"][0])
        elif kind == "function_call":
            self._emit(out, "response.function_call_arguments.done", **where, name=item["name"], arguments=msg.body)
        elif kind == "mcp_call":
            # ``name`` as for a function call (the SDK's type has neither; vLLM sends both)
            self._emit(out, "response.mcp_call_arguments.done", **where, name=item["name"], arguments=msg.body)
            if item["status"] == "completed":  # a call cut off by the end of the stream did not complete
                self._emit(out, "response.mcp_call.completed", **where)
        elif kind == "web_search_call":
            self._emit(out, "response.web_search_call.completed", **where)
        self._emit(out, "response.output_item.done", output_index=index, item=item)

    def finish(self, turn: Turn, usage: Usage) -> list[dict[str, Any]]:
        """The closing event: ``response.completed``, or ``response.incomplete`` when cut off."""
        out: list[dict[str, Any]] = []
        self._open(out)
        final = build_response(turn, usage, legacy=self.legacy, model=self.model, id_prefix=self.prefix, finished=True, tools=self.tools)
        self._emit(out, "response.incomplete" if final["status"] == "incomplete" else "response.completed", response=final)
        return out
