"""The incremental projector: add scanner steps one by one, read any API view at any time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from harmony_viz.projections._chat import ChatStream, ReasoningField, build_chat, reasoning_keys
from harmony_viz.projections._responses import ResponseStream, build_response, response_tools
from harmony_viz.projections._turn import Turn, declared_names
from harmony_viz.projections._usage import UnitOrAuto, Usage, compute_usage
from harmony_viz.scanner import Event

Output = Literal["chat", "chat-stream", "responses", "responses-stream"]
OUTPUTS: tuple[str, ...] = ("chat", "chat-stream", "responses", "responses-stream")


class Projector:
    """What a server would have returned so far, kept up to date step by step.

    ``add(events)`` costs time linear in the events added (stream chunks are built
    lazily, on the first read of ``chat_chunks``/``response_events``); ``current(output)``
    costs time linear in the turn's messages (message texts are joined once and cached),
    so asking for "the API view as of step k" after every step of a few-thousand-token
    stream stays cheap. Call ``finish()`` once the stream is over (after adding the
    scanner's flush events): open messages count as cut off, and the stream outputs gain
    their closing chunk/event.

    Usage counts the prompt: everything before the turn, or ``prompt_tokens`` when the
    caller knows it (a run's prompt ids). For a stream fed as text, ``tokens_before`` (a
    character offset → the tokens before it) and ``add(…, fed=)`` let it count in tokens.

    >>> p = Projector()
    >>> p.current("chat")["choices"][0]["finish_reason"] is None
    True
    """

    def __init__(
        self,
        *,
        legacy_vllm: bool = False,
        model: str = "gpt-oss",
        id_prefix: str = "",
        unit: UnitOrAuto = "auto",
        tools: Sequence[object] | None = None,
        reasoning_field: ReasoningField = "reasoning_content",
        prompt_tokens: int | None = None,
        tokens_before: Callable[[int], int] | None = None,
    ) -> None:
        reasoning_keys(reasoning_field)  # a bad name fails here, not at the first read
        self.prompt_tokens = prompt_tokens
        self._tokens_before = tokens_before
        self.fed: int | None = None
        self.legacy_vllm = legacy_vllm
        self.model = model
        self.id_prefix = id_prefix
        self.unit: UnitOrAuto = unit
        self.reasoning_field = reasoning_field
        self._tools = response_tools(tools)
        self.turn = Turn(declared_names(tools))
        self.finished = False
        self._chat = ChatStream(legacy=legacy_vllm, model=model, id_prefix=id_prefix, reasoning_field=reasoning_field)
        self._responses = ResponseStream(legacy=legacy_vllm, model=model, id_prefix=id_prefix, tools=self._tools)
        self._log: list[list] = []  # per-step changes not yet turned into stream output
        self._streams_closed = False

    def add(self, events: Iterable[Event], *, fed: int | None = None) -> None:
        """Fold one step's events in; ``fed``: how many tokens the stream holds after them, when known."""
        if self.finished:
            raise RuntimeError("Projector.add after finish(); make a new Projector for a new stream")
        if fed is not None:
            self.fed = fed
        changes = self.turn.add(events)
        if changes:
            self._log.append(changes)

    def finish(self) -> None:
        """Mark the end of the stream (idempotent)."""
        if self.finished:
            return
        changes = self.turn.finish()
        if changes:
            self._log.append(changes)
        self.finished = True

    def _sync(self) -> None:
        for changes in self._log:
            self._chat.feed(changes)
            self._responses.feed(changes)
        self._log.clear()
        if self.finished and not self._streams_closed:
            self._streams_closed = True
            usage = self.usage()
            self._chat.finish(self.turn, usage)
            self._responses.finish(self.turn, usage)

    def usage(self) -> Usage:
        """Token usage of the turn so far."""
        return compute_usage(self.turn, legacy_vllm=self.legacy_vllm, unit=self.unit, prompt_tokens=self.prompt_tokens, fed=self.fed,
                             tokens_before=self._tokens_before)

    def chat(self) -> dict[str, Any]:
        """The ``chat.completion`` object so far (finish_reason null until finished)."""
        return build_chat(
            self.turn, self.usage(), legacy=self.legacy_vllm, model=self.model, id_prefix=self.id_prefix,
            finished=self.finished, reasoning_field=self.reasoning_field,
        )

    def response(self) -> dict[str, Any]:
        """The Responses API ``response`` object so far (status in_progress until finished)."""
        return build_response(
            self.turn, self.usage(), legacy=self.legacy_vllm, model=self.model, id_prefix=self.id_prefix,
            finished=self.finished, tools=self._tools,
        )

    @property
    def chat_chunks(self) -> list[dict[str, Any]]:
        """Every ``chat.completion.chunk`` sent so far in this turn."""
        self._sync()
        return self._chat.chunks

    @property
    def response_events(self) -> list[dict[str, Any]]:
        """Every Responses streaming event sent so far in this turn."""
        self._sync()
        return self._responses.events

    def current(self, output: Output = "chat") -> dict[str, Any] | list[dict[str, Any]]:
        """The view named ``output`` (chat, chat-stream, responses, responses-stream) as of now."""
        if output == "chat":
            return self.chat()
        if output == "responses":
            return self.response()
        if output == "chat-stream":
            return list(self.chat_chunks)
        if output == "responses-stream":
            return list(self.response_events)
        raise ValueError(f"unknown output {output!r}; expected one of {', '.join(OUTPUTS)}")
