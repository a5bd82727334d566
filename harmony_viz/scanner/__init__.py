"""The streaming Harmony scanner: feed text or token ids chunk by chunk, get events."""

from harmony_viz.scanner._codes import DIAGNOSTIC_CODES, END_OF_TEXT_CODES
from harmony_viz.scanner._events import (
    CONTENT_KINDS,
    ContentDelta,
    ContentKind,
    Diagnostic,
    Event,
    MessageEnd,
    MessageStart,
    ScanState,
    Snapshot,
    Terminator,
    ToolCallEnd,
    ToolCallStart,
)
from harmony_viz.scanner._message import STANDARD_ROLES, Message, MessageFold, fold_messages
from harmony_viz.scanner._result import ScanResult, assemble, event_to_json, scan
from harmony_viz.scanner._scanner import Scanner
from harmony_viz.scanner._visibility import CHANNELS, Visibility, is_assistants, is_visible, message_kind, visibility

__all__ = [
    "CHANNELS",
    "CONTENT_KINDS",
    "DIAGNOSTIC_CODES",
    "END_OF_TEXT_CODES",
    "STANDARD_ROLES",
    "ContentDelta",
    "ContentKind",
    "Diagnostic",
    "Event",
    "Message",
    "MessageEnd",
    "MessageFold",
    "MessageStart",
    "ScanResult",
    "ScanState",
    "Scanner",
    "Snapshot",
    "Terminator",
    "Visibility",
    "ToolCallEnd",
    "ToolCallStart",
    "assemble",
    "event_to_json",
    "fold_messages",
    "is_assistants",
    "is_visible",
    "message_kind",
    "scan",
    "visibility",
]
