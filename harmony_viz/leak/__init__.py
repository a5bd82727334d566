"""The leak guard: escape Harmony control spellings for transport, detect leaked markup, repair it.

- :func:`escape` / :func:`unescape`, :func:`escape_bytes` / :func:`unescape_bytes` and
  :func:`escape_json` / :func:`unescape_json` — ``<|start|>`` ↔ ``<\\|start\\|>`` for every
  spelling o200k_harmony reads as a special token (``harmony_viz.tokens.SPECIAL_SPELLINGS``).
- :func:`detect_leak` — signals H, M, C, G, S, B, R, T over assistant text, thinking and
  tool arguments (see :mod:`harmony_viz.leak._detect`).
- :func:`repair_reasoning_leak` — analysis leaked into visible text back into reasoning.
"""

from __future__ import annotations

from harmony_viz.leak._detect import SIGNAL_LETTERS, SURFACES, LeakReport, LeakSignal, Surface, detect_leak, exempt_ranges
from harmony_viz.leak._escape import escape, escape_bytes, escape_json, json_problem, unescape, unescape_bytes, unescape_json
from harmony_viz.leak._repair import Repair, repair_reasoning_leak

__all__ = [
    "SIGNAL_LETTERS",
    "SURFACES",
    "LeakReport",
    "LeakSignal",
    "Repair",
    "Surface",
    "detect_leak",
    "escape",
    "escape_bytes",
    "escape_json",
    "exempt_ranges",
    "json_problem",
    "repair_reasoning_leak",
    "unescape",
    "unescape_bytes",
    "unescape_json",
]
