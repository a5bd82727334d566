"""``prompt-check``: the prompt a server fed the model for a request, against the prompt the Harmony format gives it.

The server's prompt is asked of the server through its engine (:func:`server_prompt`, live) or
read from a capture's ``prompt_token_ids`` (offline); the comparison is the pure core's
(``core._prompt_diff``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harmony_viz.inputs import InputError, bad_json, file_text
from harmony_viz.runs import Run, load_runs
from harmony_viz.servers import engines
from harmony_viz.servers._client import client_for
from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt
from harmony_viz.servers.core._capture_file import load_capture
from harmony_viz.servers.core._prompt_diff import PromptCheck, capture_prompt_check, check_prompt_ids, request_rejected, turn_checks
from harmony_viz.servers.core._shapes import request_kind
from harmony_viz.templates import LensError, render_ours


def server_prompt(base_url: str, request: dict[str, Any], *, engine: str | None = None, kind: str = "chat", model: str | None = None) -> ServerPrompt:
    """The prompt ``base_url`` renders for ``request`` (a Chat Completions body, or a Responses body when ``kind="responses"``).

    ``engine`` (a registry name) says how it is asked; None detects it, and an unknown server is
    asked as any server that returns ``prompt_token_ids``.
    """
    found = engines.get(engine) if engine else engines.detect(base_url)
    found = found or engines.GENERIC
    model = model or request.get("model") or found.model(client_for(base_url))
    t0 = time.perf_counter()
    got = found.prompt(base_url, request, kind=kind, model=model)
    return ServerPrompt(ids=got.ids, source=got.source, error=got.error, seconds=time.perf_counter() - t0)


def prompt_check(request: Mapping[str, Any], *, base_url: str | None = None, prompt_ids: Sequence[int] | None = None,
                 engine: str | None = None, model: str | None = None, file: str = "", prompt_source: str = "given prompt ids") -> PromptCheck:
    """Check the prompt a server renders for ``request`` (live at ``base_url``), or the ``prompt_ids`` it fed the model (offline).

    Raises LensError (bad request), ServerError (unreachable) or PromptUnavailable (no way to see the prompt), each one line.
    """
    kind = request_kind(request)
    if kind == "chat":
        render_ours(request, date=None, for_completion=True)  # a request we cannot render is bad input, before asking any server
    seconds = 0.0
    if prompt_ids is None:
        if base_url is None:
            raise LensError("no prompt to check: give a server (base_url) or the prompt ids it fed the model")
        got = server_prompt(base_url, dict(request), engine=engine, kind=kind, model=model)
        if got.ids is None:
            return PromptCheck(file=file, engine=engine, prompt_source=got.source, differences=(request_rejected(got.error or ""),),
                               error=got.error, seconds=got.seconds)
        prompt_ids, prompt_source, seconds = got.ids, got.source, got.seconds
    return check_prompt_ids(request, prompt_ids, engine=engine, file=file, prompt_source=prompt_source, seconds=seconds)


def read_prompt_input(path: str) -> tuple[dict[str, Any], Run | None]:
    """``(request, capture run or None)`` from a REQUEST.json (Chat Completions or Responses body) or a CAPTURE.json; LensError in one line."""
    try:
        text = file_text(Path(path), path)  # the one reader's own file read and JSON wording: a Responses body is no shape it reads whole
        try:
            body = json.loads(text)
        except json.JSONDecodeError as exc:
            raise bad_json(path, exc) from None
    except InputError as exc:
        raise LensError(str(exc)) from None
    if isinstance(body, dict) and ("messages" in body or "input" in body):
        request_kind(body)
        return body, None
    try:
        run = load_capture(path)
    except ValueError:
        raise LensError(f"{path}: neither a request body (messages or input) nor a capture") from None
    request = run.metadata.extra["server"].get("request") or {}
    return request, run


def check_path(path: str, *, base_url: str | None = None, engine: str | None = None, model: str | None = None) -> list[PromptCheck]:
    """prompt-check for one file: a request, a capture, or runs recorded through a server (one check per later turn)."""
    try:
        return [check_file(path, base_url=base_url, engine=engine, model=model)]
    except LensError as exc:
        if "neither a request body" not in str(exc):
            raise
        try:
            runs = [r for r in load_runs(path) if (r.metadata.extra or {}).get("server_turns")]
        except (OSError, ValueError):
            runs = []
        if not runs:
            raise LensError(f"{path}: neither a request body (messages or input), a capture, nor runs recorded through a server (record --server)") from None
        return [c for r in runs for c in turn_checks(r, f"{path} {r.id}")]


def check_file(path: str, *, base_url: str | None = None, engine: str | None = None, model: str | None = None) -> PromptCheck:
    """prompt-check for one file: a request (live, needs ``base_url``) or a capture (offline from its prompt ids, else live)."""
    request, run = read_prompt_input(path)
    if run is not None:
        checked = capture_prompt_check(run, path)
        if checked is not None:
            return checked
        if base_url is None:
            raise PromptUnavailable(f"{path}: the capture holds no prompt ids (its server returned none); give --base-url to ask a server")
    if base_url is None:
        raise LensError(f"{path}: a request needs --base-url (the server whose prompt is checked)")
    engine = engine or engines.detect_engine(base_url)
    return prompt_check(request, base_url=base_url, engine=engine, model=model, file=path)

