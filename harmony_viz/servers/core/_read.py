"""What the server lens reads from files, through the one reader (``harmony_viz.inputs``): a stream, a request.

Each is the reader's result held to what the lens needs; anything else is a :class:`CheckInputError`
in one line, worded as the reader words it.
"""

from __future__ import annotations

from typing import Any

from harmony_viz.inputs import InputError, read_path
from harmony_viz.servers.core._result import CheckInputError


def read_stream(path: str) -> list[int]:
    """A completion from a file: a JSON array of token ids, or Harmony text (one trailing newline is the editor's)."""
    from harmony_viz.tokens import encode

    try:
        got = read_path(path)
    except InputError as exc:
        raise CheckInputError(str(exc)) from None
    if got.kind == "ids":
        ids = list(got.value)
    elif got.kind == "text":
        text = got.value
        ids = encode(text[:-1] if text.endswith("\n") else text)
    else:
        raise CheckInputError(f"{path}: read as {got.form}; a stream is a completion after <|start|>assistant: Harmony text or a JSON array of token ids")
    if not ids:
        raise CheckInputError(f"{path}: the stream is empty")
    return ids


def read_request(path: str | None) -> dict[str, Any]:
    """A Chat Completions request body (messages, tools), or {} for the default one-message request."""
    if path is None:
        return {}
    try:
        got = read_path(path, form="chat")
    except InputError as exc:
        raise CheckInputError(str(exc)) from None
    body = got.value
    if got.kind != "chat" or not isinstance(body.get("tools", []), list):
        raise CheckInputError(f"{path}: expected a Chat Completions request object with a messages list (and optional tools list)")
    return dict(body)
