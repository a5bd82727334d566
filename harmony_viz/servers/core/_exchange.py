"""One exchange with a server, as the lens keeps it: the APIs it speaks, the record of a request and its answer, and the
error for a server that cannot be reached."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHAT_APIS: tuple[str, ...] = ("chat", "chat-stream")  # Chat Completions, whole and streamed
RESPONSES_APIS: tuple[str, ...] = ("responses", "responses-stream")  # the Responses API, whole and streamed
APIS: tuple[str, ...] = (*CHAT_APIS, *RESPONSES_APIS)  # every API the lens checks, in its table order
REQUEST_KINDS: tuple[str, ...] = ("chat", "responses")  # the two request shapes (a capture's ``api=``, a prompt's ``kind``)


class ServerError(RuntimeError):
    """The server cannot be reached at all (one line); HTTP errors of one request are findings instead."""


@dataclass(frozen=True)
class Exchange:
    """One request and what came back: the object, or every chunk/event with its arrival time (s)."""

    api: str
    request: dict[str, Any]
    final: dict[str, Any] | None = None
    chunks: tuple[dict[str, Any], ...] = ()
    times: tuple[float, ...] = ()
    elapsed: float = 0.0
    error: str | None = None

    @property
    def stream(self) -> bool:
        return self.api.endswith("-stream")

    @property
    def server(self) -> Any:
        """The server's object, or its list of chunks/events."""
        return list(self.chunks) if self.stream else self.final
