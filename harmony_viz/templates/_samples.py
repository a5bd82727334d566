"""A small, fixed set of Chat Completions requests in the shapes fine-tuning data takes.

Used by the notebook and the shipped template outputs (``harmony_viz/data``): plain chat,
reasoning, one call with string or object arguments, a preamble beside parallel calls, a
pending call, a tool with a default, a system message halfway through.
"""

from __future__ import annotations

import json
from typing import Any

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                                                          "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
                       "required": ["city"]},
    },
}
_CITIES = ("Paris", "Lyon", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth")


def _call(n: int, city: str, *, as_object: bool = False) -> dict[str, Any]:
    args: Any = {"city": city} if as_object else json.dumps({"city": city})
    return {"id": f"call_{n}", "type": "function", "function": {"name": "get_weather", "arguments": args}}


def example_request() -> dict[str, Any]:
    """The notebook's conversation: instructions, a preamble beside two calls, their results, the answer."""
    return {
        "messages": [
            {"role": "system", "content": "You are a concise weather assistant."},
            {"role": "user", "content": "Is it warmer in Paris or in Lyon right now?"},
            {"role": "assistant", "content": "Let me check both cities.", "tool_calls": [_call(1, "Paris"), _call(2, "Lyon")]},
            {"role": "tool", "tool_call_id": "call_1", "content": "Paris: 21 C, clear"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Lyon: 24 C, sunny"},
            {"role": "assistant", "thinking": "Lyon is 24 C, Paris 21 C.", "content": "Lyon is warmer: 24 C against 21 C in Paris."},
        ],
        "tools": [WEATHER],
        "reasoning_effort": "low",
    }


def sample_request(i: int) -> dict[str, Any]:
    """Request ``i``: eight shapes in turn, cities and efforts varying."""
    a, b = _CITIES[i % len(_CITIES)], _CITIES[(3 * i + 1) % len(_CITIES)]
    system = {"role": "system", "content": "You are a concise weather assistant."}
    user = {"role": "user", "content": f"What is the weather in {a}?"}
    kind = i % 8
    tools: list[dict[str, Any]] | None = [WEATHER]
    if kind == 0:
        msgs, tools = [system, user, {"role": "assistant", "content": f"Sunny in {a}."}], None
    elif kind == 1:
        msgs, tools = [user, {"role": "assistant", "reasoning_content": f"Weather in {a}; answer briefly.", "content": f"Sunny in {a}."}], None
    elif kind in (2, 3):  # string arguments, then object arguments
        msgs = [system, user, {"role": "assistant", "tool_calls": [_call(1, a, as_object=kind == 3)]},
                {"role": "tool", "tool_call_id": "call_1", "content": f"{a}: 21 C"}, {"role": "assistant", "content": f"21 C in {a}."}]
    elif kind == 4:
        msgs = [user, {"role": "assistant", "content": "Checking both.", "tool_calls": [_call(1, a), _call(2, b)]},
                {"role": "tool", "tool_call_id": "call_1", "content": "21 C"}, {"role": "tool", "tool_call_id": "call_2", "content": "12 C"},
                {"role": "assistant", "content": f"{a} 21 C, {b} 12 C."}]
    elif kind == 5:  # the prompt of a pending call, preamble included
        msgs = [system, user, {"role": "assistant", "content": f"Looking up {a}.", "tool_calls": [_call(1, a)]}]
    elif kind == 6:  # a finished turn with reasoning, then a new question
        msgs, tools = [user, {"role": "assistant", "thinking": "Easy.", "content": f"Sunny in {a}."},
                       {"role": "user", "content": f"And in {b}?"}, {"role": "assistant", "content": f"Rain in {b}."}], None
    else:  # an instruction halfway through
        msgs, tools = [user, {"role": "assistant", "content": f"Sunny in {a}."}, {"role": "system", "content": "Answer in French from now on."},
                       {"role": "user", "content": f"Et à {b} ?"}, {"role": "assistant", "content": f"Pluie à {b}."}], None
    out: dict[str, Any] = {"messages": msgs, "reasoning_effort": ("low", "medium", "high")[i % 3]}
    if tools:
        out["tools"] = tools
    return out


def sample_requests(n: int = 40) -> list[dict[str, Any]]:
    return [sample_request(i) for i in range(n)]
