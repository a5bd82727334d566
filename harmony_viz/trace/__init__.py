"""Replay traces: a token stream fed to the scanner chunk by chunk, with every step's events and state."""

from __future__ import annotations

from harmony_viz.trace._chunking import CHUNKINGS, Chunking, parse_chunking
from harmony_viz.trace._model import Step, Trace
from harmony_viz.trace._source import SourceError, tokens_of

__all__ = ["CHUNKINGS", "Chunking", "SourceError", "Step", "Trace", "parse_chunking", "tokens_of"]
