"""Shared by the template-lens tests: the real gpt-oss chat template and request builders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_PATH = ROOT.parent / "shared" / "templates" / "gpt-oss.jinja"
DATE = "2025-08-05"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]},
    },
}


def real_template() -> Any:
    """The template that ships with gpt-oss, read from ../shared (never from the package)."""
    from harmony_viz.templates import load_template

    if not TEMPLATE_PATH.is_file():
        pytest.fail(f"{TEMPLATE_PATH} is missing: the template-lens tests render through the real gpt-oss template in ../shared/templates")
    return load_template(TEMPLATE_PATH)


def call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def request(*messages: dict[str, Any], tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": list(messages), **extra}
    if tools is not None:
        out["tools"] = tools
    return out


# Plain text with the separators templates trip on (newlines, quotes, backslashes, non-ASCII).
text = st.text(alphabet=st.sampled_from(list("ab Z09\n\"\\{}:,é日")), min_size=1, max_size=12).filter(lambda s: s.strip())
arguments = st.one_of(
    st.dictionaries(st.sampled_from(["city", "days", "q"]), st.one_of(text, st.integers(-5, 99)), max_size=2),
    st.dictionaries(st.sampled_from(["city", "q"]), text, max_size=2).map(lambda d: json.dumps(d, ensure_ascii=False)),
)


@st.composite
def conversations(draw):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": draw(st.sampled_from(["system", "developer"])), "content": draw(text)})
    n_call = 0
    for _turn in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(text)})
        for _step in range(draw(st.integers(0, 2))):
            msg = {"role": "assistant"}
            # the template refuses content and thinking together beside tool calls
            lead = draw(st.sampled_from(["none", "content", "thinking"]))
            if lead != "none":
                msg[lead] = draw(text)
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                n_call += 1
                calls.append({"id": f"c{n_call}", "type": "function",
                              "function": {"name": draw(st.sampled_from(["get_weather", "lookup"])), "arguments": draw(arguments)}})
            msg["tool_calls"] = calls
            messages.append(msg)
            for c in calls:
                result = draw(st.one_of(text, st.dictionaries(st.sampled_from(["ok", "v"]), st.integers(0, 9), max_size=2)))
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": result})
        if draw(st.booleans()) or _turn == 0:
            final = {"role": "assistant", "content": draw(text)}
            if draw(st.booleans()):
                final[draw(st.sampled_from(["thinking", "reasoning_content"]))] = draw(text)
            messages.append(final)
    request = {"messages": messages}
    if draw(st.booleans()):
        request["tools"] = [WEATHER]
    if draw(st.booleans()):
        request["reasoning_effort"] = draw(st.sampled_from(["low", "medium", "high"]))
    return request
