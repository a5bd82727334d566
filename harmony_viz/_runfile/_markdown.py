"""Markdown trial transcripts (aldehir/gpt-oss-tool-calling-notebook): one run per turn.

Each ``### Turn K`` holds a fenced block with the raw prompt and completion of one model
call. The completion is what follows the last non-assistant message (the user's question
or the last tool result), so each turn's run counts only what the model generated then.

WARNING: the harness joined messages with blank lines for display; whitespace between a
stop token and the next ``<|start|>`` is removed on load, since the model never saw it.
"""

from __future__ import annotations

import re
from pathlib import Path

from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic

_TURN_RE = re.compile(r"^### Turn (\d+)\s*\n+```[^\n]*\n(.*?)\n```", re.MULTILINE | re.DOTALL)
_JOINER_RE = re.compile(r"(<\|(?:end|call|return)\|>)\s+(?=<\|start\|>)")
_START_RE = re.compile(r"<\|start\|>([^<\s]*)")
_NAME_RE = re.compile(r"cities[=_](\d+).*?cot[=_](true|false).*?trial[-_](\d+)", re.IGNORECASE)


def is_markdown_trial(text: str) -> bool:
    return _TURN_RE.search(text) is not None


def split_completion(block: str) -> tuple[str, str]:
    """(prompt, completion): the completion starts at the first assistant message after the last other one."""
    cut = 0
    for found in _START_RE.finditer(block):
        if found.group(1) != "assistant":
            cut = -1  # a non-assistant message: the completion starts after it
        elif cut == -1:
            cut = found.start()
    if cut <= 0:
        return "", block
    return block[:cut], block[cut:]


def runs_from_markdown(text: str, path: Path) -> list[Run]:
    extra: dict[str, object] = {"path": str(path), "token_ids": "re-encoded"}
    named = _NAME_RE.search(path.name)
    if named:
        extra.update(cities=int(named.group(1)), cot=named.group(2).lower() == "true", trial=int(named.group(3)))
    source = f"tool-calling cot={named.group(2).lower()}" if named else path.stem
    runs = []
    for found in _TURN_RE.finditer(text):
        turn = int(found.group(1))
        block = _JOINER_RE.sub(r"\1", found.group(2))
        prompt, completion = split_completion(block)
        diagnostics = ()
        if not prompt:
            diagnostics = (load_diagnostic("load.no-prompt", f"{path} turn {turn}: no user or tool message, so no prompt/completion split; the whole block counts as output", severity="warning"),)
        meta = RunMetadata(reasoning_effort=effort_from_text(block), source=source, extra={**extra, "turn": turn})
        runs.append(
            Run(id=f"{path.stem}#turn-{turn}", metadata=meta, text=None, diagnostics=diagnostics, **_ids(prompt, completion))
        )
    return runs


def _ids(prompt: str, completion: str) -> dict[str, tuple[int, ...]]:
    from harmony_viz.tokens import encode

    return {
        "prompt_token_ids": tuple(encode(prompt)),
        "completion_token_ids": tuple(encode(completion)),
    }
