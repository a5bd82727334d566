"""Inputs at scale, read in batches: JSONL (gzip too), Parquet, Hugging Face datasets saved on disk.

Work is cut into ``Unit`` s (a byte range of a JSONL file, row groups of a Parquet file,
a row range of a dataset, or a whole small file) so that processes, or Ray tasks, can each
take some and the rows still come out exactly as one reader in order would make them.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz.runs import Run, jsonl_value, load_file
from harmony_viz.scale._rows import rows_table, runs_for_batch

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Unit", "input_kind", "plan_units", "read_runs", "unit_runs", "unit_tables"]

# Split JSONL files into pieces of about this many bytes when several workers share them.
_MIN_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class Unit:
    """A piece of one input. ``start``/``stop``: bytes (jsonl), row groups (parquet), rows (dataset).

    ``first`` is the number of the piece's first line (jsonl, from 1) or row (from 0).
    ``stop == -1`` means to the end.
    """

    path: str
    kind: str
    start: int = 0
    stop: int = -1
    first: int = 0


def input_kind(path: str) -> str:
    """``jsonl``, ``jsonl.gz``, ``parquet``, ``dataset`` (a saved Hugging Face dataset) or ``file``."""
    if path == "-":
        return "file"
    p = Path(path)
    if p.is_dir():
        if (p / "state.json").is_file() or (p / "dataset_dict.json").is_file():
            return "dataset"
        raise IsADirectoryError(f"{path}: is a folder; pass the run files inside it (e.g. {path}/*.json)")
    if not p.exists():
        raise FileNotFoundError(f"{path}: no such run file; pass a path to a .jsonl, .json, .md or Harmony text file")
    name = p.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith((".jsonl.gz", ".json.gz", ".ndjson.gz")):
        return "jsonl.gz"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    return "file"


def plan_units(paths: Sequence[str], *, pieces: int = 1, column: str | None = None) -> list[Unit]:
    """Units covering ``paths`` in order; with ``pieces`` > 1, big files are cut into about that many parts.

    A ``column`` that a Parquet file or dataset does not have is a ValueError naming the columns it has.
    """
    units: list[Unit] = []
    for path in paths:
        kind = input_kind(path)
        if column is not None and kind in ("parquet", "dataset"):
            _need_column(path, kind, column)
        if kind == "jsonl":
            units.extend(_jsonl_units(path, pieces))
        elif kind == "parquet":
            units.extend(_parquet_units(path, pieces))
        elif kind == "dataset":
            units.extend(_dataset_units(path, pieces))
        else:
            units.append(Unit(path, kind, first=1 if kind == "jsonl.gz" else 0))
    return units


def unit_tables(unit: Unit, *, column: str | None = None, batch_size: int = 512) -> Iterator[pa.Table]:
    """The rows of one unit, a table per batch of at most ``batch_size`` records."""
    for runs in unit_runs(unit, column=column, batch_size=batch_size):
        yield rows_table(runs)


def unit_runs(unit: Unit, *, column: str | None = None, batch_size: int = 512) -> Iterator[list[Run]]:
    """The runs of one unit, a list per batch of at most ``batch_size`` records."""
    if unit.kind in ("jsonl", "jsonl.gz"):
        yield from _jsonl_runs(unit, column, batch_size)
    elif unit.kind == "parquet":
        yield from _parquet_runs(unit, column, batch_size)
    elif unit.kind == "dataset":
        yield from _dataset_runs(unit, column, batch_size)
    else:
        yield load_file(unit.path)


def read_runs(path: str, *, column: str | None = None) -> list[Run]:
    """Every run of one input, in order (Parquet, gzipped JSONL and saved datasets included)."""
    return [run for unit in plan_units([path], column=column) for runs in unit_runs(unit, column=column) for run in runs]


def _need_column(path: str, kind: str, column: str) -> None:
    if kind == "parquet":
        import pyarrow.parquet as pq

        names = pq.ParquetFile(path).schema_arrow.names
    else:
        names = list(_load_dataset(path).column_names)
    if column not in names:
        raise ValueError(f"{path}: no column {column!r}; its columns: {', '.join(names[:12])}")


# JSONL ---------------------------------------------------------------------------


def _jsonl_units(path: str, pieces: int) -> list[Unit]:
    size = Path(path).stat().st_size
    if pieces <= 1 or size < 2 * _MIN_PIECE:
        return [Unit(path, "jsonl", 0, -1, 1)]
    step = max(_MIN_PIECE, size // pieces)
    cuts = [0]
    with open(path, "rb") as f:
        while cuts[-1] + step < size:
            f.seek(cuts[-1] + step)
            f.readline()  # to the start of the next line
            if f.tell() >= size:
                break
            cuts.append(f.tell())
        # The line number of each cut: newlines before it, plus one.
        units, line = [], 1
        for a, b in zip(cuts, [*cuts[1:], size]):
            units.append(Unit(path, "jsonl", a, b, line))
            f.seek(a)
            left = b - a
            while left > 0:
                block = f.read(min(left, 1 << 24))
                line += block.count(b"\n")
                left -= len(block)
    return units


def _jsonl_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    path = Path(unit.path)
    # runs.jsonl.gz is named as runs.jsonl would be: ids runs#line-N, source runs
    source = str(path.with_suffix("")) if unit.kind == "jsonl.gz" else str(path)
    stem = Path(source).stem
    opener = gzip.open if unit.kind == "jsonl.gz" else open
    records: list[Any] = []
    ids: list[str] = []
    with opener(path, "rb") as f:
        if unit.start:
            f.seek(unit.start)
        number, pos = unit.first - 1, unit.start
        for raw in f:
            number += 1
            pos += len(raw)
            if raw.strip():
                records.append(jsonl_value(raw, path, stem, number))
                ids.append(f"{stem}#line-{number}")
            if len(records) >= batch_size:
                yield runs_for_batch(records, column=column, source=source, ids=ids)
                records, ids = [], []
            if unit.stop != -1 and pos >= unit.stop:
                break
    if records:
        yield runs_for_batch(records, column=column, source=source, ids=ids)


# Parquet -------------------------------------------------------------------------


def _parquet_units(path: str, pieces: int) -> list[Unit]:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    groups = meta.num_row_groups
    if pieces <= 1 or groups <= 1:
        return [Unit(path, "parquet", 0, groups, 0)]
    step = max(1, -(-groups // pieces))
    units, first = [], 0
    for a in range(0, groups, step):
        b = min(groups, a + step)
        units.append(Unit(path, "parquet", a, b, first))
        first += sum(meta.row_group(g).num_rows for g in range(a, b))
    return units


def _parquet_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    import pyarrow.parquet as pq

    f = pq.ParquetFile(unit.path)
    stop = f.metadata.num_row_groups if unit.stop == -1 else unit.stop
    first = unit.first
    for batch in f.iter_batches(batch_size=batch_size, row_groups=list(range(unit.start, stop))):
        yield runs_for_batch(batch, column=column, source=unit.path, first=first)
        first += batch.num_rows


# Hugging Face datasets saved with save_to_disk ------------------------------------


def _load_dataset(path: str) -> Any:
    try:
        import datasets
    except ImportError:
        raise ImportError(f"{path}: reading a saved Hugging Face dataset needs the datasets package: pip install 'harmony-viz[scale]'") from None
    loaded = datasets.load_from_disk(path)
    if isinstance(loaded, datasets.DatasetDict):
        raise ValueError(f"{path}: a DatasetDict with splits {', '.join(loaded)}; pass one split's folder, e.g. {path}/{next(iter(loaded))}")
    return loaded


def _dataset_units(path: str, pieces: int) -> list[Unit]:
    n = len(_load_dataset(path))
    step = max(1, -(-n // max(1, pieces)))
    return [Unit(path, "dataset", a, min(n, a + step), a) for a in range(0, n, step)] or [Unit(path, "dataset", 0, 0, 0)]


def _dataset_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    # Memory-mapped Arrow: a slice reads only its rows.
    data = _load_dataset(unit.path)
    stop = len(data) if unit.stop == -1 else unit.stop
    for a in range(unit.start, stop, batch_size):
        yield runs_for_batch(data[a : min(stop, a + batch_size)], column=column, source=unit.path, first=a)
