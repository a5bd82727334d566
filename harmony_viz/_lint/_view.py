"""The lints' view of a scan: the scanner's own message records, in the unit the scan counted.

The lint rules work on whole messages but must point at the tokens responsible; each
:class:`~harmony_viz.scanner.Message` keeps the header, body and stop-token spans and maps a
character range of its text back to input units (``span_of``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from harmony_viz.findings import Unit
from harmony_viz.scanner import STANDARD_ROLES, Message

__all__ = ["STANDARD_ROLES", "build_views", "turns"]


def build_views(result: Any, *, unit: Unit) -> list[Message]:
    """The messages of a ``ScanResult``, in stream order, their spans counting ``unit``."""
    return [m if m.unit == unit else replace(m, unit=unit) for m in result.messages]


def turns(views: Sequence[Message]) -> list[list[Message]]:
    """Messages grouped into turns: each turn is what follows one user message.

    Messages before the first user message (system, developer) form their own group.
    """
    groups: list[list[Message]] = [[]]
    for view in views:
        if view.role == "user":
            groups.append([])
        else:
            groups[-1].append(view)
    return groups
