"""What the stream side shows: token pieces, the messages read from them, and their diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz._diffview import pieces  # each token's text, as the render diff shows it too
from harmony_viz.findings import Span
from harmony_viz.scanner import Diagnostic, ScanResult, scan
from harmony_viz.tokens import SPECIAL_TOKENS

# The control tokens the format uses, with what they mean: the stream's tooltips explain them.
CONTROL_TOKENS: dict[str, dict[str, str]] = {
    str(t.id): {"literal": t.literal, "kind": t.kind, "meaning": t.meaning}
    for t in SPECIAL_TOKENS
    if not t.literal.startswith("<|reserved_")
}


@dataclass(frozen=True, slots=True)
class StreamView:
    """One scan of the stream, and the JSON the browser draws from it."""

    result: ScanResult
    diagnostics: tuple[Diagnostic, ...]
    sources: tuple[str, ...]  # "scanner" or "lint", one per diagnostic

    def diagnostics_json(self) -> list[dict[str, Any]]:
        return [{**d.to_json(), "source": s} for d, s in zip(self.diagnostics, self.sources)]


def read_stream(tokens: Sequence[int]) -> StreamView:
    """Scan ``tokens`` and lint them; diagnostics are sorted by position, the scanner's first on ties."""
    from harmony_viz._lint import lint

    result = scan(list(tokens))
    found = [(d, "scanner") for d in result.diagnostics]
    try:
        found += [(d, "lint") for d in lint(list(tokens), scanner=False)]  # the scanner's are above
    except Exception as exc:  # noqa: BLE001 - a lint crash must not hide the stream; say so instead
        found.append((Diagnostic("lint-failed", "info", f"the lints could not run on this stream: {exc}", Span(0, 0)), "lint"))
    found.sort(key=lambda p: (p[0].start, p[0].end, p[1] != "scanner"))
    return StreamView(result, tuple(d for d, _ in found), tuple(s for _, s in found))


def messages_json(result: ScanResult) -> list[dict[str, Any]]:
    """The messages the scan read, with token spans: ``start``, ``header_end`` (after ``<|message|>``) and ``end``."""
    return [
        {"index": m.index, "role": m.role, "name": m.name, "channel": m.channel, "recipient": m.recipient,
         "content_type": m.content_type, "kind": m.kind, "terminator": m.terminator,
         "start": m.start, "header_end": m.header_end, "end": m.end}
        for m in result.messages
    ]


def stream_json(tokens: Sequence[int], view: StreamView) -> dict[str, Any]:
    """The payload of the stream side (token ids travel in the ``tokens`` trait)."""
    texts, groups = pieces(tokens)
    return {"pieces": texts, "groups": groups, "messages": messages_json(view.result)}
