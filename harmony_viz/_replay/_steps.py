"""Steps of a replay: the chunking menu, the one range check, and keeping one's place across chunkings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harmony_viz.trace import Trace

# Offered in the chunking menu; any other spelling can be typed in.
PRESETS: tuple[str, ...] = ("token", "every:4", "every:16", "random:0", "chars:8", "bytes:3", "server")


def step_error(step: object, n_steps: int) -> str | None:
    """Why ``step`` is not a step of a replay with ``n_steps`` steps, or None when it is."""
    if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < n_steps:
        return None
    return f"step {step!r} is out of range: this replay has steps 0 to {n_steps - 1}"


def tokens_fed(trace: Trace, step: int) -> int:
    """How many whole tokens had been fed by the end of ``step``."""
    if trace.unit == "tokens":
        return trace.step_end(step)  # no column of every step's for a page's two reads
    return int(_fed(trace)[step])


def step_for_tokens(trace: Trace, fed: int) -> int:
    """The first step that has fed at least ``fed`` tokens (the same place under another chunking)."""
    if trace.unit == "tokens":
        return min(trace.step_fed(fed), trace.n_steps - 1)
    import numpy as np

    return min(int(np.searchsorted(_fed(trace), fed, side="left")), trace.n_steps - 1)


def _fed(trace: Trace) -> Any:
    """Whole tokens fed by the end of each step (they never decrease)."""
    if trace.unit == "chars":
        import numpy as np

        return np.searchsorted(trace.token_char_starts, trace.step_ends, side="right") - 1
    return trace.step_ends
