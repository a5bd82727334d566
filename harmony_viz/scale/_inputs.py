"""Inputs at scale, cut into pieces for workers: JSONL (gzip too), Parquet, Hugging Face datasets saved on disk.

Work is cut into ``Unit`` s (a byte range of a JSONL file, row groups of a Parquet file,
a row range of a dataset, or a whole small file) so that processes, or Ray tasks, can each
take some and the rows still come out exactly as one reader in order would make them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

# The pieces and their readers are the run files' (below the reader, which reads a whole big file so);
# cutting files into pieces for workers is this package's.
from harmony_viz._runfile import BATCH_KINDS, Run, Unit, load_dataset, parquet_file, unit_batches
from harmony_viz.runs import load_file
from harmony_viz.scale._rows import rows_table

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Unit", "input_kind", "plan_units", "read_runs", "unit_runs", "unit_tables"]

# Split JSONL files into pieces of about this many bytes when several workers share them.
_MIN_PIECE = 1 << 20


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
    if unit.kind in BATCH_KINDS:
        yield from unit_batches(unit, column=column, batch_size=batch_size)
    else:
        yield load_file(unit.path)


def read_runs(path: str, *, column: str | None = None) -> list[Run]:
    """Every run of one input, in order (Parquet, gzipped JSONL and saved datasets included)."""
    return [run for unit in plan_units([path], column=column) for runs in unit_runs(unit, column=column) for run in runs]


def _need_column(path: str, kind: str, column: str) -> None:
    if kind == "parquet":
        names = parquet_file(path).schema_arrow.names
    else:
        names = list(load_dataset(path).column_names)
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


# Parquet -------------------------------------------------------------------------


def _parquet_units(path: str, pieces: int) -> list[Unit]:
    meta = parquet_file(path).metadata
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


# Hugging Face datasets saved with save_to_disk ------------------------------------


def _dataset_units(path: str, pieces: int) -> list[Unit]:
    n = len(load_dataset(path))
    step = max(1, -(-n // max(1, pieces)))
    return [Unit(path, "dataset", a, min(n, a + step), a) for a in range(0, n, step)] or [Unit(path, "dataset", 0, 0, 0)]
