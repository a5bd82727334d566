"""Repair: analysis that leaked into visible text goes back into reasoning.

Three leaked shapes are recognised, outside code blocks and inline code:

- a whole analysis message, ``<|start|>assistant<|channel|>analysis<|message|>…<|end|>``,
  or its bare tail ``<|channel|>analysis<|message|>…`` (ends at ``<|end|>``, at the next
  ``<|start|>``/``<|channel|>``, or at the end of the text);
- a leaked final header, ``<|start|>assistant<|channel|>final<|message|>``, and stop
  tokens at the very end, which are dropped (the text after them is the answer);
- stripped control tokens, ``analysis…assistantfinal…`` (sglang#9244), when the whole
  text has that shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harmony_viz.leak._detect import exempt_ranges

_ANALYSIS_RE = re.compile(
    r"(?:<\|start\|>\s*assistant\s*)?<\|channel\|>\s*analysis\s*<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|\Z)",
    re.DOTALL,
)
_FINAL_HEADER_RE = re.compile(r"(?:<\|start\|>\s*assistant\s*)?<\|channel\|>\s*final\s*<\|message\|>")
_TRAILING_STOP_RE = re.compile(r"(?:<\|(?:end|return)\|>\s*)+\Z")
_STRIPPED_RE = re.compile(r"\A\s*analysis(.*?)assistantfinal(.*)\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Repair:
    """Visible text and reasoning after repair; ``moved`` holds the pieces taken out of the text."""

    content: str
    reasoning: str
    moved: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.moved)


def repair_reasoning_leak(content: str, reasoning: str = "") -> Repair:
    """Move analysis leaked into ``content`` into ``reasoning`` (appended, ``"\\n"``-joined).

    >>> r = repair_reasoning_leak("<|channel|>analysis<|message|>Think.<|end|>Answer.")
    >>> (r.content, r.reasoning)
    ('Answer.', 'Think.')
    """
    moved: list[str] = []
    m = _STRIPPED_RE.match(content)
    if m and "<|" not in content:
        moved.append(m.group(1))
        text = m.group(2)
    else:
        exempt = exempt_ranges(content)

        def keep(match: re.Match[str]) -> bool:
            return any(a <= match.start() < b for a, b in exempt)

        def take(match: re.Match[str]) -> str:
            if keep(match):
                return match.group(0)
            moved.append(match.group(1))
            return ""

        text = _ANALYSIS_RE.sub(take, content)
        exempt = exempt_ranges(text)
        text = _FINAL_HEADER_RE.sub(lambda mm: mm.group(0) if any(a <= mm.start() < b for a, b in exempt) else "", text)
        if moved or text != content:
            text = _TRAILING_STOP_RE.sub("", text)
    if not moved and text == content:
        return Repair(content, reasoning, ())
    parts = [p for p in (reasoning, *moved) if p]
    return Repair(text, "\n".join(parts), tuple(moved))
