"""The registry of render difference codes (the template lens's and the prompt lens's), and the record that carries one difference.

Both lenses compare our render with another render of the same request: the chat template's
text or the prompt a server fed the model. ``Difference.side`` names the other render (its
JSON key): ``template`` or ``server``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harmony_viz.findings import Codes, Finding, Sides, Span

# code -> (severity, what it means); the docs' code tables are written from this. error: the
# model reads something else than it was trained on (calls, text or reasoning lost, moved or
# re-encoded); warning: a changed rendering it may still read; info: layout only.
CODES: Codes = {
    "arguments-double-encoded": ("error", "a call's arguments are JSON-encoded twice: the body is a JSON string holding the JSON object"),
    "tool-result-double-encoded": ("warning", "a tool result that is already a string is JSON-encoded (quotes and escapes added)"),
    "constrain-missing": ("warning", "a call's content type is `json` without `<|constrain|>` (as chat templates write it)"),
    "parallel-calls-dropped": ("error", "tool calls after the first in one assistant message are missing"),
    "preamble-dropped": ("error", "assistant text next to tool calls is missing"),
    "preamble-as-analysis": ("error", "that text is rendered on the analysis channel"),
    "preamble-moved": ("warning", "the preamble is on both sides, but in another place relative to the analysis or the call"),
    "analysis-kept": ("warning", "the other render keeps chain of thought that the format drops (the last turn's `thinking`, for training)"),
    "analysis-dropped": ("error", "chain of thought the format keeps is missing, as the analysis of a pending or just-answered call: multi-step tool use breaks"),
    "effort-ignored": ("error", "the `Reasoning:` line differs from the request's `reasoning_effort`"),
    "tools-missing": ("error", "declared tools are absent from the developer message"),
    "response-format-missing": ("warning", "the `# Response Formats` section for the request's `response_format` schema is absent from the developer message"),
    "request-rejected": ("error", "the server answered a valid request with an HTTP error (its text is kept)"),
    "recipient-layout": ("info", "the recipient is in the role section on one side and after the channel on the other (a call's, or a tool result's `to=assistant`)"),
    "date-varies": ("info", "only the date line differs"),
    "whitespace": ("info", "the texts differ only in whitespace there (the template ends developer instructions in a blank line)"),
    "schema-text": ("warning", "the TypeScript of the tools differs (defaults, nested objects, `oneOf`)"),
    "other": ("warning", "anything else, with the spans (a later system message dropped, a tool result named after the wrong call)"),
}


@dataclass(frozen=True, slots=True)
class Difference(Finding):
    """One named difference; ``where`` is :class:`~harmony_viz.findings.Sides`, the token span quoted on our side and the other's.

    ``ours`` and ``theirs`` quote the text of each render at that place ("" where that side
    has nothing, as a dropped message); a span is None where its side is empty. ``side`` is the
    other render's name in JSON (``template`` or ``server``).
    """

    ours: str = ""
    theirs: str = ""
    side: str = "template"

    def to_json(self) -> dict[str, Any]:
        """``{code, severity, message, ours, <side>, where: {ours: [s, e] | null, <side>: [s, e] | null}}``."""
        w = self.where if isinstance(self.where, Sides) else Sides(None, None)
        where = {"ours": list(w.ours) if w.ours else None, self.side: list(w.theirs) if w.theirs else None}
        return {"code": self.code, "severity": self.severity, "message": self.message, "ours": self.ours, self.side: self.theirs, "where": where}


def difference(code: str, message: str, ours: str, theirs: str, ours_span: tuple[int, int] | None = None,
               theirs_span: tuple[int, int] | None = None, side: str = "template") -> Difference:
    """A Difference with the severity the registry gives ``code``; spans as ``(start, end)`` token ranges."""
    where = Sides(Span(*ours_span) if ours_span else None, Span(*theirs_span) if theirs_span else None) if ours_span or theirs_span else None
    return Difference(code, CODES[code][0], message, where, ours, theirs, side)
