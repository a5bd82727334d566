"""Datasets of requests: read in batches, compared one by one, counted in flat memory.

A ``.jsonl`` file (or ``.jsonl.gz``) holds one request per line; a ``.parquet`` file one per row (columns
``messages``, optional ``tools`` and ``reasoning_effort``), read ``batch_size`` rows at a
time with pyarrow; a ``.json`` file holds one request or an array of them.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmony_viz.inputs import InputError, parse_jsonl_line, without_nulls
from harmony_viz.templates._lens import TemplateComparison, compare
from harmony_viz.templates._request import LensError
from harmony_viz.templates._source import ChatTemplate

Row = tuple[int, Any]  # (index, request or LensError)


def _parquet_rows(path: Path, batch_size: int) -> Iterator[Row]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise LensError(f"{path}: not a Parquet file ({exc})") from None
    if "messages" not in source.schema_arrow.names:
        raise LensError(f"{path}: has no 'messages' column (columns: {', '.join(source.schema_arrow.names)})")
    columns = [c for c in ("messages", "tools", "reasoning_effort") if c in source.schema_arrow.names]
    index = 0
    for batch in source.iter_batches(batch_size=batch_size, columns=columns):
        for row in batch.to_pylist():
            yield index, without_nulls(row)
            index += 1


def _jsonl_rows(path: Path) -> Iterator[Row]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        index = 0
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield index, parse_jsonl_line(line)
            except InputError as exc:
                yield index, LensError(f"line {lineno}: {exc}")
            index += 1


def read_requests(path: str | Path, *, batch_size: int = 1024) -> Iterator[Row]:
    """``(index, request)`` for each request in ``path``; a row that cannot be read comes as a LensError."""
    p = Path(path)
    if not p.is_file():
        raise LensError(f"{p}: no such file" if not p.exists() else f"{p}: is a folder, expected a file")
    if p.suffix == ".parquet":
        yield from _parquet_rows(p, batch_size)
    elif p.name.endswith((".jsonl", ".jsonl.gz")):
        yield from _jsonl_rows(p)
    else:
        try:
            value = json.loads(p.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LensError(f"{p}: not JSON ({exc}); give a request (.json), a .jsonl or a .parquet dataset") from None
        yield from enumerate(value if isinstance(value, list) else [value])


@dataclass
class DatasetSummary:
    """Counts over a dataset: rows, identical rows, rows that failed, and per code both differences and rows."""

    rows: int = 0
    identical: int = 0
    errors: int = 0
    differences: Counter[str] = field(default_factory=Counter)
    rows_with: Counter[str] = field(default_factory=Counter)
    error_examples: list[str] = field(default_factory=list)

    def add(self, result: TemplateComparison | LensError) -> None:
        self.rows += 1
        if isinstance(result, LensError):
            self.errors += 1
            if len(self.error_examples) < 5:  # a few, so memory stays flat
                self.error_examples.append(str(result))
            return
        self.identical += result.identical
        codes = result.codes
        self.differences.update(codes)
        self.rows_with.update(set(codes))

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "identical": self.identical, "errors": self.errors,
                "differences": dict(self.differences.most_common()), "rows_with": dict(self.rows_with.most_common())}

    def to_text(self) -> str:
        lines = [f"{self.rows} conversations: {self.identical} identical, {self.rows - self.identical - self.errors} with differences, {self.errors} not rendered"]
        if self.differences:
            width = max(len(c) for c in self.differences)
            lines.append(f"{'code':<{width}}  differences  conversations")
            lines += [f"{code:<{width}}  {n:>11}  {self.rows_with[code]:>13}" for code, n in self.differences.most_common()]
        lines += [f"not rendered, e.g.: {e}" for e in self.error_examples[:3]]
        return "\n".join(lines)


def check_requests(
    rows: Iterable[Row],
    template: ChatTemplate,
    *,
    date: str | None = None,
    for_completion: bool = False,
) -> Iterator[tuple[int, TemplateComparison | LensError]]:
    """Compare each request of ``rows``; a row that cannot be rendered yields its LensError."""
    for index, request in rows:
        if isinstance(request, LensError):
            yield index, request
            continue
        try:
            yield index, compare(request, template, date=date, for_completion=for_completion)
        except LensError as exc:
            yield index, exc
