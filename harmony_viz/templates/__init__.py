"""Template lens: what a Jinja chat template does to a conversation, against the Harmony format.

The same Chat Completions request is rendered through the template (transformers'
``render_jinja_template``, what ``apply_chat_template`` uses) and through our renderer
(token-identical to openai-harmony); both streams are scanned, aligned message by message,
and every difference gets a code from ``CODES``.

>>> from harmony_viz.templates import CODES
>>> CODES["constrain-missing"][0]
'warning'
"""

from __future__ import annotations

from harmony_viz.templates._codes import CODES, Difference, difference
from harmony_viz.templates._dataset import DatasetSummary, check_requests, read_requests
from harmony_viz.templates._from_conversation import request_from_conversation
from harmony_viz.templates._jinja import check_chat_template, jinja_modules, parse_date, render_template
from harmony_viz.templates._lens import TemplateComparison, compare, compare_renders, render_ours, today
from harmony_viz.templates._request import LensError, ours_request
from harmony_viz.templates._samples import example_request, sample_requests
from harmony_viz.templates._shipped import ShippedOutput, shipped_outputs, shipped_path
from harmony_viz.templates._side import RenderedMessage, Side, read_side
from harmony_viz.templates._source import ENV_VAR, ChatTemplate, TemplateSourceError, load_template, template_from_env, template_from_model

__all__ = [
    "CODES",
    "ENV_VAR",
    "ChatTemplate",
    "DatasetSummary",
    "Difference",
    "LensError",
    "RenderedMessage",
    "ShippedOutput",
    "Side",
    "TemplateComparison",
    "TemplateSourceError",
    "check_chat_template",
    "check_requests",
    "compare",
    "compare_renders",
    "difference",
    "example_request",
    "jinja_modules",
    "load_template",
    "ours_request",
    "parse_date",
    "read_requests",
    "read_side",
    "render_ours",
    "render_template",
    "request_from_conversation",
    "sample_requests",
    "shipped_outputs",
    "shipped_path",
    "template_from_env",
    "template_from_model",
    "today",
]
