"""Our JSONL run files: one run object a line (the format ``save_runs`` writes and the recorder appends).

A line is ``{"id", "metadata", "prompt_token_ids", "completion_token_ids", "token_times"?,
"logprobs"?}`` or ``{"id", "metadata", "text"}``. Lines in other shapes that the loaders
know (``output_text`` notebook extracts, prompt/completion objects) load too, so a JSONL of
mixed sources works. A line that is not JSON becomes an empty run with a diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from harmony_viz._runfile._errors import InputError, parse_jsonl_line
from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic
from harmony_viz._runfile._token_ids import read_token_ids

_OWN_KEYS = ("prompt_token_ids", "completion_token_ids", "text")


def is_own_run(obj: Any) -> bool:
    return isinstance(obj, dict) and any(k in obj for k in _OWN_KEYS)


def run_from_own(obj: dict[str, Any], path: Path, run_id: str) -> Run:
    """One line of our format; bad fields are dropped with a diagnostic, never raised."""
    diagnostics: list[Any] = []
    meta_obj = obj.get("metadata", {})
    if not isinstance(meta_obj, dict):
        diagnostics.append(load_diagnostic("load.bad-entry", f"{path} {run_id}: metadata is a {type(meta_obj).__name__}, expected an object; ignored"))
        meta_obj = {}
    meta = RunMetadata.from_json(meta_obj)
    if meta.source is None:  # the record's own "source" field, else the file it came from (as every other shape)
        top = obj.get("source")
        meta = replace(meta, source=top if isinstance(top, str) and top else path.stem)
    if "path" not in meta.extra:
        meta.extra["path"] = str(path)
    text = obj.get("text")
    if text is not None and not isinstance(text, str):
        diagnostics.append(load_diagnostic("load.bad-entry", f"{path} {run_id}: text is a {type(text).__name__}, expected Harmony text; ignored"))
        text = None
    if text is not None and meta.reasoning_effort is None:
        meta = RunMetadata.from_json({**meta.to_json(), "reasoning_effort": effort_from_text(text)})
    prompt, bad_prompt = read_token_ids(obj.get("prompt_token_ids", []), f"{path} {run_id}: prompt_token_ids")
    completion, bad_completion = read_token_ids(obj.get("completion_token_ids", []), f"{path} {run_id}: completion_token_ids")
    diagnostics += [*bad_prompt, *bad_completion]
    times = _floats(obj.get("token_times"), len(completion), "token_times", path, run_id, diagnostics)
    logprobs = _floats(obj.get("logprobs"), len(completion), "logprobs", path, run_id, diagnostics)
    return Run(
        id=str(obj.get("id") or run_id),
        metadata=meta,
        prompt_token_ids=prompt,
        completion_token_ids=completion,
        text=text,
        token_times=times,
        logprobs=logprobs,
        diagnostics=tuple(diagnostics),
    )


def iter_jsonl(text: str, path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object or a ``Run`` for a line that is not JSON); blank lines skipped."""
    # Split on "\n" only: str.splitlines() also breaks at U+0085 and U+2028, which JSON
    # written with ensure_ascii=False keeps raw inside strings.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        yield number, jsonl_value(line, path, path.stem, number)


def jsonl_value(line: str | bytes, path: Path, stem: str, number: int) -> Any:
    """One JSON line, or an empty run with a diagnostic when it is not JSON (the batch goes on)."""
    try:
        return parse_jsonl_line(line)
    except InputError as exc:
        bad = load_diagnostic(f"load.{exc.reason}", f"{path} line {number}: {exc}; line skipped")
        return Run(id=f"{stem}#line-{number}", metadata=RunMetadata(source=stem, extra={"path": str(path)}), diagnostics=(bad,))


def _floats(value: Any, n: int, name: str, path: Path, run_id: str, diagnostics: list[Any]) -> tuple[float, ...] | None:
    """Per-token numbers; None (with a diagnostic) unless one number per completion token."""
    if value is None:
        return None
    if isinstance(value, list) and len(value) == n and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        return tuple(float(x) for x in value)
    got = f"{len(value)} entries" if isinstance(value, list) else f"a {type(value).__name__}"
    diagnostics.append(
        load_diagnostic("load.bad-entry", f"{path} {run_id}: {name} has {got}, expected {n} numbers (one per completion token); ignored", severity="warning")
    )
    return None
