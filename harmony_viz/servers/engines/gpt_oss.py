"""OpenAI's reference Responses server (PyPI ``gpt-oss`` 0.0.9, ``gpt_oss.responses_api``): the one the others follow.

- Its server takes any ``infer_next_token(tokens, ...)`` callable, called once per token with the whole
  list so far. The replay server (``servers/gpt_oss_app.py``, run in the venv of
  ``scripts/install-gpt-oss.sh``) is their own ``create_api_server`` with a callable of ours that
  returns a request's ``harmony_viz_script`` id by id: no model, no weights.
- It serves ``/v1/responses`` only (streamed or not): the Chat APIs are "not served".
- Ids back: none. The stop token ends generation and is not in its usage.
- Prompt: the first call of the callable sees the exact prompt it rendered; our app keeps it and
  answers ``/v1/responses/render`` with it. A reference server run by a user (a real model) does not.
- Detected by our app's ``/harmony_viz/info``, or, for a reference server a user runs, by an OpenAPI
  page that lists ``/v1/responses`` and no Chat Completions.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import build_request, root_client
from harmony_viz.servers._launch import Spec, find_venv_python
from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt, message_of, post, without_stream
from harmony_viz.servers.core._exchange import RESPONSES_APIS
from harmony_viz.servers.core._shapes import responses_of_chat
from harmony_viz.servers.engines._engine import Engine, Probe, Replay

if TYPE_CHECKING:
    import argparse

APP = Path(__file__).resolve().parents[1] / "gpt_oss_app.py"
DEFAULT_VENV = Path(__file__).resolve().parents[3] / ".venv-gpt-oss"  # the install script's default, in a checkout
INSTALL_HINT = ("no Python with gpt-oss found: run scripts/install-gpt-oss.sh (makes .venv-gpt-oss with gpt-oss 0.0.9 from a Python >= 3.12), "
                "then pass --gpt-oss-python .venv-gpt-oss/bin/python or set HARMONY_VIZ_GPT_OSS_PYTHON")
STOP_IDS = (200002, 200012)  # <|return|>, <|call|>: its stop tokens; <|end|> is not one
MODEL = "gpt-oss"  # it lists no models and reads none
NO_IDS_NOTE = "the reference server returns no token ids: the ids are the ones forced"


def find_gpt_oss_python(explicit: str | None = None, *, venv: Path = DEFAULT_VENV) -> str:
    """``explicit`` (``--gpt-oss-python``), else ``$HARMONY_VIZ_GPT_OSS_PYTHON``, else the install script's venv."""
    return find_venv_python(explicit, flag="--gpt-oss-python", env="HARMONY_VIZ_GPT_OSS_PYTHON", module="gpt_oss", venv=venv, hint=INSTALL_HINT)


@dataclass(frozen=True)
class GptOssSpec(Spec):
    """Our app around the reference's ``create_api_server``, in its venv, on 127.0.0.1."""

    python: str
    host: str = "127.0.0.1"
    port: int = 8001

    def command(self) -> list[str]:
        return [self.python, str(APP), "--host", self.host, "--port", str(self.port)]


class GptOss(Engine):
    name = "gpt-oss"
    label = "gpt-oss 0.0.9"
    apis = RESPONSES_APIS
    python_flag = "--gpt-oss-python"
    default_port = 8001
    install = "`scripts/install-gpt-oss.sh` (gpt-oss 0.0.9 in `.venv-gpt-oss`, from a Python >= 3.12)"
    forcing = "its own `infer_next_token` hook returns the stream (`harmony_viz_script`)"
    ids_back = "none (the ids forced are kept)"
    prompt_via = "our app's `/v1/responses/render`: the ids its hook first received"
    request_fields = "Responses only; replays stop at the first `<|return|>` or `<|call|>`; effort defaults to low"

    def detect(self, probe: Probe) -> bool:
        info = probe.get("/harmony_viz/info")
        if info is not None:
            return info.get("engine") == self.name
        paths = (probe.get("/openapi.json") or {}).get("paths") or {}
        return "/v1/responses" in paths and "/v1/chat/completions" not in paths

    def version(self, probe: Probe) -> str | None:
        info = probe.get("/harmony_viz/info") or {}
        return str(info["version"]) if info.get("version") else None

    def model(self, client: Any) -> str:
        return MODEL

    def replay(self, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
        if not api.startswith("responses"):
            raise ValueError(self.not_served(api))
        forced = list(ids)
        notes = [NO_IDS_NOTE]
        first_stop = next((k for k, t in enumerate(ids) if t in STOP_IDS), None)
        if first_stop is not None and first_stop < len(ids) - 1:
            forced = forced[: first_stop + 1]
            notes.append(f"replayed up to its first stop token (token {first_stop + 1} of {len(ids)}): the reference stops on <|return|> and <|call|>")
        request = build_request(api, body, model=model, max_tokens=len(forced), script=None, token_ids=False)
        extra = dict(request.pop("extra_body", {}))
        extra.update(harmony_viz_script=forced, harmony_viz_key=uuid.uuid4().hex)
        request["extra_body"] = extra
        return Replay(ids=tuple(forced), request=request, notes=tuple(notes))

    def capture_request(self, api: str, request: dict[str, Any]) -> dict[str, Any]:
        if not api.startswith("responses"):
            raise ValueError(self.not_served(api))
        extra = {k: v for k, v in (request.pop("extra_body", None) or {}).items() if k != "enable_response_messages"}
        if extra:
            request["extra_body"] = extra
        return request

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        body = responses_of_chat(request) if kind == "chat" else dict(request)
        source = "gpt-oss /v1/responses/render (the ids its infer_next_token first received)"
        status, got = post(root_client(base_url), "/v1/responses/render", without_stream(body))
        if status == 200 and isinstance(got, dict) and isinstance(got.get("token_ids"), list):
            return ServerPrompt(ids=tuple(got["token_ids"]), source=source)
        if status in (404, 405):
            raise PromptUnavailable(f"{base_url}: this reference server does not show its prompt; "
                                    "`harmony-viz replay-server --engine gpt-oss` serves one that does")
        return ServerPrompt(ids=None, source=source, error=f"{status}: {message_of(got)}")

    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "replay-server":
            parser.add_argument("--gpt-oss-python", metavar="PY",
                                help="gpt-oss: the Python of its venv (default: $HARMONY_VIZ_GPT_OSS_PYTHON, else .venv-gpt-oss)")

    def find(self, explicit: str | None = None) -> str:
        return find_gpt_oss_python(explicit)

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> GptOssSpec:
        return GptOssSpec(python=find_gpt_oss_python(options.get("gpt_oss_python")), host=host, port=port)


ENGINE = GptOss()
