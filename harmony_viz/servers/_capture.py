"""``capture``: one real request to any OpenAI-compatible server, kept whole as a run (the core's capture file)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from harmony_viz.runs import Run
from harmony_viz.servers import engines
from harmony_viz.servers._client import build_request, client_for, default_model, send
from harmony_viz.servers._prompt_check import server_prompt
from harmony_viz.servers.core._capture_file import capture_run, now, save_capture
from harmony_viz.servers.core._exchange import REQUEST_KINDS, ServerError


def _engine_for(base_url: str, client: Any, engine: str | None, model: str | None) -> tuple[engines.Engine, str | None]:
    """The engine behind ``base_url`` (named, detected, else the generic one) and the model, when listing the models told it."""
    if engine is not None:
        return engines.get(engine), model
    if model is None:
        try:
            model = default_model(client)  # an unreachable server is told first; a server that lists none may still be known
        except ServerError:
            found = engines.detect(base_url)
            if found is None:
                raise
            return found, None
    return engines.detect(base_url) or engines.GENERIC, model


def capture(base_url: str, *, prompt: str | None = None, request: dict[str, Any] | None = None, model: str | None = None,
            api: str | None = None, stream: bool = False, max_tokens: int | None = None, out: str | os.PathLike[str] | None = None,
            timeout: float = 300.0, engine: str | None = None) -> Run:
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
    if api not in (*REQUEST_KINDS, None):
        raise ValueError(f"unknown api {api!r}; expected {' or '.join(REQUEST_KINDS)}")
    if (prompt is None) == (request is None):
        raise ValueError("pass exactly one of prompt= and request=")
    body = dict(request) if request is not None else {"messages": [{"role": "user", "content": prompt}]}
    client = client_for(base_url, timeout=timeout)
    found, model = _engine_for(base_url, client, engine, model or body.get("model"))
    model = model or found.model(client)
    api = api or ("chat" if "chat" in found.apis else "responses")  # the reference server serves only Responses
    full_api = api + ("-stream" if stream else "")
    if full_api not in found.apis:
        raise ValueError(found.not_served(full_api))
    started = now()
    req = found.capture_request(full_api, build_request(full_api, body, model=model, max_tokens=max_tokens or body.get("max_tokens"), script=None))
    version = found.version(engines.Probe(base_url))
    name = None if found is engines.GENERIC else found.name
    ex = send(client, full_api, req)
    # A strict server may refuse vLLM's fields, then the alternatives, then logprobs: ask again with less.
    for drop in (("extra_body",), ("top_logprobs",), ("logprobs", "top_logprobs")):
        if not (ex.error and ex.error.startswith(("400", "422")) and drop[0] in req):
            break
        req = {k: v for k, v in req.items() if k not in drop}
        ex = send(client, full_api, req)
    run = capture_run(base_url, ex, model=model, started=started, engine=name, engine_version=version)
    run = _with_prompt(run, base_url, body, api=api, engine=name, model=model)
    if out is not None:
        save_capture(run, out)
    return run


def _with_prompt(run: Run, base_url: str, body: dict[str, Any], *, api: str, engine: str | None, model: str) -> Run:
    """The run with the prompt the server rendered, and how it was got (``server.prompt_source``), for the prompt lens.

    vLLM's answer carries ``prompt_token_ids``; a server whose answer does not (llama.cpp) is asked
    for its prompt (:func:`server_prompt`). A server that cannot show it leaves the run as it was.
    """
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
