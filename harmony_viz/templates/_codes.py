"""The registry of render difference codes (the template lens's and the prompt lens's), and the record that carries one difference.

Both lenses compare our render with another render of the same request: the chat template's
text or the prompt a server fed the model. ``Difference.side`` names the other render (its
JSON key): ``template`` or ``server``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz.findings import Codes, Finding, Sides, Span, read_codes

# code -> (severity, what it means), kept in codes.json beside this module; the docs' code tables
# are written from it. error: the model reads something else than it was trained on (calls, text
# or reasoning lost, moved or re-encoded); warning: a changed rendering it may still read; info: layout only.
CODES: Codes = read_codes(Path(__file__).with_name("codes.json"))


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
