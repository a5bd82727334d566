"""Tool-call arguments: parsed strictly when they can be, repaired when not, never silently ``{}``."""

from __future__ import annotations

import json
from typing import Any


def is_json_call(recipient: str | None, content_type: str | None) -> bool:
    """Whether a call's body is meant to be JSON arguments.

    Everything is, except code for the bare ``python`` tool; models often label JSON
    arguments ``code`` (``to=functions.edit code``), so the label alone does not decide.
    """
    if content_type is not None and "json" in content_type:
        return True
    return recipient != "python"


def parse_arguments(raw: str) -> tuple[Any, str | None]:
    """(parsed value, error): error is None when ``raw`` is strict JSON.

    On a strict failure the value comes from json-repair, or is None when nothing could be
    recovered; the error says what was wrong with the raw text.
    """
    try:
        return json.loads(raw), None
    except ValueError as exc:
        error = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)
    except RecursionError:  # json's decoder recurses once per level; json-repair would too
        return None, "nested too deep to parse (more levels than Python's recursion limit)"
    try:
        import json_repair

        value = json_repair.loads(raw)
    except Exception:  # json-repair's failure modes are not part of its API
        value = None
    if value == "":
        value = None  # json-repair's way of saying "nothing here"
    return value, error


def is_complete_json(raw: str) -> bool:
    """Whether ``raw`` is one complete JSON value (a call cut off after it lost only its stop token)."""
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return True
