"""The one small protocol every engine of the lens follows (:class:`Engine`), and what an engine module shares.

An engine says what it is called, how it is told from a running server, which APIs it serves,
how a token stream is forced through it (or run offline), how the answer's token ids come back,
how its prompt is seen, which request fields it drops or needs, its version, how it is
installed and found, and how its replay server starts (its :class:`~harmony_viz.servers._launch.Spec`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import default_model, httpx_module, root_client
from harmony_viz.servers._launch import LaunchError, Spec
from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt, prompt_token_ids
from harmony_viz.servers.core._exchange import APIS

if TYPE_CHECKING:
    import argparse

    from harmony_viz.servers.core._result import CheckResult


@dataclass(frozen=True)
class Replay:
    """One replay request: the ids it forces (maybe fewer than the stream's), its ``openai`` arguments, and its notes."""

    ids: tuple[int, ...]
    request: dict[str, Any]
    notes: tuple[str, ...] = ()
    tools_withheld: bool = False  # the request declared tools, the replay could not send them


class Probe:
    """A running server's own endpoints, each asked at most once (detection asks several engines in turn)."""

    def __init__(self, base_url: str, *, timeout: float = 10.0) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self._seen: dict[str, dict[str, Any] | None] = {}

    def get(self, path: str) -> dict[str, Any] | None:
        """The JSON object a GET of ``path`` (beside ``/v1``) answers with status 200, else None."""
        if path not in self._seen:
            self._seen[path] = self._get(path)
        return self._seen[path]

    def _get(self, path: str) -> dict[str, Any] | None:
        import openai

        httpx = httpx_module()
        try:
            response = root_client(self.base_url, timeout=self.timeout).get(path, cast_to=httpx.Response)
        except (openai.APIError, httpx.HTTPError):
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        return body if response.status_code == 200 and isinstance(body, dict) else None


TOP_LOGPROBS = 5  # the alternatives a capture asks for per token, where the server offers them


class Engine:
    """One engine of the lens. Subclasses set the facts and override what differs from an OpenAI-compatible server."""

    name: str = ""  # the one spelling: results' "engine", --engine choices, capture folders
    label: str = ""  # for tables: the engine and the version the shipped data came from
    apis: tuple[str, ...] = APIS  # the APIs it serves; the others are "not served", not failed
    offline: bool = False  # its own code runs on the tokens here; no server, no URL
    replays: bool = True  # a stream can be forced through it
    default_port: int | None = None  # replay-server's port when none is given (None: no replay server)
    python_flag: str | None = None  # replay-server's option naming the engine's own Python, if it runs in one
    option_flags: Mapping[str, str] = {}  # replay-server's other options of its own, by keyword (``chat_template``)
    install: str = ""  # one line: how to install it
    forcing: str = ""  # how a stream is forced through it
    ids_back: str = ""  # how the answer's token ids come back, if at all
    prompt_via: str = ""  # how the prompt it rendered is seen
    request_fields: str = ""  # request fields it drops or needs

    @property
    def flag(self) -> str:
        """The option that names it in ``matrix`` and ``conformance`` (``--llama-cpp``)."""
        return "--" + self.name.replace(".", "-")

    @property
    def dest(self) -> str:
        return self.name.replace(".", "_").replace("-", "_")

    # -- running servers --------------------------------------------------------------------
    def detect(self, probe: Probe) -> bool:
        """Whether the server behind ``probe`` is this engine."""
        return False

    def version(self, probe: Probe) -> str | None:
        """The engine's version as the running server tells it, None when it does not."""
        return None

    def model(self, client: Any) -> str:
        """The model name to send when none is given: the first one the server lists."""
        return default_model(client)

    def replay(self, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
        """How this engine is asked to emit exactly ``ids`` through ``api``, for the Chat Completions body ``body``."""
        raise ValueError(f"cannot replay a stream through {self.name}: nothing forces a stream through it")

    def capture_request(self, api: str, request: dict[str, Any]) -> dict[str, Any]:
        """The ``openai`` arguments of a ``capture``: by default Chat asks for logprobs with the top 5 alternatives, so ids can
        come back from their tokens and the widget can show what the model nearly wrote."""
        if api.startswith("chat"):
            request.setdefault("logprobs", True)
            request.setdefault("top_logprobs", TOP_LOGPROBS)
        return request

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        """The prompt this server renders for ``request``; by default a one-token chat completion asking for ``prompt_token_ids``."""
        if kind != "chat":
            raise PromptUnavailable(f"{base_url}: no way to see a Responses prompt on this server")
        return prompt_token_ids(base_url, request, model, f"{self.name} prompt_token_ids")

    # -- the CLI ------------------------------------------------------------------------------
    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        """This engine's own options of ``command`` (``replay-server``, ``server-check``, ``matrix``)."""

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> Spec:
        """The replay server to start (``command()``, ``environment()``, ``base_url``): ``replay-server --engine NAME``."""
        raise LaunchError(f"{self.name} has no replay server")

    def find(self, explicit: str | None = None) -> str:
        """The engine's own program or Python: ``explicit``, else its environment variable, else its install script's; LaunchError when none."""
        raise LaunchError(f"{self.name} has nothing of its own to find here")

    def installed(self) -> str | None:
        """What :meth:`find` finds with nothing given (from the environment or the install script's place), or None."""
        try:
            return self.find(None)
        except LaunchError:
            return None

    def replay_server_args(self, **given: str | None) -> list[str]:
        """``replay-server``'s options passing ``given`` on (``python=``: its own Python, else a key of :attr:`option_flags`)."""
        flags = {"python": self.python_flag, **self.option_flags}
        args: list[str] = []
        for key, value in given.items():
            if value is None:
                continue
            flag = flags.get(key)
            if flag is None:
                raise LaunchError(f"{self.name} takes no Python of its own" if key == "python" else f"{self.name} takes no {key.replace('_', '-')}")
            args += [flag, str(value)]
        return args

    def check_offline(self, named: Sequence[tuple[str, Sequence[int]]], *, request: dict[str, Any], apis: Sequence[str],
                      options: Mapping[str, Any]) -> Iterator[CheckResult]:
        """An offline engine's check of ``(name, ids)`` streams (its own code run on the tokens), for the served ``apis``."""
        raise ValueError(f"{self.name} is checked through a server: give its URL")

    def not_served(self, api: str) -> str:
        return f"{self.name} does not serve the {api} API (it serves {', '.join(self.apis)})"


def plain_body(body: Mapping[str, Any], drop: Sequence[str]) -> dict[str, Any]:
    """A deep copy of ``body`` without the fields in ``drop``."""
    return {k: copy.deepcopy(v) for k, v in body.items() if k not in drop}
