"""``load_runs``: read run files of any known shape, in order, never aborting on a bad entry."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

from harmony_viz.runs._jsonl import is_own_run, iter_jsonl, run_from_own
from harmony_viz.runs._kaggle import is_findings, runs_from_findings
from harmony_viz.runs._model import Run, RunMetadata, effort_from_text, load_diagnostic
from harmony_viz.runs._prompt_completion import is_prompt_completion, run_from_prompt_completion
from harmony_viz.runs._token_ids import is_token_ids, run_from_token_ids

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


def _disable(progress: bool | None, n: int) -> bool | None:
    if progress is None:
        return None if n > 1 else True  # tqdm's None = off unless stderr is a terminal
    return not progress
