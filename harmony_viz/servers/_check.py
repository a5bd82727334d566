"""``server-check``: replay streams through a server (or read captures) and list where its answer departs.

For each stream and api: the server's answer, our projection of the same tokens, whether
the server returned exactly those tokens (``replayed``), and the discrepancies.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harmony_viz.servers._answer import answer_of
from harmony_viz.servers._client import APIS, Exchange, ServerError, client_for, default_model, send
from harmony_viz.servers._compare import Discrepancy, compare, compare_stream_final, messages_of, server_error


class CheckInputError(ValueError):
    """A stream, request or capture file that cannot be used; the message says why, in one line."""


@dataclass(frozen=True)
class CheckResult:
    """One stream through one api of one engine. ``check_seconds`` is our own cost (projection and comparison).

    ``engine`` is a registry name (``servers.engines``; None when unknown) and ``engine_version``
    its version as the server told it; ``notes`` say how the replay differed from the request (e.g.
    tools not sent), empty when nothing needs saying. ``served`` is False for an API the engine does
    not serve: no answer, no finding, not a failure.
    """

    file: str
    api: str
    token_ids: tuple[int, ...]
    replayed: bool | None
    server: Any
    expected: Any
    discrepancies: tuple[Discrepancy, ...]
    error: str | None = None
    server_seconds: float = 0.0
    check_seconds: float = 0.0
    engine: str | None = None
    notes: tuple[str, ...] = ()
    prompt: Any = None  # a capture's prompt check (``servers.PromptCheck``), when it kept the prompt ids
    engine_version: str | None = None
    served: bool = True

    def to_json(self) -> dict[str, Any]:
        out = {"file": self.file, "engine": self.engine, "engine_version": self.engine_version, "api": self.api, "served": self.served,
               "replayed": self.replayed, "notes": list(self.notes), "server": self.server, "expected": self.expected,
               "discrepancies": [d.to_json() for d in self.discrepancies]}
        if self.error is not None:
            out["error"] = self.error
        if self.prompt is not None:
            out["prompt"] = self.prompt.to_json()
        return out

    @property
    def worst(self) -> str | None:
        for level in ("error", "warning", "info"):
            if any(d.severity == level for d in self.discrepancies):
                return level
        return None


def read_stream(path: str) -> list[int]:
    """A completion from a file (through the one reader): a JSON array of token ids, or Harmony text."""
    from harmony_viz.inputs import InputError, read_path
    from harmony_viz.tokens import encode

    try:
        got = read_path(path)
    except InputError as exc:
        raise CheckInputError(str(exc)) from None
    if got.kind == "ids":
        ids = list(got.value)
    elif got.kind == "text":
        text = got.value
        ids = encode(text[:-1] if text.endswith("\n") else text)  # one trailing newline is the editor's, not the stream's
    else:
        raise CheckInputError(f"{path}: read as {got.form}; a stream is a completion after <|start|>assistant: Harmony text or a JSON array of token ids")
    if not ids:
        raise CheckInputError(f"{path}: the stream is empty")
    return ids


def read_json(path: str) -> Any:
    """The JSON value in file ``path``; CheckInputError in one line, worded as the one reader words it."""
    from harmony_viz.inputs import InputError, bad_json, file_text

    try:
        text = file_text(Path(path), path)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise bad_json(path, exc) from None
    except InputError as exc:
        raise CheckInputError(str(exc)) from None


def read_request(path: str | None) -> dict[str, Any]:
    """A Chat Completions request body (messages, tools), or {} for the default one-message request."""
    if path is None:
        return {}
    body = read_json(path)
    if not isinstance(body, dict) or not isinstance(body.get("messages", []), list) or not isinstance(body.get("tools", []), list):
        raise CheckInputError(f"{path}: expected a Chat Completions request object with a messages list (and optional tools list)")
    return body


def _steps(ids: Sequence[int]) -> list[list[Any]]:
    from harmony_viz.scanner import Scanner

    scanner = Scanner(role="assistant")
    steps = [scanner.feed([t]) for t in ids]
    steps.append(scanner.flush())
    return steps


def expected_for(api: str, ids: Sequence[int], tools: list[dict[str, Any]] | None = None, *, model: str = "gpt-oss") -> Any:
    """Our projection of the completion ``ids`` in the shape ``api`` returns (objects, or chunks/events)."""
    from harmony_viz import projections as pj

    steps = _steps(ids)
    if api == "chat":
        return pj.chat_completion([e for s in steps for e in s], model=model, tools=tools)
    if api == "chat-stream":
        return pj.chat_completion_chunks(steps, model=model, tools=tools)
    if api == "responses":
        return pj.response([e for s in steps for e in s], model=model, tools=tools)
    if api == "responses-stream":
        return pj.response_events(steps, model=model, tools=tools)
    raise ValueError(f"unknown api {api!r}")


def returned_ids(api: str, server: Any) -> tuple[int, ...] | None:
    if server is None:
        return None
    return answer_of(api, server).token_ids


def check_answer(file: str, api: str, ids: Sequence[int], server: Any, *, tools: list[dict[str, Any]] | None = None,
                 error: str | None = None, server_seconds: float = 0.0, engine: str | None = None, notes: Sequence[str] = (),
                 tools_withheld: bool = False, replayed: bool | None = None) -> CheckResult:
    """Compare one server answer (object or chunks/events) with our projection of ``ids``.

    An error (HTTP status, error event, broken connection) is itself the finding: ``server-error``
    over the whole stream, and what little came before it is not compared. ``replayed`` is
    worked out from the ids the answer carries unless given (a capture knows where its ids came from).
    """
    t0 = time.perf_counter()
    expected = expected_for(api, ids, tools)
    if error is None and server is not None:
        error = answer_error(api, server)
    if error is not None or server is None:
        findings = (server_error(error, len(ids)),) if error is not None else ()
        return CheckResult(file, api, tuple(ids), None, server, expected, findings, error, server_seconds, time.perf_counter() - t0, engine, tuple(notes))
    got = answer_of(api, server)
    findings = compare(api, got, answer_of(api, expected), messages_of(ids), ids, tools_withheld=tools_withheld)
    if replayed is None and got.token_ids is not None:
        back = list(got.token_ids)
        if back != list(ids) and got.token_ids_from == "logprobs" and api.endswith("-stream") and _in_order(back, ids):
            # llama.cpp streams logprobs only with the chunks that carry a delta: header tokens never come back.
            notes = (*notes, f"the stream carried logprobs for {len(back)} of {len(ids)} tokens (those that made a delta), so the replay is not confirmed")
        else:
            replayed = back == list(ids)
    return CheckResult(file, api, tuple(ids), replayed, server, expected, tuple(findings), error, server_seconds, time.perf_counter() - t0,
                       engine, tuple(notes))


_LAST_EVENTS = frozenset(("response.completed", "response.incomplete", "response.failed"))


def answer_error(api: str, server: Any) -> str | None:
    """Why an answer that came with HTTP 200 is a server error, else None: an error body in place of the
    object (vLLM 0.16 answers so when it refuses a stream or its engine dies), a Responses object that
    failed, or a stream that carried an error or was cut (:func:`stream_cut`)."""
    if isinstance(server, dict):
        err = server.get("error")
        if isinstance(err, dict) and (not server.get("choices") and not server.get("output") or server.get("status") == "failed"):
            return f"{err.get('code') or 'error'} in a 200 answer: {err.get('message') or err}"
        return None
    return stream_cut(api, server)


def stream_cut(api: str, server: Any) -> str | None:
    """Why a stream that ended without error is not whole (an error event, or no last event), else None."""
    if not api.endswith("-stream") or not isinstance(server, list):
        return None
    if api == "responses-stream":
        for event in server:
            if isinstance(event, dict) and event.get("type") == "error":
                return f"the stream carried an error event: {event.get('message') or event.get('code') or event}"
        if not any(isinstance(e, dict) and e.get("type") in _LAST_EVENTS for e in server):
            return f"the stream ended after {len(server)} event(s) without response.completed, .incomplete or .failed"
        return None
    chunks = [c for c in server if isinstance(c, dict)]
    if not chunks:
        # Older llama.cpp answers 200 and then sends a bare `error: {...}` line, which no client reads as a chunk.
        return "the stream ended with no chunk at all (an error line outside the event stream reads so)"
    if any(c.get("error") for c in chunks):
        bad = next(c["error"] for c in chunks if c.get("error"))
        return f"the stream carried an error: {bad.get('message') if isinstance(bad, dict) else bad}"
    if chunks and not any(ch.get("finish_reason") for c in chunks for ch in c.get("choices") or []):
        return f"the stream ended after {len(chunks)} chunk(s) without a finish_reason"
    return None


def _in_order(part: Sequence[int], whole: Sequence[int]) -> bool:
    """Whether ``part`` is ``whole`` with some tokens left out (a subsequence)."""
    rest = iter(whole)
    return all(any(t == w for w in rest) for t in part)


def with_stream_final(results: list[CheckResult]) -> list[CheckResult]:
    """Add stream-final-mismatch to each stream api whose non-streamed twin was checked too."""
    by_key = {(r.api, r.token_ids): r for r in results}
    out = []
    for r in results:
        twin = by_key.get((r.api.removesuffix("-stream"), r.token_ids)) if r.api.endswith("-stream") else None
        # A turn lost to a server error on either side is that finding alone, not also a difference between the two.
        if twin is not None and twin.server is not None and r.server and r.error is None and twin.error is None:
            t0 = time.perf_counter()
            extra = compare_stream_final(answer_of(r.api, r.server), answer_of(twin.api, twin.server))
            r = replace(r, discrepancies=r.discrepancies + tuple(extra), check_seconds=r.check_seconds + time.perf_counter() - t0)
        out.append(r)
    return out


def not_served(file: str, api: str, ids: Sequence[int], engine: Any, version: str | None = None) -> CheckResult:
    """The result for an API ``engine`` (a registry entry) does not serve: said in its notes, no finding."""
    return CheckResult(file, api, tuple(ids), None, None, None, (), engine=engine.name, notes=(engine.not_served(api),),
                       engine_version=version, served=False)


def check_streams(base_url: str, streams: Sequence[str], *, model: str | None = None, request: dict[str, Any] | None = None,
                  apis: Sequence[str] = APIS, timeout: float = 120.0, save_captures: str | Path | None = None,
                  engine: str | None = None) -> Iterator[CheckResult]:
    """Replay each stream file through the server for each api and compare.

    ``engine`` is a registry name (``servers.engines``: how the stream is forced, which APIs it
    serves); None detects it from the server. An API it does not serve gives a ``served=False``
    result. ``save_captures`` is a folder: each exchange is also saved there as a capture
    (``STEM.API.json``), which ``server-check`` can check again offline.
    """
    parsed = [(s, read_stream(s)) for s in streams]  # bad input fails before any request
    yield from check_ids(base_url, parsed, model=model, request=request, apis=apis, timeout=timeout, save_captures=save_captures, engine=engine)


def check_ids(base_url: str, named: Sequence[tuple[str, Sequence[int]]], *, model: str | None = None, request: dict[str, Any] | None = None,
              apis: Sequence[str] = APIS, timeout: float = 120.0, save_captures: str | Path | None = None,
              engine: str | None = None) -> Iterator[CheckResult]:
    """:func:`check_streams` for streams already read: ``(name, ids)`` pairs."""
    from harmony_viz.servers import engines

    parsed = [(name, list(ids)) for name, ids in named]
    client = client_for(base_url, timeout=timeout)
    found = engines.get(engine) if engine is not None else None
    if found is None:
        found = engines.detect(base_url)
        if found is None:
            default_model(client)  # an unreachable server is told as such
            raise ServerError(f"cannot tell which engine serves {base_url} (none of {', '.join(engines.names())} answers as itself); pass --engine")
    if found.offline:
        raise ValueError(f"{found.name} runs offline: it takes no server URL")
    model = model or found.model(client)  # also tells an unreachable server before any replay
    version = found.version(engines.Probe(base_url, timeout=timeout))
    body = request or {}
    for name, ids in parsed:
        results = []
        for api in apis:
            if api not in found.apis:
                results.append(not_served(name, api, ids, found, version))
                continue
            replay = found.replay(api, body, ids, model=model)
            ex: Exchange = send(client, api, replay.request)
            if save_captures is not None:
                from harmony_viz.servers._capture import capture_run, save_capture

                Path(save_captures).mkdir(parents=True, exist_ok=True)
                run = capture_run(base_url, ex, model=model, script=list(replay.ids), engine=found.name, notes=replay.notes,
                                  withheld_tools=body.get("tools") if replay.tools_withheld else None, engine_version=version)
                save_capture(run, Path(save_captures) / f"{Path(name).stem}.{api}.json")
            result = check_answer(name, api, replay.ids, ex.server, tools=body.get("tools"), error=ex.error, server_seconds=ex.elapsed,
                                  engine=found.name, notes=replay.notes, tools_withheld=replay.tools_withheld)
            results.append(replace(result, engine_version=version))
        yield from with_stream_final(results)


def check_engine(engine: str, streams: Sequence[str], *, base_url: str | None = None, request: dict[str, Any] | None = None,
                 apis: Sequence[str] = APIS, options: dict[str, Any] | None = None, **kwargs: Any) -> Iterator[CheckResult]:
    """Each stream file through ``engine`` (a registry name): live at ``base_url``, or offline for an engine that runs here.

    APIs the engine does not serve give ``served=False`` results, in the order asked.
    """
    parsed = [(s, read_stream(s)) for s in streams]  # bad input fails before any engine is asked
    yield from check_named(engine, parsed, base_url=base_url, request=request, apis=apis, options=options, **kwargs)


def check_named(engine: str, named: Sequence[tuple[str, Sequence[int]]], *, base_url: str | None = None, request: dict[str, Any] | None = None,
                apis: Sequence[str] = APIS, options: dict[str, Any] | None = None, **kwargs: Any) -> Iterator[CheckResult]:
    """:func:`check_engine` for streams already read: ``(name, ids)`` pairs."""
    from harmony_viz.servers import engines

    found = engines.get(engine)
    if not found.offline:
        if base_url is None:
            raise ValueError(f"{found.name} is checked through a server: give its URL")
        yield from check_ids(base_url, named, request=request, apis=apis, engine=found.name, **kwargs)
        return
    served = [a for a in apis if a in found.apis]
    got = list(found.check_offline(named, request=request or {}, apis=served, options=options or {})) if served else []
    by_key = {(r.file, r.api): r for r in got}
    version = next((r.engine_version for r in got), None)
    for name, ids in named:
        for api in apis:
            hit = by_key.get((name, api))
            yield hit if hit is not None else not_served(name, api, ids, found, version)


def check_captures(paths: Sequence[str]) -> Iterator[CheckResult]:
    """Compare captures (``capture -o``, ``--save-captures``) offline: the tokens they hold against the answer they hold."""
    from harmony_viz.servers._capture import capture_result, load_capture

    loaded = [(p, load_capture(p)) for p in paths]  # bad input fails before any output
    # A streamed and a non-streamed capture of the same tokens are compared with each other too.
    yield from with_stream_final([capture_result(run, str(path)) for path, run in loaded])


def format_result(r: CheckResult, *, with_file: bool = True) -> str:
    """One table row (api, replayed, findings), then one line per discrepancy; the file first unless ``with_file`` is off."""
    replayed = {True: "yes", False: "NO", None: "n/a"}[r.replayed]
    n = len(r.discrepancies)
    found = f"error: {r.error}" if r.error else ("no discrepancies" if n == 0 else f"{n} discrepanc{'y' if n == 1 else 'ies'}")
    lines = [f"{r.file}  ({len(r.token_ids)} tokens)"] if with_file else []
    engine = f"{r.engine} " if r.engine else ""
    if not r.served:
        found = "not served"
    lines.append(f"  {engine}{r.api:<17} replayed={replayed:<4} {found}")
    lines += [f"      note: {n}" for n in r.notes]
    for d in r.discrepancies:
        span = f"  (tokens {d.where.start}-{d.where.end})" if d.where else ""
        lines.append(f"      [{d.severity}] {d.code}: {d.message}{span}")
    if r.prompt is not None:
        n = len(r.prompt.differences)
        lines.append(f"  prompt ({r.prompt.prompt_source}): " + ("identical" if r.prompt.identical else f"{n} difference{'' if n == 1 else 's'}"))
        lines += [f"      [{d.severity}] {d.code}: {d.message}" for d in r.prompt.differences]
    return "\n".join(lines)
