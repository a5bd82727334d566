"""OpenAI's reference Responses server (PyPI ``gpt-oss``) with forced token streams: a script, not a module of the package.

Run it with the gpt-oss venv's Python (``scripts/install-gpt-oss.sh`` makes ``.venv-gpt-oss``)::

    .venv-gpt-oss/bin/python harmony_viz/servers/gpt_oss_app.py --host 127.0.0.1 --port 8000
    .venv-gpt-oss/bin/python harmony_viz/servers/gpt_oss_app.py --check   # prints the gpt-oss version

The app inside is theirs, built by their own ``create_api_server(infer_next_token, encoding)``
with ``load_harmony_encoding(HARMONY_GPT_OSS)`` as their ``serve.py`` does (the vocabulary
comes from ``TIKTOKEN_ENCODINGS_BASE``). Their routes and their answers are left as they are:
a 500, a 422 or a stream cut short reaches the client unchanged. No model runs: the
``infer_next_token`` given to their server is ours.

Forcing. Their server calls ``infer_next_token(tokens, temperature=..., new_request=...)``
once per generated token, synchronously, with the whole token list so far; the first call's
``tokens`` is the prompt it rendered. A ``POST /v1/responses`` body may carry the extra
top-level field ``harmony_viz_script``: the token ids of the completion after
``<|start|>assistant``. The n-th call then returns ``script[n]``, and ``<|return|>`` (200002)
once the script is spent, so generation stops. A request without a script gets ``<|return|>``
at once (an empty answer: output ``[]``). Their pydantic ``ResponsesRequest`` ignores unknown
fields, so the body goes to their app byte for byte. An outer pure-ASGI app reads each body,
sets a ``contextvars.ContextVar`` for that request and replays the body to theirs, so
concurrent requests never see each other's script.

Endpoints (theirs: ``POST /v1/responses``; the rest are ours):

- ``POST /v1/responses`` — theirs; extra fields ``harmony_viz_script`` (list of ids) and
  ``harmony_viz_key`` (a string: the prompt this request was fed is kept under it). A
  malformed value of either is answered 400 ``{"error": {"message", "type"}}`` by us.
- ``POST /v1/responses/render`` — a Responses request body → ``{"token_ids": [...]}``, the
  prompt their code renders for it (their handler runs with ``stream``/``store`` false and a
  script that stops at once). Their failure before rendering (422, 500) comes back as it is.
- ``GET /harmony_viz/prompts/{key}`` → ``{"token_ids": [...]}``, or 404; the last 256 keys.
- ``GET /harmony_viz/info`` → ``{"engine": "gpt-oss", "version", "harmony", "replay": true}``.
- ``GET /health`` → 200 ``{}``.

stdout stays empty (their code prints per request; that goes to stderr with uvicorn's logs).
SIGTERM and SIGINT stop uvicorn gracefully and the process exits 0.

Only the standard library is imported at the top; the engine's modules (gpt_oss, openai_harmony,
uvicorn) are imported by name inside the functions, as they exist only in the engine's venv.
"""

from __future__ import annotations

import argparse
import contextvars
import importlib
import json
import os
import signal
import sys
from collections import OrderedDict
from typing import Any

RETURN = 200002  # <|return|>: their server stops on it (and on <|call|>)
MAX_KEYS = 256
SCRIPT_FIELD = "harmony_viz_script"
KEY_FIELD = "harmony_viz_key"


class _Forcing:
    """One request's script, how far it got, and the prompt of the first call."""

    __slots__ = ("script", "calls", "prompt", "key")

    def __init__(self, script: list[int] | None, key: str | None = None) -> None:
        self.script = script or []
        self.calls = 0
        self.prompt: list[int] | None = None
        self.key = key


_CURRENT: contextvars.ContextVar[_Forcing | None] = contextvars.ContextVar("harmony_viz_forcing", default=None)
_PROMPTS: OrderedDict[str, list[int]] = OrderedDict()


def _keep(key: str, prompt: list[int]) -> None:
    _PROMPTS[key] = prompt
    _PROMPTS.move_to_end(key)
    while len(_PROMPTS) > MAX_KEYS:
        _PROMPTS.popitem(last=False)


def infer_next_token(tokens: list[int], temperature: float = 0.0, new_request: bool = False) -> int:
    """The next id of this request's script (``<|return|>`` past its end or without one); keeps the first call's prompt."""
    state = _CURRENT.get()
    if state is None:
        return RETURN
    if state.prompt is None:
        state.prompt = list(tokens)
        if state.key is not None:
            _keep(state.key, state.prompt)
    n = state.calls
    state.calls += 1
    return state.script[n] if n < len(state.script) else RETURN


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    harmony = "unknown"
    for dist in ("openai-harmony", "oss-harmony"):  # the fork has the same import name
        try:
            harmony = version(dist)
            break
        except PackageNotFoundError:
            continue
    return {"version": version("gpt-oss"), "harmony": harmony}


# ---- ASGI plumbing ---------------------------------------------------------------------------


