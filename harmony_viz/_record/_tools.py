"""Tools the recorder can run when the model calls them, and the two demo tools.

A tool is a Python callable plus the description the model sees in the developer
message. The registry turns a call (name + parsed JSON arguments) into a ``ToolResult``;
a tool that raises, or a call with bad arguments, becomes a result carrying ``error`` so
the run goes on and the model sees what went wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from harmony_viz._record._calc import evaluate


@dataclass(frozen=True, slots=True)
class Tool:
    """A function the model may call: name, description, JSON Schema of its arguments, callable.

    The callable receives the arguments as keyword arguments and returns anything JSON
    serialisable (a ``str`` is sent as is).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    fn: Callable[..., Any] = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"tool name {self.name!r} must be an identifier (letters, digits, _), e.g. 'get_weather'")
        if not callable(self.fn):
            raise TypeError(f"tool {self.name!r}: fn must be callable, got {type(self.fn).__name__}")

    def to_json(self) -> dict[str, Any]:
        """The tool as a function description (name, description, parameters)."""
        return {"name": self.name, "description": self.description, "parameters": dict(self.parameters)}


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool call produced: ``content`` goes back to the model; ``error`` is set when it failed."""

    name: str
    content: str
    error: str | None = None


class ToolRegistry:
    """Tools by name; ``call`` runs one and never raises."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        """Add ``tool``; a second tool with the same name is refused."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Run tool ``name`` with ``arguments`` (a dict, or None for no arguments)."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self.names()) or "none"
            return failure(name, f"unknown tool {name!r}; known tools: {known}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return failure(name, f"arguments must be a JSON object, got {json.dumps(arguments)[:80]}")
        try:
            value = tool.fn(**arguments)
        except Exception as exc:  # any failure of user code becomes a tool-result error
            return failure(name, f"{type(exc).__name__}: {exc}")
        if isinstance(value, str):
            return ToolResult(name, value)
        try:
            return ToolResult(name, json.dumps(value, ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            return failure(name, f"result is not JSON serialisable ({exc})")


def failure(name: str, error: str) -> ToolResult:
    """A result reporting ``error`` to the model as ``{"error": …}``."""
    return ToolResult(name, json.dumps({"error": error}, ensure_ascii=False), error)


# Fixed data so recordings are reproducible; the model cannot tell it is canned.
_WEATHER: dict[str, dict[str, Any]] = {
    "berlin": {"city": "Berlin", "temperature_c": 7, "conditions": "overcast", "humidity": 81},
    "london": {"city": "London", "temperature_c": 9, "conditions": "light rain", "humidity": 88},
    "new york": {"city": "New York", "temperature_c": 4, "conditions": "clear", "humidity": 55},
    "paris": {"city": "Paris", "temperature_c": 8, "conditions": "cloudy", "humidity": 76},
    "san francisco": {"city": "San Francisco", "temperature_c": 14, "conditions": "fog", "humidity": 90},
    "sydney": {"city": "Sydney", "temperature_c": 24, "conditions": "sunny", "humidity": 60},
    "tokyo": {"city": "Tokyo", "temperature_c": 11, "conditions": "clear", "humidity": 48},
}


def calculator(expression: str) -> dict[str, Any]:
    """Evaluate arithmetic safely (no ``eval``)."""
    return {"expression": expression, "result": evaluate(expression)}


def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """Current weather for a city, from a fixed table."""
    key = " ".join(str(city).lower().replace(",", " ").split())
    row = _WEATHER.get(key)
    if row is None:
        known = ", ".join(r["city"] for r in _WEATHER.values())
        raise ValueError(f"no weather for {city!r}; known cities: {known}")
    if unit not in ("celsius", "fahrenheit"):
        raise ValueError(f"unit must be 'celsius' or 'fahrenheit', got {unit!r}")
    out = dict(row)
    if unit == "fahrenheit":
        out["temperature_f"] = round(out.pop("temperature_c") * 9 / 5 + 32, 1)
    return out


CALCULATOR = Tool(
    "calculator",
    "Evaluate an arithmetic expression exactly. Supports + - * / // % ** and parentheses.",
    {
        "type": "object",
        "properties": {"expression": {"type": "string", "description": "Arithmetic, e.g. (3 + 4) * 12"}},
        "required": ["expression"],
    },
    calculator,
)

GET_WEATHER = Tool(
    "get_weather",
    "Get the current weather for a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Tokyo"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["city"],
    },
    get_weather,
)


def demo_tools() -> ToolRegistry:
    """A fresh registry with the two demo tools, ``calculator`` and ``get_weather``."""
    return ToolRegistry([CALCULATOR, GET_WEATHER])


# What ``record`` and ``record_server`` take as ``tools``: a tool set's name, a registry or the tools themselves.
ToolsLike = Union[None, str, ToolRegistry, Iterable[Tool]]


def resolve_tools(tools: ToolsLike) -> ToolRegistry:
    """``None``/``"none"`` → no tools, ``"demo"`` → the demo tools, or a registry / iterable of Tools."""
    if tools is None or tools == "none":
        return ToolRegistry()
    if tools == "demo":
        return demo_tools()
    if isinstance(tools, str):
        raise ValueError(f"unknown tool set {tools!r}; expected 'demo' or 'none', or pass Tool objects")
    if isinstance(tools, ToolRegistry):
        return tools
    return ToolRegistry(tools)
