"""Chat Completions projection: the ``chat.completion`` object and its stream of chunks.

Correct server (vLLM after seed 001), by the one visibility rule
(``harmony_viz.scanner.visibility``): ``content`` is final text and preambles joined with
``"\\n"``; reasoning (analysis, and any text whose header leaves it in doubt) goes to the
reasoning field; every call except the builtins (browser, python, container) is a
``tool_calls`` entry with its raw body as ``arguments``; builtin calls count as reasoning.
``finish_reason`` is ``length`` when the stream was cut off, else ``tool_calls`` exactly
when there are tool calls, else ``stop``. Legacy mode (vLLM before the fix): ``content`` is
every message that is not reasoning joined, tool-call JSON included.

The reasoning field is ``reasoning_content`` by default (older vLLM, SGLang, llama.cpp,
DeepSeek-style servers); vLLM 0.32 sends ``reasoning``; ``reasoning_field="both"`` writes both.
"""

from __future__ import annotations

from typing import Any, Literal

from harmony_viz.projections._turn import Turn, TurnMessage
from harmony_viz.projections._usage import Usage

ReasoningField = Literal["reasoning_content", "reasoning", "both"]
REASONING_FIELDS: tuple[str, ...] = ("reasoning_content", "reasoning", "both")
_REASONING = "reasoning_content"  # the internal name; renamed on output by reasoning_keys


def reasoning_keys(field: str) -> tuple[str, ...]:
    """The message/delta keys the reasoning text is written under."""
    if field == "both":
        return ("reasoning_content", "reasoning")
    if field in ("reasoning_content", "reasoning"):
        return (field,)
    raise ValueError(f"reasoning_field {field!r} is not one of {', '.join(REASONING_FIELDS)}")


def content_role(msg: TurnMessage, legacy: bool) -> str | None:
    """Which message field a turn message feeds: ``content``, reasoning or None (a tool call)."""
    if legacy:
        return _REASONING if msg.is_reasoning else "content"
    if msg.call is None:
        return "content" if msg.is_visible else _REASONING
    if msg.call.category == "builtin":
        return _REASONING
    return None


def call_id(prefix: str, index: int) -> str:
    return f"{prefix}call_{index}"


def finish_reason(turn: Turn, finished: bool) -> str | None:
    """``length`` when cut off, ``tool_calls`` exactly when there are tool calls, else ``stop``; None while open."""
    if not finished:
        return None
    if turn.cut_off:
        return "length"
    return "tool_calls" if turn.has_tool_calls else "stop"


def _tool_call(msg: TurnMessage, prefix: str) -> dict[str, Any]:
    assert msg.call is not None
    return {
        "id": call_id(prefix, msg.function_index),
        "type": "function",
        "function": {"name": msg.call.chat_name, "arguments": msg.body},
    }


def build_chat(
    turn: Turn, usage: Usage, *, legacy: bool, model: str, id_prefix: str, finished: bool, reasoning_field: str = _REASONING
) -> dict[str, Any]:
    """The ``chat.completion`` object for the turn as read so far."""
    fields: dict[str, list[str]] = {"content": [], _REASONING: []}
    tool_calls = []
    for msg in turn.messages:
        role = content_role(msg, legacy)
        if role is not None and msg.text:
            fields[role].append(msg.text)
        if msg.is_tool_call:
            tool_calls.append(_tool_call(msg, id_prefix))
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(fields["content"]) or None}
    reasoning = "\n".join(fields[_REASONING]) or None
    for key in reasoning_keys(reasoning_field):
        message[key] = reasoning
    message["tool_calls"] = tool_calls or None
    return {
        "id": f"{id_prefix}chatcmpl-0",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason(turn, finished)}],
        "usage": usage.to_chat(),
    }


