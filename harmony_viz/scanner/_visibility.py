"""The one visibility rule: which assistant text a user may see, which is reasoning, which is a call.

Every reader of scanner output (the projections, the widget's API view, the playground,
the lints, the stats) takes a message's ``kind`` from :func:`message_kind` and asks
:func:`visibility` what that means, so chain of thought is hidden by one rule everywhere.

The rule, for an assistant message (tool and other roles are not part of an answer):

0. In a completion (the scanner given ``role="assistant"``) every header is the model's, so a
   message under a word that is no role (``<|start|>助手``) is the model's text whose role is in
   doubt: **reasoning**, flagged by ``unknown-role`` (in a transcript that word names a tool).

1. A recipient other than ``assistant`` makes a **call**, whatever else is wrong with the
   header (recipients are normalised first: ``to = "functions.x"`` is ``functions.x``).
2. No ``<|channel|>`` at all: read as **final** (visible), with a ``missing-channel`` warning.
3. Any channel part that is ``analysis``, or is not a channel name (glued, misspelt, empty,
   ``thinking``): **reasoning**. Names are trimmed and compared case-insensitively.
4. Otherwise the last part decides: ``final`` is visible; ``commentary`` is a visible
   **preamble**, except a single commentary header the assistant addressed ``to=assistant``,
   which is reasoning. In a doubled header ``to=assistant`` is ignored.

When in doubt, text is reasoning: flagged by a diagnostic, never content, never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from harmony_viz.scanner._events import ContentKind

CHANNELS = ("analysis", "commentary", "final")
Visibility = Literal["visible", "reasoning", "call", "other"]

# kind -> what a reader of the answer gets; tool results and non-assistant text are "other".
_VISIBILITY: dict[str, Visibility] = {
    "final": "visible",
    "preamble": "visible",
    "reasoning": "reasoning",
    "tool_call": "call",
    "tool_result": "other",
    "other": "other",
}


def normalize_channel(value: str) -> str:
    """A channel part as the rule compares it: trimmed and lower-cased.

    >>> normalize_channel(" Final ")
    'final'
    """
    return value.strip().lower()


def message_kind(role: str, recipient: str | None, channels: Sequence[str], *, role_in_doubt: bool = False) -> ContentKind:
    """The content kind of a message, by the visibility rule (see the module docstring).

    ``channels`` holds every ``<|channel|>`` part of the header as written, in order; empty
    when the header has none. ``role_in_doubt``: a completion's message under a word that is no role.

    >>> message_kind("assistant", None, ["commentary", "final"])
    'final'
    >>> message_kind("assistant", "assistant", ["commentary"])
    'reasoning'
    >>> message_kind("assistant", None, ["commentaryanalysis"])
    'reasoning'
    >>> message_kind("assistant", "functions.f", ["bogus"])
    'tool_call'
    >>> message_kind("tool", None, ["final"], role_in_doubt=True)
    'reasoning'
    """
    if role_in_doubt:
        return "reasoning"
    if role == "tool":
        return "tool_result"
    if role != "assistant":
        return "other"
    if recipient is not None and recipient != "assistant":
        return "tool_call"
    if not channels:
        return "final"
    names = [normalize_channel(c) for c in channels]
    if any(n == "analysis" or n not in CHANNELS for n in names):
        return "reasoning"
    if names[-1] == "final":
        return "final"
    if recipient == "assistant" and len(names) == 1:
        return "reasoning"
    return "preamble"


def visibility(kind: str) -> Visibility:
    """What a reader gets of a message of this kind: ``visible``, ``reasoning``, ``call`` or ``other``.

    >>> visibility("preamble"), visibility("reasoning"), visibility("tool_call")
    ('visible', 'reasoning', 'call')
    """
    return _VISIBILITY.get(kind, "reasoning")


def is_assistants(role: str, kind: str) -> bool:
    """True for a message the assistant wrote: its role, or a completion's message whose role is in doubt (reasoning).

    The projections keep such a message in the turn and the run statistics count it as output.

    >>> is_assistants("assistant", "final"), is_assistants("tool", "reasoning"), is_assistants("tool", "tool_result")
    (True, True, False)
    """
    return role == "assistant" or kind == "reasoning"


def is_visible(kind: str) -> bool:
    """True for text a user may see as the answer (final text and preambles)."""
    return _VISIBILITY.get(kind) == "visible"
