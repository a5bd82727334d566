"""Which run a parsed file holds: the shapes of run files, tried in order, never aborting on a bad entry.

Also what a capture is (a run whose ``metadata.extra["server"]`` holds the server's answer,
as ``harmony-viz capture`` writes it): the reader says "a capture" from this shape alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harmony_viz._runfile._jsonl import is_own_run, iter_jsonl, run_from_own
from harmony_viz._runfile._kaggle import is_findings, runs_from_findings
from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic
from harmony_viz._runfile._prompt_completion import is_prompt_completion, run_from_prompt_completion
from harmony_viz._runfile._token_ids import is_token_ids, run_from_token_ids

# The APIs a capture's answer may come from.
CAPTURE_APIS = ("chat", "chat-stream", "responses", "responses-stream")


def is_capture(source: Any) -> bool:
    """Whether ``source`` is a capture: a run with ``metadata.extra["server"]`` naming one of the APIs."""
    meta = getattr(source, "metadata", None)
    server = getattr(meta, "extra", {}).get("server") if meta is not None else None
    return isinstance(server, dict) and server.get("api") in CAPTURE_APIS


def runs_from_jsonl(text: str, path: Path) -> list[Run]:
    """Runs of a JSONL text, one a line; a line that is not JSON is an empty run with a diagnostic."""
    return [r for number, obj in iter_jsonl(text, path) for r in runs_from_object(obj, path, f"{path.stem}#line-{number}")]


def runs_from_json(obj: Any, path: Path) -> list[Run]:
    """Runs of one parsed JSON file: an object, or an array of run objects (named ``stem#i``)."""
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        return [r for i, item in enumerate(obj) for r in runs_from_object(item, path, f"{path.stem}#{i}")]
    return runs_from_object(obj, path, path.stem)


def runs_from_object(obj: Any, path: Path, run_id: str) -> list[Run]:
    """Runs from one parsed JSON value; an unknown shape is an empty run with a diagnostic."""
    if isinstance(obj, Run):
        return [obj]
    if is_findings(obj):
        return runs_from_findings(obj, path)
    if is_own_run(obj):
        return [run_from_own(obj, path, run_id)]
    if isinstance(obj, dict) and isinstance(obj.get("output_text"), str) and not is_prompt_completion(obj):
        return [_run_from_output_text(obj, path, run_id)]
    if is_prompt_completion(obj):
        return [run_from_prompt_completion(obj, path, run_id)]
    if is_token_ids(obj):
        return [run_from_token_ids(obj, path)]
    keys = ", ".join(sorted(obj)[:8]) if isinstance(obj, dict) else type(obj).__name__
    bad = load_diagnostic(
        "load.unknown-shape",
        f"{path} {run_id}: no run in this JSON ({keys}); expected completion_token_ids, text, "
        "harmony_response_walkthroughs, prefill_text/completion_text, output_text or an array of token ids",
    )
    return [Run(id=run_id, metadata=RunMetadata(source=path.stem, extra={"path": str(path)}), diagnostics=(bad,))]


def _run_from_output_text(obj: dict[str, Any], path: Path, run_id: str) -> Run:
    """A notebook extract: ``output_text`` is the full decode (prompt and completion, no split)."""
    text = obj["output_text"]
    # "path" is the run file, as for every loader; the extract's own "path" (the notebook
    # in its source repository) is kept as "source_path".
    extra = {k: v for k, v in obj.items() if k not in ("output_text", "path")}
    if "path" in obj:
        extra["source_path"] = obj["path"]
    extra["path"] = str(path)
    source = Path(str(obj["path"])).stem if obj.get("path") else path.stem
    meta = RunMetadata(reasoning_effort=effort_from_text(text), source=source, extra=extra)
    cell = obj.get("cell_index")
    return Run(id=f"{path.stem}#cell-{cell}" if cell is not None else run_id, metadata=meta, text=text)
