"""One turn message's part of each API object with its body left open, for a page to fill in.

A saved replay page cannot run Python, yet its API view must be the object a streaming
client holds at any step. The shapes stay here, built by the same functions as the objects
themselves; the page only puts the text streamed so far where :data:`BODY` stands and sets
each item's status (see ``js/src/replay/apiview.ts``).
"""

from __future__ import annotations

from typing import Any

from harmony_viz.projections._chat import _tool_call, content_role
from harmony_viz.projections._responses import build_item, item_type
from harmony_viz.projections._turn import TurnMessage

# Stands for the body streamed so far; no model text holds a NUL between these words.
BODY = "\x00body\x00"


def open_parts(msg: TurnMessage, position: int, *, legacy: bool, id_prefix: str = "") -> dict[str, Any]:
    """``{"field", "tool_call", "item"}`` of ``msg`` (output index ``position``) with :data:`BODY` for its body.

    ``field``: the Chat Completions message field its text goes to (``content``,
    ``reasoning_content``, or None for a tool call); ``tool_call``: its ``tool_calls`` entry
    or None; ``item``: its Responses output item, status ``in_progress``.
    """
    tool_call = None
    if msg.is_tool_call:
        tool_call = _tool_call(msg, id_prefix)
        tool_call["function"]["arguments"] = BODY
    item = build_item(msg, position, legacy=legacy, id_prefix=id_prefix, text=BODY)
    if item["type"] == "web_search_call":
        # its action is read from the arguments: say which verb, the page parses the body
        item["action"] = {"verb": msg.call.name.partition(".")[2] if msg.call else ""}
    return {"field": content_role(msg, legacy), "tool_call": tool_call, "item": item, "type": item_type(msg, legacy)}


def parts_key(msg: TurnMessage, position: int) -> tuple[Any, ...]:
    """What :func:`open_parts` reads of ``msg`` at ``position``: two messages with the same key have the same parts.

    Its kind (the field its text goes to, reasoning or not, a preamble or not), its call's target and its index
    among the turn's calls (the call id); the body is left open. A page of a long stream has a thousand messages and
    a few shapes among them.
    """
    return (position, msg.record.kind, msg.call, msg.function_index)

