"""The projections as the official ``openai`` SDK's own types: every object we print must validate.

``sdk_object("chat", obj)`` gives a ``ChatCompletion``; ``chat-stream`` chunks become
``ChatCompletionChunk``; ``responses`` a ``Response``; a ``responses-stream`` event the class
its ``type`` names. The ``openai`` package is imported on first use only.
"""

from __future__ import annotations

import functools
import typing
from typing import Any


class SDKValidationError(ValueError):
    """An object the official SDK's types reject; the message names the object and the field."""


@functools.cache
def _event_classes() -> dict[str, Any]:
    from openai.types.responses import ResponseStreamEvent

    union = typing.get_args(ResponseStreamEvent)[0]  # Annotated[Union[...], discriminator]
    out: dict[str, Any] = {}
    for cls in typing.get_args(union):
        (name,) = typing.get_args(cls.model_fields["type"].annotation)
        out[name] = cls
    return out


def _model_for(output: str, obj: dict[str, Any]) -> Any:
    try:
        from openai.types.chat import ChatCompletion, ChatCompletionChunk
        from openai.types.responses import Response
    except ImportError:  # pragma: no cover - openai ships with the dev extra
        raise SDKValidationError("the official SDK is not installed: pip install openai") from None
    if output == "chat":
        return ChatCompletion
    if output == "chat-stream":
        return ChatCompletionChunk
    if output == "responses":
        return Response
    if output == "responses-stream":
        cls = _event_classes().get(str(obj.get("type")))
        if cls is None:
            raise SDKValidationError(f"Responses stream event type {obj.get('type')!r} is not one the SDK knows")
        return cls
    raise SDKValidationError(f"unknown output {output!r}; expected chat, chat-stream, responses or responses-stream")


def sdk_object(output: str, obj: dict[str, Any]) -> Any:
    """``obj`` (one object of the view ``output``) as the SDK's pydantic type; raises SDKValidationError."""
    import pydantic

    model = _model_for(output, obj)
    try:
        return model.model_validate(obj)
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SDKValidationError(f"{model.__name__}: {where}: {first['msg']} ({e.error_count()} error(s))") from None


def validate(output: str, objs: dict[str, Any] | list[dict[str, Any]]) -> int:
    """Validate one object, or a stream's list of objects; returns how many were checked."""
    items = objs if isinstance(objs, list) else [objs]
    for obj in items:
        sdk_object(output, obj)
    return len(items)
