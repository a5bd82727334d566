"""Render a conversation through a Jinja chat template with transformers' own machinery.

``render_jinja_template`` is what ``apply_chat_template`` calls: same sandbox, same
``tojson``, same aliasing of ``reasoning_content`` to ``thinking``. Its ``strftime_now``
reads the clock, so the date is pinned on the compiled template's own globals (render
keyword arguments are stripped to plain JSON, so a function cannot be passed in).
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable, Mapping
from typing import Any

from harmony_viz.templates._request import LensError, template_messages
from harmony_viz.templates._source import ChatTemplate

_LOCK = threading.Lock()  # the compiled template is shared (cached by transformers)
# What a failing template raises: raise_exception, undefined fields, `+` on a non-string.
_TEMPLATE_FAILURES: tuple[type[Exception], ...] = (TypeError, ValueError, KeyError, AttributeError, IndexError)


def parse_date(date: str) -> _dt.date:
    """``YYYY-MM-DD`` as a date, or LensError."""
    try:
        return _dt.date.fromisoformat(date)
    except (TypeError, ValueError):
        raise LensError(f"date {date!r} is not YYYY-MM-DD") from None


def jinja_modules() -> tuple[Any, Any]:
    """``jinja2`` and transformers' ``chat_template_utils``, or MissingExtraError naming the ``templates`` extra."""
    from harmony_viz.extras import require

    jinja2 = require("jinja2", "templates")
    return jinja2, require("transformers.utils.chat_template_utils", "templates")


def _clock(day: _dt.date) -> Callable[[str], str]:
    def strftime_now(fmt: str) -> str:
        return day.strftime(fmt)

    return strftime_now


def render_template(
    template: ChatTemplate,
    request: Mapping[str, Any],
    *,
    date: str,
    add_generation_prompt: bool = False,
) -> str:
    """The template's text for ``request`` (messages, tools, reasoning_effort), dated ``date``.

    Raises LensError (one line) when the template refuses or fails on the conversation.
    """
    jinja2, utils = jinja_modules()
    _compile_jinja_template, render_jinja_template = utils._compile_jinja_template, utils.render_jinja_template

    day = parse_date(date)
    kwargs: dict[str, Any] = {}
    if request.get("reasoning_effort") is not None:
        kwargs["reasoning_effort"] = request["reasoning_effort"]
    messages = template_messages(request["messages"])
    try:
        compiled = _compile_jinja_template(template.source)
    except jinja2.TemplateError as exc:
        raise LensError(f"template {template.origin}: does not compile ({exc})") from None
    with _LOCK:
        compiled.globals["strftime_now"] = _clock(day)
        try:
            rendered, _ = render_jinja_template(
                [messages],
                tools=request.get("tools") or None,
                chat_template=template.source,
                add_generation_prompt=add_generation_prompt,
                **kwargs,
            )
        except jinja2.TemplateError as exc:
            raise LensError(f"template: refuses this conversation: {_one_line(exc)}") from None
        except _TEMPLATE_FAILURES as exc:
            raise LensError(f"template: fails on this conversation ({type(exc).__name__}: {_one_line(exc)})") from None
        finally:
            compiled.globals.pop("strftime_now", None)
    return rendered[0]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


# The conversation a chat template must render: one user message.
_ONE_MESSAGE = {"messages": [{"role": "user", "content": "Hello"}]}


def check_chat_template(template: ChatTemplate) -> None:
    """LensError (one line) unless ``template`` is a chat template: it reads ``messages`` and renders a one-message conversation.

    MissingExtraError when jinja2 or transformers (the ``templates`` extra) is not installed.
    """
    jinja2, utils = jinja_modules()
    from jinja2 import meta

    what = f"{template.origin}: not a chat template"
    try:
        compiled = utils._compile_jinja_template(template.source)
        names = meta.find_undeclared_variables(compiled.environment.parse(template.source))
    except jinja2.TemplateError as exc:
        raise LensError(f"{what} (it does not compile as Jinja: {_one_line(exc)})") from None
    if "messages" not in names:
        raise LensError(f"{what}: it never reads `messages`; give a .jinja chat template or a model folder")
    try:
        text = render_template(template, _ONE_MESSAGE, date="2025-01-01")
    except LensError as exc:
        raise LensError(f"{what}: a one-message conversation does not render ({str(exc).removeprefix('template: ')})") from None
    if not text.strip():
        raise LensError(f"{what}: it renders nothing for a one-message conversation")
