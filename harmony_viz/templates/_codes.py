"""The difference codes and the record that carries one difference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# code -> what it means (the README's table is this one).
CODES: dict[str, str] = {
    "arguments-double-encoded": "arguments given as a JSON string are JSON-encoded again (quotes and escapes added)",
    "tool-result-double-encoded": "a tool result that is already a string is JSON-encoded (quotes and escapes added)",
    "constrain-missing": "`json` where the format has `<|constrain|>json`",
    "parallel-calls-dropped": "tool calls after the first in one assistant message are missing",
    "preamble-dropped": "assistant text next to tool calls is missing",
    "preamble-as-analysis": "that text is rendered on the analysis channel",
    "analysis-kept": "the template keeps chain of thought that the format drops",
    "analysis-dropped": "the template drops chain of thought that the format keeps",
    "recipient-layout": "the recipient is in the role section on one side and after the channel on the other",
    "date-varies": "only the date line differs",
    "whitespace": "the texts differ only in whitespace there",
    "schema-text": "the TypeScript of the tools differs",
    "other": "any other difference, with the spans",
}


@dataclass(frozen=True, slots=True)
class Difference:
    """One named difference: ``ours`` and ``template`` quote the text of each render at that place.

    A quote is "" where that side has nothing (a dropped message). ``ours_span`` and
    ``template_span`` are the token ranges quoted (for token chips), None where empty.
    """

    code: str
    message: str
    ours: str
    template: str
    ours_span: tuple[int, int] | None = None
    template_span: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "ours": self.ours, "template": self.template}
