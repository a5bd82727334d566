"""The engines of the server lens, one module each, behind one small protocol, in one registry.

An engine says what it is called, how it is told from a running server, which APIs it serves,
how a token stream is forced through it (or run offline), how the answer's token ids come back,
how its prompt is seen, which request fields it drops or needs, its version, and how it is
installed. Everything else in the lens (``server-check``, ``prompt-check``, ``capture``,
``matrix``, the CLI's ``--engine`` choices, the docs' engine table) reads it from here:
no code outside an engine's module compares an engine's name.

A new engine is one module with an :class:`Engine` subclass and one :func:`register` call
(``docs/architecture.md``, "Adding an engine").
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import APIS, default_model, root_client

if TYPE_CHECKING:
    import argparse

    from harmony_viz.servers._check import CheckResult
    from harmony_viz.servers._prompt import ServerPrompt


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

        from harmony_viz.servers._client import httpx_module

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
        raise ValueError(f"cannot replay a stream through {self.name}; replays work with {', '.join(e.name for e in replaying())}")

    def capture_request(self, api: str, request: dict[str, Any]) -> dict[str, Any]:
        """The ``openai`` arguments of a ``capture``: by default Chat asks for logprobs with the top 5 alternatives, so ids can
        come back from their tokens and the widget can show what the model nearly wrote."""
        if api.startswith("chat"):
            request.setdefault("logprobs", True)
            request.setdefault("top_logprobs", TOP_LOGPROBS)
        return request

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        """The prompt this server renders for ``request``; by default a one-token chat completion asking for ``prompt_token_ids``."""
        from harmony_viz.servers._prompt import PromptUnavailable, prompt_token_ids

        if kind != "chat":
            raise PromptUnavailable(f"{base_url}: no way to see a Responses prompt on this server")
        return prompt_token_ids(base_url, request, model, f"{self.name} prompt_token_ids")

    # -- the CLI ------------------------------------------------------------------------------
    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        """This engine's own options of ``command`` (``replay-server``, ``server-check``, ``matrix``)."""

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> Any:
        """The replay server to start (a spec with ``command()``, ``environment()``, ``base_url``): ``replay-server --engine NAME``."""
        from harmony_viz.servers._launch import LaunchError

        raise LaunchError(f"{self.name} has no replay server")

    def check_offline(self, named: Sequence[tuple[str, Sequence[int]]], *, request: dict[str, Any], apis: Sequence[str],
                      options: Mapping[str, Any]) -> Iterator[CheckResult]:
        """An offline engine's check of ``(name, ids)`` streams (its own code run on the tokens), for the served ``apis``."""
        raise ValueError(f"{self.name} is checked through a server: give its URL")

    def not_served(self, api: str) -> str:
        return f"{self.name} does not serve the {api} API (it serves {', '.join(self.apis)})"


class _Generic(Engine):
    """Any OpenAI-compatible server the registry does not know: asked as the API defines, nothing forced."""

    name = "server"
    replays = False


GENERIC = _Generic()
_REGISTRY: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    """Add ``engine`` to the registry (a later one of the same name replaces it); returns it."""
    if not engine.name:
        raise ValueError("an engine needs a name")
    _REGISTRY[engine.name] = engine
    return engine


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


BUILTIN = ("vllm", "llama.cpp", "sglang", "gpt-oss")  # the registry's order: tables, columns, detection


def engines() -> tuple[Engine, ...]:
    """Every registered engine: the built-in ones in their order, then the others as registered."""
    _load_builtin()
    rank = {n: i for i, n in enumerate(BUILTIN)}
    return tuple(sorted(_REGISTRY.values(), key=lambda e: rank.get(e.name, len(rank))))


def names() -> tuple[str, ...]:
    return tuple(e.name for e in engines())


def replaying() -> tuple[Engine, ...]:
    """The engines a stream can be forced through over HTTP (``replay-server``, ``server-check --base-url``)."""
    return tuple(e for e in engines() if e.replays and not e.offline)


def get(name: str) -> Engine:
    """The engine called ``name``; ValueError in one line naming the known ones."""
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known engines: {', '.join(names())}") from None


def detect(base_url: str, *, timeout: float = 10.0) -> Engine | None:
    """The engine behind a running server, asked of its own endpoints (each once), or None."""
    probe = Probe(base_url, timeout=timeout)
    return next((e for e in engines() if not e.offline and e.detect(probe)), None)


def detect_engine(base_url: str, *, timeout: float = 10.0) -> str | None:
    """The name of the engine behind ``base_url`` (``"llama.cpp"``, ``"vllm"``, ``"sglang"``, ``"gpt-oss"``), or None."""
    found = detect(base_url, timeout=timeout)
    return found.name if found else None


def replay_request(engine: str, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
    """How ``engine`` is asked to emit exactly ``ids`` through ``api``, for the Chat Completions body ``body``."""
    return get(engine).replay(api, body, ids, model=model)


def plain_body(body: Mapping[str, Any], drop: Sequence[str]) -> dict[str, Any]:
    """A deep copy of ``body`` without the fields in ``drop``."""
    return {k: copy.deepcopy(v) for k, v in body.items() if k not in drop}


def engine_table() -> str:
    """The docs' engine table, written from the registry."""
    rows = [("engine", "APIs", "forced by", "token ids back", "prompt seen via", "request fields", "install")]
    rows += [(f"`{e.name}`", ", ".join(e.apis), e.forcing, e.ids_back, e.prompt_via, e.request_fields, e.install) for e in engines()]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


_loaded = False


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        # Imported for their register() calls.
        import harmony_viz.servers.engines.gpt_oss  # noqa: F401
        import harmony_viz.servers.engines.llama_cpp  # noqa: F401
        import harmony_viz.servers.engines.sglang  # noqa: F401
        import harmony_viz.servers.engines.vllm  # noqa: F401
