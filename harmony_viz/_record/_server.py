"""Recording through any OpenAI-compatible server (vLLM first) with the official ``openai`` client.

Requests are streamed Chat Completions with ``return_token_ids`` (vLLM), so each run keeps
the prompt and completion ids, every token's arrival time and the server's own chunks, in
the capture format of the server lens. Many prompts go out concurrently (at most
``concurrency`` at once); 429s, 5xx answers, timeouts and dropped connections are retried
with exponential backoff; each run is appended to the output file as it ends, and a request
that fails for good is named at the end instead of stopping the batch.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import os
import random
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmony_viz._record._loop import ToolCallRecord
from harmony_viz._record._prompts import PromptSpec, done_run_ids, run_id_of
from harmony_viz._record._server_run import Turn, stitch
from harmony_viz._record._tools import ToolRegistry, resolve_tools
from harmony_viz.runs import Run, RunMetadata, append_run

__all__ = ["Failure", "ServerBatch", "ServerOptions", "record_server", "record_server_batch"]

SOURCE = "harmony-viz record --server"


@dataclass(frozen=True)
class ServerOptions:
    """How each run is requested. ``scripts``: token ids a replay server forces, one list per request (tests, replays)."""

    model: str
    reasoning_effort: str = "medium"
    tools: Any = None  # "demo", None, a ToolRegistry or Tools (see resolve_tools)
    instructions: str | None = None
    max_tokens: int = 2048
    max_turns: int = 8
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    timeout: float = 300.0
    attempts: int = 5
    backoff: float = 0.5
    scripts: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Failure:
    """A run that failed for good: which, after how many attempts, and the last error."""

    run_id: str
    attempts: int
    error: str


@dataclass(frozen=True)
class ServerBatch:
    """What a batch did: runs recorded now, runs skipped as already done, failures, stop reasons."""

    recorded: int
    skipped: int
    failures: tuple[Failure, ...]
    stop_reasons: dict[str, int] = field(default_factory=dict)
    runs: tuple[Run, ...] = ()
    without_ids: int = 0


class _GaveUp(Exception):
    def __init__(self, attempts: int, error: str) -> None:
        super().__init__(error)
        self.attempts, self.error = attempts, error


def client_for(base_url: str, *, timeout: float) -> Any:
    import openai

    # max_retries=0: our own loop retries, so a stream that breaks mid-way is retried too.
    return openai.AsyncOpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY", timeout=timeout, max_retries=0)


def record_server(server: str, prompt: str, options: ServerOptions, *, run_id: str | None = None, out: str | os.PathLike[str] | None = None) -> Run:
    """Record one run of ``prompt`` through ``server`` (a base URL such as ``http://127.0.0.1:8000/v1``)."""
    import dataclasses

    spec = PromptSpec("run", prompt)
    batch = record_server_batch(server, [spec], options, n=1, progress=False, keep_runs=True)
    if batch.failures:
        raise RuntimeError(f"{server}: {batch.failures[0].error} (after {batch.failures[0].attempts} attempt(s))")
    run = dataclasses.replace(batch.runs[0], id=run_id or f"rec-{uuid.uuid4().hex[:12]}")
    if out is not None:
        append_run(run, out)
    return run


def record_server_batch(
    server: str,
    prompts: Iterable[PromptSpec | str],
    options: ServerOptions,
    *,
    n: int = 1,
    concurrency: int = 8,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = True,
    keep_runs: bool = False,
) -> ServerBatch:
    """Record ``n`` runs of every prompt, ``concurrency`` requests at a time, appending each run to ``out`` as it ends.

    ``prompts`` are ``PromptSpec`` s or plain strings (named ``p00000``, ``p00001``…). With
    ``resume``, runs whose id (``{prompt id}#{sample}``) is already in ``out`` are skipped.
    Seeds: ``options.seed + sample`` when a seed is given, so samples differ and repeat.
    """
    if n < 1 or concurrency < 1:
        raise ValueError(f"n={n}, concurrency={concurrency}: both must be at least 1")
    done = done_run_ids(out) if resume and out is not None else set()
    if out is not None and resume:
        _end_line(Path(out))
    specs = [p if isinstance(p, PromptSpec) else PromptSpec(f"p{i:05d}", p) for i, p in enumerate(prompts)]
    todo = [(spec, k) for spec in specs for k in range(n)]
    skipped = sum(run_id_of(spec, k) in done for spec, k in todo)
    todo = [(spec, k) for spec, k in todo if run_id_of(spec, k) not in done]
    return asyncio.run(_batch(server, todo, options, concurrency, out, progress, keep_runs, skipped))


def _end_line(path: Path) -> None:
    """A file cut mid-line by an interrupt gets its newline back, so the next run starts a line of its own."""
    if path.is_file() and path.stat().st_size:
        with path.open("rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")


async def _batch(server: str, todo: list[tuple[PromptSpec, int]], options: ServerOptions, concurrency: int,
                 out: str | os.PathLike[str] | None, progress: bool, keep_runs: bool, skipped: int) -> ServerBatch:  # fmt: skip
    from tqdm.auto import tqdm

    client = client_for(server, timeout=options.timeout)
    queue = iter(todo)
    failures: list[Failure] = []
    stops: dict[str, int] = {}
    kept: list[Run] = []
    recorded = without_ids = 0
    bar = tqdm(total=len(todo), unit="run", desc="recording", disable=not progress)

    async def worker() -> None:
        nonlocal recorded, without_ids
        for spec, sample in queue:  # one shared iterator: each item goes to one worker
            run_id = run_id_of(spec, sample)
            try:
                run = await _record_one(client, server, spec, sample, run_id, options)
            except _GaveUp as exc:
                failures.append(Failure(run_id, exc.attempts, exc.error))
                bar.update(1)
                continue
            if out is not None:
                append_run(run, out)  # on the event loop thread: lines never interleave
            if keep_runs:
                kept.append(run)
            reason = run.metadata.extra["stop_reason"]
            stops[reason] = stops.get(reason, 0) + 1
            recorded += 1
            without_ids += run.metadata.extra["token_ids_source"] is None
            bar.update(1)
            bar.set_postfix_str(f"{len(run.completion_token_ids)} tokens, {reason}")

    try:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, max(1, len(todo))))))
    finally:
        bar.close()
        await client.close()
    return ServerBatch(recorded, skipped, tuple(failures), stops, tuple(kept), without_ids)


