"""The prompt a server fed the model for a request: its token ids, and how we got them.

- vLLM: ``/v1/chat/completions/render`` and ``/v1/responses/render`` (the replay server starts
  vLLM with ``--enable-scale-out``, which registers them), else a one-token chat completion
  with ``return_token_ids``, whose answer carries ``prompt_token_ids``;
- llama.cpp: ``/apply-template`` (the text its chat template renders), then ``/tokenize`` with
  special tokens parsed;
- any other server that returns ``prompt_token_ids`` (SGLang documents ``return_prompt_token_ids``).

A server that offers no way raises :class:`PromptUnavailable` (one line). A server that answers a
valid request with an HTTP error gives a prompt with ``error`` set: that refusal is a finding.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from harmony_viz.servers._client import ServerError, build_request, client_for, default_model, root_client


class PromptUnavailable(ServerError):
    """The server offers no way to see the prompt it renders (or none for this kind of request)."""


@dataclass(frozen=True)
class ServerPrompt:
    """The server's prompt for one request: ids (None when it refused), the method (``prompt_source``), its error, the time it took."""

    ids: tuple[int, ...] | None
    source: str
    error: str | None = None
    seconds: float = 0.0


def _post(client: Any, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """(status, JSON body or text) of one POST; an unreachable server raises ServerError."""
    import httpx
    import openai

    try:
        response = client.post(path, body=body, cast_to=httpx.Response)
    except openai.APIStatusError as exc:
        return exc.status_code, _json_or_text(exc.response)
    except openai.APIConnectionError as exc:
        raise ServerError(f"cannot reach {client.base_url}: {exc.__cause__ or exc}") from None
    return response.status_code, _json_or_text(response)


def _json_or_text(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _message(body: Any) -> str:
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict):
            return str(err.get("message") or err)
        return str(body.get("message") or err or body)
    return str(body)[:500]


def _plain(request: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in request.items() if k not in ("stream", "stream_options")}


def _vllm(base_url: str, request: dict[str, Any], kind: str, model: str) -> ServerPrompt:

    client = root_client(base_url)
    path = "/v1/chat/completions/render" if kind == "chat" else "/v1/responses/render"
    status, body = _post(client, path, {**_plain(request), "model": model})
    if status == 200 and isinstance(body, dict) and isinstance(body.get("token_ids"), list):
        return ServerPrompt(tuple(body["token_ids"]), f"vllm {path}")
    if status not in (403, 404, 405, 501):  # the endpoint is there and refused this request
        return ServerPrompt(None, f"vllm {path}", f"{status}: {_message(body)}")
    if kind != "chat":
        raise PromptUnavailable(f"{base_url}: vLLM shows a Responses prompt only through {path}, which this server does not offer "
                                "(start it with --enable-scale-out, as `harmony-viz replay-server` does)")
    return _prompt_token_ids(base_url, request, model, "vllm return_token_ids (max_tokens 1)")


def _prompt_token_ids(base_url: str, request: dict[str, Any], model: str, source: str) -> ServerPrompt:
    """A one-token chat completion that asks for the prompt's ids (vLLM's and SGLang's fields)."""
    from harmony_viz.servers._client import send

    body = {**_plain(request), "extra_body": {"return_token_ids": True, "return_prompt_token_ids": True, **(request.get("extra_body") or {})}}
    ex = send(client_for(base_url), "chat", build_request("chat", body, model=model, max_tokens=1, script=None, token_ids=False))
    if ex.error is not None:
        return ServerPrompt(None, source, ex.error)
    final = ex.final or {}
    ids = final.get("prompt_token_ids") or next((c.get("prompt_token_ids") for c in final.get("choices") or [] if c.get("prompt_token_ids")), None)
    if not isinstance(ids, list):
        raise PromptUnavailable(f"{base_url}: the server returned no prompt_token_ids and offers no render endpoint; its prompt cannot be seen")
    return ServerPrompt(tuple(ids), source)


def _llama(base_url: str, request: dict[str, Any], kind: str) -> ServerPrompt:

    if kind != "chat":
        raise PromptUnavailable(f"{base_url}: llama.cpp shows only a Chat Completions prompt (/apply-template); send a Chat Completions request")
    client = root_client(base_url)
    status, body = _post(client, "/apply-template", _plain(request))
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
        return ServerPrompt(None, "llama.cpp /apply-template + /tokenize", f"{status}: {_message(body)}")
    status, tokens = _post(client, "/tokenize", {"content": body["prompt"], "add_special": False, "parse_special": True})
    if status != 200 or not isinstance(tokens, dict) or not isinstance(tokens.get("tokens"), list):
        return ServerPrompt(None, "llama.cpp /apply-template + /tokenize", f"{status}: {_message(tokens)}")
    return ServerPrompt(tuple(int(t) for t in tokens["tokens"]), "llama.cpp /apply-template + /tokenize")


def server_prompt(base_url: str, request: dict[str, Any], *, engine: str | None = None, kind: str = "chat", model: str | None = None) -> ServerPrompt:
    """The prompt ``base_url`` renders for ``request`` (a Chat Completions body, or a Responses body when ``kind="responses"``)."""
    from harmony_viz.servers._engines import detect_engine

    model = model or request.get("model") or default_model(client_for(base_url))
    engine = engine or detect_engine(base_url)
    t0 = time.perf_counter()
    if engine == "vllm":
        got = _vllm(base_url, request, kind, model)
    elif engine == "llama.cpp":
        got = _llama(base_url, request, kind)
    elif kind == "chat":
        got = _prompt_token_ids(base_url, request, model, f"{engine or 'server'} prompt_token_ids")
    else:
        raise PromptUnavailable(f"{base_url}: no way to see a Responses prompt on this server")
    return ServerPrompt(got.ids, got.source, got.error, time.perf_counter() - t0)
