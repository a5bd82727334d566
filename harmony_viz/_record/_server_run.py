"""One run out of the requests of a server tool loop: one token stream, harness spans, times, the server's answers.

Each request of a tool loop is a ``Turn``: the prompt ids the server rendered, the
completion ids it returned (vLLM's ``return_token_ids``), their arrival times. The run's
completion is the first prompt's continuation as the last request saw it: the model's tokens
of each turn, and between them the tokens the server rendered for the tool results (the
harness spans). Where a server sends the model's earlier tokens back re-rendered (not token
for token as generated), the run keeps the model's tokens and says so in
``metadata["rerendered"]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harmony_viz.tokens import CALL

__all__ = ["Stitched", "Turn", "stitch"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One streamed request: ids (None when the server returned none), arrival times since the run began, and the capture."""

    prompt_ids: tuple[int, ...] | None
    completion_ids: tuple[int, ...] | None
    times: tuple[float, ...]
    sent_at: float
    ttft: float | None
    finish: str | None
    capture: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Stitched:
    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    times: tuple[float, ...] | None
    harness_spans: tuple[tuple[int, int], ...]
    problem: str | None
    rerendered: tuple[str, ...] = ()


def stitch(turns: list[Turn]) -> Stitched:
    """The run's prompt, completion, per-token times and harness spans from its turns (see the module doc)."""
    first = turns[0]
    if first.prompt_ids is None or any(t.completion_ids is None or t.prompt_ids is None for t in turns):
        return Stitched(first.prompt_ids or (), (), None, (), "the server returned no token ids (vLLM's return_token_ids); the run keeps its answers only")
    prompt = list(first.prompt_ids)
    completion = list(first.completion_ids or ())
    times: list[float] | None = list(first.times) if len(first.times) == len(completion) else None
    spans: list[tuple[int, int]] = []
    rerendered: list[str] = []
    for k, turn in enumerate(turns[1:], 1):
        have = prompt + completion
        seen = list(turn.prompt_ids or ())
        if seen[: len(have)] == have:
            harness = seen[len(have):]
        else:
            # The server re-rendered the model's messages its own way (vLLM moves the recipient
            # into the header, for one): keep the model's tokens as generated, and take from the
            # server's prompt what follows the last call, i.e. the tool results it rendered.
            at = next((i for i, (a, b) in enumerate(zip(have, seen)) if a != b), min(len(have), len(seen)))
            calls = [i for i, t in enumerate(seen) if t == CALL and i >= len(prompt)]
            if seen[: len(prompt)] != prompt or not calls:
                return Stitched(tuple(prompt), tuple(completion), tuple(times) if times else None, tuple(spans),
                                f"request {k + 1}'s prompt does not continue the first (first difference at token {at}); "
                                "the run stops at the turn before it", tuple(rerendered))  # fmt: skip
            rerendered.append(f"request {k + 1} sent the model's earlier tokens re-rendered (first difference at token {at} of the run)")
            harness = seen[calls[-1] + 1 :]
        spans.append((len(completion), len(completion) + len(harness)))
        completion += harness + list(turn.completion_ids or ())
        if times is not None and len(turn.times) == len(turn.completion_ids or ()):
            times += [turn.sent_at] * len(harness) + list(turn.times)
        else:
            times = None
    return Stitched(tuple(prompt), tuple(completion), tuple(times) if times is not None else None, tuple(spans), None, tuple(rerendered))
