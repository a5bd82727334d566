"""pandas frames of where gpt-oss output goes: one row per message, per run, per diagnostic.

Every function takes runs in any form: paths of run files (loaded with
:func:`harmony_viz.runs.load_runs`), :class:`~harmony_viz.runs.Run` records, or the
already scanned :class:`~harmony_viz.runs.RunUsage` from :func:`analyze_runs` (scan once, then
build several frames without scanning again).

>>> from harmony_viz.data import sample_path
>>> usages = analyze_runs(sample_path("findings-rag.json"))
>>> round(float(runs_frame(usages)["reasoning_share_chars"].median()), 3)
0.889
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from harmony_viz.runs import Run, RunUsage, load_runs, run_usage

if TYPE_CHECKING:
    import pandas as pd


def rows_for_batch(batch: Any, **options: Any) -> Any:
    """Per-run ``stats --json`` rows of a batch of records, as a pyarrow Table (see :func:`harmony_viz.scale.rows_for_batch`)."""
    from harmony_viz.scale import rows_for_batch as rows

    return rows(batch, **options)

__all__ = ["RunsLike", "analyze_runs", "diagnostics_frame", "messages_frame", "rows_for_batch", "runs_frame"]

RunsLike = Union[str, Path, Run, RunUsage, Iterable[Union[str, Path, Run, RunUsage]]]

MESSAGE_COLUMNS = (
    "run", "index", "role", "name", "channel", "recipient", "content_type", "kind", "terminator",
    "output", "tokens", "content_tokens", "chars", "diagnostics", "diagnostic_codes", "start", "end",
)  # fmt: skip
DIAGNOSTIC_COLUMNS = ("run", "code", "severity", "message", "start", "end", "where")
# Metadata ``extra`` keys that are file bookkeeping, not something to group by.
_SKIP_EXTRA = frozenset({"cell_source", "note", "messages", "output_text", "prefill_text", "completion_text"})


def analyze_runs(runs: RunsLike, *, progress: bool | None = None) -> list[RunUsage]:
    """Scan each run once (input order kept); paths are loaded first.

    ``progress`` shows tqdm bars on stderr for loading and scanning (None: only on a
    terminal and only for more than a few runs).
    """
    items = [runs] if isinstance(runs, (str, Path, Run, RunUsage)) else list(runs)
    flat: list[Run | RunUsage] = []
    for item in items:
        if isinstance(item, (str, Path)):
            flat.extend(load_runs(item, progress=False))
        elif isinstance(item, (Run, RunUsage)):
            flat.append(item)
        else:
            raise TypeError(f"cannot read runs from a {type(item).__name__}; pass paths, Run or RunUsage objects")
    from tqdm.auto import tqdm

    disable = (None if len(flat) > 20 else True) if progress is None else not progress
    return [
        item if isinstance(item, RunUsage) else run_usage(item)
        for item in tqdm(flat, desc="scanning runs", unit="run", file=sys.stderr, disable=disable)
    ]


def messages_frame(runs: RunsLike, *, progress: bool | None = None) -> pd.DataFrame:
    """One row per message: run, index, role, channel, recipient, kind, tokens, chars, diagnostics…

    ``output`` marks assistant messages in the completion (what the model generated);
    ``tokens`` counts the message's whole span (header, body, stop token) inside the
    completion, ``content_tokens`` the body only, ``chars`` the body's characters.
    """
    import pandas as pd

    rows = [
        (u.run.id, m.index, m.role, m.name, m.channel, m.recipient, m.content_type, m.kind, m.terminator,
         m.output, m.tokens, m.content_tokens, m.chars, len(m.diagnostics), ",".join(m.diagnostics), m.start, m.end)
        for u in analyze_runs(runs, progress=progress)
        for m in u.messages
    ]  # fmt: skip
    return pd.DataFrame.from_records(rows, columns=list(MESSAGE_COLUMNS))


def runs_frame(runs: RunsLike, *, progress: bool | None = None) -> pd.DataFrame:
    """One row per run: output tokens and characters by kind, shares, diagnostics and metadata.

    ``reasoning_share`` = reasoning / (reasoning + preamble + tool_call + final) output
    tokens, NaN when that sum is 0; ``reasoning_share_chars`` the same over characters.
    Metadata columns: ``source``, ``model``, ``reasoning_effort``, ``seed``, sampling
    settings and the source's own fields (``cot``, ``trial``, ``turn``…).
    """
    import pandas as pd

    records = []
    for u in analyze_runs(runs, progress=progress):
        row = u.to_json()
        row["run"] = row.pop("id")
        row["diagnostic_codes"] = ",".join(row["diagnostic_codes"])
        meta = u.run.metadata
        row["seed"] = meta.seed
        row["started_at"] = meta.started_at
        row["device"] = meta.device
        for key, value in {**meta.sampling, **meta.extra}.items():
            if key not in row and key not in _SKIP_EXTRA and isinstance(value, (str, int, float, bool)):
                row[key] = value
        records.append(row)
    frame = pd.DataFrame.from_records(records)
    if frame.empty:
        return frame
    first = ["run", "source", "model", "reasoning_effort"]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    for column in ("reasoning_share", "preamble_share", "tool_call_share", "reasoning_share_chars", "duration_s"):
        frame[column] = frame[column].astype("float64")  # None -> NaN, so the column is numeric
    for column in ("prompt_tokens", "completion_tokens", "seed"):
        frame[column] = frame[column].astype("Int64")  # unknown for whole-text runs, still integers
    return frame


def diagnostics_frame(runs: RunsLike, *, progress: bool | None = None) -> pd.DataFrame:
    """One row per diagnostic: run, code, severity, message, span, and ``where`` (load, prompt, completion, text)."""
    import pandas as pd

    rows: list[tuple[Any, ...]] = []
    for u in analyze_runs(runs, progress=progress):
        n_load = len(u.run.diagnostics)
        for i, d in enumerate(u.diagnostics):
            if i < n_load:
                where = "load"
            elif u.prompt_tokens is None:
                where = "text"  # a whole transcript: no prompt/completion split
            else:
                where = "prompt" if d.start < u.prompt_tokens else "completion"
            rows.append((u.run.id, d.code, d.severity, d.message, d.start, d.end, where))
    return pd.DataFrame.from_records(rows, columns=list(DIAGNOSTIC_COLUMNS))
