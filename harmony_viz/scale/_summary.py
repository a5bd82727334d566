"""Aggregates over rows: DuckDB over Parquet (any size), or pandas over a small in-memory frame."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

__all__ = ["RowsLike", "Summary", "is_rows_source", "relation", "summarise"]

RowsLike = Union[str, "os.PathLike[str]", "duckdb.DuckDBPyRelation", "pd.DataFrame"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures ``stats`` prints under its table. Medians are None when no run has a defined share."""

    runs: int
    output_tokens: int
    median_share: float | None
    median_share_chars: float | None
    diagnostics: int

    def line(self) -> str:
        text = f"{self.runs} runs, {self.output_tokens} output tokens"
        if self.median_share is not None:
            text += f", median reasoning share {self.median_share:.2f} of tokens"
        if self.median_share_chars is not None:
            text += f", {self.median_share_chars:.2f} of characters"
        return text + f", {self.diagnostics} diagnostics"


def is_rows_source(value: Any) -> bool:
    """True for what ``relation`` reads: a Parquet path (file or folder) or a DuckDB relation."""
    return isinstance(value, (str, os.PathLike)) or type(value).__name__ == "DuckDBPyRelation"


def relation(source: str | os.PathLike[str] | duckdb.DuckDBPyRelation, *, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyRelation:
    """A DuckDB relation over a rows Parquet file, a folder of Parquet parts (Ray's output), or a relation as is."""
    import duckdb

    if type(source).__name__ == "DuckDBPyRelation":
        return source  # type: ignore[return-value]
    path = Path(source)  # type: ignore[arg-type]
    if path.is_dir():
        pattern = str(path / "*.parquet")
    elif path.is_file():
        pattern = str(path)
    else:
        raise FileNotFoundError(f"{path}: no such Parquet file or folder")
    return con.read_parquet(pattern) if con is not None else duckdb.read_parquet(pattern)


def summarise(rows: RowsLike) -> Summary:
    """Run count, output tokens, median reasoning shares and diagnostics: in DuckDB, or pandas for a frame."""
    if hasattr(rows, "columns") and hasattr(rows, "iloc"):  # a pandas frame, already in memory
        frame: Any = rows
        shares, chars = frame["reasoning_share"].dropna(), frame["reasoning_share_chars"].dropna()
        return Summary(
            runs=len(frame),
            output_tokens=int(frame["output_tokens"].sum()),
            median_share=float(shares.median()) if len(shares) else None,
            median_share_chars=float(chars.median()) if len(chars) else None,
            diagnostics=int(frame["diagnostics"].sum()),
        )
    rel = relation(rows)  # type: ignore[arg-type]
    # median() is the interpolated median, as statistics.median; NULL shares are skipped.
    n, tokens, share, share_chars, diags = rel.aggregate(
        "count(*), coalesce(sum(output_tokens), 0), median(reasoning_share), median(reasoning_share_chars), coalesce(sum(diagnostics), 0)"
    ).fetchall()[0]
    return Summary(int(n), int(tokens), share, share_chars, int(diags))
