"""An OpenAI Chat Completions request → a Harmony conversation, mapped as gpt-oss servers do.

The mapping (vLLM's and the gpt-oss chat template's, made strict so nothing is dropped):

=========================================  ===============================================
request                                    Harmony
=========================================  ===============================================
(always)                                   system message: default identity, cutoff
                                           2024-06, ``reasoning_effort`` (default medium),
                                           the three channels
leading ``system`` / ``developer`` text    developer ``# Instructions`` (joined by a blank
                                           line), with ``tools`` as ``namespace functions``
a later ``system`` / ``developer``         a developer message with that text
``user``                                   user message
assistant ``reasoning_content``/           assistant ``analysis`` message
``reasoning``/``thinking``
assistant ``content`` without tool calls   assistant ``final`` message
assistant ``content`` with tool calls      assistant ``commentary`` message (a preamble)
each ``tool_calls[i]``                     assistant ``commentary`` to ``functions.NAME``,
                                           content type ``<|constrain|>json``, arguments
``role: tool``                             tool ``functions.NAME`` (found through
                                           ``tool_call_id``), to ``assistant``, commentary
``response_format`` ``json_schema``        developer ``# Response Formats`` / ``## NAME``,
                                           ``// description``, the schema as compact JSON
                                           (the Harmony guide's section, after the
                                           instructions)
=========================================  ===============================================

Content may be a string or a list of ``{"type": "text", "text": …}`` parts; other parts
(images, audio) raise RenderError, as do unknown roles and tool results whose call is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harmony_viz.render._conversation import Conversation, Message
from harmony_viz.render._errors import RenderError
from harmony_viz.render._json import check_json_value, typename
from harmony_viz.render._model import Author, DeveloperContent, ReasoningEffort, Role, SystemContent, ToolDescription

__all__ = ["conversation_from_chat"]

_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
_REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")


def _text(content: Any, path: str) -> str:
    """Chat content (string, null, or text parts) as one string."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for i, part in enumerate(content):
            if isinstance(part, str):
                texts.append(part)
                continue
            if not isinstance(part, Mapping) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                kind = part.get("type") if isinstance(part, Mapping) else typename(part)
                raise RenderError(
                    f"{path}[{i}]", f"only text parts can be rendered, got {kind!r}; Harmony has no image or audio input"
                )
            texts.append(part["text"])
        return "".join(texts)
    raise RenderError(path, f"expected a string, null or an array of text parts, got {typename(content)}")


def _function_tools(tools: Any) -> list[ToolDescription]:
    if not isinstance(tools, list):
        raise RenderError("tools", f"expected an array, got {typename(tools)}")
    out = []
    for i, tool in enumerate(tools):
        path = f"tools[{i}]"
        if not isinstance(tool, Mapping):
            raise RenderError(path, f"expected an object, got {typename(tool)}")
        if tool.get("type", "function") != "function":
            raise RenderError(f"{path}.type", f"only function tools can be declared, got {tool.get('type')!r}")
        fn = tool.get("function")
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise RenderError(f"{path}.function.name", "missing; a function tool needs a name")
        desc = fn.get("description") or ""
        if not isinstance(desc, str):
            raise RenderError(f"{path}.function.description", f"expected a string, got {typename(desc)}")
        params = fn.get("parameters")
        if params is not None:
            if not isinstance(params, Mapping):
                raise RenderError(f"{path}.function.parameters", f"expected a JSON Schema object, got {typename(params)}")
            check_json_value(params, f"{path}.function.parameters")
            params = dict(params)
        out.append(ToolDescription(fn["name"], desc, params))
    return out


def _call_names(messages: list[Any]) -> dict[str, str]:
    names: dict[str, str] = {}
    for i, m in enumerate(messages):
        calls = m.get("tool_calls") if isinstance(m, Mapping) else None
        for j, call in enumerate(calls or []):
            path = f"messages[{i}].tool_calls[{j}]"
            fn = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise RenderError(f"{path}.function.name", "missing; a tool call needs the function's name")
            if isinstance(call.get("id"), str):
                names[call["id"]] = fn["name"]
    return names


