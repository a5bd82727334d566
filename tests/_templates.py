"""Shared by the template-lens tests: the real gpt-oss chat template and request builders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
