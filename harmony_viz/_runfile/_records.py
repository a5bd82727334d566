"""Batches of records as runs: the rows of a Parquet file, a saved dataset or a JSONL piece, in any columnar or row form.

Each record is a run in any shape the run files have, or, with ``column``, a record whose
``column`` holds Harmony text, token ids or chat messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic
from harmony_viz._runfile._shapes import runs_from_object
from harmony_viz._runfile._token_ids import read_token_ids


def runs_for_batch(
    batch: Any,
    *,
    column: str | None = None,
    source: str = "batch",
    first: int = 0,
    ids: Sequence[str] | None = None,
) -> list[Run]:
    """The runs of one batch of records: a pyarrow Table/RecordBatch, a pandas frame, a dict of columns or a list.

    Each record is a run in any shape :func:`harmony_viz.runs.load_runs` knows (our run
    objects, prompt/completion objects…) or, with ``column``, a record whose ``column`` holds
    Harmony text, token ids or chat messages (its other scalar fields become metadata).
    A record without an ``id`` is named ``{source stem}#row-{first + i}`` (or ``ids[i]``).
    """
    columnar = not isinstance(batch, (list, tuple))
    path = Path(source)
    runs: list[Run] = []
    for i, record in enumerate(_records(batch)):
        if columnar and isinstance(record, Mapping):
            record = _without_nulls(record)  # a column some rows lack reads back as null
        run_id = ids[i] if ids is not None else f"{path.stem}#row-{first + i}"
        runs.extend(runs_from_record(record, path, run_id, column=column))
    return runs


def runs_from_record(record: Any, path: Path, run_id: str, *, column: str | None = None) -> list[Run]:
    """The runs in one record; never raises (a bad record is an empty run with a diagnostic)."""
    if column is None or isinstance(record, Run):
        return runs_from_object(record, path, run_id)
    if not isinstance(record, Mapping) or column not in record:
        keys = ", ".join(sorted(record)[:8]) if isinstance(record, Mapping) else type(record).__name__
        bad = load_diagnostic("load.unknown-shape", f"{path} {run_id}: no column {column!r} ({keys})")
        return [Run(id=run_id, metadata=RunMetadata(source=path.stem, extra={"path": str(path)}), diagnostics=(bad,))]
    value = _plain(record[column])
    rest = {k: _plain(v) for k, v in record.items() if k != column}
    meta_obj = {k: v for k, v in rest.items() if k not in ("id", "metadata", "prompt_token_ids") and _scalar(v)}
    if isinstance(rest.get("metadata"), Mapping):
        meta_obj = {**rest["metadata"], **meta_obj}
    meta_obj.setdefault("source", path.stem)
    meta_obj.setdefault("path", str(path))
    rid = str(rest["id"]) if _scalar(rest.get("id")) and rest.get("id") not in (None, "") else run_id
    if isinstance(value, str):
        meta_obj.setdefault("reasoning_effort", effort_from_text(value))
        return [Run(id=rid, metadata=RunMetadata.from_json(meta_obj), text=value)]
    if isinstance(value, list) and value and all(isinstance(m, Mapping) for m in value):
        return [_run_from_chat(value, rid, meta_obj, rest)]
    if isinstance(value, list):
        completion, bad = read_token_ids(value, f"{path} {rid}: {column}")
        prompt, bad_prompt = read_token_ids(rest.get("prompt_token_ids") or [], f"{path} {rid}: prompt_token_ids")
        return [Run(id=rid, metadata=RunMetadata.from_json(meta_obj), prompt_token_ids=prompt, completion_token_ids=completion, diagnostics=(*bad, *bad_prompt))]
    bad = load_diagnostic(
        "load.unknown-shape", f"{path} {rid}: column {column!r} is a {type(value).__name__}; expected Harmony text, token ids or chat messages"
    )
    return [Run(id=rid, metadata=RunMetadata.from_json(meta_obj), diagnostics=(bad,))]


def _run_from_chat(messages: list[Any], run_id: str, meta_obj: dict[str, Any], rest: Mapping[str, Any]) -> Run:
    """Chat messages rendered as gpt-oss servers render them, kept as whole text (no prompt/completion split).

    Reasoning is kept in every turn (a server would drop it from finished turns): the record
    is what the model wrote, and the stats count it.
    """
    from harmony_viz.render import RenderError, RenderOptions, conversation_from_chat, render_conversation_for_training
    from harmony_viz.tokens import encoding

    request = {"messages": messages, "reasoning_effort": meta_obj.get("reasoning_effort"), "tools": rest.get("tools")}
    try:
        ids = render_conversation_for_training(conversation_from_chat(request), options=RenderOptions(drop_analysis=False))
    except RenderError as exc:
        bad = load_diagnostic("load.bad-entry", f"{run_id}: chat messages do not render ({exc})")
        return Run(id=run_id, metadata=RunMetadata.from_json(meta_obj), diagnostics=(bad,))
    text = encoding().decode(ids)
    meta_obj.setdefault("reasoning_effort", effort_from_text(text))
    return Run(id=run_id, metadata=RunMetadata.from_json(meta_obj), text=text)


def _records(batch: Any) -> list[Any]:
    """A batch in any of the usual columnar or row forms, as a list of records."""
    if hasattr(batch, "to_pylist"):  # pyarrow Table / RecordBatch
        return batch.to_pylist()
    if hasattr(batch, "to_dict") and hasattr(batch, "columns"):  # pandas DataFrame
        return batch.to_dict("records")
    if isinstance(batch, Mapping):  # dict of columns (Ray's "numpy" format, datasets' batches)
        columns = list(batch)
        n = len(batch[columns[0]]) if columns else 0
        return [{c: batch[c][i] for c in columns} for i in range(n)]
    return list(batch)


def _plain(value: Any) -> Any:
    """numpy arrays and scalars (pandas/Ray batches) as plain Python values."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _plain(value.tolist())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _without_nulls(record: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: _plain(v) for k, v in record.items() if v is not None}
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = {k: v for k, v in out["metadata"].items() if v is not None}
    return out


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None
