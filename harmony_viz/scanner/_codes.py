"""Every diagnostic the scanner emits: its stable code, severity and meaning (one table, for docs and tools)."""

from __future__ import annotations

from pathlib import Path

from harmony_viz.findings import Codes, read_codes

# The findings whose span begins where <|endoftext|> ended the stream: a reader counts nothing from there.
END_OF_TEXT_CODES: frozenset[str] = frozenset({"padding", "after-endoftext"})

# code -> (severity, meaning), kept in codes.json beside this module. error: the stream breaks
# the format and was repaired; warning: parseable but suspicious; info: a note.
DIAGNOSTIC_CODES: Codes = read_codes(Path(__file__).with_name("codes.json"))
