"""A server's prompt against ours: the prompt check's record, and the comparison of two prompts (no server asked here).

Ours is our renderer's prompt for the same request (≡ openai-harmony, for completion), with two
facts taken from the server's prompt since a request carries neither: its date line (whether
there is one, and its value) and, where the request is silent about the effort, the server's
default effort. The two token streams are compared by the template lens's engine
(``templates.compare_renders``, the one code table), the other side named ``server``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harmony_viz.servers.core._answer import answer_of
from harmony_viz.servers.core._shapes import chat_of_responses, request_kind
from harmony_viz.templates import Difference, compare_renders, difference, read_side, render_ours

if TYPE_CHECKING:
    from harmony_viz.runs import Run

_DATE = re.compile(r"^Current date: (.+)$", re.MULTILINE)
_EFFORT = re.compile(r"^Reasoning: (low|medium|high)$", re.MULTILINE)


@dataclass(frozen=True)
class PromptCheck:
    """One request's check: where the prompt came from (``prompt_source``), both token streams and every difference.

    ``error`` is the server's refusal (then ``differences`` holds one ``request-rejected``).
    ``seconds`` is the time the server took to show its prompt (0 offline).
    """

    file: str
    engine: str | None
    prompt_source: str
    differences: tuple[Difference, ...]
    ours: tuple[int, ...] = ()
    server: tuple[int, ...] | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def identical(self) -> bool:
        return self.error is None and not self.differences

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.differences)

    def to_json(self) -> dict[str, Any]:
        """``{file, engine, prompt_source, identical, differences: [{code, severity, message, ours, server, where}], error}``."""
        return {"file": self.file, "engine": self.engine, "prompt_source": self.prompt_source, "identical": self.identical,
                "differences": [d.to_json() for d in self.differences], "error": self.error}


def ours_for(request: Mapping[str, Any], server_ids: Sequence[int]) -> list[int]:
    """Our prompt for ``request``, dated as the server's prompt is, at the server's effort where the request names none."""
    chat = dict(request) if request_kind(request) == "chat" else chat_of_responses(request)
    system = next((m.body for m in read_side(server_ids).messages if m.author == "system"), "")
    date = _DATE.search(system)
    effort = _EFFORT.search(system)
    if chat.get("reasoning_effort") is None and effort is not None:
        chat["reasoning_effort"] = effort.group(1)
    return render_ours(chat, date=date.group(1) if date else None, for_completion=True)


def compare_prompt(request: Mapping[str, Any], server_ids: Sequence[int]) -> tuple[list[int], tuple[Difference, ...]]:
    """Our prompt for ``request`` and every difference from the server's ``server_ids``."""
    ours = ours_for(request, server_ids)
    return ours, compare_renders(ours, server_ids, side="server").differences


def request_rejected(error: str) -> Difference:
    """The finding for a server that refused a valid request: its text kept."""
    return difference("request-rejected", f"the server refused the request: {error.splitlines()[0][:200] if error else ''}", "", error, side="server")


def check_prompt_ids(request: Mapping[str, Any], prompt_ids: Sequence[int], *, engine: str | None = None, file: str = "",
                     prompt_source: str = "given prompt ids", seconds: float = 0.0) -> PromptCheck:
    """The check of ``prompt_ids``, the prompt a server fed the model for ``request``, against ours."""
    ours, diffs = compare_prompt(request, prompt_ids)
    return PromptCheck(file=file, engine=engine, prompt_source=prompt_source, differences=diffs, ours=tuple(ours), server=tuple(prompt_ids),
                       seconds=seconds)


def capture_prompt_check(run: Run, name: str) -> PromptCheck | None:
    """The prompt check of a capture run, offline from the prompt ids it kept (None when it kept none)."""
    if not run.prompt_token_ids:
        return None
    server = run.metadata.extra["server"]
    return check_prompt_ids(server.get("request") or {}, run.prompt_token_ids, engine=server.get("engine"), file=name,
                            prompt_source=f"capture of {server.get('base_url')}: {server.get('prompt_source') or 'prompt_token_ids'}")


def _turn_prompt(turn: Mapping[str, Any]) -> list[int] | None:
    ids = next((c["prompt_token_ids"] for c in turn.get("chunks") or [] if isinstance(c.get("prompt_token_ids"), list)), None)
    return list(ids) if ids is not None else None


def turn_checks(run: Run, name: str = "") -> list[PromptCheck]:
    """A tool loop recorded through a server (``record --server``), turn by turn.

    The prompt the server fed the model at turn k+1 must carry turn k exactly as the model wrote
    it (its analysis, its call with ``<|constrain|>``) followed by the tool results: ours is turn
    k's prompt, the model's tokens of turn k, and what the server put after the last call (the
    tool results and ``<|start|>assistant``); the server's is the prompt it returned.
    """
    from harmony_viz.tokens import CALL

    turns = (run.metadata.extra or {}).get("server_turns") or []
    out = []
    for k in range(1, len(turns)):
        before, seen = _turn_prompt(turns[k - 1]), _turn_prompt(turns[k])
        wrote = answer_of("chat-stream", turns[k - 1].get("chunks") or []).token_ids
        if before is None or seen is None or wrote is None:
            continue  # a server that returned no ids: nothing to hold the prompt against
        have = before + list(wrote)
        calls = [i for i, t in enumerate(seen) if t == CALL and i >= len(before)]
        ours = have + seen[calls[-1] + 1:] if calls else have + seen[len(have):]
        diffs = compare_renders(ours, seen, side="server").differences
        engine = turns[k].get("engine")
        out.append(PromptCheck(file=f"{name or run.id} turn {k + 1}", engine=engine, prompt_source="prompt_token_ids of a recorded turn",
                               differences=diffs, ours=tuple(ours), server=tuple(seen)))
    return out
