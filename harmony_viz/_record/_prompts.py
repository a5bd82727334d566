"""``PROMPTS.jsonl`` for recording through a server, and which runs an output file already holds (``--resume``).

One object a line: ``{"prompt": ..., "reasoning_effort"?: ..., "id"?: ..., "tools"?: ...}``.
A plain text line is a prompt too. Run ids are ``{prompt id}#{sample}``, so a resumed batch
knows which runs are done by their ids alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz.runs import EFFORTS

__all__ = ["PromptSpec", "done_run_ids", "read_prompt_specs", "run_id_of"]


@dataclass(frozen=True, slots=True)
class PromptSpec:
    """One prompt to record: its id, text, and the effort and tool set it asks for (None: the batch's)."""

    id: str
    prompt: str
    reasoning_effort: str | None = None
    tools: str | None = None


def run_id_of(spec: PromptSpec, sample: int) -> str:
    return f"{spec.id}#{sample}"


def read_prompt_specs(text: str, where: str = "prompts") -> list[PromptSpec]:
    """Prompts from JSON lines (or plain lines); a ValueError in one line names the bad line."""
    specs: list[PromptSpec] = []
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        specs.append(_spec(stripped, f"{where} line {number}", default_id=f"p{len(specs):05d}"))
    if not specs:
        raise ValueError(f"{where}: no prompts found; write one prompt a line, as text or JSON, e.g. {{\"prompt\": \"What is 2 + 2?\"}}")
    ids = [s.id for s in specs]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"{where}: the id {dup!r} is used twice; ids name the runs, so each must be unique")
    return specs


def _spec(line: str, where: str, *, default_id: str) -> PromptSpec:
    if line[0] not in "{\"":
        return PromptSpec(default_id, line)
    try:
        value: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
    if isinstance(value, str):
        return PromptSpec(default_id, value)
    if not isinstance(value, dict) or not isinstance(value.get("prompt"), str):
        raise ValueError(f"{where}: expected an object with a \"prompt\" string")
    effort = value.get("reasoning_effort")
    if effort is not None and effort not in EFFORTS:
        raise ValueError(f"{where}: reasoning_effort {effort!r}; expected one of {', '.join(EFFORTS)}")
    tools = value.get("tools")
    if tools is not None and tools not in ("demo", "none"):
        raise ValueError(f"{where}: tools {tools!r}; expected \"demo\" or \"none\"")
    pid = value.get("id", default_id)
    if not isinstance(pid, (str, int)) or isinstance(pid, bool):
        raise ValueError(f"{where}: id must be a string or a number")
    return PromptSpec(str(pid), value["prompt"], effort, tools)


def done_run_ids(path: str | os.PathLike[str]) -> set[str]:
    """Ids of the runs already in a JSONL run file (none when it does not exist); read line by line."""
    p = Path(path)
    if not p.is_file():
        return set()
    return {run_id for run_id in _ids(p) if run_id}


def _ids(path: Path) -> Iterator[str | None]:
    with path.open("rb") as f:
        for raw in f:
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a line cut short by an interrupt: that run is recorded again
            yield obj.get("id") if isinstance(obj, dict) else None
