"""Replay traces: a token stream fed to the scanner chunk by chunk, with every step's events and state."""

from __future__ import annotations

from harmony_viz.trace._chunking import CHUNKINGS, Chunking, describe, parse_chunking, text_chunks, token_chunks
from harmony_viz.trace._findings import SOURCES, Placed, merge, place, scanner_findings
from harmony_viz.trace._gc import collecting_after
from harmony_viz.trace._logprobs import Logprobs
from harmony_viz.trace._model import Step, Steps, Trace
from harmony_viz.trace._payload import FORMAT_VERSION

__all__ = [
    "CHUNKINGS",
    "FORMAT_VERSION",
    "SOURCES",
    "Chunking",
    "Logprobs",
    "Placed",
    "Step",
    "Steps",
    "Trace",
    "collecting_after",
    "describe",
    "merge",
    "parse_chunking",
    "place",
    "scanner_findings",
    "text_chunks",
    "token_chunks",
]