async def _send_json(send: Any, status: int, obj: Any) -> None:
    body = json.dumps(obj).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Any) -> bytes | None:
    """The whole request body, or None when the client went away first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    """A receive that hands out ``body`` once, then the client's own messages (disconnects)."""
    sent = False

    async def replayed() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _bad(message: str) -> tuple[int, dict[str, Any]]:
    return 400, {"error": {"message": message, "type": "invalid_request_error"}}


def _fields(body: bytes) -> tuple[dict[str, Any] | None, tuple[int, dict[str, Any]] | None]:
    """The JSON object of a body (None when it is not one: their app answers that) and our fields' error, if any."""
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None, None
    if not isinstance(obj, dict):
        return None, None
    script = obj.get(SCRIPT_FIELD)
    if script is not None and not (
        isinstance(script, list) and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in script)
    ):
        return obj, _bad(f"{SCRIPT_FIELD} must be a list of token ids (non-negative integers)")
    key = obj.get(KEY_FIELD)
    if key is not None and not isinstance(key, str):
        return obj, _bad(f"{KEY_FIELD} must be a string")
    return obj, None


class ForcingApp:
    """The outer ASGI app: our endpoints, and their app fed each request's script through a ContextVar."""

    def __init__(self, inner: Any, info: dict[str, Any]) -> None:
        self.inner = inner
        self.info = info

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        if path == "/health" and method in ("GET", "HEAD"):
            await _send_json(send, 200, {})
        elif path == "/harmony_viz/info" and method == "GET":
            await _send_json(send, 200, self.info)
        elif path.startswith("/harmony_viz/prompts/") and method == "GET":
            prompt = _PROMPTS.get(path[len("/harmony_viz/prompts/") :])
            if prompt is None:
                await _send_json(send, 404, {"detail": "no prompt kept under that key"})
            else:
                await _send_json(send, 200, {"token_ids": prompt})
        elif path == "/v1/responses/render" and method == "POST":
            await self._render(scope, receive, send)
        elif path == "/v1/responses" and method == "POST":
            await self._forced(scope, receive, send)
        else:
            await self.inner(scope, receive, send)

    async def _forced(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = await _read_body(receive)
        if body is None:
            return
        obj, error = _fields(body)
        if error is not None:
            await _send_json(send, *error)
            return
        state = _Forcing(obj.get(SCRIPT_FIELD) if obj else None, obj.get(KEY_FIELD) if obj else None)
        token = _CURRENT.set(state)
        try:
            await self.inner(scope, _replay(body, receive), send)
        finally:
            _CURRENT.reset(token)

    async def _render(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = await _read_body(receive)
        if body is None:
            return
        obj, _ = _fields(body)
        if obj is not None:  # not a JSON object: their app's own 422 comes back below
            obj = {**obj, "stream": False, "store": False}
            obj.pop(SCRIPT_FIELD, None)
            obj.pop(KEY_FIELD, None)
            body = json.dumps(obj).encode()
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        inner_scope = {**scope, "path": "/v1/responses", "raw_path": b"/v1/responses", "headers": headers}

        started: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def captured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        state = _Forcing([])
        token = _CURRENT.set(state)
        failure: BaseException | None = None
        try:
            await self.inner(inner_scope, _replay(body, receive), captured)
        except Exception as exc:  # after rendering it does not matter; before, it is the answer
            failure = exc
        finally:
            _CURRENT.reset(token)
        if state.prompt is not None:
            await _send_json(send, 200, {"token_ids": state.prompt})
        elif started:
            await send({"type": "http.response.start", "status": started["status"], "headers": started.get("headers", [])})
            await send({"type": "http.response.body", "body": b"".join(chunks)})
        else:
            await _send_json(send, 500, {"detail": f"{type(failure).__name__}: {failure}" if failure else "no prompt was rendered"})


# ---- the process ------------------------------------------------------------------------------


def build_app() -> ForcingApp:
    harmony = importlib.import_module("openai_harmony")
    api_server = importlib.import_module("gpt_oss.responses_api.api_server")
    encoding = harmony.load_harmony_encoding(harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    inner = api_server.create_api_server(infer_next_token, encoding)
    return ForcingApp(inner, {"engine": "gpt-oss", **versions(), "replay": True})


def _exit_cleanly(signum: int, frame: Any) -> None:
    # uvicorn restores this handler after its graceful shutdown, then re-raises the signal it caught.
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    # Run as a script, this file's folder heads sys.path: its neighbours must not shadow anything.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    parser = argparse.ArgumentParser(description="OpenAI's reference Responses server (gpt-oss) with forced token streams.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--check", action="store_true", help="import everything, print the gpt-oss version, exit 0")
    args = parser.parse_args(argv)
    if args.check:
        importlib.import_module("openai_harmony")
        importlib.import_module("gpt_oss.responses_api.api_server")
        importlib.import_module("uvicorn")
        print(versions()["version"], flush=True)
        return 0
    # Their handler prints per request: stdout stays clean, everything goes to stderr.
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal.signal(signal.SIGTERM, _exit_cleanly)
    signal.signal(signal.SIGINT, _exit_cleanly)
    uvicorn = importlib.import_module("uvicorn")
    app = build_app()
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
