"""A render diff as the browser's diff view draws it: both sides' ids and token texts, difflib opcodes, named differences.

One payload for every view of two renders side by side: the playground's template layout
(our render against a Jinja chat template's) and the replay page's prompt tab (our prompt
against the one a server rendered). Each difference carries its token span on each side,
so the browser can put the codes on the token chips. Imports nothing above ``tokens`` and
``findings``: the playground and the server lens both use it.

>>> pieces([200006, 1428])[0]
['<|start|>', 'user']
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harmony_viz.findings import Sides, Where
from harmony_viz.tokens import encoding, special_by_id

if TYPE_CHECKING:
    from harmony_viz.templates import Difference

__all__ = ["diff_json", "pieces"]


def pieces(tokens: Sequence[int]) -> tuple[list[str], list[int]]:
    """Each token's text, and the group each belongs to.

    A character split across tokens shows on the group's first token; the others show
    ``‥`` and carry the first one's index in ``groups`` (otherwise their own index).
    """
    enc = encoding()
    raw = [enc.decode_single_token_bytes(t) for t in tokens]
    texts: list[str] = []
    groups: list[int] = []
    i = 0
    while i < len(raw):
        special = special_by_id(tokens[i])
        if special is not None:
            texts.append(special.literal)
            groups.append(i)
            i += 1
            continue
        end = i + 1
        text = _utf8(raw[i])
        # up to 4 tokens can make one character; stop at the first span that decodes
        while text is None and end < len(raw) and end - i < 4 and special_by_id(tokens[end]) is None:
            end += 1
            text = _utf8(b"".join(raw[i:end]))
        if text is None:
            end = i + 1
            text = raw[i].decode("utf-8", errors="replace")
        texts.append(text)
        groups.append(i)
        for _ in range(i + 1, end):
            texts.append("‥")
            groups.append(i)
        i = end
    return texts, groups


def _utf8(b: bytes) -> str | None:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return None


def diff_json(ours: Sequence[int], theirs: Sequence[int], found: Sequence[Difference], *, layout: str, origin: str) -> dict[str, Any]:
    """The render diff of our render against another (``layout`` ``template``: a chat template's; ``prompt``: a server's prompt).

    Each difference carries its span on our side (``ours_span``) and on the other (``template_span``, whichever render it is).
    """
    ours, theirs = list(ours), list(theirs)
    enc = encoding()
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    ops = [{"tag": tag, "ref": [i1, i2], "model": [j1, j2], "reference_text": enc.decode(ours[i1:i2]), "model_text": enc.decode(theirs[j1:j2])}
           for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    differences = [{**d.to_json(), "ours_span": _span(d.where, "ours"), "template_span": _span(d.where, "theirs")} for d in found]
    return {"layout": layout, "origin": origin, "reference": ours, "model": theirs, "ops": ops,
            "reference_pieces": pieces(ours)[0], "model_pieces": pieces(theirs)[0], "differences": differences}


def _span(where: Where, side: str) -> list[int] | None:
    span = getattr(where, side) if isinstance(where, Sides) else None
    return [span.start, span.end] if span is not None else None
