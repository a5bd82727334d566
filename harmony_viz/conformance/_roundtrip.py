"""The round-trip family (``roundtrip/*``): an engine's own answer sent back as history, and the prompt it then renders.

A case is a first request, the stream the engine is made to answer it with (through its
replay, so the answer is the engine's own reading of that stream), the client's ``shape`` (how
the answer goes back: Chat with ``reasoning_content``, with ``reasoning`` or with none;
Responses output items with their ``reasoning_text``, or with a reasoning ``summary`` only;
``previous_response_id``) and what follows the answer (``then``: tool results, a user turn).
The engine renders the second request; the format's prompt for it is the first request's
conversation, the stream's messages as the model wrote them (the analysis left out where the
client sent none) and what follows, rendered by our renderer (≡ openai-harmony: a finished
turn's analysis dropped, a pending call's kept). The two prompts are compared by the prompt
lens's code table, so a lost analysis, a call without ``<|constrain|>``, a preamble turned into
the answer or a tool result encoded twice are named as in ``prompt-check``.

An engine that has no server (SGLang's parser), does not serve the shape's API, cannot show
the prompt for it, or whose replay cannot return the call the stream makes (llama.cpp refuses
a grammar with tools) gives ``not-served``, with the reason.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from harmony_viz.conformance._case import Case
from harmony_viz.conformance._records import Known, KnownKey, Outcome, failing_codes, status_of
from harmony_viz.inputs import without_nulls
from harmony_viz.servers import PromptCheck, PromptUnavailable, ServerError, client_for, engines, send, server_prompt
from harmony_viz.servers.core import responses_of_chat
from harmony_viz.servers.engines import replay_request

ROUNDTRIP_API = "roundtrip"  # the API column of a roundtrip case: the prompt the engine rendered after its own answer
CHAT_FIELD = {"chat-reasoning_content": "reasoning_content", "chat-reasoning": "reasoning", "chat-no-reasoning": None}
DEFAULT_USER = {"role": "user", "content": "Replay this stream."}
_DATE = re.compile(r"^Current date: (.+)$", re.MULTILINE)
_EFFORT = re.compile(r"^Reasoning: (low|medium|high)$", re.MULTILINE)


def shape_api(shape: str) -> str:
    """The API the first answer comes from and the second request goes to: ``chat`` or ``responses``."""
    return "chat" if shape.startswith("chat-") else "responses"


@dataclass(frozen=True)
class RoundTripCheck(PromptCheck):
    """A prompt check whose request is the engine's own answer sent back: the shape, that answer as sent, the second request."""

    shape: str = ""
    answer: Any = None  # the assistant message (Chat) or the output items (Responses) as they went back
    followup: Mapping[str, Any] = field(default_factory=dict)  # the second request
    notes: tuple[str, ...] = ()

    def prompt_check(self) -> PromptCheck:
        """The prompt check alone (what a replay page reads)."""
        return PromptCheck(**{f.name: getattr(self, f.name) for f in fields(PromptCheck)})

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(shape=self.shape, answer=self.answer, followup=dict(self.followup), notes=list(self.notes))
        return out


# --- the engine's answer, sent back ------------------------------------------------------------------------------


def _chat_answer(final: Mapping[str, Any], shape: str) -> tuple[dict[str, Any], list[str]]:
    """The assistant message a Chat client sends back in ``shape``, and its call ids in order."""
    msg = ((final.get("choices") or [{}])[0] or {}).get("message") or {}
    thought = next((msg[k] for k in ("reasoning_content", "reasoning") if isinstance(msg.get(k), str) and msg[k]), None)
    out: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
    key = CHAT_FIELD[shape]
    if key is not None and thought is not None:
        out[key] = thought
    calls = [without_nulls(c) for c in msg.get("tool_calls") or []]
    if calls:
        out["tool_calls"] = calls
    return out, [str(c.get("id") or "") for c in calls]