def _assistant(m: Mapping[str, Any], path: str) -> list[Message]:
    out = []
    # vLLM's name first, then the older one, then Hugging Face's (what gpt-oss templates read).
    key = next((k for k in _REASONING_KEYS if m.get(k) is not None), _REASONING_KEYS[0])
    reasoning = m.get(key)
    if reasoning:
        if not isinstance(reasoning, str):
            raise RenderError(f"{path}.{key}", f"expected a string, got {typename(reasoning)}")
        out.append(Message.from_role_and_content(Role.ASSISTANT, reasoning).with_channel("analysis"))
    text = _text(m.get("content"), f"{path}.content")
    calls = m.get("tool_calls") or []
    if calls:
        if text:
            out.append(Message.from_role_and_content(Role.ASSISTANT, text).with_channel("commentary"))
        for j, call in enumerate(calls):
            fn = call["function"]
            args = fn.get("arguments", "")
            if args is None:
                args = ""
            if not isinstance(args, str):
                # Some clients send parsed arguments; the model saw JSON text.
                args = json.dumps(args, ensure_ascii=False)
            msg = Message.from_role_and_content(Role.ASSISTANT, args)
            out.append(
                msg.with_channel("commentary").with_recipient(f"functions.{fn['name']}").with_content_type("<|constrain|>json")
            )
    elif text or not out:
        out.append(Message.from_role_and_content(Role.ASSISTANT, text).with_channel("final"))
    return out


def _response_format(value: Any) -> str | None:
    """The developer message's ``# Response Formats`` section for a ``json_schema`` response format (None for text or json_object)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RenderError("response_format", f"expected an object, got {typename(value)}")
    if value.get("type") != "json_schema":
        return None
    spec = value.get("json_schema")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str) or not isinstance(spec.get("schema"), Mapping):
        raise RenderError("response_format.json_schema", "expected {name, schema, description?}; a json_schema response format needs a name and a schema")
    check_json_value(spec["schema"], "response_format.json_schema.schema")
    desc = spec.get("description")
    lines = ["# Response Formats", "", f"## {spec['name']}", ""]
    if isinstance(desc, str) and desc:
        lines.append("// " + desc.replace("\n", "\n// "))
    lines.append(json.dumps(spec["schema"], ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines)


def conversation_from_chat(
    request: Mapping[str, Any], *, conversation_start_date: str | None = None
) -> Conversation:
    """The Harmony conversation a gpt-oss server builds from a Chat Completions ``request``.

    ``conversation_start_date`` (e.g. ``"2025-08-05"``) adds "Current date:" to the system
    message; servers use today's date, left out here so output is reproducible.
    """
    if not isinstance(request, Mapping):
        raise RenderError("request", f"expected a JSON object, got {typename(request)}")
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise RenderError("messages", "missing or not an array; a Chat Completions request has messages: [...]")
    effort = request.get("reasoning_effort")
    system = SystemContent()
    if effort is not None:
        system = system.with_reasoning_effort(ReasoningEffort.parse(effort, "reasoning_effort"))
    if conversation_start_date is not None:
        system = system.with_conversation_start_date(conversation_start_date)
    tools = _function_tools(request["tools"]) if request.get("tools") is not None else []
    names = _call_names(messages)

    instructions: list[str] = []
    body: list[Message] = []
    for i, m in enumerate(messages):
        path = f"messages[{i}]"
        if not isinstance(m, Mapping):
            raise RenderError(path, f"expected an object, got {typename(m)}")
        role = m.get("role")
        if role not in _CHAT_ROLES:
            raise RenderError(f"{path}.role", f"unknown role {role!r}; expected one of {', '.join(_CHAT_ROLES)}")
        if role in ("system", "developer"):
            text = _text(m.get("content"), f"{path}.content")
            if not body:
                instructions.append(text)
            else:
                body.append(Message.from_role_and_content(Role.DEVELOPER, DeveloperContent(instructions=text)))
        elif role == "user":
            body.append(Message.from_role_and_content(Role.USER, _text(m.get("content"), f"{path}.content")))
        elif role == "assistant":
            body.extend(_assistant(m, path))
        else:
            call_id = m.get("tool_call_id")
            name = names.get(call_id) if isinstance(call_id, str) else None
            if name is None:
                name = m.get("name") if isinstance(m.get("name"), str) else None
            if name is None:
                raise RenderError(
                    f"{path}.tool_call_id",
                    f"no assistant tool call has id {call_id!r}; a tool result must answer an earlier tool_calls entry",
                )
            author = Author(Role.TOOL, f"functions.{name}")
            text = _text(m.get("content"), f"{path}.content")
            body.append(Message.from_author_and_content(author, text).with_channel("commentary").with_recipient("assistant"))

    formats = _response_format(request.get("response_format"))
    if formats is not None:
        # openai-harmony's DeveloperContent has no field for it: the section goes in the instructions' text.
        instructions.append(formats)
    head = [Message.from_role_and_content(Role.SYSTEM, system)]
    if instructions or tools:
        dev = DeveloperContent(instructions="\n\n".join(instructions) if instructions else None)
        if tools:
            dev = dev.with_function_tools(tools)
        head.append(Message.from_role_and_content(Role.DEVELOPER, dev))
    return Conversation((*head, *body))
