"""harmony_viz's colours, one table for every view: ``palette.json`` beside this module.

Each kind of content (``reasoning``, ``preamble``, ``final``, ``tool_call``, ``tool_result``,
``other``: the visibility rule's kinds), each role, each severity and each side of a render
diff has one colour. The JavaScript build reads the same file (the widget's CSS variables
``--hv-kind-*``, ``--hv-role-*``, ``--hv-severity-*``, ``--hv-diff-*`` and its legends), so the
replay, the playground, the diff views, the saved pages and the plotly charts draw a kind alike.

>>> KIND_COLOURS["final"], ROLE_COLOURS["user"], KIND_LABELS["reasoning"]
('#009E73', '#0072B2', 'analysis (reasoning)')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["CHANGE_COLOURS", "DIFF_COLOURS", "KIND_COLOURS", "KIND_LABELS", "PALETTE", "ROLE_COLOURS", "SEVERITY_COLOURS", "STATUS_COLOURS"]

# The file as written (the build reads it too).
PALETTE: dict[str, Any] = json.loads((Path(__file__).parent / "palette.json").read_text(encoding="utf-8"))

KIND_COLOURS: dict[str, str] = {kind: entry["colour"] for kind, entry in PALETTE["kinds"].items()}
KIND_LABELS: dict[str, str] = {kind: entry["label"] for kind, entry in PALETTE["kinds"].items()}
ROLE_COLOURS: dict[str, str] = dict(PALETTE["roles"])
SEVERITY_COLOURS: dict[str, str] = dict(PALETTE["severities"])
# A render diff's inserted and deleted (or replaced) tokens.
DIFF_COLOURS: dict[str, str] = dict(PALETTE["diff"])
# The conformance matrix: each cell class's (a result's status) background and text, each change across versions.
STATUS_COLOURS: dict[str, dict[str, str]] = {status: dict(entry) for status, entry in PALETTE["statuses"].items()}
CHANGE_COLOURS: dict[str, str] = dict(PALETTE["changes"])
