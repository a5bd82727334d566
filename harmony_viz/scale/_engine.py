"""The local engine: rows of many runs written to Parquet in flat memory, over one or several processes.

One job reads the inputs in order, a batch at a time, and appends each batch's rows to the
Parquet file. Several jobs each turn whole units into a Parquet part file; the parent copies
the parts into the output in unit order, so the file holds exactly the rows one job writes.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from harmony_viz.scale._inputs import Unit, plan_units, unit_tables
from harmony_viz.scale._rows import row_schema

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["iter_tables", "write_parquet"]

# Row groups of about this many rows: big enough for fast scans, small enough to stay flat.
_GROUP_ROWS = 65536
# Each job gets several units so a slow piece does not leave the other processes idle.
_UNITS_PER_JOB = 4


def iter_tables(paths: Sequence[str], *, column: str | None = None, batch_size: int = 512) -> Iterator[pa.Table]:
    """Row tables of every input, in order, one batch at a time, in this process."""
    for unit in plan_units(paths, column=column):
        yield from unit_tables(unit, column=column, batch_size=batch_size)


def write_parquet(
    paths: Sequence[str],
    out: str | os.PathLike[str],
    *,
    column: str | None = None,
    jobs: int = 1,
    batch_size: int = 512,
    progress: bool | None = None,
) -> int:
    """Write the ``stats --json`` rows of every run in ``paths`` to the Parquet file ``out``; returns the row count.

    Peak memory is one batch per process, whatever the number of runs. ``jobs`` > 1 splits
    the work over that many processes (by files, line ranges and row groups); the file is
    the same as with one job.
    """
    from tqdm.auto import tqdm

    if jobs < 1:
        raise ValueError(f"jobs={jobs}: needs at least 1")
    if jobs > 1 and "-" in paths:
        raise ValueError("- (stdin) cannot be shared between --jobs; save it to a file first")
    units = plan_units(paths, pieces=jobs * _UNITS_PER_JOB if jobs > 1 else 1, column=column)
    out = Path(out)
    rows = 0
    bar = tqdm(desc="runs", unit="run", file=sys.stderr, disable=True if progress is False else None)
    with _GroupedWriter(out) as writer:
        if jobs == 1:
            for unit in units:
                for table in unit_tables(unit, column=column, batch_size=batch_size):
                    writer.write_table(table)
                    rows += table.num_rows
                    bar.update(table.num_rows)
        else:
            rows = _parallel(units, writer, column=column, jobs=jobs, batch_size=batch_size, bar=bar, near=out.parent)
    bar.close()
    return rows


def _parallel(units: list[Unit], writer: _GroupedWriter, *, column: str | None, jobs: int, batch_size: int, bar: object, near: Path) -> int:
    import multiprocessing

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 0
    parts = Path(tempfile.mkdtemp(prefix=".harmony-viz-parts-", dir=near))
    # fork where there is one: workers start at once with the vocabulary loaded (spawn
    # would import everything and load it again in each worker, seconds on 2 cores).
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "fork":
        from harmony_viz.tokens import encoding

        encoding()
    context = multiprocessing.get_context(method)
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures: list[Future[int]] = [
                pool.submit(_unit_to_part, unit, str(parts / f"{i:06d}.parquet"), column, batch_size) for i, unit in enumerate(units)
            ]
            # Copy parts in unit order as they are ready; each is read a batch at a time.
            for i, future in enumerate(futures):
                future.result()
                part = parts / f"{i:06d}.parquet"
                for batch in pq.ParquetFile(part).iter_batches(batch_size=max(batch_size, 4096)):
                    writer.write_table(pa.Table.from_batches([batch]))
                    rows += batch.num_rows
                    bar.update(batch.num_rows)  # type: ignore[attr-defined]
                part.unlink()
    finally:
        shutil.rmtree(parts, ignore_errors=True)
    return rows


def _unit_to_part(unit: Unit, part: str, column: str | None, batch_size: int) -> int:
    """Worker: one unit's rows to one Parquet part file."""
    rows = 0
    with _GroupedWriter(part) as writer:
        for table in unit_tables(unit, column=column, batch_size=batch_size):
            writer.write_table(table)
            rows += table.num_rows
    return rows


class _GroupedWriter:
    """A Parquet writer that gathers small tables into row groups of about ``_GROUP_ROWS`` rows."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        import pyarrow.parquet as pq

        self._writer = pq.ParquetWriter(path, row_schema())
        self._pending: list[pa.Table] = []
        self._rows = 0

    def write_table(self, table: pa.Table) -> None:
        self._pending.append(table)
        self._rows += table.num_rows
        if self._rows >= _GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._pending:
            self._writer.write_table(pa.concat_tables(self._pending), row_group_size=max(self._rows, 1))
        self._pending, self._rows = [], 0

    def __enter__(self) -> _GroupedWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._flush()
        self._writer.close()
