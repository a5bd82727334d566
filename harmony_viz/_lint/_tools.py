"""Declared tools: what a call may be addressed to, and tools read from JSON.

The prompt's own TypeScript declarations are read by ``_typescript.py``; this module holds
the shared ``DeclaredTool`` and the JSON sources (``--tools``, requests, conversation JSON),
whose schemas are exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DeclaredTool", "ToolParseError", "tools_from_json"]


class ToolParseError(ValueError):
    """A tool declaration could not be read."""


@dataclass(frozen=True, slots=True)
class DeclaredTool:
    """One tool the prompt offers: ``recipient`` is what a call must be addressed to.

    ``parameters`` is a JSON Schema (None for a tool without parameters, or for free-form
    builtins like ``python``); ``start``/``end`` locate the declaration in the message
    text it came from (character offsets; -1 when it came from JSON).
    """

    namespace: str | None
    name: str
    description: str = ""
    parameters: Mapping[str, Any] | None = field(default=None, hash=False, compare=True)
    start: int = -1
    end: int = -1

    @property
    def recipient(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name


# ---------------------------------------------------------------------- from JSON


def tools_from_json(data: Any) -> list[DeclaredTool]:
    """Tools from an OpenAI ``tools`` array, a Chat Completions request, or conversation JSON.

    Accepts ``[{"type": "function", "function": {name, description, parameters}}]`` (Chat
    Completions), the flat Responses form ``[{"type": "function", "name": …}]``, a request
    object with a ``tools`` key, and openai-harmony's ``Conversation.to_json()`` shape
    (tools inside the system and developer contents). Raises ToolParseError otherwise.
    """
    if isinstance(data, Mapping):
        if "tools" in data and isinstance(data["tools"], list):
            return _from_openai_array(data["tools"])
        if "messages" in data:
            return list(_from_conversation(data["messages"]))
        raise ToolParseError("expected a tools array, a request with 'tools' or a conversation with 'messages'; got an object with keys " + ", ".join(sorted(map(str, data))))
    if isinstance(data, list):
        return _from_openai_array(data)
    raise ToolParseError(f"expected a JSON array of tools, got {type(data).__name__}")


def _from_openai_array(items: Iterable[Any]) -> list[DeclaredTool]:
    tools = []
    for k, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ToolParseError(f"tools[{k}] is {type(item).__name__}, expected an object like {{\"type\": \"function\", \"function\": {{\"name\": …}}}}")
        spec = item.get("function", item)
        name = spec.get("name") if isinstance(spec, Mapping) else None
        if not isinstance(name, str) or not name:
            raise ToolParseError(f"tools[{k}] has no function name; expected {{\"type\": \"function\", \"function\": {{\"name\": …}}}}")
        params = spec.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            raise ToolParseError(f"tools[{k}] ({name}): 'parameters' must be a JSON Schema object")
        tools.append(DeclaredTool("functions", name, str(spec.get("description") or ""), params))
    return tools


def _from_conversation(messages: Any) -> Iterable[DeclaredTool]:
    if not isinstance(messages, list):
        raise ToolParseError("conversation 'messages' must be a list")
    for message in messages:
        contents = message.get("content") if isinstance(message, Mapping) else None
        for content in contents if isinstance(contents, list) else []:
            namespaces = content.get("tools") if isinstance(content, Mapping) else None
            if not isinstance(namespaces, Mapping):
                continue
            for ns_name, ns in namespaces.items():
                ns_tools = ns.get("tools") if isinstance(ns, Mapping) else None
                if ns_name == "python" and not ns_tools:
                    yield DeclaredTool(None, "python")
                    continue
                for tool in ns_tools or []:
                    yield DeclaredTool(str(ns.get("name") or ns_name), tool["name"], str(tool.get("description") or ""), tool.get("parameters"))
