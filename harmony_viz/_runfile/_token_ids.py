"""Token-id JSON: a file holding one JSON array of integer token ids (a completion)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harmony_viz import tokens
from harmony_viz._runfile._model import Run, RunMetadata, load_diagnostic
from harmony_viz.tokens import is_token_id


def is_token_ids(obj: Any) -> bool:
    return isinstance(obj, list) and bool(obj) and all(isinstance(x, int) and not isinstance(x, bool) for x in obj[:64])


def read_token_ids(ids: Any, what: str) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """``ids`` as a tuple of valid token ids, plus a diagnostic when some were dropped (a loader never aborts)."""
    if not isinstance(ids, list):
        return (), (load_diagnostic("load.bad-token-ids", f"{what} is a {type(ids).__name__}, expected a list of token ids"),)
    good = tuple(int(x) for x in ids if is_token_id(x))
    if len(good) == len(ids):
        return good, ()
    try:
        tokens.check_ids(ids)
    except ValueError as exc:  # the one id check says what is wrong with the first bad entry
        first = str(exc)
    message = f"{what}: {len(ids) - len(good)} of {len(ids)} entries are not token ids ({first}); they were dropped"
    return good, (load_diagnostic("load.bad-token-ids", message),)


def run_from_token_ids(obj: list[Any], path: Path) -> Run:
    """A bare array of ids is a completion with no known prompt."""
    ids, diagnostics = read_token_ids(obj, str(path))
    meta = RunMetadata(source=path.stem, extra={"path": str(path)})
    return Run(id=path.stem, metadata=meta, completion_token_ids=ids, diagnostics=diagnostics)
