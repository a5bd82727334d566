"""The replay (private package; use ``harmony_viz.replay``, ``harmony_viz.save_html``): a token stream fed through the scanner chunk by chunk, drawn in a notebook or a page.

``replay(source)`` gives the Jupyter widget; ``save_html`` / ``page_html`` write the same view
as one self-contained page. The page path imports no widget machinery (anywidget is loaded
only when the widget is asked for), and the static view a saved notebook shows only when one is drawn.
"""

from __future__ import annotations

import importlib
from typing import Any

from harmony_viz._replay._api_view import ApiViews
from harmony_viz._replay._chips import fate_columns, logprob_columns, logprobs_of
from harmony_viz._replay._findings import Lints, stream_findings
from harmony_viz._replay._page import EMPTY_STREAM, name_of, page_html, payload, save_html, script_json
from harmony_viz._replay._server import server_tab
from harmony_viz._replay._steps import PRESETS

__all__ = [
    "BOUNDS",
    "PRESETS",
    "EMPTY_STREAM",
    "Bounds",
    "ApiViews",
    "Lints",
    "fate_columns",
    "logprob_columns",
    "logprobs_of",
    "ReplayWidget",
    "name_of",
    "page_html",
    "payload",
    "replay",
    "save_html",
    "script_json",
    "server_tab",
    "static_view",
    "stream_findings",
]

# Loaded when first asked for: a page written by save_html needs neither the widget machinery nor the static view.
_LAZY = {"ReplayWidget": "_widget", "replay": "_widget", "BOUNDS": "_static_view", "Bounds": "_static_view", "static_view": "_static_view"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"harmony_viz._replay.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'harmony_viz._replay' has no attribute {name!r}")
