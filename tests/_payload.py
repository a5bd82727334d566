"""Reading the widget's binary payload back in the tests, as the browser decodes it."""

from __future__ import annotations

from typing import Any


def finding_columns(meta: dict[str, Any], buf: bytes) -> dict[str, Any]:
    """The ``finding.*`` columns of a payload (``meta`` and its buffer), by name without the prefix, deltas summed."""
    import numpy as np

    cols = {}
    for c in meta["columns"]:
        if c["name"].startswith("finding."):
            arr = np.frombuffer(buf, dtype=np.dtype("<" + c["dtype"]), count=c["length"], offset=c["offset"]).astype(np.int64)
            cols[c["name"][len("finding.") :]] = np.cumsum(arr) if c["delta"] else arr
    return cols
