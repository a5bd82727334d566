"""The engines of the server lens, one module each, behind one small protocol, in one registry.

An engine says what it is called, how it is told from a running server, which APIs it serves,
how a token stream is forced through it (or run offline), how the answer's token ids come back,
how its prompt is seen, which request fields it drops or needs, its version, and how it is
installed. Everything else in the lens (``server-check``, ``prompt-check``, ``capture``,
``matrix``, the CLI's ``--engine`` choices, the docs' engine table) reads it from here:
no code outside an engine's module compares an engine's name.

The protocol (:class:`Engine`) is ``_engine``'s, below every engine module; this registry sits
above them: it loads the built-in ones (each module's ``ENGINE``), and any other engine is one module
with an :class:`Engine` subclass and one :func:`register` call (``docs/architecture.md``, "Adding an engine").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harmony_viz.servers.engines._engine import Engine, Probe, Replay

__all__ = ["BUILTIN", "GENERIC", "Engine", "Probe", "Replay", "detect", "detect_engine", "engine_table", "engines", "get", "names",
           "register", "replay_request", "replaying", "unregister"]


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
    found = get(engine)
    if found not in replaying():
        raise ValueError(f"cannot replay a stream through {found.name}; replays work with {', '.join(e.name for e in replaying())}")
    return found.replay(api, body, ids, model=model)


def engine_table() -> str:
    """The docs' engine table, written from the registry."""
    rows = [("engine", "APIs", "forced by", "token ids back", "prompt seen via", "request fields", "install")]
    rows += [(f"`{e.name}`", ", ".join(e.apis), e.forcing, e.ids_back, e.prompt_via, e.request_fields, e.install) for e in engines()]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


_loaded = False


def _load_builtin() -> None:
    """Register the built-in engines (each module's ``ENGINE``) on first use: their modules import the protocol, not this registry."""
    global _loaded
    if not _loaded:
        _loaded = True
        from harmony_viz.servers.engines import gpt_oss, llama_cpp, sglang, vllm

        for module in (vllm, llama_cpp, sglang, gpt_oss):
            _REGISTRY.setdefault(module.ENGINE.name, module.ENGINE)
