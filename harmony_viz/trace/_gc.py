"""Building a page's data without the cyclic garbage collector running through the heap.

A 131k-token trace and its payload make tens of thousands of small containers (events,
snapshots, message records) and free none of them in cycles. CPython starts a collection
every few hundred new containers, and now and then a full one that walks every object of
the process, the loaded vocabulary's tables included: a third of the time of writing a page
went there. While the data is built the collector waits; it runs as usual after (what was
made is then collected, or kept, in one pass).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def collecting_after(fn: F) -> F:
    """``fn`` with the cyclic garbage collector paused while it runs (left as it was when already off)."""

    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return paused  # type: ignore[return-value]
