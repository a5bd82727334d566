"""One generation segment: run ``generate`` until ``<|call|>``, ``<|return|>`` or a token budget.

Every generated token is captured as it is produced, through a streamer, with the time
since the run began; optionally its log-probability and the top-k alternatives, taken
from the scores before temperature and top-p are applied (the model's own distribution).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harmony_viz.extras import require
from harmony_viz.tokens import CALL, RETURN

# <|endoftext|> ends generation too: a model that writes it has left the format.
ENDOFTEXT = 199999
STOP_IDS: tuple[int, ...] = (RETURN, CALL, ENDOFTEXT)

SegmentStop = Literal["call", "return", "eos", "length"]
OnToken = Callable[[int, float], None]


@dataclass(frozen=True, slots=True)
class Sampling:
    """Sampler settings; ``temperature`` 0 means greedy. The defaults are gpt-oss's recommended 1.0 / 1.0."""

    temperature: float = 1.0
    top_p: float = 1.0
    top_logprobs: int = 0

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be ≥ 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if not 0 <= self.top_logprobs <= 20:
            raise ValueError(f"top_logprobs must be between 0 and 20, got {self.top_logprobs}")

    def to_json(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "top_p": self.top_p, "top_logprobs": self.top_logprobs}

    def generate_kwargs(self) -> dict[str, Any]:
        if self.temperature == 0:
            return {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        return {"do_sample": True, "temperature": self.temperature, "top_p": self.top_p, "top_k": None}


@dataclass(frozen=True, slots=True)
class Segment:
    """The tokens one ``generate`` call produced, each with its time (seconds since the run began)."""

    token_ids: tuple[int, ...]
    times: tuple[float, ...]
    logprobs: tuple[float, ...] | None
    top_logprobs: tuple[tuple[tuple[int, float], ...], ...] | None
    stop: SegmentStop
    seconds: float = field(default=0.0)


def stop_of(token_ids: Sequence[int]) -> SegmentStop:
    """Why a segment ended, from its last token."""
    last = token_ids[-1] if token_ids else None
    if last == CALL:
        return "call"
    if last == RETURN:
        return "return"
    if last == ENDOFTEXT:
        return "eos"
    return "length"


def generate_segment(
    model: Any,
    input_ids: Sequence[int],
    *,
    max_new_tokens: int,
    sampling: Sampling,
    t0: float,
    on_token: OnToken | None = None,
    logits_processors: Sequence[Any] = (),
) -> Segment:
    """Generate from ``input_ids`` until a stop token or ``max_new_tokens``; capture every token."""
    torch = require("torch")
    generation = require("transformers.generation")
    device = next(model.parameters()).device
    ids = torch.tensor([list(input_ids)], dtype=torch.long, device=device)
    recorder = _LogprobRecorder(sampling.top_logprobs) if sampling.top_logprobs else None
    streamer = _Streamer(t0, on_token, recorder)
    processors = generation.LogitsProcessorList([*logits_processors, *([recorder] if recorder else [])])
    started = time.perf_counter()
    with torch.inference_mode():
        model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=max_new_tokens,
            eos_token_id=list(STOP_IDS),
            pad_token_id=ENDOFTEXT,
            streamer=streamer,
            logits_processor=processors,
            **sampling.generate_kwargs(),
        )
    tokens = tuple(streamer.tokens)
    return Segment(
        token_ids=tokens,
        times=tuple(streamer.times),
        logprobs=tuple(streamer.logprobs) if recorder else None,
        top_logprobs=tuple(streamer.top) if recorder else None,
        stop=stop_of(tokens),
        seconds=time.perf_counter() - started,
    )


class _LogprobRecorder:
    """A pass-through logits processor that keeps the last step's log-probabilities."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.last: Any = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        self.last = scores[0].float().log_softmax(-1)
        return scores


class _Streamer:
    """Receives each new token from ``generate`` (the prompt comes first and is skipped)."""

    def __init__(self, t0: float, on_token: OnToken | None, recorder: _LogprobRecorder | None) -> None:
        self.t0 = t0
        self.on_token = on_token
        self.recorder = recorder
        self.tokens: list[int] = []
        self.times: list[float] = []
        self.logprobs: list[float] = []
        self.top: list[tuple[tuple[int, float], ...]] = []
        self._seen_prompt = False

    def put(self, value: Any) -> None:
        if not self._seen_prompt:
            self._seen_prompt = True
            return
        for token in value.reshape(-1).tolist():
            t = time.perf_counter() - self.t0
            self.tokens.append(token)
            self.times.append(t)
            if self.recorder is not None and self.recorder.last is not None:
                row = self.recorder.last
                self.logprobs.append(float(row[token]))
                values, indices = row.topk(self.recorder.k)
                # -inf alternatives (masked by a processor) are not alternatives, and not JSON.
                self.top.append(tuple((i, v) for i, v in zip(indices.tolist(), values.tolist()) if v > float("-inf")))
            if self.on_token is not None:
                self.on_token(token, t)

    def end(self) -> None:
        pass
