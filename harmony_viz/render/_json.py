"""Conversation JSON in the shape ``openai_harmony.Conversation.to_json()`` writes, both ways.

Writing follows the reference's Python wrapper key for key (``name`` always present, optional
header fields only when set, ``None`` fields of system/developer content left out). Reading
accepts that, plus what the Rust side writes (a single text content as a plain string).
Every problem raises RenderError naming the JSON path.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from harmony_viz.render._errors import RenderError
from harmony_viz.render._model import (
    Author,
    ChannelConfig,
    Content,
    Conversation,
    DeveloperContent,
    Message,
    ReasoningEffort,
    Role,
    SystemContent,
    TextContent,
    ToolDescription,
    ToolNamespaceConfig,
)

# ---------------------------------------------------------------- writing


def _tool_to_dict(tool: ToolDescription) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if tool.parameters is not None:
        out["parameters"] = tool.parameters
    return out


def _namespace_to_dict(ns: ToolNamespaceConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ns.name}
    if ns.description is not None:
        out["description"] = ns.description
    out["tools"] = [_tool_to_dict(t) for t in ns.tools]
    return out


def _tools_to_dict(tools: Mapping[str, ToolNamespaceConfig]) -> dict[str, Any]:
    return {key: _namespace_to_dict(ns) for key, ns in tools.items()}


def content_to_dict(content: Content) -> dict[str, Any]:
    """One content part as the reference writes it (``type`` last for system/developer)."""
    if isinstance(content, TextContent):
        return {"type": "text", "text": content.text}
    out: dict[str, Any] = {}
    if isinstance(content, SystemContent):
        # Field order is the reference pydantic model's declaration order.
        if content.model_identity is not None:
            out["model_identity"] = content.model_identity
        if content.reasoning_effort is not None:
            out["reasoning_effort"] = content.reasoning_effort.value
        if content.conversation_start_date is not None:
            out["conversation_start_date"] = content.conversation_start_date
        if content.knowledge_cutoff is not None:
            out["knowledge_cutoff"] = content.knowledge_cutoff
        if content.channel_config is not None:
            out["channel_config"] = {
                "valid_channels": list(content.channel_config.valid_channels),
                "channel_required": content.channel_config.channel_required,
            }
        if content.tools is not None:
            out["tools"] = _tools_to_dict(content.tools)
        out["type"] = "system_content"
        return out
    if isinstance(content, DeveloperContent):
        if content.instructions is not None:
            out["instructions"] = content.instructions
        if content.tools is not None:
            out["tools"] = _tools_to_dict(content.tools)
        out["type"] = "developer_content"
        return out
    raise RenderError("content", f"not a content part: {content!r}")


def message_to_dict(msg: Message) -> dict[str, Any]:
    """A message as ``openai_harmony.Message.to_dict()`` writes it."""
    out: dict[str, Any] = {
        "role": msg.author.role.value,
        "name": msg.author.name,
        "content": [content_to_dict(c) for c in msg.content],
    }
    if msg.channel is not None:
        out["channel"] = msg.channel
    if msg.recipient is not None:
        out["recipient"] = msg.recipient
    if msg.content_type is not None:
        out["content_type"] = msg.content_type
    return out


# ---------------------------------------------------------------- reading

_MISSING = object()


def typename(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _obj(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RenderError(path, f"expected an object, got {typename(value)}")
    return value


def _opt_str(data: Mapping[str, Any], key: str, path: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise RenderError(f"{path}.{key}", f"expected a string or null, got {typename(value)}")


def _req_str(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key, _MISSING)
    if value is _MISSING:
        raise RenderError(f"{path}.{key}", "missing; it is required")
    if not isinstance(value, str):
        raise RenderError(f"{path}.{key}", f"expected a string, got {typename(value)}")
    return value


def check_json_value(value: Any, path: str) -> None:
    """Reject what JSON (and so the reference) cannot carry: NaN, infinities, non-string keys."""
    if isinstance(value, float) and not math.isfinite(value):
        raise RenderError(path, f"{value!r} is not a JSON number; use a finite number or a string")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise RenderError(path, f"object key {k!r} is not a string")
            check_json_value(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_json_value(v, f"{path}[{i}]")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        raise RenderError(path, f"{type(value).__name__} is not a JSON value")


def _tool_from_dict(data: Any, path: str) -> ToolDescription:
    data = _obj(data, path)
    params = data.get("parameters")
    if params is not None:
        if not isinstance(params, Mapping):
            raise RenderError(
                f"{path}.parameters",
                f"expected a JSON Schema object or null, got {typename(params)}; "
                'a tool without arguments leaves it out, otherwise write {"type": "object", ...}',
            )
        check_json_value(params, f"{path}.parameters")
        params = dict(params)
    return ToolDescription(_req_str(data, "name", path), _req_str(data, "description", path), params)


def _namespace_from_dict(data: Any, path: str) -> ToolNamespaceConfig:
    data = _obj(data, path)
    tools = data.get("tools", _MISSING)
    if tools is _MISSING:
        raise RenderError(f"{path}.tools", "missing; write [] for a namespace without functions")
    if not isinstance(tools, list):
        raise RenderError(f"{path}.tools", f"expected an array, got {typename(tools)}")
    return ToolNamespaceConfig(
        _req_str(data, "name", path),
        _opt_str(data, "description", path),
        tuple(_tool_from_dict(t, f"{path}.tools[{i}]") for i, t in enumerate(tools)),
    )


def _tools_from_dict(data: Mapping[str, Any], path: str) -> dict[str, ToolNamespaceConfig] | None:
    tools = data.get("tools")
    if tools is None:
        return None
    tools = _obj(tools, f"{path}.tools")
    return {key: _namespace_from_dict(ns, f"{path}.tools.{key}") for key, ns in tools.items()}


def _channel_config_from_dict(data: Any, path: str) -> ChannelConfig | None:
    if data is None:
        return None
    data = _obj(data, path)
    channels = data.get("valid_channels", _MISSING)
    if not isinstance(channels, list) or not all(isinstance(c, str) for c in channels):
        raise RenderError(f"{path}.valid_channels", "expected an array of channel names")
    required = data.get("channel_required", _MISSING)
    if not isinstance(required, bool):
        raise RenderError(f"{path}.channel_required", "expected true or false")
    return ChannelConfig(tuple(channels), required)


def content_from_dict(data: Any, path: str) -> Content:
    """One content part; ``type`` picks text, system_content or developer_content."""
    data = _obj(data, path)
    kind = data.get("type")
    if kind == "text":
        return TextContent(_req_str(data, "text", path))
    if kind == "system_content":
        effort = data.get("reasoning_effort")
        return SystemContent(
            model_identity=_opt_str(data, "model_identity", path),
            reasoning_effort=None if effort is None else ReasoningEffort.parse(effort, f"{path}.reasoning_effort"),
            conversation_start_date=_opt_str(data, "conversation_start_date", path),
            knowledge_cutoff=_opt_str(data, "knowledge_cutoff", path),
            channel_config=_channel_config_from_dict(data.get("channel_config"), f"{path}.channel_config"),
            tools=_tools_from_dict(data, path),
        )
    if kind == "developer_content":
        return DeveloperContent(_opt_str(data, "instructions", path), _tools_from_dict(data, path))
    raise RenderError(
        f"{path}.type", f"unknown content type {kind!r}; expected text, system_content or developer_content"
    )


def message_from_dict(data: Any, path: str) -> Message:
    """One message; a plain-string ``content`` is a single text part."""
    data = _obj(data, path)
    if "role" not in data and isinstance(data.get("author"), Mapping):
        # pydantic's model_dump() nests the author; to_dict() flattens it.
        data = {**data, **data["author"]}
    if "role" not in data:
        raise RenderError(f"{path}.role", "missing; expected one of user, assistant, system, developer, tool")
    role = data["role"]
    if not isinstance(role, str):
        raise RenderError(f"{path}.role", f"expected a string, got {typename(role)}")
    author = Author(Role.parse(role, f"{path}.role"), _opt_str(data, "name", path))
    raw = data.get("content", _MISSING)
    if raw is _MISSING:
        raise RenderError(f"{path}.content", "missing; write a string or an array of content parts")
    if isinstance(raw, str):
        content: tuple[Content, ...] = (TextContent(raw),)
    elif isinstance(raw, list):
        content = tuple(content_from_dict(c, f"{path}.content[{i}]") for i, c in enumerate(raw))
    else:
        raise RenderError(f"{path}.content", f"expected a string or an array, got {typename(raw)}")
    return Message(
        author,
        content,
        channel=_opt_str(data, "channel", path),
        recipient=_opt_str(data, "recipient", path),
        content_type=_opt_str(data, "content_type", path),
    )


def conversation_from_dict(data: Any) -> Conversation:
    data = _obj(data, "conversation")
    messages = data.get("messages", _MISSING)
    if messages is _MISSING:
        raise RenderError("messages", 'missing; a conversation is {"messages": [...]}')
    if not isinstance(messages, list):
        raise RenderError("messages", f"expected an array, got {typename(messages)}")
    return Conversation(tuple(message_from_dict(m, f"messages[{i}]") for i, m in enumerate(messages)))


def parse_json_text(payload: str | bytes, what: str = "input") -> Any:
    """``json.loads`` with the error turned into a RenderError naming line and column."""
    try:
        return json.loads(payload)
    except json.JSONDecodeError as exc:
        raise RenderError(what, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise RenderError(what, f"not UTF-8 (byte {exc.start})") from None


def conversation_from_json(payload: str | bytes | Mapping[str, Any]) -> Conversation:
    data = payload if isinstance(payload, Mapping) else parse_json_text(payload)
    return conversation_from_dict(data)
