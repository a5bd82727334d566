"""Every lint code, its severity and what it means: one table, so severities stay consistent."""

from __future__ import annotations

from harmony_viz.findings import Codes, Span
from harmony_viz.scanner import Diagnostic

# code -> (severity, one-line meaning). Undeclared tools and schema violations are errors
# (the call cannot be executed as written); the rest are warnings, except where the issue
# marks them as informational.
CODES: Codes = {
    # output rules
    "undeclared-tool": ("error", "a call's recipient is not a declared tool"),
    "arguments-not-json": ("error", "a function call's body is not one JSON object"),
    "arguments-double-encoded": ("error", "a call's arguments are JSON-encoded twice: the body is a JSON string holding the JSON object"),
    "constrain-missing": ("warning", "a call's content type is `json` without `<|constrain|>` (as chat templates write it)"),
    "schema-violation": ("error", "a call's arguments do not match the tool's parameter schema"),
    "unknown-argument": ("info", "an argument the schema does not list (it does not forbid extras)"),
    "null-optional": ("info", "an optional argument set to null instead of left out"),
    "html-escape": ("warning", "an HTML entity inside a JSON string where the raw character was meant"),
    "calls-in-one-message": ("warning", "several calls packed into one message"),
    "call-terminator": ("warning", "a tool call that does not end in <|call|>"),
    "preamble-terminator": ("warning", "a preamble (commentary, no recipient) that does not end in <|end|>"),
    "reasoning-on-commentary": ("warning", "chain-of-thought written on the user-visible commentary channel"),
    "call-on-analysis": ("warning", "a functions.* call on the analysis channel (expected commentary)"),
    "call-in-fence": ("warning", "a tool call written inside a Markdown code fence"),
    "call-in-text": ("warning", "a tool call written as JSON or markup in visible text"),
    "fabricated-tool-result": ("error", "the model wrote a tool's result itself"),
    "tool-result-without-call": ("warning", "a tool result with no pending call to that tool"),
    "announced-no-call": ("warning", "the turn announces a tool call but ends without one"),
    "stop-token": ("warning", "a completion that does not end in <|call|> or <|return|>"),
    # prompt checks
    "system-missing": ("warning", "the prompt has no system message"),
    "channels-missing": ("warning", "the system message does not declare analysis, commentary and final"),
    "routing-line-missing": ("warning", "function tools declared but the commentary routing line is missing"),
    "routing-line-unused": ("info", "the routing line is present but no function tools are declared"),
    "tools-unexpected-message": ("warning", "tools declared in a message that should not hold them"),
    "tools-unreadable": ("warning", "a tool declaration that cannot be read back"),
    "reasoning-missing": ("warning", "the system message sets no reasoning effort"),
    "reasoning-malformed": ("warning", "the reasoning effort is not low, medium or high"),
    "date-malformed": ("warning", "a date that is not in the format the model was trained on"),
    "stale-analysis": ("info", "analysis of a finished turn kept in the history"),
    "return-in-history": ("warning", "<|return|> before the end of the stream"),
    "dropped-analysis": ("warning", "a pending tool call with no analysis before it"),
}


def diagnostic(code: str, message: str, span: tuple[int, int]) -> Diagnostic:
    """A Diagnostic with the severity the table gives ``code``."""
    severity, _meaning = CODES[code]
    return Diagnostic(code, severity, message, Span(*span))
