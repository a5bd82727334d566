"""Text heuristics: reasoning-like prose, announced calls, and calls written as text.

Each returns character ranges into the text it was given, so callers can point at the
tokens. The patterns are tuned on the corpus (see tests/test_lint_corpus.py): ordinary
answers must not trip them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

# Chain-of-thought speaks about the user in the third person and about what "we" must do;
# a preamble speaks to the user. Two different signals are needed before calling it CoT.
_REASONING_SIGNALS = (
    re.compile(r"\bthe user(?:'s)?\b", re.I),
    re.compile(r"\bwe (?:must|need to|should|have to|can't|cannot|can|will)\b", re.I),
    re.compile(r"\b(?:the )?polic(?:y|ies)\b", re.I),
    re.compile(r"\b(?:disallowed|allowed) content\b", re.I),
    re.compile(r"\b(?:safe completion|refuse|refusal)\b", re.I),
    re.compile(r"\b(?:the assistant|as an ai)\b", re.I),
)

# Rule 9: "Let me run …", "I'll check …" with a verb that means using a tool. "Let me
# know" and "I'll be happy to" are not announcements.
_ANNOUNCE_RE = re.compile(
    r"\b(?:let me|let's|i'll|i will|i am going to|i'm going to|i'm gonna|now i(?:'ll| will)|i'll now|next,? i(?:'ll| will))\s+"
    r"(?:now\s+|first\s+|quickly\s+|just\s+)?"
    r"(?:run|check|call|look(?:\s+(?:it\s+)?up)?|search|fetch|query|execute|open|invoke|use the|look into|pull up|grab|browse|retrieve|compute|calculate|verify)\b",
    re.I,
)
# What every phrase _ANNOUNCE_RE matches holds (lowered): one of its openings and one of its verbs.
_ANNOUNCE_STARTS = ("let me", "let's", "i'll", "i will", "i am going to", "i'm going to", "i'm gonna")
_ANNOUNCE_VERBS = ("run", "check", "call", "look", "search", "fetch", "query", "execute", "open", "invoke", "use the", "pull up", "grab",
                   "browse", "retrieve", "compute", "calculate", "verify")
# Under IGNORECASE the pattern's letters match ASCII letters and four others: the Kelvin sign, which lower() makes k, and
# these three, which it does not make the letter they match (i, i, s). A text without them lowers to what the pattern reads.
_UNLOWERED = ("\u0130", "\u0131", "\u017f")
_SENTENCE_END_RE = re.compile(r"[.!?](?:\s+|$)|\n+")
# The inner text is whole lines, so the closing fence is looked for at line starts only (not tried at every character)
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n((?:[^\n]*\n)*?)[ \t]*\1[ \t]*$", re.M)
_TO_RE = re.compile(r"\bto=((?:functions|browser|container)\.[A-Za-z0-9_.-]+|python)\b")


def reasoning_signals(text: str) -> int:
    """How many distinct chain-of-thought signals ``text`` has."""
    return sum(1 for pattern in _REASONING_SIGNALS if pattern.search(text))


def announcement(text: str) -> tuple[int, int] | None:
    """The announcing phrase when it is in the last sentence or two of ``text``, else None."""
    stripped = text.rstrip()
    if not stripped:
        return None
    # The last two sentences (within the last 400 characters): an announcement followed by
    # a closing remark still counts.
    window = max(len(stripped) - 400, 0)
    tail = stripped[window:]
    if tail.isascii() or not any(c in tail for c in _UNLOWERED):  # lower() is then the pattern's IGNORECASE: a phrase it matches holds these words
        lowered = tail.lower()
        if not any(w in lowered for w in _ANNOUNCE_STARTS) or not any(w in lowered for w in _ANNOUNCE_VERBS):  # few texts hold an opening
            return None
    if _ANNOUNCE_RE.search(stripped, window) is None:
        return None  # none in the last 400 characters, so none in the last sentences either (most texts)
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(stripped, window) if m.end() < len(stripped)]
    tail_start = ends[-2] if len(ends) >= 2 else window
    last = None
    for m in _ANNOUNCE_RE.finditer(stripped, tail_start):
        last = m
    return (last.start(), last.end()) if last else None


def fenced_blocks(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, inner text) of each fenced code block."""
    if "```" not in text and "~~~" not in text:
        return  # no fence at all (most texts): the pattern need not look
    for m in _FENCE_RE.finditer(text):
        yield m.start(), m.end(), m.group(2)


_DECODER = json.JSONDecoder()  # raw_decode keeps no state: one for every text


def json_objects(text: str) -> Iterator[tuple[int, int, Any]]:
    """Top-level JSON objects written in ``text``: (start, end, value)."""
    decoder = _DECODER
    i = text.find("{")
    while i >= 0:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, Mapping):
            yield i, end, value
        i = text.find("{", end)


def call_target(value: Any, tools: Iterable[Any] | None) -> str | None:
    """The tool a JSON object in text tries to call, or None when it does not look like a call.

    ``{"name": X, "arguments": …}`` (and the ``function``/``parameters`` spellings) names
    X; otherwise an object whose keys fit one declared tool's parameters names that tool.
    """
    if not isinstance(value, Mapping):
        return None
    name = value.get("name") or value.get("function") or value.get("tool") or value.get("recipient")
    if isinstance(name, Mapping):
        name = name.get("name")
    if isinstance(name, str) and any(k in value for k in ("arguments", "parameters", "args", "input")):
        return name if "." in name else f"functions.{name}"
    if not tools or not value:
        return None
    keys = set(value)
    fits = []
    for tool in tools:
        params = tool.parameters
        if tool.namespace != "functions" or not isinstance(params, Mapping):
            continue
        props = set((params.get("properties") or {}).keys())
        required = set(params.get("required") or [])
        if props and required <= keys <= props:
            fits.append(tool.recipient)
    return fits[0] if len(fits) == 1 else None


def recipient_markup(text: str) -> Iterator[tuple[int, int, str]]:
    """``to=functions.x`` written in text: (start, end, recipient)."""
    if "to=" not in text:
        return  # most texts: the pattern need not look
    for m in _TO_RE.finditer(text):
        yield m.start(), m.end(), m.group(1)
