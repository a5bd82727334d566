"""The replay (private package; use ``harmony_viz.replay``, ``harmony_viz.save_html``): a token stream fed through the scanner chunk by chunk, drawn in a notebook or a page.

``replay(source)`` gives the Jupyter widget; ``save_html`` / ``page_html`` write the same view
as one self-contained page. The page path imports no widget machinery (anywidget is loaded
only when the widget is asked for).
"""

from __future__ import annotations

import importlib
from typing import Any

from harmony_viz._replay._api_view import ApiViews
from harmony_viz._replay._chips import fate_columns, logprob_columns, logprobs_of
from harmony_viz._replay._findings import Lints, stream_findings
from harmony_viz._replay._page import EMPTY_STREAM, name_of, page_html, payload, save_html, script_json
from harmony_viz._replay._server import server_tab
from harmony_viz._replay._static_view import BOUNDS, Bounds, static_view
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

_WIDGET = {"ReplayWidget", "replay"}




def __getattr__(name: str) -> Any:
    if name in _WIDGET:
        return getattr(importlib.import_module("harmony_viz._replay._widget"), name)
    raise AttributeError(f"module 'harmony_viz._replay' has no attribute {name!r}")
