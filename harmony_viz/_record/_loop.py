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
from dataclasses import dataclass, field
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


@dataclass(slots=True)
class _Tape:
    """The completion as it grows: tokens with times, log-probs once the model gives them, and the harness's spans."""

    completion: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    logprobs: list[float] | None = None
    top: list[tuple[tuple[int, float], ...]] | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)
    calls: list[ToolCallRecord] = field(default_factory=list)

    def add_segment(self, segment: Segment) -> None:
        if segment.logprobs is not None:
            # tokens before the first segment with log-probs get 0.0: the model did not choose them here
            self.logprobs = self.logprobs if self.logprobs is not None else [0.0] * len(self.completion)
            self.top = self.top if self.top is not None else [()] * len(self.completion)
            self.logprobs += segment.logprobs
            self.top += segment.top_logprobs or [()] * len(segment.token_ids)
        self.completion += segment.token_ids
        self.times += segment.times

    def add_harness(self, inserted: Sequence[int], t: float, emit: Callable[[int, float], None]) -> tuple[int, int]:
        """Append the harness's tokens (a tool's reply), all at time ``t``; their span."""
        start = len(self.completion)
        for token in inserted:
            self.completion.append(token)
            self.times.append(t)
            emit(token, t)
        if self.logprobs is not None and self.top is not None:
            self.logprobs += [0.0] * len(inserted)
            self.top += [()] * len(inserted)
        self.spans.append((start, len(self.completion)))
        return start, len(self.completion)

    def recording(self, *, stop: StopReason, turns: int, generated: int, problem: str | None) -> Recording:
        return Recording(
            completion_token_ids=tuple(self.completion),
            token_times=tuple(self.times),
            logprobs=tuple(self.logprobs) if self.logprobs is not None else None,
            top_logprobs=tuple(self.top) if self.top is not None else None,
            harness_spans=tuple(self.spans),
            tool_calls=tuple(self.calls),
            stop_reason=stop,
            turns=turns,
            generated_tokens=generated,
            problem=problem,
        )


# How a segment's own stop ends the turn (a call goes on to the tool).
_SEGMENT_STOPS: dict[str, StopReason] = {"return": "return", "eos": "eos", "length": "token_limit"}


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
    tape = _Tape()
    generated = turns = 0
    stop: StopReason = "turn_limit"
    while turns < max_turns:
        budget = max_new_tokens - generated
        if budget <= 0:
            stop = "token_limit"
            break
        segment = segment_fn([*prompt_ids, *tape.completion], budget, t0, emit)
        turns += 1
        tape.add_segment(segment)
        generated += len(segment.token_ids)
        if segment.stop in _SEGMENT_STOPS:
            stop = _SEGMENT_STOPS[segment.stop]
            break
        if turns >= max_turns:  # a call on the last turn is left unanswered
            break
        found = last_call(tape.completion)
        if isinstance(found, str):
            return tape.recording(stop="malformed_call", turns=turns, generated=generated, problem=found)
        _answer(tools, found, tape, t0, emit)
    return tape.recording(stop=stop, turns=turns, generated=generated, problem=None)


def _answer(tools: ToolRegistry, found: tuple[str, str, str, str, Any], tape: _Tape, t0: float, emit: Callable[[int, float], None]) -> None:
    """Run the call the completion ends with and append the tool's reply (and ``<|start|>assistant``) to the tape."""
    call_id, name, recipient, arguments, parsed = found
    started = time.perf_counter()
    result = tools.call(name, parsed) if parsed is not None or not arguments.strip() else _unparsed(name, arguments)
    seconds = time.perf_counter() - started
    start, end = tape.add_harness(render_tool_turn(recipient, result), time.perf_counter() - t0, emit)
    tape.calls.append(ToolCallRecord(call_id, name, recipient, arguments, result.content, result.error, start, end, seconds))


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
