"""``load_runs``: read run files of any known shape, in order, never aborting on a bad entry."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Union

from harmony_viz._runfile import Run, RunMetadata, load_diagnostic

PathLike = Union[str, Path]


def load_runs(sources: PathLike | Iterable[PathLike], *, progress: bool | None = None) -> list[Run]:
    """Runs from files, in the order given and, within a file, in the file's order.

    Known shapes: our JSONL (``save_runs``), Kaggle findings JSON (one run per
    ``harmony_response_walkthroughs`` entry), prompt/completion JSON, notebook extracts
    with ``output_text``, a JSON array of token ids, Markdown trial transcripts (one run
    per turn) and plain Harmony text. ``-`` reads standard input. ``progress`` shows a
    tqdm bar on stderr (None: only when stderr is a terminal).

    >>> from harmony_viz.data import sample_path
    >>> runs = load_runs(sample_path("findings-rag.json"))
    >>> len(runs), runs[0].id, runs[0].metadata.reasoning_effort
    (80, 'findings-rag#0', 'medium')
    """
    paths = [sources] if isinstance(sources, (str, Path)) else list(sources)
    for p in paths:
        if str(p) != "-" and not Path(p).exists():
            raise FileNotFoundError(f"{p}: no such run file; pass a path to a .jsonl, .json, .md or Harmony text file")
    from tqdm.auto import tqdm

    runs: list[Run] = []
    bar = tqdm(paths, desc="loading runs", unit="file", file=sys.stderr, disable=_disable(progress, len(paths)))
    for p in bar:
        runs.extend(load_file(p))
    return runs


def load_file(source: PathLike) -> list[Run]:
    """Runs in one file (or standard input for ``-``), read by :func:`harmony_viz.inputs.read`.

    A file that cannot be read at all is one empty run whose diagnostic says why.
    """
    from harmony_viz.inputs import InputError, read, read_text

    path = Path("stdin") if str(source) == "-" else Path(source)
    if path.is_dir() and not _is_dataset(path):
        raise IsADirectoryError(f"{path}: is a folder; pass the run files inside it (e.g. {path}/*.json)")
    try:
        found = read_text(sys.stdin.read(), "stdin") if str(source) == "-" else read(path)
        return found.runs()
    except InputError as exc:
        bad = load_diagnostic(f"load.{exc.reason}", f"{exc}; file skipped")
        return [Run(id=path.stem, metadata=RunMetadata(source=path.stem, extra={"path": str(path)}), diagnostics=(bad,))]


def _is_dataset(path: Path) -> bool:
    return (path / "state.json").is_file() or (path / "dataset_dict.json").is_file()


def _disable(progress: bool | None, n: int) -> bool | None:
    if progress is None:
        return None if n > 1 else True  # tqdm's None = off unless stderr is a terminal
    return not progress
