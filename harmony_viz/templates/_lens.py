"""One conversation both ways: through the chat template and through our renderer, compared."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.render import RenderError, conversation_from_chat, render_conversation_for_completion, render_conversation_for_training
from harmony_viz.templates._align import align
from harmony_viz.templates._codes import Difference
from harmony_viz.templates._jinja import parse_date, render_template
from harmony_viz.templates._request import LensError, check_request, ours_request
from harmony_viz.templates._side import Side, read_side
from harmony_viz.templates._source import ChatTemplate
from harmony_viz.tokens import encode


@dataclass(frozen=True, slots=True)
class TemplateComparison:
    """Our render, the other's (the template's, or a server's prompt), and every difference between them."""

    ours: Side
    template: Side
    differences: tuple[Difference, ...]

    @property
    def identical(self) -> bool:
        return not self.differences

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.differences)

    def to_json(self, index: int = 0) -> dict[str, Any]:
        """``{"index", "identical", "differences": [{"code", "severity", "message", "ours", "template", "where"}]}``."""
        return {"index": index, "identical": self.identical, "differences": [d.to_json() for d in self.differences]}


def today() -> str:
    """Today's date as the template writes it (local time, like its ``strftime_now``)."""
    return _dt.date.today().isoformat()


def render_ours(request: Mapping[str, Any], *, date: str | None, for_completion: bool = False) -> list[int]:
    """Our render of ``request`` (openai-harmony's layout): for training, or the prompt for the next turn; no date line for ``date=None``."""
    try:
        conv = conversation_from_chat(ours_request(check_request(request)), conversation_start_date=date)
        if for_completion:
            return render_conversation_for_completion(conv)
        return render_conversation_for_training(conv)
    except RenderError as exc:
        raise LensError(f"ours: {exc}") from None


def compare_renders(ours_ids: Sequence[int], other: str | Sequence[int], *, side: str = "template") -> TemplateComparison:
    """Compare two finished renders: our token ids and another render, as text (a template's) or token ids (a server's prompt).

    ``side`` names the other render: ``template`` or ``server`` (in messages and in JSON).
    """
    from harmony_viz.templates._compare import SERVER, TEMPLATE, differences

    ours = read_side(ours_ids)
    theirs = read_side(encode(other) if isinstance(other, str) else other)
    who = {"template": TEMPLATE, "server": SERVER}[side]
    return TemplateComparison(ours, theirs, tuple(differences(align(ours.messages, theirs.messages), ours, theirs, who)))


def compare(
    request: Mapping[str, Any],
    template: ChatTemplate,
    *,
    date: str | None = None,
    template_date: str | None = None,
    for_completion: bool = False,
) -> TemplateComparison:
    """Render ``request`` (a Chat Completions request) both ways and name every difference.

    ``date`` (``YYYY-MM-DD``, default today) goes into both system messages, so that only
    real differences remain; ``template_date`` gives the template another date.
    ``for_completion`` renders the prompt for the next assistant turn (the template's
    ``add_generation_prompt``) instead of the training text. Raises LensError (one line,
    saying which side) when a side cannot render the request.
    """
    check_request(request)
    date = date or today()
    parse_date(date)
    ours_ids = render_ours(request, date=date, for_completion=for_completion)
    text = render_template(template, request, date=template_date or date, add_generation_prompt=for_completion)
    return compare_renders(ours_ids, text)
