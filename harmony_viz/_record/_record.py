"""``record`` and ``record_batch``: prompts in, run records out (JSONL, appended as each run ends)."""

from __future__ import annotations

import datetime as _dt
import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Union

from harmony_viz._record._generate import Sampling, generate_segment
from harmony_viz._record._loop import Recording, run_loop
from harmony_viz._record._model import LoadedModel, load_model
from harmony_viz._record._prompt import build_conversation, render_prompt, today
from harmony_viz._record._prompts import PromptSpec
from harmony_viz._record._server import ServerOptions, record_server
from harmony_viz._record._tools import ToolRegistry, ToolsLike, resolve_tools
from harmony_viz.runs import EFFORTS, Run, RunMetadata, append_run

ModelLike = Union[str, "os.PathLike[str]", LoadedModel]
PromptLike = Union[str, PromptSpec]  # a PromptSpec brings its own id, effort and tools
# The live-view hook: (run id, token id, seconds since the run began).
OnToken = Callable[[str, int, float], None]

SOURCE = "harmony-viz record"


def check_effort(effort: str) -> str:
    word = str(effort).strip().lower()
    if word not in EFFORTS:
        raise ValueError(f"unknown reasoning effort {effort!r}; expected one of {', '.join(EFFORTS)}")
    return word


def record(
    model: ModelLike,
    prompt: str,
    *,
    effort: str = "medium",
    tools: ToolsLike = None,
    instructions: str | None = None,
    date: str | None = None,
    max_new_tokens: int = 2048,
    max_turns: int = 8,
    temperature: float = 1.0,
    top_p: float = 1.0,
    top_logprobs: int = 0,
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    on_token: OnToken | None = None,
    live: Any = None,
    logits_processors: Sequence[Any] = (),
    run_id: str | None = None,
    device: str = "auto",
    dtype: str = "auto",
    server: str | None = None,
) -> Run:
    """Record one assistant turn for ``prompt`` (tool calls answered), as a ``Run``.

    With ``server`` (a base URL such as ``http://127.0.0.1:8000/v1``) the run is recorded
    through that OpenAI-compatible server instead, ``model`` being the name it serves (see
    :func:`harmony_viz._record.record_server_batch` for many prompts at once).

    ``model`` is a hub id, a local folder or a ``LoadedModel`` (load once with
    ``load_model`` to record many prompts). The prompt is rendered by our renderer, so
    ``run.prompt_token_ids`` are exactly ours; ``run.completion_token_ids`` hold the
    model's tokens and the tool messages the harness appended (listed in
    ``metadata["harness_spans"]``), each with a time in ``run.token_times``. With ``out``
    the run is appended to that JSONL file as soon as it ends. ``on_token(run_id,
    token_id, t)`` is called for every token as it arrives; ``live`` is a widget that
    follows the recording (see ``follow``).

    ``metadata["stop_reason"]`` says how the run ended: ``return`` (the model finished),
    ``token_limit`` (``max_new_tokens`` model tokens, all turns together), ``turn_limit``
    (``max_turns`` generate calls; a call made on the last turn is left unanswered),
    ``eos`` (``<|endoftext|>``) or ``malformed_call`` (``<|call|>`` on a message with no
    recipient; ``metadata["problem"]`` says where).

    WARNING: ``logprobs`` holds 0.0 for the harness's tokens (the tool messages), which
    the model did not choose; ``metadata["harness_spans"]`` lists them.
    """
    if server is not None:
        options = ServerOptions(model=str(model), reasoning_effort=check_effort(effort), tools=tools, instructions=instructions,
                                max_tokens=max_new_tokens, max_turns=max_turns, temperature=temperature, top_p=top_p, seed=seed)  # fmt: skip
        return record_server(server, prompt, options, run_id=run_id, out=out)
    loaded = model if isinstance(model, LoadedModel) else load_model(model, device=device, dtype=dtype)
    registry = resolve_tools(tools)
    effort = check_effort(effort)
    sampling = Sampling(temperature=temperature, top_p=top_p, top_logprobs=top_logprobs)
    date = date or today()
    conversation = build_conversation(prompt, effort=effort, date=date, instructions=instructions, tools=registry)
    prompt_ids = render_prompt(conversation)
    run_id = run_id or f"rec-{uuid.uuid4().hex[:12]}"
    limits = {"max_new_tokens": max_new_tokens, "max_turns": max_turns}
    recording, started_at = _generate(loaded, prompt_ids, registry, sampling, limits, run_id=run_id, seed=seed, on_token=on_token, live=live,
                                      logits_processors=logits_processors)  # fmt: skip
    run = _to_run(run_id, loaded, prompt_ids, recording, prompt=prompt, effort=effort, date=date, instructions=instructions, registry=registry,
                  sampling=sampling, limits=limits, seed=seed, started_at=started_at)  # fmt: skip
    if out is not None:
        append_run(run, out)
    return run


