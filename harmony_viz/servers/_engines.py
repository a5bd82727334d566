"""Which engine serves a URL, and how each is asked to replay a token stream exactly.

- vLLM: the replay server's logits processor forces ``vllm_xargs.script``; ``return_token_ids``
  gives the ids back (chat); tools are sent as the request has them.
- llama.cpp: a grammar of token ids (``root ::= <[id]> …``) forces every id but the final stop
  token, ``logit_bias`` pushes that one (inside a grammar it fails with HTTP 500), and
  ``logprobs`` gives the ids back (chat). A grammar is refused when tools are declared, so a
  replay sends none, and says so in its notes.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.servers._client import build_request, root_client

ENGINES: tuple[str, ...] = ("vllm", "llama.cpp", "sglang")
STOP_IDS = (200002, 200012)  # <|return|>, <|call|>: llama.cpp's end-of-generation tokens for gpt-oss
NO_TOOLS_NOTE = "tools not sent: llama.cpp refuses a grammar with tools"


def detect_engine(base_url: str, *, timeout: float = 10.0) -> str | None:
    """``"llama.cpp"`` (``/props`` answers with its build), ``"vllm"`` (``/version``), ``"sglang"`` (``/get_server_info``), or None."""
    import httpx
    import openai

    client = root_client(base_url, timeout=timeout)

    def get(path: str) -> dict[str, Any] | None:
        try:
            response = client.get(path, cast_to=httpx.Response)
        except (openai.APIError, httpx.HTTPError):
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        return body if response.status_code == 200 and isinstance(body, dict) else None

    props = get("/props")
    if props is not None and ("build_info" in props or "default_generation_settings" in props):
        return "llama.cpp"
    version = get("/version")
    if version is not None and "version" in version:
        return "vllm"
    if get("/get_server_info") is not None:
        return "sglang"
    return None


@dataclass(frozen=True)
class Replay:
    """One replay request: the ids it forces (maybe fewer than the stream's), its ``openai`` arguments, and its notes."""

    ids: tuple[int, ...]
    request: dict[str, Any]
    notes: tuple[str, ...] = ()
    tools_withheld: bool = False  # the request declared tools, the replay could not send them


def llama_grammar(ids: Sequence[int]) -> str:
    """A GBNF grammar that accepts exactly these token ids, in order (llama.cpp's ``<[id]>`` token terms)."""
    return "root ::= " + " ".join(f"<[{int(t)}]>" for t in ids)


def replay_request(engine: str, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
    """How ``engine`` is asked to emit exactly ``ids`` through ``api``, for the Chat Completions body ``body``."""
    if engine == "vllm":
        return Replay(tuple(ids), build_request(api, body, model=model, max_tokens=len(ids), script=list(ids)))
    if engine != "llama.cpp":
        raise ValueError(f"cannot replay a stream through {engine!r}; replays work with vllm and llama.cpp")
    notes = []
    forced = list(ids)
    first_stop = next((k for k, t in enumerate(ids) if t in STOP_IDS), None)
    if first_stop is not None and first_stop < len(ids) - 1:
        forced = forced[: first_stop + 1]
        notes.append(f"replayed up to its first stop token (token {first_stop + 1} of {len(ids)}): llama.cpp cannot force a stop token inside a grammar")
    withheld = bool(body.get("tools"))
    if withheld:
        notes.append(NO_TOOLS_NOTE)
    plain = {k: copy.deepcopy(v) for k, v in body.items() if k not in ("tools", "tool_choice", "parallel_tool_calls")}
    request = build_request(api, plain, model=model, max_tokens=len(forced), script=None, token_ids=False)
    grammar_ids, bias = (forced[:-1], {str(forced[-1]): 100}) if forced and forced[-1] in STOP_IDS else (forced, {})
    extra: dict[str, Any] = dict(request.pop("extra_body", {}))
    if grammar_ids:
        extra["grammar"] = llama_grammar(grammar_ids)
    if api.startswith("chat"):
        request["logprobs"] = True  # each generated token's id comes back in logprobs.content[].id
        request["top_logprobs"] = 1  # not the 20 alternatives per token llama.cpp sends by default (0 sends no logprobs at all)
        if bias:
            request["logit_bias"] = bias
    elif bias:
        extra["logit_bias"] = bias
    request["extra_body"] = extra
    return Replay(tuple(forced), request, tuple(notes), withheld)
