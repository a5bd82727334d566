"""The prompt a server fed the model for a request: its token ids, and how we got them.

Each engine of the registry (``servers/engines/``) says how its prompt is seen (vLLM's render
endpoints, llama.cpp's ``/apply-template`` + ``/tokenize``, the reference server's render through
our app); any other server is asked for ``prompt_token_ids`` (SGLang documents
``return_prompt_token_ids``). This module holds what they share; ``prompt-check`` asks the engine
(``_prompt_check.server_prompt``).

A server that offers no way raises :class:`PromptUnavailable` (one line). A server that answers a
valid request with an HTTP error gives a prompt with ``error`` set: that refusal is a finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harmony_viz.servers._client import build_request, client_for, httpx_module, send
from harmony_viz.servers.core._exchange import ServerError


class PromptUnavailable(ServerError):
    """The server offers no way to see the prompt it renders (or none for this kind of request)."""


@dataclass(frozen=True)
class ServerPrompt:
    """The server's prompt for one request: ids (None when it refused), the method (``prompt_source``), its error, the time it took."""

    ids: tuple[int, ...] | None
    source: str
    error: str | None = None
    seconds: float = 0.0


def post(client: Any, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """(status, JSON body or text) of one POST; an unreachable server raises ServerError."""
    import openai

    httpx = httpx_module()
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


def message_of(body: Any) -> str:
    """The error message in a server's answer body (an OpenAI error object, FastAPI's ``detail``, or text)."""
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict):
            return str(err.get("message") or err)
        return str(body.get("message") or err or body.get("detail") or body)
    return str(body)[:500]


def without_stream(request: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in request.items() if k not in ("stream", "stream_options")}


def prompt_token_ids(base_url: str, request: dict[str, Any], model: str, source: str) -> ServerPrompt:
    """A one-token chat completion that asks for the prompt's ids (vLLM's and SGLang's fields)."""
    body = {**without_stream(request), "extra_body": {"return_token_ids": True, "return_prompt_token_ids": True, **(request.get("extra_body") or {})}}
    ex = send(client_for(base_url), "chat", build_request("chat", body, model=model, max_tokens=1, script=None, token_ids=False))
    if ex.error is not None:
        return ServerPrompt(ids=None, source=source, error=ex.error)
    final = ex.final or {}
    ids = final.get("prompt_token_ids") or next((c.get("prompt_token_ids") for c in final.get("choices") or [] if c.get("prompt_token_ids")), None)
    if not isinstance(ids, list):
        raise PromptUnavailable(f"{base_url}: the server returned no prompt_token_ids and offers no render endpoint; its prompt cannot be seen")
    return ServerPrompt(ids=tuple(ids), source=source)