async def _record_one(client: Any, server: str, spec: PromptSpec, sample: int, run_id: str, options: ServerOptions) -> Run:
    from harmony_viz.servers import answer_of

    effort = spec.reasoning_effort or options.reasoning_effort
    registry = resolve_tools(spec.tools if spec.tools is not None else options.tools)
    seed = None if options.seed is None else options.seed + sample
    messages: list[dict[str, Any]] = ([{"role": "developer", "content": options.instructions}] if options.instructions else [])
    messages.append({"role": "user", "content": spec.prompt})
    tools_json = [{"type": "function", "function": t.to_json()} for t in registry]
    started_at, t0 = _now(), time.perf_counter()
    turns: list[Turn] = []
    calls: list[ToolCallRecord] = []
    budget, attempts = options.max_tokens, 0
    stop = "turn_limit"
    for k in range(options.max_turns):
        chat: dict[str, Any] = {"messages": messages, "reasoning_effort": effort, "temperature": options.temperature, "top_p": options.top_p}
        if tools_json:
            chat["tools"] = tools_json
        if seed is not None:
            chat["seed"] = seed
        script = list(options.scripts[k]) if k < len(options.scripts) else None
        turn, used = await _send(client, chat, options, budget, script, t0)
        attempts += used
        turns.append(turn)
        answer = answer_of("chat-stream", turn.capture["chunks"])
        budget -= _used_tokens(turn)
        if not answer.calls:
            stop = {"stop": "return", "length": "token_limit"}.get(answer.finish or "", answer.finish or "unknown")
            break
        if not registry:
            stop = "unanswered_call"
            break
        messages.append(_assistant_message(answer, k))
        for i, call in enumerate(answer.calls):
            try:
                arguments = json.loads(call.arguments) if call.arguments.strip() else None
            except json.JSONDecodeError:
                arguments = call.arguments  # the registry reports non-object arguments to the model
            began = time.perf_counter()
            result = registry.call(call.name, arguments)
            messages.append({"role": "tool", "tool_call_id": f"call_{k}_{i}", "content": result.content})
            calls.append(ToolCallRecord(f"call_{k}_{i}", call.name, f"functions.{call.name}", call.arguments, result.content,
                                        result.error, 0, 0, time.perf_counter() - began))  # fmt: skip
        if budget <= 0:
            stop = "token_limit"
            break
    return _to_run(run_id, server, spec, sample, options, effort, seed, registry, turns, calls, stop, attempts, started_at)


