"""The server lens's pure core: what a check is, and the files it reads and writes; no server, no engine.

Below the engines (``servers/engines/``), which use it, and the commands (``server-check``,
``capture``, ``prompt-check``, ``matrix``), which use both. One job per module:

- ``_exchange``: the APIs the lens speaks, the record of one exchange, the error for an unreachable server;
- ``_shapes``: request shapes, Chat Completions ↔ Responses (the one converter, both ways);
- ``_answer``: a server answer (object, chunks or events) reduced to what is compared;
- ``_logprobs``: the one reader of an answer's log-prob entries (its token ids, the widget's log-probs);
- ``_compare``: an answer against our projection, as discrepancy records; ``_fates``: what it made of each token;
- ``_result``: the check's record and verdict (``CheckResult``, ``check_answer``, the expectation, errors, cut streams);
- ``_read``: a stream file and a request file, through the one reader (``harmony_viz.inputs``);
- ``_prompt_diff``: a server's prompt against ours, and the prompt check's record;
- ``_capture_file``: the capture file (write, read, check offline, its log-probs).
"""

from __future__ import annotations

import importlib
from typing import Any

# The face, module by module; each name is loaded with its module on first use (the CLI reads the API names
# while it builds its parser, without loading the rest).
_FACE: dict[str, tuple[str, ...]] = {
    "_answer": ("answer_of",),
    "_capture_file": ("capture_logprobs", "capture_result", "is_capture", "load_capture", "save_capture"),
    "_compare": ("CODES", "Discrepancy", "compare_stream_final"),
    "_exchange": ("APIS", "REQUEST_KINDS", "ServerError"),
    "_fates": ("FATES", "result_fates"),
    "_logprobs": ("answer_logprobs", "ids_from_logprobs"),
    "_prompt_diff": ("PromptCheck", "compare_prompt", "request_rejected", "turn_checks"),
    "_read": ("read_request", "read_stream"),
    "_result": ("CheckInputError", "CheckResult", "MatrixCell", "check_answer", "expected_for", "format_result", "with_stream_final"),
    "_shapes": ("chat_of_responses", "responses_of_chat"),
}
__all__ = sorted(n for names in _FACE.values() for n in names)


def __getattr__(name: str) -> Any:
    module = next((m for m, names in _FACE.items() if name in names), None)
    if module is None:
        raise AttributeError(f"module 'harmony_viz.servers.core' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
