"""Every lint code, its severity and what it means: one table, so severities stay consistent."""

from __future__ import annotations

from pathlib import Path

from harmony_viz.findings import Codes, Span, read_codes
from harmony_viz.scanner import Diagnostic

# code -> (severity, one-line meaning), kept in codes.json beside this module: the output rules
# first, then the prompt checks (system-missing on). Undeclared tools and schema violations are
# errors (the call cannot be executed as written); the rest are warnings, except where the issue
# marks them as informational.
CODES: Codes = read_codes(Path(__file__).with_name("codes.json"))


def diagnostic(code: str, message: str, span: tuple[int, int]) -> Diagnostic:
    """A Diagnostic with the severity the table gives ``code``."""
    severity, _meaning = CODES[code]
    return Diagnostic(code, severity, message, Span(*span))
