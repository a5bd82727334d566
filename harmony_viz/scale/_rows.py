"""Per-run rows as Arrow tables: the rows of ``stats --json``, computed one batch of runs at a time.

``rows_for_batch`` is the unit of work every engine runs (in-process, worker processes,
Ray Data): a pure function of its arguments, defined at module level so it pickles.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from harmony_viz._runfile import Run, runs_for_batch, runs_from_record  # records to runs: the run-file shapes, below the reader
from harmony_viz.runs import run_usage

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["row_schema", "rows_for_batch", "rows_table", "runs_for_batch", "runs_from_record"]

_INT_NAMES = frozenset({"messages", "output_messages", "diagnostics", "errors"})


@lru_cache(maxsize=1)
def row_columns() -> tuple[str, ...]:
    """The keys of ``RunUsage.to_json``, in its order (taken from an empty run, so they never drift)."""
    return tuple(run_usage(Run(id="")).to_json())


@lru_cache(maxsize=1)
def row_schema() -> pa.Schema:
    """The Arrow schema of a rows table: counts int64, shares float64, codes a list of strings."""
    import pyarrow as pa

    fields = []
    for name in row_columns():
        if name == "diagnostic_codes":
            kind = pa.list_(pa.string())
        elif name.endswith("_share") or name.endswith("_share_chars") or name == "duration_s":
            kind = pa.float64()
        elif name.endswith("_tokens") or name.endswith("_chars") or name in _INT_NAMES:
            kind = pa.int64()
        else:
            kind = pa.string()
        fields.append(pa.field(name, kind))
    return pa.schema(fields)


def rows_table(runs: Iterable[Run]) -> pa.Table:
    """Scan each run and return its ``stats --json`` row, one table row per run, input order kept."""
    import pyarrow as pa

    return pa.Table.from_pylist([run_usage(run).to_json() for run in runs], schema=row_schema())


def rows_for_batch(batch: Any, **options: Any) -> pa.Table:
    """Rows of one batch of records (the forms and options of :func:`runs_for_batch`), as one table.

    Pure and picklable: ``dataset.map_batches(rows_for_batch, batch_format="pyarrow")``
    runs it on Ray Data.
    """
    return rows_table(runs_for_batch(batch, **options))
