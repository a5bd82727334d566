"""After ``<|endoftext|>``: the stream ends at the first one, and what follows is only counted.

A completion ends at its stop token; batch generation pads a finished one with more
``<|endoftext|>``. :class:`Tail` counts that padding and notes whether anything but padding
and whitespace followed, so the scanner reports it as one finding at the end: ``padding``
(info) or ``after-endoftext``.
"""

from __future__ import annotations

from collections.abc import Sequence

from harmony_viz.scanner._vocab import CONTROL_IDS, ENDOFTEXT, ENDOFTEXT_LITERAL


class Tail:
    """What came from the first ``<|endoftext|>`` on.

    ``start``: where it came; ``pad``: how many came; ``other``: whether anything but them and
    whitespace followed; ``carry``: a text suffix that may begin another (a spelling cut by a
    chunk); ``after``: what it came after, in words.
    """

    __slots__ = ("start", "pad", "other", "carry", "after")

    def __init__(self, start: int, after: str) -> None:
        self.start = start
        self.pad = 1
        self.other = False
        self.carry = ""
        self.after = after

    def token(self, tid: int, raw: Sequence[bytes]) -> None:
        """Count token id ``tid`` (in the vocabulary; ``raw``: the bytes of each ordinary token)."""
        if tid == ENDOFTEXT:
            self.pad += 1
        elif not self.other and (tid in CONTROL_IDS or tid >= len(raw) or not raw[tid].isspace()):
            self.other = True

    def text(self, text: str) -> None:
        """Count the padding spelled in ``text``, note anything else."""
        if self.other or not text:
            return
        s = self.carry + text
        n = s.count(ENDOFTEXT_LITERAL)
        rest = s.replace(ENDOFTEXT_LITERAL, "") if n else s
        self.pad += n
        lt = rest.rfind("<")
        if lt >= 0 and ENDOFTEXT_LITERAL.startswith(rest[lt:]):
            self.carry, rest = rest[lt:], rest[:lt]
        else:
            self.carry = ""
        if rest and not rest.isspace():
            self.other = True

    def finding(self, end: int, unit: str) -> tuple[str, str]:
        """``(code, message)`` of the one finding, for the tail ending at ``end`` (counted in ``unit``: tokens or characters)."""
        if self.other or self.carry:
            return "after-endoftext", f"<|endoftext|> ends the stream {self.after}; the {end - self.start} {unit} from it on are not read (more than padding follows it)"
        n = self.pad
        return "padding", f"{n} token{'s' if n != 1 else ''} of <|endoftext|> padding {self.after}: the stream ends at the first, and none of it is part of the completion"
