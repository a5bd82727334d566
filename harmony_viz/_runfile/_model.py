"""The run record: one model generation, with its metadata, as token ids or Harmony text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from harmony_viz.findings import Span
from harmony_viz.scanner import Diagnostic

Effort = Literal["low", "medium", "high"]
EFFORTS: tuple[str, ...] = ("low", "medium", "high")

# Keys of the metadata object in our JSONL that have their own field; anything else is kept in ``extra``.
_META_FIELDS = ("model", "reasoning_effort", "source", "sampling", "seed", "started_at", "finished_at", "device")


def normalise_effort(value: Any) -> Effort | None:
    """``"Medium"``, ``"reasoning: high"``-style values to ``"low"/"medium"/"high"``; None when unknown."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower().rsplit(":", 1)[-1].strip()
    return word if word in EFFORTS else None  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class RunMetadata:
    """Where a run came from and how it was sampled; every field may be unknown (None/empty).

    ``sampling`` holds the sampler settings as given (``temperature``, ``top_p``,
    ``max_tokens``…); ``extra`` keeps whatever else the source recorded (prompt set,
    trial number…), so nothing is dropped on load.
    """

    model: str | None = None
    reasoning_effort: Effort | None = None
    source: str | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    started_at: str | None = None
    finished_at: str | None = None
    device: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _META_FIELDS if getattr(self, k) not in (None, {})}
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RunMetadata:
        """Build from a metadata object; unknown keys go to ``extra``, a bad effort is dropped."""
        seed = obj.get("seed")
        sampling = obj.get("sampling")
        return cls(
            model=_str_or_none(obj.get("model")),
            reasoning_effort=normalise_effort(obj.get("reasoning_effort")),
            source=_str_or_none(obj.get("source")),
            sampling=dict(sampling) if isinstance(sampling, dict) else {},
            seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
            started_at=_str_or_none(obj.get("started_at")),
            finished_at=_str_or_none(obj.get("finished_at")),
            device=_str_or_none(obj.get("device")),
            extra={k: v for k, v in obj.items() if k not in _META_FIELDS},
        )


@dataclass(frozen=True, slots=True)
class Run:
    """One generation: token ids (``prompt_token_ids`` + ``completion_token_ids``) or Harmony ``text``.

    When ``text`` is set the run has no prompt/completion split: every assistant message in
    it counts as output. ``token_times`` (seconds since the request, one per completion
    token) and ``logprobs`` (one per completion token) are optional. ``diagnostics`` hold
    problems found while loading (a bad JSON line, a non-integer token id); a malformed
    entry still becomes a run, usually an empty one, so a batch never aborts.
    """

    id: str
    metadata: RunMetadata = field(default_factory=RunMetadata)
    prompt_token_ids: tuple[int, ...] = ()
    completion_token_ids: tuple[int, ...] = ()
    text: str | None = None
    token_times: tuple[float, ...] | None = None
    logprobs: tuple[float, ...] | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def load_error(self) -> str | None:
        """Why nothing of this run could be read (its first load error), or None when it holds tokens or text."""
        if self.text is not None or self.prompt_token_ids or self.completion_token_ids:
            return None
        return next((d.message for d in self.diagnostics if d.code.startswith("load.") and d.severity == "error"), None)

    def to_json(self) -> dict[str, Any]:
        """The run as one object of our JSONL format (see :func:`harmony_viz.runs.save_runs`)."""
        out: dict[str, Any] = {"id": self.id, "metadata": self.metadata.to_json()}
        if self.text is not None:
            out["text"] = self.text
        else:
            out["prompt_token_ids"] = list(self.prompt_token_ids)
            out["completion_token_ids"] = list(self.completion_token_ids)
        if self.token_times is not None:
            out["token_times"] = list(self.token_times)
        if self.logprobs is not None:
            out["logprobs"] = list(self.logprobs)
        if self.diagnostics:
            out["load_diagnostics"] = [d.to_json() for d in self.diagnostics]
        return out

    def to_jsonl_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def load_diagnostic(code: str, message: str, *, severity: str = "error") -> Diagnostic:
    """A diagnostic about the input file rather than the token stream (span 0..0)."""
    return Diagnostic(code, severity, message, Span(0, 0))  # type: ignore[arg-type]


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


_EFFORT_RE = re.compile(r"Reasoning:\s*(low|medium|high)\b", re.IGNORECASE)


def effort_from_text(text: str) -> Effort | None:
    """The effort a rendered system message asks for (``Reasoning: high``), None when absent."""
    found = _EFFORT_RE.search(text)
    return normalise_effort(found.group(1)) if found else None
