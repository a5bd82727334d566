"""``capture``: one real request to any OpenAI-compatible server, kept whole as a run.

The run's ``metadata.extra["server"]`` holds the request, every chunk or event with its
arrival time, the final object, and where the token ids came from (vLLM's
``return_token_ids``, logprob tokens, or nowhere, said so), so ``html``, ``replay``,
``stats`` and ``server-check`` take a capture like any run.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harmony_viz.servers._answer import answer_of, final_response, logprob_ids
from harmony_viz.servers._client import Exchange, ServerError, build_request, client_for, default_model, send

APIS = ("chat", "responses")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def ids_from_logprobs(api: str, server: Any) -> tuple[int, ...] | None:
    """Token ids from Chat Completions logprobs: their ``id`` (llama.cpp), else ``token_id:N`` or ``bytes`` tokens; None if any is unknown."""
    from harmony_viz.tokens import encoding

    if not api.startswith("chat") or server is None:
        return None
    pieces = server if isinstance(server, list) else [server]
    choices = [c for p in pieces for c in p.get("choices") or []]
    direct = logprob_ids(choices)
    if direct is not None:
        return tuple(direct)
    entries = [e for c in choices for e in ((c.get("logprobs") or {}).get("content") or [])]
    if not entries:
        return None
    enc = encoding()
    out = []
    for e in entries:
        tok = str(e.get("token") or "")
        try:
            if tok.startswith("token_id:"):
                out.append(int(tok.split(":", 1)[1]))
            elif isinstance(e.get("bytes"), list):
                out.append(enc.encode_single_token(bytes(e["bytes"])))
            else:
                out.append(enc.encode_single_token(tok.encode("utf-8")))
        except (KeyError, ValueError):
            return None
    return tuple(out)


def _prompt_ids(api: str, ex: Exchange) -> tuple[int, ...]:
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


def capture(base_url: str, *, prompt: str | None = None, request: dict[str, Any] | None = None, model: str | None = None,
            api: str | None = None, stream: bool = False, max_tokens: int | None = None, out: str | os.PathLike[str] | None = None,
            timeout: float = 300.0, engine: str | None = None) -> Any:
    """Send one real request and keep it all as a :class:`~harmony_viz.runs.Run` (saved to ``out`` as JSON).

    ``request`` is a Chat Completions body (messages, tools); ``prompt`` makes a one-message
    one. For ``api="responses"`` the Responses request is derived from it; ``api=None`` is
    ``chat``, or ``responses`` for an engine that serves no Chat API. Fields the API
    does not define (``grammar``, ``logit_bias``, ``cache_prompt``…) are sent as given.
    Chat asks for ``logprobs``, so a llama-server's answer carries its token ids. The engine
    (detected unless given; a registry name) and its version are kept with the capture. An API
    the engine does not serve is a ValueError (the reference server serves only Responses).

    >>> run = capture("http://127.0.0.1:8000/v1", prompt="Hi", stream=True, out="hi.json")  # doctest: +SKIP
    >>> run.metadata.extra["server"]["token_ids_source"]  # doctest: +SKIP
    'return_token_ids'
    """
    if api not in (*APIS, None):
        raise ValueError(f"unknown api {api!r}; expected chat or responses")
    if (prompt is None) == (request is None):
        raise ValueError("pass exactly one of prompt= and request=")
    body = dict(request) if request is not None else {"messages": [{"role": "user", "content": prompt}]}
    from harmony_viz.servers import engines

    client = client_for(base_url, timeout=timeout)
    found = engines.get(engine) if engine is not None else None
    if found is None:
        if model is None and not body.get("model"):
            try:
                model = default_model(client)  # an unreachable server is told first; a server that lists none may still be known
            except ServerError:
                found = engines.detect(base_url)
                if found is None:
                    raise
        found = found or engines.detect(base_url) or engines.GENERIC
    model = model or body.get("model") or found.model(client)
    api = api or ("chat" if "chat" in found.apis else "responses")  # the reference server serves only Responses
    full_api = api + ("-stream" if stream else "")
    if full_api not in found.apis:
        raise ValueError(found.not_served(full_api))
    started = _now()
    req = found.capture_request(full_api, build_request(full_api, body, model=model, max_tokens=max_tokens or body.get("max_tokens"), script=None))
    version = found.version(engines.Probe(base_url))
    engine = None if found is engines.GENERIC else found.name
    ex = send(client, full_api, req)
    # A strict server may refuse vLLM's fields, then the alternatives, then logprobs: ask again with less.
    for drop in (("extra_body",), ("top_logprobs",), ("logprobs", "top_logprobs")):
        if not (ex.error and ex.error.startswith(("400", "422")) and drop[0] in req):
            break
        req = {k: v for k, v in req.items() if k not in drop}
        ex = send(client, full_api, req)
    run = capture_run(base_url, ex, model=model, started=started, engine=engine, engine_version=version)
    run = _with_prompt(run, base_url, body, api=api, engine=engine, model=model)
    if out is not None:
        save_capture(run, out)
    return run


def _with_prompt(run: Any, base_url: str, body: dict[str, Any], *, api: str, engine: str | None, model: str) -> Any:
    """The run with the prompt the server rendered, and how it was got (``server.prompt_source``), for the prompt lens.

    vLLM's answer carries ``prompt_token_ids``; a server whose answer does not (llama.cpp) is asked
    for its prompt (``servers.server_prompt``). A server that cannot show it leaves the run as it was.
    """
    from harmony_viz.servers._prompt import server_prompt

    server = run.metadata.extra["server"]
    if run.prompt_token_ids:
        server["prompt_source"] = "prompt_token_ids in the answer"
        return run
    try:
        got = server_prompt(base_url, body, engine=engine, kind=api, model=model)
    except ServerError:
        return run
    if got.ids is None:
        return run
    server["prompt_source"] = got.source
    return dataclasses.replace(run, prompt_token_ids=got.ids)


def capture_run(base_url: str, ex: Exchange, *, model: str, started: str | None = None, script: list[int] | None = None,
                engine: str | None = None, notes: tuple[str, ...] | list[str] = (), withheld_tools: list[dict[str, Any]] | None = None,
                engine_version: str | None = None) -> Any:
    """The run that keeps exchange ``ex``; ``script`` (a replay's forced ids) stands in for ids the server did not return.

    ``engine``, the replay's ``notes`` and the tools it could not send (``withheld_tools``) are
    kept, so an offline check says the same as the live one.
    """
    from harmony_viz.runs import Run, RunMetadata

    started = started or _now()
    full_api, req = ex.api, ex.request
    answer = answer_of(full_api, ex.server) if ex.server else None
    ids, source = (answer.token_ids, answer.token_ids_from) if answer and answer.token_ids is not None else (None, None)
    if ids is None:
        ids = ids_from_logprobs(full_api, ex.server)
        source = "logprobs" if ids is not None else None
    partial = ids is not None and script is not None and source == "logprobs" and ex.stream and list(ids) != list(script)
    if script is not None and (ids is None or partial):
        # a stream's logprobs miss the tokens that made no delta (llama.cpp): keep what was forced instead
        ids, source = tuple(script), "script"
    note = {"return_token_ids": "token ids as the server returned them",
            "logprobs": "token ids from the logprob tokens",
            "script": ("the stream's logprobs held only the tokens that made a delta; these are the ids its request forced" if partial
                       else "the server returned no token ids; these are the ids its request forced"),
            None: "the server returned no token ids (nor logprob tokens): this capture holds the answer only"}[source]
    final = ex.final if not ex.stream else (final_response(list(ex.chunks)) if full_api.startswith("responses") else None)
    server_meta = {
        "base_url": base_url, "api": full_api, "request": req, "final": final, "chunks": list(ex.chunks),
        "arrival_times": list(ex.times), "elapsed": ex.elapsed, "error": ex.error,
        "token_ids_source": source, "token_ids_note": note, "engine": engine, "engine_version": engine_version, "notes": list(notes),
        "script": list(script) if script is not None else None, "withheld_tools": withheld_tools,
    }
    times = _token_times(ex) if source == "return_token_ids" else None
    return Run(
        id=f"capture-{started}",
        metadata=RunMetadata(model=model, source="capture", started_at=started, finished_at=_now(),
                             sampling={k: req[k] for k in ("temperature", "max_tokens", "max_output_tokens") if k in req},
                             extra={"server": server_meta}),
        prompt_token_ids=_prompt_ids(full_api, ex),
        completion_token_ids=tuple(ids or ()),
        token_times=times if times is not None and len(times) == len(ids or ()) else None,
    )


def capture_of_result(result: Any, request: dict[str, Any], *, base_url: str, model: str) -> Any:
    """A capture run of a check made without a live exchange (SGLang's parser, offline): its answer, engine and notes."""
    ex = Exchange(result.api, request, final=None if result.api.endswith("-stream") else result.server,
                  chunks=tuple(result.server) if result.api.endswith("-stream") else (), elapsed=result.server_seconds, error=result.error)
    return capture_run(base_url, ex, model=model, script=list(result.token_ids), engine=result.engine, notes=result.notes,
                       engine_version=result.engine_version)


def save_capture(run: Any, path: str | os.PathLike[str]) -> Path:
    """Write a capture run as one JSON object (the run format ``load_runs`` reads)."""
    out = Path(path)
    out.write_text(json.dumps(run.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out


def load_capture(path: str | os.PathLike[str]) -> Any:
    """The capture run in ``path``; a ValueError in one line when the file is not a capture."""
    from harmony_viz.runs import load_runs

    try:
        runs = load_runs(path)
    except OSError as exc:
        raise ValueError(str(exc)) from None
    if len(runs) != 1 or not is_capture(runs[0]):
        raise ValueError(f"{path}: not a capture (a run with metadata.server, as `harmony-viz capture -o` writes)")
    return runs[0]


def is_capture(source: Any) -> bool:
    """Whether ``source`` is a capture run (the run file's shape test, which the reader owns)."""
    from harmony_viz._runfile import is_capture as shape

    return shape(source)


def capture_result(run: Any, name: str | None = None) -> Any:
    """A capture checked offline (a ``CheckResult``): its answer against our projection of its completion ids."""
    from harmony_viz.servers._check import CheckResult, check_answer

    server = run.metadata.extra["server"]
    api = server["api"]
    answer = server.get("chunks") if api.endswith("-stream") else server.get("final")
    ids = list(run.completion_token_ids)
    if not ids:
        return CheckResult(name or run.id, api, (), None, answer, None, (), server.get("token_ids_note") or "the capture holds no token ids",
                           engine=server.get("engine"), notes=tuple(server.get("notes") or ()), engine_version=server.get("engine_version"))
    request = server.get("request") or {}
    tools = request.get("tools") or server.get("withheld_tools")  # Chat Completions or Responses tool objects
    notes = tuple(server.get("notes") or ())
    from harmony_viz.servers.engines.llama_cpp import NO_TOOLS_NOTE

    # Ids that came back from the server: replayed when they equal what was forced (or nothing was).
    replayed = None
    if server.get("token_ids_source") in ("return_token_ids", "logprobs"):
        script = server.get("script")
        replayed = script is None or list(script) == ids
    result = check_answer(name or run.id, api, ids, answer, tools=tools, error=server.get("error"), server_seconds=float(server.get("elapsed") or 0.0),
                          engine=server.get("engine"), notes=notes, tools_withheld=NO_TOOLS_NOTE in notes, replayed=replayed)
    return dataclasses.replace(result, prompt=_prompt_of(run, name or run.id), engine_version=server.get("engine_version"))


def _prompt_of(run: Any, name: str) -> Any:
    """The capture's prompt check beside its answer check; None without prompt ids or for a request we cannot render."""
    from harmony_viz.servers._prompt_check import capture_prompt_check
    from harmony_viz.templates import LensError

    try:
        return capture_prompt_check(run, name)
    except LensError:
        return None


def _entry_id(entry: dict[str, Any], enc: Any) -> int | None:
    """The token id of one logprob entry: its ``id`` (llama.cpp), a ``token_id:N`` token (vLLM), else its bytes; None if unknown."""
    if isinstance(entry.get("id"), int) and not isinstance(entry.get("id"), bool):
        return int(entry["id"])
    tok = str(entry.get("token") or "")
    if tok.startswith("token_id:"):
        try:
            return int(tok.split(":", 1)[1])
        except ValueError:
            return None
    raw = bytes(entry["bytes"]) if isinstance(entry.get("bytes"), list) else tok.encode("utf-8")
    try:
        return int(enc.encode_single_token(raw))
    except (KeyError, ValueError, TypeError):
        return None


def logprob_entries(api: str, server: Any) -> list[dict[str, Any]]:
    """The ``logprobs.content`` entries of a Chat Completions answer (object or chunks), in order; [] for Responses or none."""
    if not api.startswith("chat") or not server:
        return []
    pieces = server if isinstance(server, list) else [server]
    return [e for p in pieces if isinstance(p, dict) for c in p.get("choices") or [] if isinstance(c, dict)
            for e in ((c.get("logprobs") or {}).get("content") or []) if isinstance(e, dict)]


def answer_logprobs(api: str, server: Any, ids: Sequence[int], *, source: str) -> Any:
    """The log-probs a Chat answer carries for completion ``ids`` (a ``trace.Logprobs``), or None when it has none.

    Each entry is matched to the next token of ``ids`` with its id, in order: a stream's entries
    may skip tokens (llama.cpp sends them only with chunks that carry a delta), and those keep none.
    Alternatives are each entry's ``top_logprobs``, their ids read as the entry's own.
    """
    from harmony_viz.tokens import encoding
    from harmony_viz.trace import Logprobs

    entries = logprob_entries(api, server)
    if not entries:
        return None
    enc = encoding()
    where: dict[int, list[int]] = {}
    for t, i in enumerate(ids):
        where.setdefault(int(i), []).append(t)
    rows, at = [], 0
    for e in entries:
        i = _entry_id(e, enc)
        places = where.get(i) if i is not None else None
        if not places:
            continue
        k = bisect.bisect_left(places, at)
        if k == len(places):
            continue
        t = places[k]
        alts = [(a, float(x["logprob"])) for x in e.get("top_logprobs") or [] if isinstance(x, dict) and isinstance(x.get("logprob"), (int, float))
                and (a := _entry_id(x, enc)) is not None]
        lp = e.get("logprob")
        rows.append((t, float(lp) if isinstance(lp, (int, float)) else None, alts))
        at = t + 1
    if not rows:
        return None
    k = max(len(r[2]) for r in rows)
    return Logprobs.from_rows(len(ids), rows, f"{source}, top {k}" if k else source)


def capture_logprobs(run: Any) -> Any:
    """A capture's log-probs over its replayed stream (prompt ids, then the completion), or None when its answer has none."""
    server = run.metadata.extra["server"]
    api = server["api"]
    answer = server.get("chunks") if api.endswith("-stream") else server.get("final")
    prompt = len(run.prompt_token_ids)
    got = answer_logprobs(api, answer, list(run.completion_token_ids), source=f"{server.get('engine') or 'the server'} {api}")
    return None if got is None else got.shifted(prompt, prompt + len(run.completion_token_ids))
