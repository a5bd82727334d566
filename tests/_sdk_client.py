"""What a real client builds from our streams: the openai SDK's own accumulators, fed one event at a time.

``client.chat.completions.stream()`` runs every chunk through ``ChatCompletionStreamState`` and
``client.responses.stream()`` every event through ``ResponseStreamState``; these helpers do the
same with those very classes, each chunk or event first read into the SDK's own type, and give
back the object the client ends up holding as a dict, to compare with our non-streamed projection.

Where the SDK keeps nothing of a stream, the object takes what the stream's closing events carry,
as a client of that SDK has to:
- the Responses accumulator never changes a response's ``status``, ``usage`` or
  ``incomplete_details`` after ``response.created``: they come from ``response.completed`` /
  ``response.incomplete``; nor an item's ``status`` after its announcement: it comes from the
  item's ``output_item.done`` (or, for an item cut off, the closing response);
- it gathers no ``reasoning_text`` part or delta and no ``mcp_call_arguments`` delta: a reasoning
  item's text and an MCP call's arguments are joined from those events as the SDK hands them on
  (the closing events must say the same, :func:`responses_client` checks it); a web search's
  ``action`` is only in its ``output_item.done``;
- an item the stream never announces (legacy vLLM's preambles) is known only from the closing
  response, as ``get_final_response()`` gives it.
- Chat: ``get_final_completion()`` raises ``LengthFinishReasonError`` on a completion cut off at
  ``length``; the snapshot it accumulated is the completion then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic
from openai import LengthFinishReasonError, omit
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

_EVENT = pydantic.TypeAdapter(ResponseStreamEvent)
_CLOSING = ("response.completed", "response.incomplete")


def chat_client(chunks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``chat.completion`` a client of ``client.chat.completions.stream()`` holds after these chunks."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    try:
        done: Any = state.get_final_completion()
    except LengthFinishReasonError:
        done = state.current_completion_snapshot  # the SDK refuses to parse a cut-off completion; this is what it holds
    return done.to_dict(warnings=False)


def chat_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """What a client reads off a ``chat.completion``: content, reasoning, calls and their arguments, usage, finish reason."""
    (choice,) = obj["choices"]
    msg = choice["message"]
    return {
        "id": obj["id"],
        "model": obj["model"],
        "role": msg["role"],
        # A stream opens with content "" (vLLM's first chunk does too); an answer without content is null when not streamed.
        "content": msg.get("content") or None,
        "reasoning_content": msg.get("reasoning_content"),
        "reasoning": msg.get("reasoning"),
        "tool_calls": [(c["id"], c["type"], c["function"]["name"], c["function"]["arguments"]) for c in msg.get("tool_calls") or []],
        "finish_reason": choice["finish_reason"],
        "usage": obj.get("usage"),
    }


class _Keeping(ResponseStreamState):  # type: ignore[type-arg]
    """The SDK's state, unchanged, keeping the snapshot its ``handle_event`` builds (which it holds privately)."""

    snapshot: Any = None

    def accumulate_event(self, event: Any) -> Any:
        self.snapshot = super().accumulate_event(event)
        return self.snapshot


class ResponsesClient:
    """A client of ``client.responses.stream()``: feed it events as they come, read what it holds at any time."""

    def __init__(self) -> None:
        self.state = _Keeping(input_tools=omit, text_format=omit)
        self.handed: list[Any] = []  # the events as the SDK hands them to its caller

    def feed(self, events: Sequence[dict[str, Any]]) -> ResponsesClient:
        for event in events:
            self.handed.extend(self.state.handle_event(_EVENT.validate_python(event)))
        return self

    def response(self) -> dict[str, Any]:
        """The ``response`` the client holds: the SDK's snapshot, with what it keeps nothing of taken as the module says."""
        obj = self.state.snapshot.to_dict(warnings=False)
        closing = next((e.response.to_dict(warnings=False) for e in reversed(self.handed) if e.type in _CLOSING), None)
        parts: dict[int, list[dict[str, Any]]] = {}
        texts: dict[int, list[str]] = {}
        args: dict[int, list[str]] = {}
        done: dict[int, dict[str, Any]] = {}
        index_of: dict[str, int] = {}
        for e in self.handed:
            if e.type == "response.output_item.added":
                index_of[e.item.id] = e.output_index
            elif e.type == "response.content_part.added" and e.part.type == "reasoning_text":
                parts.setdefault(e.output_index, []).append(e.part.to_dict(warnings=False))
            elif e.type == "response.reasoning_text.delta":
                texts.setdefault(e.output_index, []).append(e.delta)
            elif e.type == "response.mcp_call_arguments.delta":
                args.setdefault(e.output_index, []).append(e.delta)
            elif e.type == "response.output_item.done":
                done[e.output_index] = e.item.to_dict(warnings=False)
        announced = {item["id"]: item for item in obj["output"]}
        order = [item["id"] for item in (closing["output"] if closing is not None else obj["output"])]
        output = []
        for position, item_id in enumerate(order):
            if item_id not in announced:
                assert closing is not None
                output.append(closing["output"][position])  # never streamed: only the closing response knows it
                continue
            item = dict(announced[item_id])
            at = index_of[item_id]
            last = done.get(at) or (closing["output"][position] if closing is not None else None)
            if item["type"] == "reasoning" and at in parts:
                (part,) = parts[at]
                item["content"] = [{**part, "text": part["text"] + "".join(texts.get(at, ()))}]
            elif item["type"] == "mcp_call":
                item["arguments"] += "".join(args.get(at, ()))
            if last is not None:
                item["status"] = last["status"]
                if item["type"] == "web_search_call":
                    item["action"] = last["action"]
                # what the SDK hands on and what the closing event carries must agree where the SDK keeps nothing
                for key in ("content",) if item["type"] == "reasoning" else ("arguments",) if item["type"] == "mcp_call" else ():
                    assert item[key] == last[key], (item_id, key, item[key], last[key])
            output.append(item)
        obj["output"] = output
        if closing is not None:
            for key in ("status", "usage", "incomplete_details"):
                obj[key] = closing[key]
        return obj


def responses_client(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``response`` a client of ``client.responses.stream()`` holds after these events (mid-stream too)."""
    return ResponsesClient().feed(events).response()
