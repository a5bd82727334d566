"""Requests to an OpenAI-compatible server through the official ``openai`` client, kept as received (a core ``Exchange``).

A Responses request is made from the Chat Completions body by the core's one converter (``responses_of_chat``).
"""

from __future__ import annotations

import copy
import os
import time
from typing import Any

from harmony_viz.servers.core._exchange import Exchange, ServerError
from harmony_viz.servers.core._shapes import responses_of_chat

DEFAULT_MESSAGES: tuple[dict[str, str], ...] = ({"role": "user", "content": "Replay this stream."},)


def httpx_module() -> Any:
    """The httpx the installed ``openai`` client is built on: ``httpx``, or ``httpx2`` for openai 3 (their classes differ)."""
    import importlib

    import openai

    return importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])


def client_for(base_url: str, *, timeout: float = 120.0) -> Any:
    import openai

    # Local servers ignore the key; remote ones read OPENAI_API_KEY as usual.
    return openai.OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY", timeout=timeout, max_retries=0)


def root_client(base_url: str, *, timeout: float = 120.0) -> Any:
    """A client for the server's own endpoints beside ``/v1`` (``/health``, ``/props``, ``/apply-template``…)."""
    import openai

    return openai.OpenAI(base_url=base_url.rstrip("/").removesuffix("/v1"), api_key="unused", max_retries=0, timeout=timeout)


def default_model(client: Any) -> str:
    """The first model the server lists; ServerError when it cannot be reached or lists none."""
    import openai

    try:
        models = list(client.models.list())
    except openai.APIConnectionError as exc:
        raise ServerError(f"cannot reach {client.base_url}: {exc.__cause__ or exc}") from None
    except openai.APIError as exc:
        raise ServerError(f"{client.base_url}models answered {getattr(exc, 'status_code', '')} {exc.message}") from None
    if not models:
        raise ServerError(f"{client.base_url}models lists no model; pass --model")
    return models[0].id


def _known_params(api: str) -> frozenset[str]:
    """The keyword arguments the ``openai`` client's ``create`` takes for ``api``, read from its signature."""
    import inspect

    from openai.resources.chat.completions import Completions
    from openai.resources.responses import Responses

    create = Completions.create if api.startswith("chat") else Responses.create
    return frozenset(inspect.signature(create).parameters) - {"self", "extra_body"}


def build_request(api: str, chat: dict[str, Any], *, model: str, max_tokens: int | None, script: list[int] | None,
                  token_ids: bool = True) -> dict[str, Any]:
    """The keyword arguments for the ``openai`` call of ``api``.

    Server extensions go in ``extra_body``: vLLM's (``vllm_xargs``, ``return_token_ids``) and any
    field of ``chat`` that the API does not define (``grammar``, ``cache_prompt``…), sent as given.
    """
    extra: dict[str, Any] = dict(chat.get("extra_body") or {})
    if script is not None:
        extra["vllm_xargs"] = {"script": list(script)}
    known = _known_params(api)
    if api.startswith("chat"):
        req = {k: copy.deepcopy(v) for k, v in chat.items() if k not in ("model", "stream", "max_tokens", "max_completion_tokens", "extra_body")}
        req.setdefault("messages", list(DEFAULT_MESSAGES))
        if max_tokens is not None:
            req["max_tokens"] = max_tokens
        if token_ids:
            extra["return_token_ids"] = True
        if api == "chat-stream":
            req["stream_options"] = {"include_usage": True}
    else:
        req = responses_of_chat(chat if chat.get("messages") else {**chat, "messages": list(DEFAULT_MESSAGES)}, easy_messages=True)
        chat_only = {"messages", "tools", "model", "stream", "max_tokens", "max_completion_tokens", "extra_body", "logprobs", "top_logprobs",
                     "stream_options", "n", "response_format", "tool_choice", "parallel_tool_calls", "reasoning_effort"}
        req.update({k: copy.deepcopy(v) for k, v in chat.items() if k not in chat_only and k not in req})
        if max_tokens is not None:
            req["max_output_tokens"] = max_tokens
        if token_ids:
            extra["enable_response_messages"] = True
    for key in [k for k in req if k not in known]:
        extra[key] = req.pop(key)
    req["model"] = model
    if script is not None:
        req.setdefault("temperature", 0)  # the script decides every token anyway; keep the sampler trivial
    if api.endswith("-stream"):
        req["stream"] = True
    if extra:
        req["extra_body"] = extra
    return req


def _unreachable(exc: Exception) -> bool:
    httpx = httpx_module()
    cause = exc.__cause__
    return isinstance(cause, (httpx.ConnectError, httpx.ConnectTimeout)) or cause is None


def send(client: Any, api: str, request: dict[str, Any]) -> Exchange:
    """Send one request; an HTTP error is returned in ``error``, an unreachable server raises ServerError."""

    ex = _send_once(client, api, request)
    if ex.error is not None and ex.error.startswith("connection broken after 0 chunk(s)"):
        # A server that closed a kept-alive connection after an error (uvicorn does, after a 500) breaks the next
        # request before it is read: nothing was answered, so asking once more on a fresh connection is safe.
        ex = _send_once(client, api, request)
    return ex


def _send_once(client: Any, api: str, request: dict[str, Any]) -> Exchange:
    import openai

    endpoint = client.chat.completions if api.startswith("chat") else client.responses
    t0 = time.perf_counter()
    chunks: list[dict[str, Any]] = []
    times: list[float] = []
    try:
        result = endpoint.create(**request)
        if request.get("stream"):
            for piece in result:
                times.append(time.perf_counter() - t0)
                chunks.append(piece.to_dict())
            final = None
        else:
            final = result.to_dict()
    except openai.APIConnectionError as exc:
        if _unreachable(exc):
            raise ServerError(f"cannot reach {client.base_url}: {exc.__cause__ or exc}") from None
        # It answered, then broke off (e.g. a crash mid-stream): a finding about this request.
        return Exchange(api, request, chunks=tuple(chunks), times=tuple(times), elapsed=time.perf_counter() - t0,
                        error=f"connection broken after {len(chunks)} chunk(s): {exc.__cause__ or exc}")
    except openai.APIError as exc:
        status = getattr(exc, "status_code", None)
        return Exchange(api, request, chunks=tuple(chunks), times=tuple(times), elapsed=time.perf_counter() - t0,
                        error=f"{status or 'error'}: {exc.message}")
    return Exchange(api, request, final, tuple(chunks), tuple(times), time.perf_counter() - t0)
