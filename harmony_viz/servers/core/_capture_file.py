"""The capture file: one exchange with a server kept whole as a run, written, read, and checked offline.

The run's ``metadata.extra["server"]`` holds the request, every chunk or event with its
arrival time, the final object, and where the token ids came from (vLLM's
``return_token_ids``, logprob tokens, or nowhere, said so), so ``html``, ``replay``,
``stats`` and ``server-check`` take a capture like any run. A replay's engine, notes and the
tools it could not send (``withheld_tools``) are kept, so an offline check says what the live one said.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz._runfile import is_capture as _is_capture_shape
from harmony_viz.runs import Run, RunMetadata, load_runs
from harmony_viz.servers.core._answer import answer_of, final_response
from harmony_viz.servers.core._exchange import Exchange
from harmony_viz.servers.core._logprobs import answer_logprobs
from harmony_viz.servers.core._prompt_diff import PromptCheck, capture_prompt_check
from harmony_viz.servers.core._result import CheckResult, check_answer
from harmony_viz.templates import LensError

if TYPE_CHECKING:
    from harmony_viz.trace import Logprobs

_ID_NOTES = {
    "return_token_ids": "token ids as the server returned them",
    "logprobs": "token ids from the logprob tokens",
    None: "the server returned no token ids (nor logprob tokens): this capture holds the answer only",
}


def now() -> str:
    """The time now (UTC, milliseconds) as a capture stamps it."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def _prompt_ids(ex: Exchange) -> tuple[int, ...]:
    pieces = list(ex.chunks) if ex.stream else [ex.final or {}]
    for p in pieces:
        if isinstance(p.get("prompt_token_ids"), list):
            return tuple(p["prompt_token_ids"])
    return ()


def _token_times(ex: Exchange) -> tuple[float, ...] | None:
    """Each streamed token's arrival time: the time of the chunk that carried it."""
    if not (ex.stream and ex.api.startswith("chat")):
        return None
    times = []
    for chunk, t in zip(ex.chunks, ex.times):
        for c in chunk.get("choices") or []:
            times += [t] * len(c.get("token_ids") or [])
    return tuple(times) if times else None


def _ids_of(ex: Exchange, script: list[int] | None) -> tuple[tuple[int, ...] | None, str | None, str]:
    """The completion ids a capture keeps, where they came from, and the note that says so."""
    answer = answer_of(ex.api, ex.server) if ex.server else None
    ids, source = (answer.token_ids, answer.token_ids_from) if answer and answer.token_ids is not None else (None, None)
    partial = ids is not None and script is not None and source == "logprobs" and ex.stream and list(ids) != list(script)
    if script is not None and (ids is None or partial):
        # a stream's logprobs miss the tokens that made no delta (llama.cpp): keep what was forced instead
        note = ("the stream's logprobs held only the tokens that made a delta; these are the ids its request forced" if partial
                else "the server returned no token ids; these are the ids its request forced")
        return tuple(script), "script", note
    return ids, source, _ID_NOTES[source]


def capture_run(base_url: str, ex: Exchange, *, model: str, started: str | None = None, script: list[int] | None = None,
                engine: str | None = None, notes: tuple[str, ...] | list[str] = (), withheld_tools: list[dict[str, Any]] | None = None,
                engine_version: str | None = None) -> Run:
    """The run that keeps exchange ``ex``; ``script`` (a replay's forced ids) stands in for ids the server did not return."""
    started = started or now()
    req = ex.request
    ids, source, note = _ids_of(ex, script)
    final = ex.final if not ex.stream else (final_response(list(ex.chunks)) if ex.api.startswith("responses") else None)
    server_meta = {
        "base_url": base_url, "api": ex.api, "request": req, "final": final, "chunks": list(ex.chunks),
        "arrival_times": list(ex.times), "elapsed": ex.elapsed, "error": ex.error,
        "token_ids_source": source, "token_ids_note": note, "engine": engine, "engine_version": engine_version, "notes": list(notes),
        "script": list(script) if script is not None else None, "withheld_tools": withheld_tools,
    }
    times = _token_times(ex) if source == "return_token_ids" else None
    return Run(
        id=f"capture-{started}",
        metadata=RunMetadata(model=model, source="capture", started_at=started, finished_at=now(),
                             sampling={k: req[k] for k in ("temperature", "max_tokens", "max_output_tokens") if k in req},
                             extra={"server": server_meta}),
        prompt_token_ids=_prompt_ids(ex),
        completion_token_ids=tuple(ids or ()),
        token_times=times if times is not None and len(times) == len(ids or ()) else None,
    )


