"""The streaming Harmony scanner: feed text or token ids chunk by chunk, get events."""

from harmony_viz.scanner._events import (
    CONTENT_KINDS,
    ContentDelta,
    ContentKind,
    Diagnostic,
    Event,
    MessageEnd,
    MessageStart,
    ScanState,
    Severity,
    Snapshot,
    Terminator,
    ToolCallEnd,
    ToolCallStart,
)

__all__ = [
    "CONTENT_KINDS",
    "ContentDelta",
    "ContentKind",
    "Diagnostic",
    "Event",
    "MessageEnd",
    "MessageStart",
    "ScanState",
    "Severity",
    "Snapshot",
    "Terminator",
    "ToolCallEnd",
    "ToolCallStart",
]