def _assistant_message(answer: Any, turn: int) -> dict[str, Any]:
    """The assistant's turn as the next request sends it back: reasoning, any preamble text, the calls."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": answer.content or None,
        "tool_calls": [
            {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for i, c in enumerate(answer.calls)
        ],
    }
    if answer.reasoning:
        message["reasoning"] = answer.reasoning  # vLLM reads "reasoning" (and "reasoning_content") back into analysis
    return message


async def _send(client: Any, chat: dict[str, Any], options: ServerOptions, budget: int, script: list[int] | None, t0: float) -> tuple[Turn, int]:
    """One streamed request, retried on 429, 5xx, timeouts and broken connections; (turn, attempts)."""
    import openai

    from harmony_viz.servers import build_request

    request = build_request("chat-stream", chat, model=options.model, max_tokens=max(1, budget), script=script)
    last = ""
    for attempt in range(1, options.attempts + 1):
        sent = time.perf_counter() - t0
        chunks: list[dict[str, Any]] = []
        arrivals: list[float] = []
        try:
            stream = await client.chat.completions.create(**request)
            async for piece in stream:
                arrivals.append(time.perf_counter() - t0)
                chunks.append(piece.to_dict())
            return _turn(request, chunks, arrivals, sent), attempt
        except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError) as exc:
            last = _describe(exc)
            delay = _retry_after(exc) or options.backoff * 2 ** (attempt - 1) * (1 + random.random() / 4)
        except openai.APIStatusError as exc:  # 400, 404…: asking again gives the same answer
            raise _GaveUp(attempt, _describe(exc)) from None
        if attempt < options.attempts:
            await asyncio.sleep(delay)
    raise _GaveUp(options.attempts, f"gave up after {options.attempts} attempts: {last}")


def _turn(request: dict[str, Any], chunks: list[dict[str, Any]], arrivals: list[float], sent: float) -> Turn:
    prompt_ids = next((tuple(c["prompt_token_ids"]) for c in chunks if isinstance(c.get("prompt_token_ids"), list)), None)
    ids: list[int] = []
    times: list[float] = []
    has_ids = False
    finish = None
    for chunk, t in zip(chunks, arrivals):
        for choice in chunk.get("choices") or []:
            finish = choice.get("finish_reason") or finish
            if isinstance(choice.get("token_ids"), list):
                has_ids = True
                ids += choice["token_ids"]
                times += [round(t, 6)] * len(choice["token_ids"])  # a chunk's tokens arrive together
    capture = {"api": "chat-stream", "request": request, "final": None, "chunks": chunks, "arrival_times": [round(t - sent, 6) for t in arrivals],
               "elapsed": round(arrivals[-1] - sent, 6) if arrivals else 0.0, "error": None,
               "token_ids_source": "return_token_ids" if has_ids else None}  # fmt: skip
    ttft = times[0] - sent if times else None
    return Turn(prompt_ids, tuple(ids) if has_ids else None, tuple(times), round(sent, 6), ttft, finish, capture)


def _used_tokens(turn: Turn) -> int:
    """Completion tokens of a turn: its ids, else the usage the stream ended with, else its chunks."""
    if turn.completion_ids is not None:
        return len(turn.completion_ids)
    usage = next((c["usage"] for c in reversed(turn.capture["chunks"]) if isinstance(c.get("usage"), dict)), None)
    if usage and isinstance(usage.get("completion_tokens"), int):
        return usage["completion_tokens"]
    return len(turn.capture["chunks"])


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    # The server's own words where it sent an error object; the client's message wraps them.
    message = body.get("message") if isinstance(body, dict) and isinstance(body.get("message"), str) else None
    message = message or getattr(exc, "message", None) or str(exc)
    return f"{status} {type(exc).__name__}: {message}" if status else f"{type(exc).__name__}: {message}"


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After in seconds, when it sent one (capped at a minute)."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


def _to_run(run_id: str, server: str, spec: PromptSpec, sample: int, options: ServerOptions, effort: str, seed: int | None,
            registry: ToolRegistry, turns: list[Turn], calls: list[ToolCallRecord], stop: str, attempts: int, started_at: str) -> Run:  # fmt: skip
    stitched = stitch(turns)
    # Tool calls point at the harness span that carries their result (one span per answered turn).
    by_turn: dict[int, list[ToolCallRecord]] = {}
    for c in calls:
        by_turn.setdefault(int(c.call_id.split("_")[1]), []).append(c)
    spans = dict(enumerate(stitched.harness_spans))
    records = [
        ToolCallRecord(c.call_id, c.name, c.recipient, c.arguments, c.content, c.error, *spans.get(k, (0, 0)), c.seconds)
        for k, mine in sorted(by_turn.items()) for c in mine
    ]  # fmt: skip
    extra: dict[str, Any] = {
        "prompt": spec.prompt,
        "prompt_id": spec.id,
        "sample": sample,
        "instructions": options.instructions,
        "tools": registry.names(),
        "base_url": server,
        "stop_reason": stop,
        "turns": len(turns),
        "attempts": attempts,
        "ttft_s": round(turns[0].ttft, 6) if turns and turns[0].ttft is not None else None,
        "turn_ttft_s": [round(t.ttft, 6) if t.ttft is not None else None for t in turns],
        "token_ids_source": "return_token_ids" if all(t.completion_ids is not None for t in turns) else None,
        "harness_spans": [list(s) for s in stitched.harness_spans],
        "tool_calls": [c.to_json() for c in records],
    }
    if stitched.problem:
        extra["problem"] = stitched.problem
    if stitched.rerendered:
        extra["rerendered"] = list(stitched.rerendered)
    server_turns = [{"base_url": server, **t.capture} for t in turns]
    if len(turns) == 1:
        extra["server"] = {**server_turns[0], "token_ids_note": _NOTE[server_turns[0]["token_ids_source"]]}
    else:
        extra["server_turns"] = server_turns
    metadata = RunMetadata(
        model=options.model,
        reasoning_effort=effort,  # type: ignore[arg-type]
        source=SOURCE,
        sampling={"temperature": options.temperature, "top_p": options.top_p, "max_tokens": options.max_tokens, "max_turns": options.max_turns},
        seed=seed,
        started_at=started_at,
        finished_at=_now(),
        device=None,
        extra=extra,
    )
    return Run(id=run_id, metadata=metadata, prompt_token_ids=stitched.prompt_ids, completion_token_ids=stitched.completion_ids,
               token_times=stitched.times)  # fmt: skip


_NOTE = {
    "return_token_ids": "token ids as the server returned them",
    None: "the server returned no token ids (vLLM's return_token_ids): this run holds the answer only",
}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")
