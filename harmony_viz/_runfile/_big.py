"""Big run files read in batches: JSONL (gzip too), Parquet, Hugging Face datasets saved on disk.

A ``Unit`` is a piece of one such input (a byte range of a JSONL file, row groups of a
Parquet file, a row range of a dataset); read in order, the pieces give exactly the runs
one reader of the whole file gives. ``harmony_viz.scale`` cuts files into units for its
workers; the reader reads a whole file as one unit (``read_big``).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz._runfile._errors import InputError
from harmony_viz._runfile._jsonl import jsonl_value
from harmony_viz._runfile._model import Run
from harmony_viz._runfile._records import runs_for_batch

# The kinds of input read here, in batches; any other file is one read by the reader.
BATCH_KINDS = ("jsonl", "jsonl.gz", "parquet", "dataset")


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


def unit_batches(unit: Unit, *, column: str | None = None, batch_size: int = 512) -> Iterator[list[Run]]:
    """The runs of one unit of a batch kind (``BATCH_KINDS``), a list per batch of at most ``batch_size`` records."""
    if unit.kind in ("jsonl", "jsonl.gz"):
        yield from _jsonl_runs(unit, column, batch_size)
    elif unit.kind == "parquet":
        yield from _parquet_runs(unit, column, batch_size)
    elif unit.kind == "dataset":
        yield from _dataset_runs(unit, column, batch_size)
    else:
        raise ValueError(f"{unit.path}: a {unit.kind} is not read in batches")


def read_big(path: str, kind: str) -> list[Run]:
    """Every run of one whole input of a batch kind (``parquet``, ``jsonl.gz``, ``dataset``), in order."""
    whole = Unit(path, kind, first=1 if kind in ("jsonl", "jsonl.gz") else 0)
    return [run for runs in unit_batches(whole) for run in runs]


# JSONL ---------------------------------------------------------------------------


def _jsonl_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    path = Path(unit.path)
    # runs.jsonl.gz is named as runs.jsonl would be: ids runs#line-N, source runs
    source = str(path.with_suffix("")) if unit.kind == "jsonl.gz" else str(path)
    stem = Path(source).stem
    opener = gzip.open if unit.kind == "jsonl.gz" else open
    records: list[Any] = []
    ids: list[str] = []
    number, pos = unit.first - 1, unit.start
    try:
        with opener(path, "rb") as f:
            if unit.start:
                f.seek(unit.start)
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
    except (EOFError, zlib.error, OSError) as exc:
        raise _unreadable_gzip(unit.path, exc, number) from None
    if records:
        yield runs_for_batch(records, column=column, source=source, ids=ids)


# Parquet -------------------------------------------------------------------------


def _parquet_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    import pyarrow as pa

    first = unit.first
    try:
        f = parquet_file(unit.path)
        stop = f.metadata.num_row_groups if unit.stop == -1 else unit.stop
        for batch in f.iter_batches(batch_size=batch_size, row_groups=list(range(unit.start, stop))):
            yield runs_for_batch(batch, column=column, source=unit.path, first=first)
            first += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{unit.path}: Parquet data that cannot be read after row {first} ({_first_line(exc)})") from None


def parquet_file(path: str) -> Any:
    """The open ``pyarrow.parquet.ParquetFile`` at ``path``; InputError in one line when it is not a readable Parquet file (truncated, corrupt)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file, truncated or corrupt ({_first_line(exc)})") from None


def check_readable(path: str, kind: str) -> None:
    """InputError, worded as reading the file would word it, unless a Parquet file's footer reads or a gzip file decompresses to its end.

    What can be found before a file's runs are read, so a command reading many files can skip a bad one.
    """
    if kind == "parquet":
        parquet_file(path)
    elif kind == "jsonl.gz":
        line = 0
        try:
            with gzip.open(path, "rb") as f:
                for _ in f:
                    line += 1
        except (EOFError, zlib.error, OSError) as exc:
            raise _unreadable_gzip(path, exc, line) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].rstrip(".")


def _unreadable_gzip(path: str, exc: BaseException, line: int) -> InputError:
    """One line for gzipped JSONL that cannot be read: truncated, corrupt, or not gzip at all."""
    after = f" after line {line}" if line > 0 else ""
    if isinstance(exc, EOFError):
        return InputError(f"{path}: truncated gzip{after}: the file ends before gzip's end-of-stream marker")
    if isinstance(exc, gzip.BadGzipFile):
        return InputError(f"{path}: not a gzip file ({_first_line(exc)})")
    if isinstance(exc, zlib.error):
        return InputError(f"{path}: corrupt gzip data{after} ({_first_line(exc)})")
    return InputError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or _first_line(exc)})")


# Hugging Face datasets saved with save_to_disk ------------------------------------


def load_dataset(path: str) -> Any:
    """The saved Hugging Face dataset at ``path`` (one split); ImportError naming the extra without ``datasets``."""
    try:
        import datasets
    except ImportError:
        raise ImportError(f"{path}: reading a saved Hugging Face dataset needs the datasets package: pip install 'harmony-viz[scale]'") from None
    loaded = datasets.load_from_disk(path)
    if isinstance(loaded, datasets.DatasetDict):
        raise ValueError(f"{path}: a DatasetDict with splits {', '.join(loaded)}; pass one split's folder, e.g. {path}/{next(iter(loaded))}")
    return loaded


def _dataset_runs(unit: Unit, column: str | None, batch_size: int) -> Iterator[list[Run]]:
    # Memory-mapped Arrow: a slice reads only its rows.
    data = load_dataset(unit.path)
    stop = len(data) if unit.stop == -1 else unit.stop
    for a in range(unit.start, stop, batch_size):
        yield runs_for_batch(data[a : min(stop, a + batch_size)], column=column, source=unit.path, first=a)
