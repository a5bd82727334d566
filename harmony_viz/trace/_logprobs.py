"""The model's alternatives: each token's log-probability and its top-K rivals, where a source reported them.

A recorded run keeps them (``record(..., top_logprobs=K)``: ``Run.logprobs`` and
``metadata.extra["top_logprobs"]``), and so does a capture of a server asked for ``logprobs``
(the server lens reads those: ``servers.answer_logprobs``). Either way they become one
:class:`Logprobs` over the replayed stream, prompt included (its tokens have none), and
travel to the browser as columns (``_replay/_chips.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, eq=False)
class Logprobs:
    """Log-probabilities over a stream of ``n`` tokens.

    ``value[t]`` is log p of token ``t`` as the model produced it (NaN: not reported, e.g. a
    prompt token, or one the harness inserted); ``alt_ids[t, k]`` and ``alt_values[t, k]`` its
    ``k``-th alternative, most likely first (id -1: none); ``source`` says who reported them.

    >>> lp = Logprobs.from_rows(3, [(1, -0.5, [(12194, -0.5), (200007, -1.25)])], "a test")
    >>> lp.reported, lp.k, lp.alternatives(1)
    (1, 2, [(12194, -0.5), (200007, -1.25)])
    """

    value: np.ndarray
    alt_ids: np.ndarray
    alt_values: np.ndarray
    source: str

    @classmethod
    def from_rows(cls, n: int, rows: Iterable[tuple[int, float | None, Sequence[tuple[int, float]]]], source: str) -> Logprobs:
        """From ``(token, log p or None, [(alternative id, log p), ...])`` rows; tokens without a row have none."""
        import numpy as np  # a stream with log-probs only: a page without them never loads numpy

        rows = [r for r in rows if 0 <= r[0] < n]
        k = max((len(alts) for _, _, alts in rows), default=0)
        value = np.full(n, np.nan, dtype=np.float32)
        alt_ids = np.full((n, k), -1, dtype=np.int32)
        alt_values = np.full((n, k), np.nan, dtype=np.float32)
        for t, lp, alts in rows:
            if lp is not None and math.isfinite(lp):
                value[t] = lp
            ranked = sorted(((int(i), float(v)) for i, v in alts if math.isfinite(float(v))), key=lambda a: -a[1])
            for j, (i, v) in enumerate(ranked):
                alt_ids[t, j], alt_values[t, j] = i, v
        return cls(value, alt_ids, alt_values, source)

    @classmethod
    def from_run(cls, run: Any, offset: int = 0) -> Logprobs | None:
        """A recorded run's log-probs (``Run.logprobs``, ``metadata.extra["top_logprobs"]``) over its whole stream, the
        completion starting at ``offset``; None when it kept none. Tokens the harness inserted (tool results) have none."""
        values = run.logprobs
        extra = run.metadata.extra if run.metadata is not None else {}
        top = extra.get("top_logprobs") if isinstance(extra, dict) else None
        if values is None and not top:
            return None
        completion = len(run.completion_token_ids)
        harness = {t for a, b in (extra.get("harness_spans") or ()) for t in range(int(a), int(b))}
        rows = []
        for t in range(completion):
            if t in harness:
                continue
            lp = values[t] if values is not None and t < len(values) else None
            alts = [(int(i), float(v)) for i, v in top[t]] if top and t < len(top) else []
            rows.append((offset + t, lp, alts))
        k = max((len(r[2]) for r in rows), default=0)
        return cls.from_rows(offset + completion, rows, f"the recorder (transformers), top {k}" if k else "the recorder (transformers)")

    @property
    def n(self) -> int:
        return int(self.value.size)

    @property
    def k(self) -> int:
        """How many alternatives a token has at most."""
        return int(self.alt_ids.shape[1])

    @property
    def reported(self) -> int:
        """How many tokens have a log-prob."""
        import numpy as np

        return int(np.count_nonzero(~np.isnan(self.value)))

    def alternatives(self, t: int) -> list[tuple[int, float]]:
        """Token ``t``'s alternatives as ``(id, log p)``, most likely first."""
        return [(int(i), float(v)) for i, v in zip(self.alt_ids[t], self.alt_values[t]) if i >= 0]

    def shifted(self, offset: int, n: int) -> Logprobs:
        """The same log-probs over a stream of ``n`` tokens in which these start at ``offset``."""
        import numpy as np

        value = np.full(n, np.nan, dtype=np.float32)
        ids = np.full((n, self.k), -1, dtype=np.int32)
        values = np.full((n, self.k), np.nan, dtype=np.float32)
        m = max(0, min(self.n, n - offset))
        value[offset:offset + m], ids[offset:offset + m], values[offset:offset + m] = self.value[:m], self.alt_ids[:m], self.alt_values[:m]
        return Logprobs(value, ids, values, self.source)
