"""The replay (private package; use ``harmony_viz.replay``, ``harmony_viz.save_html``): a token stream fed through the scanner chunk by chunk, drawn in a notebook or a page.

``replay(source)`` gives the Jupyter widget; ``save_html`` / ``page_html`` write the same view
as one self-contained page. The page path imports no widget machinery (anywidget is loaded
only when the widget is asked for).
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz._replay import _page
from harmony_viz._replay._api_view import ApiViews
from harmony_viz._replay._page import name_of, payload, script_json
from harmony_viz._replay._steps import PRESETS

if TYPE_CHECKING:
    from harmony_viz.trace import Trace

__all__ = [
    "PRESETS",
    "EMPTY_STREAM",
    "ApiViews",
    "ReplayWidget",
    "name_of",
    "page_html",
    "payload",
    "replay",
    "save_html",
    "script_json",
]

_WIDGET = {"ReplayWidget", "replay"}

# What a page of a stream with no tokens says, in its text (an empty stream is no error).
EMPTY_STREAM = "This stream is empty: no tokens, so there is nothing to replay."
_APP = '<div id="hv-app"></div>'


def page_html(trace: Trace, **kwargs: Any) -> str:
    """The standalone replay page (see :func:`harmony_viz._replay._page.page_html` for the arguments).

    A trace with no tokens (an empty file, ``[]``, ``""``) is a page all the same, and says
    in its text that the stream is empty.

    >>> from harmony_viz.trace import Trace
    >>> EMPTY_STREAM in page_html(Trace.build([], "token"))
    True
    """
    page = _page.page_html(trace, **kwargs)
    if trace.tokens.size == 0:
        notice = f'<p class="hv-page-line hv-page-empty" data-hv="empty-stream" role="status"><strong>{html.escape(EMPTY_STREAM)}</strong></p>\n'
        page = page.replace(_APP, notice + _APP, 1)
    return page


def save_html(source: Any, path: str | Path, *, chunking: str = "token", role: str | None = None, step: int = -1, run: int | None = None,
              title: str | None = None, name: str | None = None, links: Sequence[tuple[str, str]] = ()) -> Path:
    """Write a standalone replay page for ``source`` (anything :func:`harmony_viz.replay` takes), opened at ``step`` (-1: the end).

    ``name`` (what the page says it replays) defaults to the file's name, or the run's id.
    An empty source (``""``, ``[]``, an empty file) writes a page that says the stream is empty.
    """
    from harmony_viz.inputs import read
    from harmony_viz.trace import Trace

    found = read(source)
    stream = found.stream(run)
    trace = Trace.build(stream.ids, chunking, role=role or stream.role)
    page = page_html(trace, step=step, title=title, server=stream.server, prompt_tokens=stream.prompt_tokens,
                     name=name if name is not None else name_of(found, stream), links=links)
    out = Path(path)
    out.write_text(page, encoding="utf-8")
    return out



def __getattr__(name: str) -> Any:
    if name in _WIDGET:
        return getattr(importlib.import_module("harmony_viz._replay._widget"), name)
    raise AttributeError(f"module 'harmony_viz._replay' has no attribute {name!r}")
