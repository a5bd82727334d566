"""The playground: edit a conversation or a raw Harmony stream, and watch tokens, parse and diagnostics follow.

>>> from harmony_viz.playground import PRESETS, render_diff
>>> list(PRESETS)[:3]
['plain-chat', 'reasoning', 'tool-call']
>>> d = render_diff(PRESETS["tool-call"].load())
>>> [op.tag for op in d.ops if op.tag != "equal"]
['insert', 'delete']
"""

from __future__ import annotations

import sys
import types
from typing import Any

from harmony_viz.playground._diff import DiffOp, RenderDiff, render_diff, render_model_layout
from harmony_viz.playground._presets import PRESETS, Preset

__all__ = ["PRESETS", "DiffOp", "PlaygroundWidget", "Preset", "RenderDiff", "playground", "render_diff", "render_model_layout"]


def __getattr__(name: str) -> Any:
    # The widget pulls in anywidget and ipywidgets: load it only when asked for.
    if name in ("PlaygroundWidget", "playground"):
        from harmony_viz.playground import _widget

        return getattr(_widget, name)
    raise AttributeError(f"module 'harmony_viz.playground' has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    """``harmony_viz.playground`` is both this package and the function exported under that name.

    Importing the package makes ``harmony_viz.playground`` the module, replacing the lazily
    exported function; a callable module keeps ``harmony_viz.playground(...)`` working either way.
    """

    def __call__(self, conversation_or_text: Any = None, **kwargs: Any) -> Any:
        from harmony_viz.playground._widget import playground

        return playground(conversation_or_text, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
