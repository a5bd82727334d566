"""Benchmark: what recording costs over a bare ``model.generate`` on the same inputs.

Both sides decode greedily the same number of tokens from the same rendered prompt (stop
tokens are suppressed on both, so lengths match); runs alternate so drift in machine load
hits both; the figure is the ratio of medians. Run it with
``python -m benchmarks.bench_record --model DIR``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz._record import ENDOFTEXT, STOP_IDS, LoadedModel, Sampling, build_conversation, load_model, record, render_prompt
from harmony_viz.extras import require

PROMPT = "Explain in two sentences why the sky is blue."
DATE = "2026-01-01"


@dataclass(frozen=True, slots=True)
class Overhead:
    """Median seconds of each side and the overhead ratio (recorded / bare − 1)."""

    tokens: int
    bare_seconds: float
    record_seconds: float

    @property
    def overhead(self) -> float:
        return self.record_seconds / self.bare_seconds - 1

    def lines(self) -> list[str]:
        return [
            f"tokens per run        {self.tokens}",
            f"bare generate         {self.bare_seconds:.4f} s  ({self.tokens / self.bare_seconds:.1f} tokens/s)",
            f"record (streamer etc) {self.record_seconds:.4f} s  ({self.tokens / self.record_seconds:.1f} tokens/s)",
            f"recording overhead    {self.overhead * 100:+.2f} %  (goal < 3 %)",
        ]


class _NoStop:
    """Suppresses the stop tokens so both sides generate exactly the same number of tokens."""

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        scores[:, list(STOP_IDS)] = float("-inf")
        return scores


def recording_overhead(loaded: LoadedModel, *, tokens: int = 64, repeats: int = 5, top_logprobs: int = 0) -> Overhead:
    """Time bare ``generate`` and ``record`` alternately ``repeats`` times (after a warm-up).

    ``top_logprobs`` > 0 makes the recording keep log-probs too, to show what they cost.
    """
    torch = require("torch")
    prompt_ids = render_prompt(build_conversation(PROMPT, effort="low", date=DATE))
    device = next(loaded.model.parameters()).device
    ids = torch.tensor([prompt_ids], device=device)

    def bare() -> float:
        started = time.perf_counter()
        with torch.inference_mode():
            out = loaded.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=tokens,
                eos_token_id=list(STOP_IDS),
                pad_token_id=ENDOFTEXT,
                logits_processor=[_NoStop()],
                **Sampling(temperature=0).generate_kwargs(),  # greedy, with the very settings record passes at temperature 0
            )
        n = len(out[0].tolist()) - len(prompt_ids)  # .tolist() waits for the GPU
        elapsed = time.perf_counter() - started
        if n != tokens:
            raise RuntimeError(f"bare generate made {n} tokens, expected {tokens}")
        return elapsed

    def recorded() -> float:
        started = time.perf_counter()
        run = record(loaded, PROMPT, effort="low", date=DATE, temperature=0, max_new_tokens=tokens, top_logprobs=top_logprobs, logits_processors=[_NoStop()])
        elapsed = time.perf_counter() - started
        if len(run.completion_token_ids) != tokens:
            raise RuntimeError(f"record made {len(run.completion_token_ids)} tokens, expected {tokens}")
        return elapsed

    bare(), recorded()  # warm-up: kernels, caches, allocator
    bare_times: list[float] = []
    record_times: list[float] = []
    for _ in range(repeats):
        bare_times.append(bare())
        record_times.append(recorded())
    return Overhead(tokens, statistics.median(bare_times), statistics.median(record_times))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_record", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="hub id or folder (e.g. one made by make-tiny-model)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--top-logprobs", type=int, default=0, help="also keep log-probs and the top K (shows their cost)")
    args = parser.parse_args(argv)
    loaded = load_model(args.model, device=args.device, progress=False)
    print(f"model {loaded.name} on {loaded.device} ({loaded.kernels})")
    for line in recording_overhead(loaded, tokens=args.tokens, repeats=args.repeats, top_logprobs=args.top_logprobs).lines():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
