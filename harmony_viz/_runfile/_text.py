"""Plain Harmony text files: one run, the whole conversation as written."""

from __future__ import annotations

from pathlib import Path

from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text


def run_from_text(text: str, path: Path, run_id: str | None = None) -> Run:
    """A text file is a whole transcript with no prompt/completion split."""
    meta = RunMetadata(reasoning_effort=effort_from_text(text), source=path.stem, extra={"path": str(path)})
    return Run(id=run_id or path.stem, metadata=meta, text=text)
