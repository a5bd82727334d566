"""Standalone replay pages: one HTML file with the bundle and the trace inlined.

The page needs no kernel and no network, and works opened from ``file://``. Everything
embedded is JSON inside a ``<script type="application/json">`` with ``<`` escaped, so
token text can never close the script or become markup.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz._replay._steps import PRESETS, step_error
from harmony_viz._static import asset_text

if TYPE_CHECKING:
    from harmony_viz.trace import Trace


def script_json(obj: Any) -> str:
    # "<" as \u003c: no "</script>" or "<!--" can appear inside the data block
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def page_html(trace: Trace, *, step: int = 0, title: str | None = None, server: dict[str, Any] | None = None) -> str:
    """The full text of a standalone page replaying ``trace``, opened at ``step``.

    The API view (when projections are installed) is embedded at every message boundary,
    as the page cannot compute it for arbitrary steps without Python.
    """
    from harmony_viz import __version__
    from harmony_viz._replay._api_view import ApiViews

    meta, columns = trace.to_payload()
    if server is not None:  # the server lens: the API view's server tab
        meta["server"] = server
    why = step_error(step, trace.n_steps)
    if why:
        raise ValueError(why)
    data = {
        "meta": meta,
        "columns": base64.b64encode(columns).decode("ascii"),
        "traits": {"step": step, "selected": -1, "chunking": str(trace.chunking), "chunkings": list(PRESETS), "error": "", "api_view": {}},
        "api_views": ApiViews(trace).boundaries(),
    }
    name = title or f"Harmony replay · {trace.tokens.size} tokens · {trace.chunking}"
    css = asset_text("widget.css").replace("</", "<\\/")
    js = asset_text("standalone.js").replace("</script", "<\\/script")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta name=\"generator\" content=\"harmony-viz {__version__}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(name)}</title>\n"
        "<style>body{margin:12px;background:#fff}@media (prefers-color-scheme: dark){body{background:#111;"
        "--jp-layout-color0:#111;--jp-layout-color1:#1b1b1b;--jp-layout-color2:#2a2a2a;--jp-ui-font-color0:#eee;"
        "--jp-ui-font-color2:#aaa;--jp-border-color1:#444}}</style>\n"
        f"<style>{css}</style>\n</head>\n<body>\n"
        f"<h3 style=\"font-family:system-ui,sans-serif;margin:0 0 8px\">{html.escape(name)}</h3>\n"
        "<div id=\"hv-app\"></div>\n"
        f"<script type=\"application/json\" id=\"hv-data\">{script_json(data)}</script>\n"
        f"<script>{js}</script>\n</body>\n</html>\n"
    )


def save_html(source: Any, path: str | Path, *, chunking: str = "token", role: str | None = None, step: int = 0) -> Path:
    """Write a standalone replay page for ``source`` (anything :func:`harmony_viz._replay` takes)."""
    from harmony_viz.servers import lens_source
    from harmony_viz.trace import Trace, tokens_of

    lens = lens_source(source)
    ids, server = (lens[0], lens[2]) if lens is not None else (tokens_of(source), None)
    trace = Trace.build(ids, chunking, role=role or (lens[1] if lens is not None else None))
    out = Path(path)
    out.write_text(page_html(trace, step=step if step >= 0 else trace.n_steps + step, server=server), encoding="utf-8")
    return out
