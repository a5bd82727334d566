"""The parts of a conversation: frozen dataclasses mirroring ``openai_harmony``'s roles, authors, content and tools.

Builders return new objects (``content.with_tools(ns)`` leaves ``content`` alone), unlike
the reference's pydantic models, which change in place. Messages and conversations are in
``_conversation.py``; the parts' JSON in ``_json.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, TypeVar, Union

from harmony_viz.render._builtins import browser_spec, python_spec
from harmony_viz.render._errors import RenderError

DEFAULT_MODEL_IDENTITY = "You are ChatGPT, a large language model trained by OpenAI."
DEFAULT_KNOWLEDGE_CUTOFF = "2024-06"
DEFAULT_CHANNELS = ("analysis", "commentary", "final")


_E = TypeVar("_E", bound=Enum)


def _member(cls: type[_E], value: object, path: str, what: str, expected: str, *, any_case: bool = False) -> _E:
    """The member of ``cls`` whose value ``value`` is (in any case, with ``any_case``); RenderError naming what was expected."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        for member in cls:
            if member.value == value or (any_case and member.value.lower() == value.lower()):
                return member
    raise RenderError(path, f"unknown {what} {value!r}; expected {expected}")


class Role(str, Enum):
    """Who wrote a message; the value is what the header spells."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    DEVELOPER = "developer"
    TOOL = "tool"

    @classmethod
    def parse(cls, value: str | Role, path: str = "role") -> Role:
        """``value`` as a Role; unknown names raise RenderError listing the known ones."""
        return _member(cls, value, path, "role", f"one of {', '.join(r.value for r in cls)}")


class ReasoningEffort(str, Enum):
    """Reasoning effort; the values are how the reference's JSON spells them."""

    LOW = "Low"
    MEDIUM = "Medium"
    HIGH = "High"

    @classmethod
    def parse(cls, value: str | ReasoningEffort, path: str = "reasoning_effort") -> ReasoningEffort:
        """Accepts ``Low``/``low``/``LOW`` and so on; anything else raises RenderError."""
        return _member(cls, value, path, "reasoning effort", "low, medium or high", any_case=True)


@dataclass(frozen=True, slots=True)
class Author:
    """A message author: a role and, optionally, a name (a tool message's name is the tool)."""

    role: Role
    name: str | None = None

    @classmethod
    def new(cls, role: Role | str, name: str) -> Author:
        return cls(Role.parse(role), name)


@dataclass(frozen=True, slots=True)
class TextContent:
    """Plain text content."""

    text: str


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    """The channels the system message lists, and whether every message must name one."""

    valid_channels: tuple[str, ...]
    channel_required: bool

    @classmethod
    def require_channels(cls, channels: Iterable[str]) -> ChannelConfig:
        return cls(tuple(channels), True)


@dataclass(frozen=True, slots=True)
class ToolDescription:
    """One tool: name, description and a JSON Schema for its argument (None: no argument)."""

    name: str
    description: str
    parameters: dict[str, Any] | None = None

    @classmethod
    def new(cls, name: str, description: str, parameters: dict[str, Any] | None = None) -> ToolDescription:
        return cls(name, description, parameters)


@dataclass(frozen=True, slots=True)
class ToolNamespaceConfig:
    """A namespace of tools (``functions``, ``browser``, ``python``)."""

    name: str
    description: str | None
    tools: tuple[ToolDescription, ...] = ()

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> ToolNamespaceConfig:
        """A namespace from the reference's JSON shape (``name``, ``description``, ``tools``), already checked."""
        tools = tuple(ToolDescription(t["name"], t["description"], t.get("parameters")) for t in spec["tools"])
        return cls(spec["name"], spec.get("description"), tools)

    @staticmethod
    def browser() -> ToolNamespaceConfig:
        """The builtin browser namespace, as the reference defines it."""
        return ToolNamespaceConfig.from_spec(browser_spec())

    @staticmethod
    def python() -> ToolNamespaceConfig:
        """The builtin python namespace, as the reference defines it."""
        return ToolNamespaceConfig.from_spec(python_spec())


def _with_namespace(
    tools: Mapping[str, ToolNamespaceConfig] | None, ns: ToolNamespaceConfig
) -> dict[str, ToolNamespaceConfig]:
    out = dict(tools or {})
    out[ns.name] = ns
    return out


@dataclass(frozen=True, slots=True)
class SystemContent:
    """The system message: identity, dates, reasoning effort, builtin tools, channels.

    Defaults are the reference's (ChatGPT identity, cutoff 2024-06, medium effort, the three
    channels required).
    """

    model_identity: str | None = DEFAULT_MODEL_IDENTITY
    reasoning_effort: ReasoningEffort | None = ReasoningEffort.MEDIUM
    conversation_start_date: str | None = None
    knowledge_cutoff: str | None = DEFAULT_KNOWLEDGE_CUTOFF
    channel_config: ChannelConfig | None = field(
        default_factory=lambda: ChannelConfig.require_channels(DEFAULT_CHANNELS)
    )
    tools: dict[str, ToolNamespaceConfig] | None = None

    @classmethod
    def new(cls) -> SystemContent:
        return cls()

    def with_model_identity(self, model_identity: str) -> SystemContent:
        return replace(self, model_identity=model_identity)

    def with_reasoning_effort(self, reasoning_effort: ReasoningEffort | str) -> SystemContent:
        return replace(self, reasoning_effort=ReasoningEffort.parse(reasoning_effort))

    def with_conversation_start_date(self, conversation_start_date: str) -> SystemContent:
        return replace(self, conversation_start_date=conversation_start_date)

    def with_knowledge_cutoff(self, knowledge_cutoff: str) -> SystemContent:
        return replace(self, knowledge_cutoff=knowledge_cutoff)

    def with_channel_config(self, channel_config: ChannelConfig) -> SystemContent:
        return replace(self, channel_config=channel_config)

    def with_required_channels(self, channels: Iterable[str]) -> SystemContent:
        return replace(self, channel_config=ChannelConfig.require_channels(channels))

    def with_tools(self, ns_config: ToolNamespaceConfig) -> SystemContent:
        return replace(self, tools=_with_namespace(self.tools, ns_config))

    def with_browser_tool(self) -> SystemContent:
        return self.with_tools(ToolNamespaceConfig.browser())

    def with_python_tool(self) -> SystemContent:
        return self.with_tools(ToolNamespaceConfig.python())


@dataclass(frozen=True, slots=True)
class DeveloperContent:
    """The developer message: instructions and tool namespaces."""

    instructions: str | None = None
    tools: dict[str, ToolNamespaceConfig] | None = None

    @classmethod
    def new(cls) -> DeveloperContent:
        return cls()

    def with_instructions(self, instructions: str) -> DeveloperContent:
        return replace(self, instructions=instructions)

    def with_tools(self, ns_config: ToolNamespaceConfig) -> DeveloperContent:
        return replace(self, tools=_with_namespace(self.tools, ns_config))

    def with_function_tools(self, tools: Sequence[ToolDescription]) -> DeveloperContent:
        return self.with_tools(ToolNamespaceConfig("functions", None, tuple(tools)))


Content = Union[TextContent, SystemContent, DeveloperContent]
