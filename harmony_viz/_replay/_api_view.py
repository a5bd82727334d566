"""The API view for the replay: what a server would return as of a step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harmony_viz._replay._steps import tokens_fed
from harmony_viz.projections import Projector
from harmony_viz.scanner import MessageEnd, MessageStart

if TYPE_CHECKING:
    from harmony_viz.trace import Trace

# (label, legacy_vllm): the correct server and vLLM before its preamble fix, side by side
_FLAVOURS = ((False, ""), (True, " (legacy vLLM)"))


class ApiViews:
    """Chat Completions / Responses objects of a trace as of any step, computed incrementally.

    Moving forward folds in only the new steps; moving back starts again from step 0.
    """

    def __init__(self, trace: Trace, *, prompt_tokens: int | None = None) -> None:
        self.trace = trace
        self.prompt_tokens = prompt_tokens  # a run's prompt length; else usage counts what precedes the turn
        self._projectors: list[Projector] | None = None
        self._at = -1

    def _reset(self) -> None:
        self._projectors = [
            Projector(legacy_vllm=legacy, prompt_tokens=self.prompt_tokens, tokens_before=self._tokens_before) for legacy, _ in _FLAVOURS
        ]
        self._at = -1

    def _tokens_before(self, offset: int) -> int:
        """Tokens before a span offset (the offset is a character for a trace fed as text)."""
        if self.trace.unit == "tokens":
            return offset
        import numpy as np

        return int(np.searchsorted(self.trace.token_char_starts, offset, side="left"))

    def at(self, step: int) -> dict[str, Any]:
        """``{"step": k, "views": {name: object}}``, with ``"error"`` when a projection failed."""
        try:
            if self._projectors is None or step < self._at:
                self._reset()
            assert self._projectors is not None
            last = self.trace.n_steps - 1
            for k in range(self._at + 1, step + 1):
                fed = tokens_fed(self.trace, k)
                for p in self._projectors:
                    p.add(self.trace.steps[k].events, fed=fed)
                    if k == last:
                        p.finish()
            self._at = max(self._at, step)
            views: dict[str, Any] = {}
            for p, (_, label) in zip(self._projectors, _FLAVOURS):
                views["chat" + label] = p.chat()
                views["responses" + label] = p.response()
            return {"step": step, "views": views}
        except Exception as exc:  # a projection bug must not take the replay down with it
            self._projectors = None
            return {"step": step, "views": {}, "error": f"projection failed at step {step}: {type(exc).__name__}: {exc}"}

    def boundaries(self, limit: int = 200) -> list[tuple[int, dict[str, Any]]]:
        """Views at the steps where a message started or ended (and the last step), at most ``limit``."""
        steps = [s.index for s in self.trace.steps if any(isinstance(e, (MessageStart, MessageEnd)) for e in s.events)]
        steps = sorted({0, *steps, self.trace.n_steps - 1})
        if len(steps) > limit:
            stride = len(steps) / (limit - 1)
            steps = sorted({steps[int(i * stride)] for i in range(limit - 1)} | {steps[-1]})
        self._projectors = None
        return [(k, self.at(k)) for k in steps]
