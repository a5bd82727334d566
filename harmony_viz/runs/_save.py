"""Writing our JSONL run files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harmony_viz._runfile import Run


def save_runs(runs: Iterable[Run], path: str | Path) -> Path:
    """Write ``runs`` to ``path`` as JSONL, one run a line, replacing the file."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as f:
        for run in runs:
            f.write(run.to_jsonl_line() + "\n")
    return path


def append_run(run: Run, path: str | Path) -> Path:
    """Append one run to a JSONL file and flush, so a run is kept as soon as it ends."""
    path = Path(path)
    with path.open("a", encoding="utf-8") as f:
        f.write(run.to_jsonl_line() + "\n")
        f.flush()
    return path
