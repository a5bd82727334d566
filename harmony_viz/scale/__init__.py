"""Runs at scale: per-run rows in flat memory, Parquet out, DuckDB aggregates, many processes or Ray.

>>> from harmony_viz.data import sample_path
>>> from harmony_viz.scale import summarise, write_parquet
>>> write_parquet([str(sample_path("findings-rag.json"))], "/tmp/rag-rows.parquet")   # doctest: +SKIP
80
>>> summarise("/tmp/rag-rows.parquet").runs                                          # doctest: +SKIP
80
"""

from __future__ import annotations

from harmony_viz.scale._charts import code_counts, kind_shares_by, log_density, share_boxes, share_by_layout, share_histogram, source_summary
from harmony_viz.scale._engine import iter_tables, write_parquet
from harmony_viz.scale._inputs import Unit, input_kind, plan_units, read_runs, unit_runs, unit_tables
from harmony_viz.scale._ray import ray_write_parquet
from harmony_viz.scale._rows import row_columns, row_schema, rows_for_batch, rows_table, runs_for_batch, runs_from_record
from harmony_viz.scale._summary import Summary, is_rows_source, relation, summarise

__all__ = [
    "Summary",
    "Unit",
    "code_counts",
    "input_kind",
    "is_rows_source",
    "iter_tables",
    "kind_shares_by",
    "log_density",
    "plan_units",
    "ray_write_parquet",
    "read_runs",
    "relation",
    "row_columns",
    "row_schema",
    "rows_for_batch",
    "rows_table",
    "runs_for_batch",
    "runs_from_record",
    "share_boxes",
    "share_by_layout",
    "share_histogram",
    "source_summary",
    "summarise",
    "unit_runs",
    "unit_tables",
    "write_parquet",
]
