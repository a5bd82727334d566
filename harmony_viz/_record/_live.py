"""Live view: push tokens to a widget while a recording runs.

A widget follows a recording if it has ``append_tokens(token_ids, times)`` (the replay
widget's live API); tokens are sent in small batches (every ``interval`` seconds) so a
fast GPU does not flood the notebook's comm channel, and the rest on ``close``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any


class LiveFollower:
    """The ``on_token`` hook that feeds a widget; call ``close()`` when the run ends."""

    def __init__(self, widget: Any, run_id: str, prompt_ids: Sequence[int], *, interval: float = 0.05) -> None:
        append = getattr(widget, "append_tokens", None)
        if not callable(append):
            raise TypeError(
                f"live={type(widget).__name__} cannot follow a recording: it has no append_tokens(token_ids, times) "
                f"method; pass the replay widget, or use on_token=callback"
            )
        self._append = append
        self._widget = widget
        self.run_id = run_id
        self.interval = interval
        self._ids: list[int] = []
        self._times: list[float] = []
        self._last = time.perf_counter()
        reset = getattr(widget, "start_live", None)
        if callable(reset):
            reset(list(prompt_ids), run_id=run_id)

    def __call__(self, run_id: str, token: int, t: float) -> None:
        self._ids.append(token)
        self._times.append(t)
        now = time.perf_counter()
        if now - self._last >= self.interval:
            self.flush()
            self._last = now

    def flush(self) -> None:
        if self._ids:
            ids, times = self._ids, self._times
            self._ids, self._times = [], []
            self._append(ids, times)

    def close(self) -> None:
        self.flush()
        finish = getattr(self._widget, "finish_live", None)
        if callable(finish):
            finish()


def follow(widget: Any, run_id: str, prompt_ids: Sequence[int]) -> LiveFollower:
    """A follower for ``widget``; see the module docstring for what the widget must offer."""
    return LiveFollower(widget, run_id, prompt_ids)
