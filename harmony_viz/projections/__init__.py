"""What a server would return: Chat Completions and Responses views of scanner output.

Two behaviours side by side: a correct server (vLLM after its preamble fix, seed 001) and,
with ``legacy_vllm=True``, vLLM before that fix — preambles hidden as reasoning in the
Responses API and tool-call JSON leaking into Chat Completions ``content``.

What is visible, reasoning or a call is decided by one rule, ``harmony_viz.scanner.visibility``
(read by the scanner into each message's ``kind``): final text and preambles (commentary with
no recipient) are visible; analysis, and any text whose header leaves it in doubt (a doubled
header with an analysis or unknown part, a glued or misspelt or empty channel name, a lone
commentary header addressed ``to=assistant``) is reasoning, never content and never dropped; a
recipient other than ``assistant`` makes a call whatever else is wrong with the header. Every
object validates against the official ``openai`` SDK's types (see :func:`validate`).

Plain functions take the events (or the per-feed steps, for stream forms) of one stream;
:class:`Projector` is the incremental form for "the API view as of step k". Ids are
deterministic: ``call_0``, ``call_1``… by function-call index, items ``rs_0``/``msg_1``/
``fc_2``… by output index, all after an optional ``id_prefix``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from harmony_viz.projections._chat import REASONING_FIELDS, ReasoningField
from harmony_viz.projections._open import BODY, open_parts, parts_key
from harmony_viz.projections._projector import OUTPUTS, Output, Projector
from harmony_viz.projections._sdk import SDKValidationError, sdk_object, validate
from harmony_viz.projections._turn import CallTarget, Turn, classify_recipient, declared_names
from harmony_viz.projections._usage import UnitOrAuto, Usage
from harmony_viz.scanner import Event

__all__ = [
    "BODY",
    "CallTarget",
    "OUTPUTS",
    "Output",
    "Projector",
    "REASONING_FIELDS",
    "ReasoningField",
    "SDKValidationError",
    "Turn",
    "Usage",
    "chat_completion",
    "chat_completion_chunks",
    "classify_recipient",
    "declared_names",
    "open_parts",
    "parts_key",
    "project_for_cli",
    "response",
    "response_events",
    "sdk_object",
    "usage",
    "validate",
]


Tools = Sequence[object] | None


def _run(steps: Iterable[Iterable[Event]], legacy_vllm: bool, model: str, id_prefix: str, unit: UnitOrAuto = "auto", **kw: Any) -> Projector:
    p = Projector(legacy_vllm=legacy_vllm, model=model, id_prefix=id_prefix, unit=unit, **kw)
    for step in steps:
        p.add(step)
    p.finish()
    return p


def chat_completion(
    events: Iterable[Event],
    *,
    legacy_vllm: bool = False,
    model: str = "gpt-oss",
    id_prefix: str = "",
    tools: Tools = None,
    reasoning_field: ReasoningField = "reasoning_content",
) -> dict[str, Any]:
    """The ``chat.completion`` object a server returns for this finished stream.

    ``tools``: the request's tools (Chat Completions or Responses tool objects, or names);
    ``reasoning_field``: ``reasoning_content`` (default), ``reasoning`` (vLLM 0.32) or ``both``.
    """
    return _run([events], legacy_vllm, model, id_prefix, tools=tools, reasoning_field=reasoning_field).chat()


def chat_completion_chunks(
    steps: Iterable[Iterable[Event]],
    *,
    legacy_vllm: bool = False,
    model: str = "gpt-oss",
    id_prefix: str = "",
    tools: Tools = None,
    reasoning_field: ReasoningField = "reasoning_content",
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects a server streams when output arrives in these steps."""
    return _run(steps, legacy_vllm, model, id_prefix, tools=tools, reasoning_field=reasoning_field).chat_chunks


def response(events: Iterable[Event], *, legacy_vllm: bool = False, model: str = "gpt-oss", id_prefix: str = "", tools: Tools = None) -> dict[str, Any]:
    """The Responses API ``response`` object for this finished stream.

    A recipient that is neither ``functions.*`` nor a builtin is a ``function_call`` when
    ``tools`` declares it, else an ``mcp_call``.
    """
    return _run([events], legacy_vllm, model, id_prefix, tools=tools).response()


def response_events(
    steps: Iterable[Iterable[Event]], *, legacy_vllm: bool = False, model: str = "gpt-oss", id_prefix: str = "", tools: Tools = None
) -> list[dict[str, Any]]:
    """The Responses streaming events (``response.created`` … ``response.completed``) for these steps."""
    return _run(steps, legacy_vllm, model, id_prefix, tools=tools).response_events


def usage(events: Iterable[Event], *, legacy_vllm: bool = False, unit: UnitOrAuto = "auto") -> Usage:
    """Output and reasoning token counts of the stream's last assistant turn, with per-kind counts."""
    return _run([events], legacy_vllm, "gpt-oss", "", unit).usage()


def project_for_cli(
    output: str,
    steps: Sequence[Sequence[Event]],
    *,
    legacy_vllm: bool = False,
    tools: Tools = None,
    reasoning_field: ReasoningField = "reasoning_content",
    prompt_tokens: int | None = None,
) -> dict[str, Any] | list[dict[str, Any]]:
    """The view ``output`` (chat, chat-stream, responses, responses-stream) of a parsed stream.

    ``steps`` holds the events of each feed, the last from flush. Non-stream outputs give
    one object, stream outputs a list (one JSON object a line on the command line).
    ``prompt_tokens``: the prompt's length when the input says it (else everything before the turn).
    """
    if output not in OUTPUTS:
        raise ValueError(f"unknown output {output!r}; expected one of {', '.join(OUTPUTS)}")
    projector = _run(steps, legacy_vllm, "gpt-oss", "", tools=tools, reasoning_field=reasoning_field, prompt_tokens=prompt_tokens)
    return projector.current(output)  # type: ignore[arg-type]