def record_batch(
    model: ModelLike,
    prompts: Sequence[PromptLike],
    *,
    efforts: Sequence[str] = ("medium",),
    out: str | os.PathLike[str],
    progress: bool = True,
    device: str = "auto",
    dtype: str = "auto",
    **options: Any,
) -> list[Run]:
    """Record every prompt at every effort, appending each run to ``out`` as it ends.

    A :class:`PromptSpec` (a line of a prompts file, see ``read_prompt_specs``) records at its
    own ``reasoning_effort`` and with its own ``tools`` when it gives them, and its ``id`` names
    its runs (``STAMP-ID-EFFORT``; a plain string is ``pNNN``). Runs are made prompt by prompt,
    efforts inner. An interrupt (Ctrl-C) loses only the run in progress: the finished ones are
    already on disk. ``options`` are ``record``'s.
    """
    efforts = [check_effort(e) for e in efforts]
    if not prompts:
        raise ValueError("no prompts to record; pass at least one prompt")
    specs = [p if isinstance(p, PromptSpec) else PromptSpec(f"p{i:03d}", p) for i, p in enumerate(prompts)]
    jobs = [(spec, effort) for spec in specs for effort in ([spec.reasoning_effort] if spec.reasoning_effort else efforts)]
    loaded = model if isinstance(model, LoadedModel) else load_model(model, device=device, dtype=dtype)
    from tqdm.auto import tqdm

    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    runs: list[Run] = []
    with tqdm(total=len(jobs), unit="run", desc="recording", disable=not progress) as bar:
        for spec, effort in jobs:
            own = {"tools": spec.tools} if spec.tools is not None else {}
            run = record(loaded, spec.prompt, effort=effort, out=out, run_id=f"{stamp}-{spec.id}-{effort}", **{**options, **own})
            runs.append(run)
            bar.set_postfix_str(f"{len(run.completion_token_ids)} tokens, {run.metadata.extra['stop_reason']}")
            bar.update(1)
    return runs


def _generate(
    loaded: LoadedModel,
    prompt_ids: Sequence[int],
    registry: ToolRegistry,
    sampling: Sampling,
    limits: dict[str, int],
    *,
    run_id: str,
    seed: int | None,
    on_token: OnToken | None,
    live: Any,
    logits_processors: Sequence[Any],
) -> tuple[Recording, str]:
    """The model's turn after ``prompt_ids``, tool calls answered, each token told to the hooks; and when it started."""
    follower = _live_hook(live, run_id, prompt_ids)
    hooks = [h for h in (on_token, follower) if h is not None]

    def emit(token: int, t: float) -> None:
        for hook in hooks:
            hook(run_id, token, t)

    def segment(ids: Sequence[int], budget: int, t0: float, on: Callable[[int, float], None]) -> Any:
        return generate_segment(
            loaded.model, ids, max_new_tokens=budget, sampling=sampling, t0=t0, on_token=on, logits_processors=logits_processors
        )

    if seed is not None:
        import torch

        torch.manual_seed(seed)
    # token_times count from this instant, which started_at names in wall-clock time.
    started_at, t0 = _now(), time.perf_counter()
    try:
        recording = run_loop(segment, prompt_ids, tools=registry, on_token=emit if hooks else None, t0=t0,
                             max_new_tokens=limits["max_new_tokens"], max_turns=limits["max_turns"])  # fmt: skip
    finally:
        if follower is not None:
            follower.close()
    return recording, started_at


def _live_hook(live: Any, run_id: str, prompt_ids: Sequence[int]) -> Any:
    if live is None:
        return None
    from harmony_viz._record._live import follow

    return follow(live, run_id, prompt_ids)


def _to_run(
    run_id: str,
    loaded: LoadedModel,
    prompt_ids: Sequence[int],
    rec: Recording,
    *,
    prompt: str,
    effort: str,
    date: str,
    instructions: str | None,
    registry: ToolRegistry,
    sampling: Sampling,
    limits: dict[str, int],
    seed: int | None,
    started_at: str,
) -> Run:
    model_times = [t for i, t in enumerate(rec.token_times) if not _inside(i, rec.harness_spans)]
    span = model_times[-1] - model_times[0] if len(model_times) > 1 else 0.0
    extra: dict[str, Any] = {
        **loaded.describe(),
        "prompt": prompt,
        "instructions": instructions,
        "tools": registry.names(),
        "conversation_start_date": date,
        "stop_reason": rec.stop_reason,
        "turns": rec.turns,
        "generated_tokens": rec.generated_tokens,
        "tokens_per_second": round((len(model_times) - 1) / span, 3) if span > 0 else None,
        "harness_spans": [list(s) for s in rec.harness_spans],
        "tool_calls": [c.to_json() for c in rec.tool_calls],
    }
    if rec.problem:
        extra["problem"] = rec.problem
    if rec.top_logprobs is not None:
        extra["top_logprobs"] = [[[i, round(v, 5)] for i, v in row] for row in rec.top_logprobs]
    metadata = RunMetadata(
        model=loaded.name,
        reasoning_effort=effort,  # type: ignore[arg-type]
        source=SOURCE,
        sampling={**sampling.to_json(), **limits},
        seed=seed,
        started_at=started_at,
        finished_at=_now(),
        device=loaded.device,
        extra=extra,
    )
    return Run(
        id=run_id,
        metadata=metadata,
        prompt_token_ids=tuple(prompt_ids),
        completion_token_ids=rec.completion_token_ids,
        token_times=tuple(round(t, 6) for t in rec.token_times),
        logprobs=tuple(round(v, 6) for v in rec.logprobs) if rec.logprobs is not None else None,
    )


def _inside(i: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= i < b for a, b in spans)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")
