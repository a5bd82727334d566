"""The Ray engine: the same units and the same per-batch function, as Ray Data tasks.

Needs the ``scale`` extra (``pip install 'harmony-viz[scale]'``). On a cluster, call
``ray.init(address=...)`` first; otherwise a local Ray starts.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from harmony_viz.scale._inputs import Unit, plan_units, unit_tables

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ray_write_parquet", "rows_for_units"]


def rows_for_units(batch: pa.Table, *, column: str | None = None, batch_size: int = 512) -> pa.Table:
    """Ray task: the rows of the units in ``batch`` (a table of Unit fields), in order."""
    import pyarrow as pa

    from harmony_viz.scale._rows import row_schema

    tables = [
        table
        for unit in batch.to_pylist()
        for table in unit_tables(Unit(**unit), column=column, batch_size=batch_size)
    ]
    return pa.concat_tables(tables) if tables else row_schema().empty_table()


def ray_write_parquet(paths: list[str], out: str | os.PathLike[str], *, column: str | None = None, batch_size: int = 512) -> int:
    """Rows of every run in ``paths`` written by Ray Data as a folder ``out`` of Parquet parts; returns the row count.

    The inputs are cut into units as for ``--jobs`` (JSONL byte ranges, Parquet row groups),
    so each Ray task reads only its shard; every task runs ``rows_for_batch`` on its records.
    """
    try:
        import ray
    except ImportError:
        raise ImportError("--engine ray needs Ray: pip install 'harmony-viz[scale]'") from None
    if "-" in paths:
        raise ValueError("- (stdin) cannot be read by Ray tasks; save it to a file first")
    if not ray.is_initialized():
        ray.init(logging_level="ERROR", log_to_driver=False)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    units = plan_units([str(Path(p).resolve()) for p in paths], pieces=4 * cpus, column=column)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # part files follow the input order
    dataset = ray.data.from_items([asdict(u) for u in units], override_num_blocks=len(units))
    rows = dataset.map_batches(rows_for_units, batch_size=1, batch_format="pyarrow", fn_kwargs={"column": column, "batch_size": batch_size})
    rows.write_parquet(str(out))
    from harmony_viz.scale._summary import relation

    return int(relation(out).aggregate("count(*)").fetchall()[0][0])