class ChatStream:
    """Turns fold changes into ``chat.completion.chunk`` objects, one per field run per step.

    Concatenating the chunks' ``content`` (or ``reasoning_content``, or one call's
    ``arguments``) gives exactly the non-stream field.
    """

    def __init__(self, *, legacy: bool, model: str, id_prefix: str, reasoning_field: str = _REASONING) -> None:
        self.legacy = legacy
        self.model = model
        self.prefix = id_prefix
        self.reasoning_keys = reasoning_keys(reasoning_field)
        self.chunks: list[dict[str, Any]] = []
        self._reset()

    def _reset(self) -> None:
        self.chunks = []
        self._started = False
        # A field that already got text: the next message's first text in it is preceded by "\n".
        self._seen = {"content": False, _REASONING: False}
        self._pending_sep: set[int] = set()
        self._sent_args: dict[int, int] = {}

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        if _REASONING in delta and self.reasoning_keys != (_REASONING,):
            text = delta.pop(_REASONING)
            for key in self.reasoning_keys:
                delta[key] = text
        return {
            "id": f"{self.prefix}chatcmpl-0",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    def feed(self, changes: list[tuple[str, TurnMessage, str]]) -> list[dict[str, Any]]:
        """Chunks for one step's changes (also appended to ``self.chunks``)."""
        deltas = _StepDeltas()
        for what, msg, text in changes:
            if what == "reset":
                self._reset()
                deltas = _StepDeltas()
            elif what == "start":
                self._start(msg, deltas)
            elif what == "delta":
                self._delta(msg, text, deltas)
            elif what == "call" and msg.is_tool_call:
                # The verbatim arguments may hold text the deltas did not (a held-back tail).
                sent = self._sent_args.get(msg.message, 0)
                if len(text) > sent and msg.text[:sent] == text[:sent]:
                    self._put_args(msg, text[sent:], deltas)
        out = [self._chunk(d) for d in deltas.joined()]
        self.chunks.extend(out)
        return out

    def _start(self, msg: TurnMessage, deltas: _StepDeltas) -> None:
        """A message begins: the stream's first chunk names the role; a call opens its ``tool_calls`` entry."""
        if not self._started:
            self._started = True
            deltas.items.append({"role": "assistant", "content": ""})
        role = content_role(msg, self.legacy)
        if role is not None and self._seen[role]:
            self._pending_sep.add(msg.message)
        if msg.is_tool_call:
            assert msg.call is not None
            opened = {"index": msg.function_index, "id": call_id(self.prefix, msg.function_index), "type": "function",
                      "function": {"name": msg.call.chat_name, "arguments": ""}}  # fmt: skip
            deltas.items.append({"tool_calls": [opened]})

    def _delta(self, msg: TurnMessage, text: str, deltas: _StepDeltas) -> None:
        """New text of a message: into its field (after "\\n" when the field already had a message), and a call's arguments."""
        role = content_role(msg, self.legacy)
        if role is not None:
            self._seen[role] = True
            if msg.message in self._pending_sep:
                self._pending_sep.discard(msg.message)
                text_out = "\n" + text
            else:
                text_out = text
            deltas.put(role, text_out)
        if msg.is_tool_call:
            self._put_args(msg, text, deltas)

    def _put_args(self, msg: TurnMessage, text: str, deltas: _StepDeltas) -> None:
        self._sent_args[msg.message] = self._sent_args.get(msg.message, 0) + len(text)
        deltas.put_args(msg.function_index, text)

    def finish(self, turn: Turn, usage: Usage) -> list[dict[str, Any]]:
        """The closing chunks: the finish reason, then the usage chunk."""
        out = []
        if not self._started:
            self._started = True
            out.append(self._chunk({"role": "assistant", "content": ""}))
        out.append(self._chunk({}, finish_reason(turn, True)))
        tail = self._chunk({})
        tail["choices"] = []
        tail["usage"] = usage.to_chat()
        out.append(tail)
        self.chunks.extend(out)
        return out


class _StepDeltas:
    """One step's deltas, runs of the same field (or the same call's arguments) merged into one.

    The pieces of a merged run are kept apart and joined once when the step is done: appending
    to the chunk's string each time would copy it over and over (quadratic)."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._texts: dict[int, list[str]] = {}  # delta index -> the pieces of its one field
        self._args: dict[int, list[str]] = {}  # delta index -> the pieces of its call's arguments

    def put(self, key: str, text: str) -> None:
        last = self.items[-1] if self.items else None
        if last is not None and key in last and len(last) == 1 and isinstance(last[key], str):
            self._texts.setdefault(len(self.items) - 1, [last[key]]).append(text)
        else:
            self.items.append({key: text})

    def put_args(self, index: int, text: str) -> None:
        last = self.items[-1] if self.items else None
        if last and "tool_calls" in last and last["tool_calls"][0]["index"] == index:
            self._args.setdefault(len(self.items) - 1, [last["tool_calls"][0]["function"]["arguments"]]).append(text)
        else:
            self.items.append({"tool_calls": [{"index": index, "function": {"arguments": text}}]})

    def joined(self) -> list[dict[str, Any]]:
        for i, pieces in self._texts.items():
            (key,) = self.items[i]
            self.items[i][key] = "".join(pieces)
        for i, pieces in self._args.items():
            self.items[i]["tool_calls"][0]["function"]["arguments"] = "".join(pieces)
        return self.items
