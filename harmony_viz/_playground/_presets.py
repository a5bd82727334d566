"""Starting points for the playground: hand-written conversations, and real malformed streams from the sample."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from harmony_viz.render import Author, Conversation, DeveloperContent, Message, Role, SystemContent, ToolDescription

_DATE = "2025-08-05"


@dataclass(frozen=True, slots=True)
class Preset:
    """A named starting point: a conversation to edit, or a stream to keep exactly as it is."""

    name: str
    title: str
    description: str
    _load: Callable[[], Conversation | list[int]]

    def load(self) -> Conversation | list[int]:
        """The conversation (hand-written presets) or the token ids (sample streams)."""
        return self._load()

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "description": self.description}


def _system(effort: str = "medium", *, builtins: bool = False) -> Message:
    content = SystemContent(conversation_start_date=_DATE).with_reasoning_effort(effort)
    if builtins:
        content = content.with_browser_tool().with_python_tool()
    return Message.from_role_and_content("system", content)


def _assistant(channel: str, text: str, *, recipient: str | None = None, content_type: str | None = None) -> Message:
    return Message(Author(Role.ASSISTANT), (), channel, recipient, content_type).adding_content(text)


def _tool(name: str, text: str, channel: str = "commentary") -> Message:
    return Message(Author(Role.TOOL, name), (), channel, "assistant").adding_content(text)


def plain_chat() -> Conversation:
    return Conversation.from_messages([
        _system("low"),
        Message.from_role_and_content("user", "What is the capital of France?"),
        _assistant("final", "The capital of France is Paris."),
    ])


def reasoning() -> Conversation:
    return Conversation.from_messages([
        _system("high"),
        Message.from_role_and_content("developer", DeveloperContent().with_instructions("Answer in one sentence.")),
        Message.from_role_and_content("user", "Is 1001 a prime number?"),
        _assistant("analysis", "1001 = 7 × 11 × 13, so it has divisors other than 1 and itself."),
        _assistant("final", "No: 1001 = 7 × 11 × 13."),
    ])


WEATHER = ToolDescription(
    "get_weather",
    "Gets the current weather in the provided location.",
    {"type": "object", "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                                      "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
     "required": ["location"]},
)


def tool_call() -> Conversation:
    return Conversation.from_messages([
        _system(),
        Message.from_role_and_content("developer", DeveloperContent().with_instructions("Use the tools when they help.").with_function_tools([WEATHER])),
        Message.from_role_and_content("user", "What is the weather in Tokyo?"),
        _assistant("analysis", "The user wants the weather in Tokyo; call get_weather."),
        _assistant("commentary", "Let me look up the current weather in Tokyo."),
        _assistant("commentary", json.dumps({"location": "Tokyo, Japan", "unit": "celsius"}), recipient="functions.get_weather", content_type="<|constrain|>json"),
        _tool("functions.get_weather", json.dumps({"temperature": 21, "sky": "clear"})),
        _assistant("final", "It is 21 °C and clear in Tokyo."),
    ])


def builtin_tools() -> Conversation:
    return Conversation.from_messages([
        _system(builtins=True),
        Message.from_role_and_content("user", "How many days are there between 2024-01-01 and 2024-03-01? Then find today's top story."),
        _assistant("analysis", "Compute it with python."),
        _assistant("analysis", "from datetime import date\nprint((date(2024, 3, 1) - date(2024, 1, 1)).days)", recipient="python", content_type="code"),
        _tool("python", "60", channel="analysis"),
        _assistant("analysis", json.dumps({"query": "top news today"}), recipient="browser.search", content_type="code"),
        _tool("browser.search", "【0†Example headline†example.com】", channel="analysis"),
        _assistant("final", "There are 60 days; today's top story is “Example headline” 【0†L1】."),
    ])


def structured_output() -> Conversation:
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
              "required": ["city", "population"]}
    instructions = ("Reply with JSON only.\n\n# Response Formats\n\n## city_info\n\n"
                    f"// Facts about a city\n{json.dumps(schema, separators=(',', ':'))}")
    return Conversation.from_messages([
        _system(),
        Message.from_role_and_content("developer", DeveloperContent().with_instructions(instructions)),
        Message.from_role_and_content("user", "Tell me about Lyon."),
        _assistant("analysis", "Lyon has about 520,000 inhabitants."),
        _assistant("final", json.dumps({"city": "Lyon", "population": 522250}), content_type="<|constrain|>json"),
    ])


@cache
def _sample_tokens(file: str, index: int) -> tuple[int, ...]:
    from harmony_viz.data import sample_path
    from harmony_viz.inputs import read

    return read(sample_path(file)).stream(index).ids


def _sample(file: str, index: int) -> Callable[[], list[int]]:
    return lambda: list(_sample_tokens(file, index))


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("plain-chat", "Plain chat", "system, user, and a final answer", plain_chat),
    Preset("reasoning", "Reasoning", "analysis (chain of thought) before the final answer, high effort", reasoning),
    Preset("tool-call", "Tool call with preamble", "a function tool declared by the developer, a preamble, "
           "a call with <|constrain|>json, its result and the answer", tool_call),
    Preset("builtin-tools", "Built-in python and browser", "calls to the python and browser.search builtins on analysis", builtin_tools),
    Preset("structured-output", "Structured output", "a JSON answer on final with <|constrain|>json", structured_output),
    Preset("sample-missing-message", "Sample: header without <|message|>", "real gpt-oss run cyberthreat-24: a header "
           "that never reaches <|message|>, and messages with no channel", _sample("finding5_runs/cyberthreat-24.json", 0)),
    Preset("sample-bad-channel", "Sample: bad channel", "real run findings-tournament#19: a malformed channel and a "
           "missing <|message|>", _sample("findings-tournament.json", 19)),
    Preset("sample-call-ended-by-end", "Sample: call ended by <|end|>", "real run findings-tournament#13: a tool call "
           "closed with <|end|> instead of <|call|>", _sample("findings-tournament.json", 13)),
)}


def preset(name: str) -> Preset:
    """The preset called ``name``; unknown names raise KeyError listing the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"no preset {name!r}; known presets: {', '.join(PRESETS)}") from None
