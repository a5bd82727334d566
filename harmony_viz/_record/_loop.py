"""The tool loop: generate, and on ``<|call|>`` run the tool, append its reply, resume.

The token stream only grows: the model's tokens (analysis before a call included, as the
format requires within a turn) stay exactly as generated, and the harness appends the
tool message rendered by our renderer plus ``<|start|>assistant``. The loop ends on
``<|return|>``, on the token budget (model tokens over all turns), on the turn limit
(model segments), or on a call the scanner cannot read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harmony_viz._record._generate import Segment
from harmony_viz._record._prompt import render_tool_turn
from harmony_viz._record._tools import ToolRegistry, ToolResult, failure

StopReason = Literal["return", "token_limit", "turn_limit", "eos", "malformed_call"]

# Generates one segment: (input ids, token budget, t0, on_token) -> Segment. The real one
# wraps ``model.generate``; the indirection keeps the loop independent of torch.
SegmentFn = Callable[[Sequence[int], int, float, Callable[[int, float], None]], Segment]


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool round trip. ``start``/``end`` span the harness tokens in the completion."""

    call_id: str
    name: str
    recipient: str
    arguments: str
    content: str
    error: str | None
    start: int
    end: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "name": self.name,
            "recipient": self.recipient,
            "arguments": self.arguments,
            "content": self.content,
            "error": self.error,
            "span": [self.start, self.end],
            "seconds": round(self.seconds, 6),
        }


@dataclass(frozen=True, slots=True)
class Recording:
    """Everything after the prompt: token ids with times, the tool calls, and why it stopped.

    ``logprobs`` has one value per completion token when asked for; harness-inserted tokens
    (the ``harness_spans``) get 0.0 there, as the model did not choose them.
    """

    completion_token_ids: tuple[int, ...]
    token_times: tuple[float, ...]
    logprobs: tuple[float, ...] | None
    top_logprobs: tuple[tuple[tuple[int, float], ...], ...] | None
    harness_spans: tuple[tuple[int, int], ...]
    tool_calls: tuple[ToolCallRecord, ...]
    stop_reason: StopReason
    turns: int
    generated_tokens: int
    problem: str | None = None


def run_loop(
    segment_fn: SegmentFn,
    prompt_ids: Sequence[int],
    *,
    tools: ToolRegistry | None,
    max_new_tokens: int,
    max_turns: int,
    on_token: Callable[[int, float], None] | None = None,
    t0: float | None = None,
) -> Recording:
    """Drive ``segment_fn`` through tool calls until the turn ends or a limit is hit."""
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    t0 = time.perf_counter() if t0 is None else t0
    emit = on_token or (lambda token, t: None)
    tools = tools if tools is not None else ToolRegistry()
    completion: list[int] = []
    times: list[float] = []
    logprobs: list[float] | None = None
    top: list[tuple[tuple[int, float], ...]] | None = None
    spans: list[tuple[int, int]] = []
    calls: list[ToolCallRecord] = []
    generated = 0
    turns = 0
    problem: str | None = None
    stop: StopReason = "turn_limit"
    while turns < max_turns:
        budget = max_new_tokens - generated
        if budget <= 0:
            stop = "token_limit"
            break
        segment = segment_fn([*prompt_ids, *completion], budget, t0, emit)
        turns += 1
        if segment.logprobs is not None:
            logprobs = logprobs if logprobs is not None else [0.0] * len(completion)
            top = top if top is not None else [()] * len(completion)
            logprobs += segment.logprobs
            top += segment.top_logprobs or [()] * len(segment.token_ids)
        completion += segment.token_ids
        times += segment.times
        generated += len(segment.token_ids)
        if segment.stop == "return":
            stop = "return"
            break
        if segment.stop == "eos":
            stop = "eos"
            break
        if segment.stop == "length":
            stop = "token_limit"
            break
        # segment.stop == "call"
        if turns >= max_turns:
            stop = "turn_limit"
            break
        found = last_call(completion)
        if isinstance(found, str):
            stop, problem = "malformed_call", found
            break
        call_id, name, recipient, arguments, parsed = found
        started = time.perf_counter()
        result = tools.call(name, parsed) if parsed is not None or not arguments.strip() else _unparsed(name, arguments)
        seconds = time.perf_counter() - started
        inserted = render_tool_turn(recipient, result)
        start = len(completion)
        t = time.perf_counter() - t0
        for token in inserted:
            completion.append(token)
            times.append(t)
            emit(token, t)
        if logprobs is not None and top is not None:
            logprobs += [0.0] * len(inserted)
            top += [()] * len(inserted)
        spans.append((start, len(completion)))
        calls.append(ToolCallRecord(call_id, name, recipient, arguments, result.content, result.error, start, len(completion), seconds))
    return Recording(
        completion_token_ids=tuple(completion),
        token_times=tuple(times),
        logprobs=tuple(logprobs) if logprobs is not None else None,
        top_logprobs=tuple(top) if top is not None else None,
        harness_spans=tuple(spans),
        tool_calls=tuple(calls),
        stop_reason=stop,
        turns=turns,
        generated_tokens=generated,
        problem=problem,
    )


def _unparsed(name: str, arguments: str) -> ToolResult:
    return failure(name, f"arguments are not JSON and could not be repaired: {arguments[:120]!r}")


def last_call(completion: Sequence[int]) -> tuple[str, str, str, str, Any] | str:
    """The call the completion ends with, read by our scanner: (call_id, name, recipient, raw args, parsed).

    Returns a one-line problem instead when the last message is not a readable tool call
    (no recipient, say).
    """
    from harmony_viz.scanner import MessageStart, ToolCallEnd, ToolCallStart, scan

    result = scan(list(completion), role="assistant")
    starts = {e.call_id: e for e in result.events if isinstance(e, ToolCallStart)}
    ends = [e for e in result.events if isinstance(e, ToolCallEnd)]
    last_message = max((e.message for e in result.events if isinstance(e, MessageStart)), default=-1)
    if not ends or ends[-1].message != last_message:
        return f"the message ending in <|call|> at token {len(completion) - 1} has no recipient, so no tool can answer it"
    end = ends[-1]
    start = starts.get(end.call_id)
    recipient = start.recipient if start is not None else f"functions.{end.name}"
    return end.call_id, end.name, recipient, end.arguments, end.parsed