def _responses_answer(final: Mapping[str, Any], shape: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The output items a Responses client sends back as input in ``shape``, and the call ids in order."""
    items = []
    for item in without_nulls(list(final.get("output") or [])):
        if shape == "responses-summary" and item.get("type") == "reasoning":
            text = "".join(str(p.get("text", "")) for p in item.get("content") or [] if isinstance(p, Mapping))
            item = {k: v for k, v in item.items() if k != "content"}
            item["summary"] = [{"type": "summary_text", "text": text}] if text else list(item.get("summary") or [])
        items.append(item)
    return items, [str(i.get("call_id") or "") for i in items if i.get("type") == "function_call"]


def _answering(then: Sequence[Mapping[str, Any]], call_ids: Sequence[str]) -> Iterator[tuple[Mapping[str, Any], str | None]]:
    """Each message that follows the answer, with the call id a tool result answers (the calls' in order); None for a user turn."""
    k = 0
    for m in then:
        if m["role"] == "tool":
            yield m, call_ids[k] if k < len(call_ids) else f"call_{k}"
            k += 1
        else:
            yield m, None


def _then_chat(then: Sequence[Mapping[str, Any]], call_ids: Sequence[str]) -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": cid, "content": m["content"]} if cid is not None else {"role": "user", "content": m["content"]}
            for m, cid in _answering(then, call_ids)]


def _then_responses(then: Sequence[Mapping[str, Any]], call_ids: Sequence[str]) -> list[dict[str, Any]]:
    return [{"type": "function_call_output", "call_id": cid, "output": m["content"]} if cid is not None
            else {"type": "message", "role": "user", "content": m["content"]}
            for m, cid in _answering(then, call_ids)]


def second_request(case: Case, final: Mapping[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The request a client in the case's shape sends after the engine's answer ``final``: (request, the answer as sent, calls in it)."""
    shape = case.shape or ""
    first = {**case.request, "messages": list(case.request.get("messages") or [DEFAULT_USER])}
    first.pop("stream", None)
    if shape_api(shape) == "chat":
        message, ids = _chat_answer(final, shape)
        return {**first, "messages": [*first["messages"], message, *_then_chat(case.then, ids)]}, message, len(ids)
    items, ids = _responses_answer(final, shape)
    body = responses_of_chat(first)
    if shape == "previous-response-id":
        # the stored response carries the first input and its output; tools are not inherited (they are sent again)
        body = {k: v for k, v in body.items() if k != "input"}
        return {**body, "previous_response_id": final.get("id"), "input": _then_responses(case.then, ids)}, items, len(ids)
    return {**body, "input": [*body["input"], *items, *_then_responses(case.then, ids)]}, items, len(ids)


# --- the format's prompt for it ---------------------------------------------------------------------------------


def expected_prompt(case: Case, ids: Sequence[int], server_ids: Sequence[int]) -> list[int]:
    """The prompt the format gives after ``ids`` (the stream as forced): the first conversation, the stream's messages, what follows.

    Dated as the server's prompt is, at its effort where the request names none (a request carries
    neither); the analysis is left out where the shape sends none back (Chat without reasoning).
    """
    from harmony_viz.render import Author, Message, Role, conversation_from_chat, render_conversation_for_completion
    from harmony_viz.scanner import scan
    from harmony_viz.templates import ours_request, read_side

    system = next((m.body for m in read_side(server_ids).messages if m.author == "system"), "")
    date, effort = _DATE.search(system), _EFFORT.search(system)
    first = {**case.request, "messages": list(case.request.get("messages") or [DEFAULT_USER])}
    if first.get("reasoning_effort") is None and effort is not None:
        first["reasoning_effort"] = effort.group(1)
    conv = conversation_from_chat(ours_request(first), conversation_start_date=date.group(1) if date else None)
    wrote = [m for m in scan(list(ids), role="assistant").messages if m.end is not None]
    if case.shape == "chat-no-reasoning":
        wrote = [m for m in wrote if m.channel != "analysis"]
    msgs = [*conv.messages, *(Message.from_dict(m.to_json()) for m in wrote)]
    calls = [m.recipient for m in wrote if m.kind == "tool_call" and m.recipient]
    k = 0
    for m in case.then:
        if m["role"] == "tool":
            name = calls[k] if k < len(calls) else "functions.unknown"
            msgs.append(Message.from_author_and_content(Author(Role.TOOL, name), m["content"]).with_channel("commentary").with_recipient("assistant"))
            k += 1
        else:
            msgs.append(Message.from_role_and_content(Role.USER, m["content"]))
    return render_conversation_for_completion(msgs)


# --- one case through one engine ---------------------------------------------------------------------------------


def _not_served(case: Case, engine: str, version: str | None, reason: str) -> Outcome:
    return Outcome(case=case, engine=engine, api=ROUNDTRIP_API, status="not-served", engine_version=version, reason=reason)


def roundtrip_outcome(case: Case, engine_name: str, url: str | None, known: Mapping[KnownKey, Known], *, timeout: float = 120.0) -> Outcome:
    """One roundtrip case through one engine: its status, with the prompt check behind it."""
    from harmony_viz.scanner import scan

    found = engines.get(engine_name)
    shape = case.shape or ""
    api = shape_api(shape)
    if found.offline or url is None:
        return _not_served(case, found.name, None, f"{found.name} runs offline: no server renders a second turn")
    version = found.version(engines.Probe(url))
    if api not in found.apis:
        return _not_served(case, found.name, version, f"{found.name} does not serve the {api} API that the {shape} shape sends back")
    t0 = time.perf_counter()
    client = client_for(url, timeout=timeout)
    model = found.model(client)
    replay = replay_request(found.name, api, dict(case.request), list(case.ids or ()), model=model)
    stream_calls = sum(1 for m in scan(list(replay.ids), role="assistant").messages if m.kind == "tool_call")
    if replay.tools_withheld and stream_calls:
        return _not_served(case, found.name, version, f"{found.name}'s replay cannot return the call its answer makes ({'; '.join(replay.notes)})")
    request = dict(replay.request)
    if shape == "previous-response-id":
        request["store"] = True
    ex = send(client, api, request)
    server_t = ex.elapsed
    notes = tuple(replay.notes)
    if ex.error is not None and shape == "previous-response-id":
        return _not_served(case, found.name, version, f"{found.name} did not store the answer (store: true): {ex.error.splitlines()[0]}")
    if ex.error is not None or not isinstance(ex.final, Mapping):
        from harmony_viz.servers.core import request_rejected

        line = (ex.error or "no answer").splitlines()[0]
        check = RoundTripCheck(case.id, found.name, f"{found.name} {api}: its answer to the first request", (request_rejected(line),),
                               error=line, shape=shape, notes=notes)
        status, reason, link, kind = status_of(("request-rejected",), known.get((case.id, found.name, ROUNDTRIP_API)))
        return Outcome(case=case, engine=found.name, api=ROUNDTRIP_API, status=status, codes=("request-rejected",), engine_version=version,
                       check=check, reason=reason or f"the first request failed: {line}", link=link, known_kind=kind, server_seconds=server_t)
    followup, answer, answered_calls = second_request(case, ex.final)
    if answered_calls < stream_calls:
        notes += (f"the engine's answer carries {answered_calls} of the stream's {stream_calls} call(s)",)
    try:
        got = server_prompt(url, followup, engine=found.name, kind=api, model=model)
    except PromptUnavailable as exc:
        return _not_served(case, found.name, version, str(exc))
    server_t += got.seconds
    if got.ids is None and shape == "previous-response-id" and "previous_response_id" in (got.error or ""):
        # a stateless render endpoint (vLLM's) cannot show the prompt of a stored conversation
        return _not_served(case, found.name, version, f"{found.name} cannot show the prompt of a previous_response_id request: {got.error}")
    if got.ids is None:
        from harmony_viz.servers.core import request_rejected

        diffs: tuple[Any, ...] = (request_rejected(got.error or ""),)
        check = RoundTripCheck(case.id, found.name, got.source, diffs, error=got.error, seconds=got.seconds, shape=shape, answer=answer,
                               followup=followup, notes=notes)
    else:
        from harmony_viz.templates import compare_renders

        ours = expected_prompt(case, replay.ids, got.ids)
        diffs = compare_renders(ours, got.ids, side="server").differences
        check = RoundTripCheck(case.id, found.name, f"{got.source}, after its own {api} answer sent back as {shape}", diffs, tuple(ours),
                               tuple(got.ids), seconds=got.seconds, shape=shape, answer=answer, followup=followup, notes=notes)
    codes = failing_codes(check.differences)
    status, reason, link, kind = status_of(codes, known.get((case.id, found.name, ROUNDTRIP_API)))
    return Outcome(case=case, engine=found.name, api=ROUNDTRIP_API, status=status, codes=codes, engine_version=version, check=check,
                   reason=reason, link=link, known_kind=kind, seconds=time.perf_counter() - t0 - server_t, server_seconds=server_t)


def roundtrip_outcomes(cases: Sequence[Case], engine: str, url: str | None, known: Mapping[KnownKey, Known], *, timeout: float = 120.0) -> list[Outcome]:
    """Every roundtrip case through one engine, in order; an unreachable server raises ServerError (the runner makes it ``error``)."""
    return [roundtrip_outcome(c, engine, url, known, timeout=timeout) for c in cases]


__all__ = ["CHAT_FIELD", "ROUNDTRIP_API", "RoundTripCheck", "ServerError", "expected_prompt", "roundtrip_outcome", "roundtrip_outcomes",
           "second_request", "shape_api"]
