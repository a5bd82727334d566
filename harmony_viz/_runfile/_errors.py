"""The reader's error and the one JSONL line parser, here so the run-file shapes (below the reader) use them too.

Both are the reader's names: :mod:`harmony_viz.inputs` exports them, and ``InputError`` says
it is ``harmony_viz.inputs.InputError`` in tracebacks.
"""

from __future__ import annotations

import json
from typing import Any


class InputError(ValueError):
    """The input cannot be read; the message is one line naming it and what was expected.

    ``reason`` is a short stable word for tools (``not-utf8``, ``bad-json``, ``bad-token-ids``,
    ``unknown-shape``, ``missing``, ``unreadable``); run loaders file it as ``load.<reason>``.
    """

    def __init__(self, message: str, reason: str = "unreadable") -> None:
        super().__init__(message)
        self.reason = reason


InputError.__module__ = "harmony_viz.inputs"  # its public home (pickles and tracebacks name it so)


def parse_jsonl_line(line: str | bytes) -> Any:
    """One JSONL line's value: the one place a JSONL line is parsed (runs, datasets of requests, rows at scale).

    A line that is not JSON is an InputError saying why, for the caller to put its name and
    line number in front.

    >>> parse_jsonl_line(b'{"a": 1}')
    {'a': 1}
    >>> parse_jsonl_line("{oops")
    Traceback (most recent call last):
    ...
    harmony_viz.inputs.InputError: not JSON (Expecting property name enclosed in double quotes at column 2)
    """
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at column {exc.colno})", "bad-json") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not JSON (not UTF-8 (byte {exc.start}))", "bad-json") from None
    except RecursionError:  # json's decoder recurses once per level
        raise InputError("not JSON that can be read (nested deeper than Python's recursion limit)", "bad-json") from None
