"""The "chat template" layout of the render diff: our render against a Jinja template's, with codes.

The payload has the shape of the other layouts (both sides' ids and token texts, difflib
opcodes) plus the named differences, each with its token span on each side, so the
browser can put the codes on the token chips.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from harmony_viz._playground._stream import pieces
from harmony_viz.findings import Sides, Where
from harmony_viz.render import Conversation
from harmony_viz.templates import ChatTemplate, Difference, LensError, TemplateComparison, compare, request_from_conversation
from harmony_viz.tokens import encoding


def comparison_json(result: TemplateComparison, origin: str) -> dict[str, Any]:
    """What the browser draws for one comparison (see ``js/src/playground/diff.ts``)."""
    return diff_json(result.ours.ids, result.template.ids, result.differences, layout="template", origin=origin)


def diff_json(ours: Sequence[int], theirs: Sequence[int], found: Sequence[Difference], *, layout: str, origin: str) -> dict[str, Any]:
    """The render diff of our render against another (``layout`` ``template``: a chat template's; ``prompt``: a server's prompt).

    Each difference carries its span on our side (``ours_span``) and on the other (``template_span``, whichever render it is).
    """
    ours, theirs = list(ours), list(theirs)
    enc = encoding()
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    ops = [{"tag": tag, "ref": [i1, i2], "model": [j1, j2], "reference_text": enc.decode(ours[i1:i2]), "model_text": enc.decode(theirs[j1:j2])}
           for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    differences = [{**d.to_json(), "ours_span": _span(d.where, "ours"), "template_span": _span(d.where, "theirs")} for d in found]
    return {"layout": layout, "origin": origin, "reference": ours, "model": theirs, "ops": ops,
            "reference_pieces": pieces(ours)[0], "model_pieces": pieces(theirs)[0], "differences": differences}


def _span(where: Where, side: str) -> list[int] | None:
    span = getattr(where, side) if isinstance(where, Sides) else None
    return [span.start, span.end] if span is not None else None


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
    css = (asset_text("widget.css") + "\n" + asset_text("playground.css")).replace("</", "<\\/")
    js = asset_text("template_page.js").replace("</script", "<\\/script")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta name=\"generator\" content=\"harmony-viz {__version__}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(name)}</title>\n"
        "<style>body{margin:12px;background:#fff}.hv-pg-diff-tokens{max-height:none!important}</style>\n"
        f"<style>{css}</style>\n</head>\n<body>\n"
        f"<h3 style=\"font-family:system-ui,sans-serif;margin:0 0 8px\">{html.escape(name)}</h3>\n"
        "<div id=\"hv-app\"></div>\n"
        f"<script type=\"application/json\" id=\"hv-data\">{script_json({'diff': diff})}</script>\n"
        f"<script>{js}</script>\n</body>\n</html>\n"
    )
