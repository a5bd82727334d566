"""The template lens's registry of difference codes, and the record that carries one difference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harmony_viz.findings import Codes, Finding, Sides, Span

# code -> (severity, what it means); the README's table is written from this. error: the
# model reads something else than it was trained on (calls, text or reasoning lost, moved or
# re-encoded); warning: a changed rendering it may still read; info: layout only.
CODES: Codes = {
    "arguments-double-encoded": ("error", "a call's arguments are JSON-encoded twice: the body is a JSON string holding the JSON object"),
    "tool-result-double-encoded": ("warning", "a tool result that is already a string is JSON-encoded (quotes and escapes added)"),
    "constrain-missing": ("warning", "a call's content type is `json` without `<|constrain|>` (as chat templates write it)"),
    "parallel-calls-dropped": ("error", "tool calls after the first in one assistant message are missing"),
    "preamble-dropped": ("error", "assistant text next to tool calls is missing"),
    "preamble-as-analysis": ("error", "that text is rendered on the analysis channel"),
    "analysis-kept": ("warning", "the template keeps chain of thought that the format drops (the last turn's `thinking`, for training)"),
    "analysis-dropped": ("warning", "the template drops chain of thought that the format keeps"),
    "recipient-layout": ("info", "the recipient is in the role section on one side and after the channel on the other"),
    "date-varies": ("info", "only the date line differs"),
    "whitespace": ("info", "the texts differ only in whitespace there (the template ends developer instructions in a blank line)"),
    "schema-text": ("warning", "the TypeScript of the tools differs (defaults, nested objects, `oneOf`)"),
    "other": ("warning", "anything else, with the spans (a later system message dropped, a tool result named after the wrong call)"),
}


@dataclass(frozen=True, slots=True)
class Difference(Finding):
    """One named difference; ``where`` is :class:`~harmony_viz.findings.Sides`, the token span quoted on our side and the template's.

    ``ours`` and ``template`` quote the text of each render at that place ("" where that side
    has nothing, as a dropped message); a span is None where its side is empty.
    """

    ours: str = ""
    template: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "message": self.message, "ours": self.ours, "template": self.template}


def difference(code: str, message: str, ours: str, template: str, ours_span: tuple[int, int] | None = None,
               template_span: tuple[int, int] | None = None) -> Difference:
    """A Difference with the severity the registry gives ``code``; spans as ``(start, end)`` token ranges."""
    where = Sides(Span(*ours_span) if ours_span else None, Span(*template_span) if template_span else None) if ours_span or template_span else None
    return Difference(code, CODES[code][0], message, where, ours, template)
