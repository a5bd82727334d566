"""The "chat template" layout of the render diff: our render against a Jinja template's, with codes.

The payload has the shape of the other layouts (both sides' ids and token texts, difflib
opcodes) plus the named differences, each with its token span on each side, so the
browser can put the codes on the token chips.
"""

from __future__ import annotations

from typing import Any

from harmony_viz._diffview import diff_json  # the diff's JSON, shared with the server tab's prompt diff
from harmony_viz.render import Conversation
from harmony_viz.templates import ChatTemplate, LensError, TemplateComparison, compare, request_from_conversation


def comparison_json(result: TemplateComparison, origin: str) -> dict[str, Any]:
    """What the browser draws for one comparison (see ``js/src/playground/diff.ts``)."""
    return diff_json(result.ours.ids, result.template.ids, result.differences, layout="template", origin=origin)


def template_diff_json(source: Conversation | dict[str, Any], template: ChatTemplate | None, *, date: str | None = None) -> dict[str, Any]:
    """The template layout for a conversation (or a Chat Completions request); ``{"error": ...}`` when it cannot be drawn."""
    if template is None:
        return {"layout": "template", "error": "no chat template: pass chat_template= (a .jinja file or a model folder) "
                "or set HARMONY_VIZ_CHAT_TEMPLATE"}
    request = request_from_conversation(source) if isinstance(source, Conversation) else source
    from harmony_viz.extras import MissingExtraError

    try:
        result = compare(request, template, date=date)
    except (LensError, MissingExtraError) as exc:  # no jinja2: the view says which extra to install
        return {"layout": "template", "error": str(exc)}
    return comparison_json(result, template.origin)


def template_page_html(diff: dict[str, Any], *, title: str | None = None) -> str:
    """A standalone page (no kernel, no network) showing one template-layout diff."""
    import html

    from harmony_viz import __version__
    from harmony_viz._replay import script_json
    from harmony_viz._static import asset_text

    n = len(diff.get("differences", []))
    name = title or f"Chat template vs Harmony · {n} difference{'s' if n != 1 else ''}"
    css = "\n".join(asset_text(name) for name in ("template_page.css", "widget.css", "playground.css")).replace("</", "<\\/")
    js = asset_text("template_page.js").replace("</script", "<\\/script")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta name=\"generator\" content=\"harmony-viz {__version__}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(name)}</title>\n"
        f"<style>{css}</style>\n</head>\n<body>\n"
        f"<h3 class=\"hv-page-title\">{html.escape(name)}</h3>\n"
        "<div id=\"hv-app\"></div>\n"
        f"<script type=\"application/json\" id=\"hv-data\">{script_json({'diff': diff})}</script>\n"
        f"<script>{js}</script>\n</body>\n</html>\n"
    )
