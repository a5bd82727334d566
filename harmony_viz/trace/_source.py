"""Turn what a user hands to ``replay`` into token ids: ids, Harmony text, a conversation or a run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np


class SourceError(ValueError):
    """The source could not be read as a token stream; the message says what was expected."""


_WHAT = ("token ids (a list or array of ints), Harmony text (a str), a conversation "
         "(harmony_viz.render.Conversation or its JSON dict) or a run record (harmony_viz.runs)")


def tokens_of(source: Any) -> list[int]:
    """The token ids of ``source``: ids as they are, text encoded, conversations rendered.

    >>> tokens_of("<|start|>assistant<|message|>Hi<|end|>")
    [200006, 173781, 200008, 12194, 200007]
    """
    from harmony_viz.tokens import encoding

    if isinstance(source, str):
        return encoding().encode(source, allowed_special="all")
    if isinstance(source, np.ndarray):
        if source.ndim != 1 or not np.issubdtype(source.dtype, np.integer):
            raise SourceError(f"an array source must be 1-D integer token ids, got {source.dtype} of shape {source.shape}")
        return [int(t) for t in source.tolist()]
    if isinstance(source, (bytes, bytearray)):
        raise SourceError("bytes are not a token stream; decode them to Harmony text (str) first")
    if isinstance(source, Sequence) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in source):
        return [int(t) for t in source]
    run = _run_tokens(source)
    if run is not None:
        return run
    conv = _conversation_tokens(source)
    if conv is not None:
        return conv
    raise SourceError(f"cannot replay a {type(source).__name__}; pass {_WHAT}")


def _run_tokens(source: Any) -> list[int] | None:
    """A run record's whole stream (prompt then completion), when the object looks like one."""
    get = source.get if isinstance(source, dict) else (lambda k: getattr(source, k, None))
    prompt, completion = get("prompt_token_ids"), get("completion_token_ids")
    if isinstance(prompt, Sequence) and isinstance(completion, Sequence) and (prompt or completion):
        return [int(t) for t in [*prompt, *completion]]
    for key in ("tokens", "token_ids"):
        value = get(key)
        if isinstance(value, Sequence) and not isinstance(value, str):
            return [int(t) for t in value]
    text = get("text")
    if isinstance(text, str) and (hasattr(source, "completion_token_ids") or isinstance(source, dict)):
        from harmony_viz.tokens import encoding

        return encoding().encode(text, allowed_special="all")
    return None


def _conversation_tokens(source: Any) -> list[int] | None:
    is_dict = isinstance(source, dict) and "messages" in source
    is_list = isinstance(source, list) and source and all(isinstance(m, dict) and "role" in m for m in source)
    if not (is_dict or is_list or type(source).__name__ == "Conversation"):
        return None
    try:
        from harmony_viz.render import Conversation, render_conversation
    except ImportError:
        raise SourceError("replaying a conversation needs harmony_viz.render, which is not available; "
                          "render it to token ids or Harmony text first") from None
    conv = source
    if not isinstance(source, Conversation):
        payload = source if is_dict else {"messages": source}
        conv = Conversation.from_json(payload if not isinstance(payload, str) else json.loads(payload))
    out = render_conversation(conv)
    return [int(t) for t in out]
