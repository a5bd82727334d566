"""The playground: edit a conversation or a raw Harmony stream, and watch tokens, parse and diagnostics follow.

>>> from harmony_viz._playground import PRESETS, render_diff
>>> list(PRESETS)[:3]
['plain-chat', 'reasoning', 'tool-call']
>>> d = render_diff(PRESETS["tool-call"].load())
>>> [op.tag for op in d.ops if op.tag != "equal"]
['insert', 'delete']
"""

from __future__ import annotations

import importlib
from typing import Any

from harmony_viz._playground._convert import conversation_from_scan, parse_ids_text
from harmony_viz._playground._diff import DiffOp, RenderDiff, render_diff, render_model_layout
from harmony_viz._playground._presets import PRESETS, Preset

__all__ = [
    "PRESETS",
    "DiffOp",
    "PlaygroundWidget",
    "Preset",
    "RenderDiff",
    "comparison_json",
    "diff_json",
    "conversation_from_scan",
    "parse_ids_text",
    "playground",
    "render_diff",
    "render_model_layout",
    "template_diff_json",
    "template_page_html",
]


# Loaded only when asked for: the widget pulls in anywidget and ipywidgets, the template
# layout the template lens.
_LAZY = {
    "PlaygroundWidget": "_widget",
    "playground": "_widget",
    "comparison_json": "_template_diff",
    "diff_json": "_template_diff",
    "template_diff_json": "_template_diff",
    "template_page_html": "_template_diff",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        return getattr(importlib.import_module(f"harmony_viz._playground.{module}"), name)
    raise AttributeError(f"module 'harmony_viz._playground' has no attribute {name!r}")
