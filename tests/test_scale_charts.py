"""Charts at scale: the chart functions on a rows Parquet or a DuckDB relation plot aggregates that match pandas."""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest

from harmony_viz.charts import diagnostics_by_code, reasoning_share_by, reasoning_share_histogram, reasoning_vs_final, save_report, source_summary, token_shares
from harmony_viz.data import sample_paths
from harmony_viz.scale import write_parquet


@pytest.fixture(scope="module")
def rows_path(tmp_path_factory):
    """The bundled runs, three times over, as a rows Parquet file."""
    out = tmp_path_factory.mktemp("charts") / "rows.parquet"
    write_parquet([str(p) for p in sample_paths()] * 3, out, progress=False)
    return out


@pytest.fixture(scope="module")
def frame(rows_path) -> pd.DataFrame:
    return pd.read_parquet(rows_path)


def test_boxes_carry_the_quartiles_pandas_computes(rows_path, frame):
    fig = reasoning_share_by(rows_path, by="source")
    shares = frame[frame["reasoning_share"].notna()]
    assert sorted(t.name for t in fig.data) == sorted(shares["source"].unique())
    for trace in fig.data:
        mine = shares[shares["source"] == trace.name]["reasoning_share"]
        assert trace.type == "box" and trace.boxpoints is False
        assert trace.q1[0] == pytest.approx(mine.quantile(0.25)) and trace.median[0] == pytest.approx(mine.median())
        assert trace.q3[0] == pytest.approx(mine.quantile(0.75))
        assert (trace.lowerfence[0], trace.upperfence[0]) == (pytest.approx(mine.min()), pytest.approx(mine.max()))
    # A DuckDB relation works the same, and effort groups come in their natural order.
    by_effort = reasoning_share_by(duckdb.read_parquet(str(rows_path)))
    assert [t.name for t in by_effort.data] == [e for e in ("low", "medium", "high", "unknown") if e in set(shares["reasoning_effort"].fillna("unknown"))]


def test_kind_shares_per_source_sum_each_kind(rows_path, frame):
    fig = token_shares(rows_path)
    kinds = ("reasoning", "preamble", "tool_call", "final", "other")
    totals = frame.groupby("source")[[f"{k}_tokens" for k in kinds]].sum()
    for i, source in enumerate(fig.data[0].x):
        total = totals.loc[source].sum()
        assert [t.y[i] for t in fig.data] == pytest.approx([totals.loc[source, f"{k}_tokens"] / total for k in kinds])
        assert math.isclose(sum(t.y[i] for t in fig.data), 1.0)


def test_histogram_counts_every_defined_share(rows_path, frame):
    fig = reasoning_share_histogram(rows_path, bins=20)
    assert sum(fig.data[0].y) == frame["reasoning_share"].notna().sum()
    assert len(fig.data[0].x) <= 20
    top = frame["reasoning_share"].dropna()
    assert dict(zip(fig.data[0].x, fig.data[0].y))[19.5 / 20] == ((top >= 0.95)).sum()


def test_log_density_and_codes(rows_path, frame):
    heat = reasoning_vs_final(rows_path)
    kept = ((frame["final_tokens"] > 0) & (frame["reasoning_tokens"] > 0)).sum()
    assert heat.data[0].type == "heatmap" and sum(map(sum, heat.data[0].z)) == kept
    codes = diagnostics_by_code(rows_path)
    runs_with = frame["diagnostic_codes"].explode().value_counts()
    assert dict(zip(codes.data[0].y, codes.data[0].x)) == runs_with.to_dict()


def test_source_summary_and_report(rows_path, frame, tmp_path):
    table = source_summary(rows_path)
    assert table["runs"].tolist() == [int((frame["source"].fillna("unknown") == s).sum()) for s in table["source"]]
    assert table["runs"].sum() == len(frame)
    page = save_report(rows_path, tmp_path / "report.html").read_text()
    assert page.count('class="plotly-graph-div"') >= 4 and f"{len(frame)} runs" in page and "Per source" in page
