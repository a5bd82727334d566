"""The JSON of a message's parts (content, tools, channels) in the shape ``openai_harmony`` writes, both ways.

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
    ChannelConfig,
    Content,
    DeveloperContent,
    ReasoningEffort,
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


# ---------------------------------------------------------------- reading

MISSING = object()  # a key that is absent, told apart from one that is null


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


def json_object(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RenderError(path, f"expected an object, got {typename(value)}")
    return value


def optional_str(data: Mapping[str, Any], key: str, path: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise RenderError(f"{path}.{key}", f"expected a string or null, got {typename(value)}")


def _req_str(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key, MISSING)
    if value is MISSING:
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
    data = json_object(data, path)
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
    data = json_object(data, path)
    tools = data.get("tools", MISSING)
    if tools is MISSING:
        raise RenderError(f"{path}.tools", "missing; write [] for a namespace without functions")
    if not isinstance(tools, list):
        raise RenderError(f"{path}.tools", f"expected an array, got {typename(tools)}")
    return ToolNamespaceConfig(
        _req_str(data, "name", path),
        optional_str(data, "description", path),
        tuple(_tool_from_dict(t, f"{path}.tools[{i}]") for i, t in enumerate(tools)),
    )


def _tools_from_dict(data: Mapping[str, Any], path: str) -> dict[str, ToolNamespaceConfig] | None:
    tools = data.get("tools")
    if tools is None:
        return None
    tools = json_object(tools, f"{path}.tools")
    return {key: _namespace_from_dict(ns, f"{path}.tools.{key}") for key, ns in tools.items()}


def _channel_config_from_dict(data: Any, path: str) -> ChannelConfig | None:
    if data is None:
        return None
    data = json_object(data, path)
    channels = data.get("valid_channels", MISSING)
    if not isinstance(channels, list) or not all(isinstance(c, str) for c in channels):
        raise RenderError(f"{path}.valid_channels", "expected an array of channel names")
    required = data.get("channel_required", MISSING)
    if not isinstance(required, bool):
        raise RenderError(f"{path}.channel_required", "expected true or false")
    return ChannelConfig(tuple(channels), required)


def content_from_dict(data: Any, path: str) -> Content:
    """One content part; ``type`` picks text, system_content or developer_content."""
    data = json_object(data, path)
    kind = data.get("type")
    if kind == "text":
        return TextContent(_req_str(data, "text", path))
    if kind == "system_content":
        effort = data.get("reasoning_effort")
        return SystemContent(
            model_identity=optional_str(data, "model_identity", path),
            reasoning_effort=None if effort is None else ReasoningEffort.parse(effort, f"{path}.reasoning_effort"),
            conversation_start_date=optional_str(data, "conversation_start_date", path),
            knowledge_cutoff=optional_str(data, "knowledge_cutoff", path),
            channel_config=_channel_config_from_dict(data.get("channel_config"), f"{path}.channel_config"),
            tools=_tools_from_dict(data, path),
        )
    if kind == "developer_content":
        return DeveloperContent(optional_str(data, "instructions", path), _tools_from_dict(data, path))
    raise RenderError(
        f"{path}.type", f"unknown content type {kind!r}; expected text, system_content or developer_content"
    )


def parse_json_text(payload: str | bytes, what: str = "input") -> Any:
    """``json.loads`` with the error turned into a RenderError naming line and column."""
    try:
        return json.loads(payload)
    except json.JSONDecodeError as exc:
        raise RenderError(what, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise RenderError(what, f"not UTF-8 (byte {exc.start})") from None
