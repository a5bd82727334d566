"""The playground: edit a conversation or a raw Harmony stream, and watch tokens, parse and diagnostics follow.

>>> from harmony_viz._playground import PRESETS, render_diff
>>> list(PRESETS)[:3]
['plain-chat', 'reasoning', 'tool-call']
>>> d = render_diff(PRESETS["tool-call"].load())
>>> [op.tag for op in d.ops if op.tag != "equal"]
['insert', 'delete']
"""

from __future__ import annotations

from typing import Any

from harmony_viz._playground._diff import DiffOp, RenderDiff, render_diff, render_model_layout
from harmony_viz._playground._presets import PRESETS, Preset

__all__ = ["PRESETS", "DiffOp", "PlaygroundWidget", "Preset", "RenderDiff", "playground", "render_diff", "render_model_layout"]


def __getattr__(name: str) -> Any:
    # The widget pulls in anywidget and ipywidgets: load it only when asked for.
    if name in ("PlaygroundWidget", "playground"):
        from harmony_viz._playground import _widget

        return getattr(_widget, name)
    raise AttributeError(f"module 'harmony_viz._playground' has no attribute {name!r}")