def capture_of_result(result: CheckResult, request: dict[str, Any], *, base_url: str, model: str) -> Run:
    """A capture run of a check made without a live exchange (SGLang's parser, offline): its answer, engine and notes."""
    stream = result.api.endswith("-stream")
    ex = Exchange(api=result.api, request=request, final=None if stream else result.server, chunks=tuple(result.server) if stream else (),
                  elapsed=result.server_seconds, error=result.error)
    return capture_run(base_url, ex, model=model, script=list(result.token_ids), engine=result.engine, notes=result.notes,
                       engine_version=result.engine_version)


def save_capture(run: Run, path: str | os.PathLike[str]) -> Path:
    """Write a capture run as one JSON object (the run format ``load_runs`` reads)."""
    out = Path(path)
    out.write_text(json.dumps(run.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out


def load_capture(path: str | os.PathLike[str]) -> Run:
    """The capture run in ``path``; a ValueError in one line when the file is not a capture."""
    try:
        runs = load_runs(path)
    except OSError as exc:
        raise ValueError(str(exc)) from None
    if len(runs) != 1 or not is_capture(runs[0]):
        raise ValueError(f"{path}: not a capture (a run with metadata.server, as `harmony-viz capture -o` writes)")
    return runs[0]


def is_capture(source: Any) -> bool:
    """Whether ``source`` is a capture run (the run file's shape test, which the reader owns)."""
    return _is_capture_shape(source)


def _answer(server: dict[str, Any]) -> Any:
    return server.get("chunks") if server["api"].endswith("-stream") else server.get("final")


def capture_result(run: Run, name: str | None = None) -> CheckResult:
    """A capture checked offline: its answer against our projection of its completion ids, with its prompt check."""
    server = run.metadata.extra["server"]
    name = name or run.id
    ids = list(run.completion_token_ids)
    notes = tuple(server.get("notes") or ())
    if not ids:
        return CheckResult(file=name, api=server["api"], token_ids=(), replayed=None, server=_answer(server), expected=None, discrepancies=(),
                           error=server.get("token_ids_note") or "the capture holds no token ids", engine=server.get("engine"), notes=notes,
                           engine_version=server.get("engine_version"))
    withheld = server.get("withheld_tools")
    tools = (server.get("request") or {}).get("tools") or withheld  # Chat Completions or Responses tool objects
    # Ids that came back from the server: replayed when they equal what was forced (or nothing was).
    replayed = None
    if server.get("token_ids_source") in ("return_token_ids", "logprobs"):
        script = server.get("script")
        replayed = script is None or list(script) == ids
    result = check_answer(name, server["api"], ids, _answer(server), tools=tools, error=server.get("error"),
                          server_seconds=float(server.get("elapsed") or 0.0), engine=server.get("engine"), notes=notes,
                          tools_withheld=bool(withheld), replayed=replayed)
    return dataclasses.replace(result, prompt=_prompt_of(run, name), engine_version=server.get("engine_version"))


def _prompt_of(run: Run, name: str) -> PromptCheck | None:
    """The capture's prompt check beside its answer check; None without prompt ids or for a request we cannot render."""
    try:
        return capture_prompt_check(run, name)
    except LensError:
        return None


def capture_logprobs(run: Run) -> Logprobs | None:
    """A capture's log-probs over its replayed stream (prompt ids, then the completion), or None when its answer has none."""
    server = run.metadata.extra["server"]
    api = server["api"]
    prompt = len(run.prompt_token_ids)
    got = answer_logprobs(api, _answer(server), list(run.completion_token_ids), source=f"{server.get('engine') or 'the server'} {api}")
    return None if got is None else got.shifted(prompt, prompt + len(run.completion_token_ids))
