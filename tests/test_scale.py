"""Stats at scale: Parquet rows equal the in-memory rows, for every input kind, one job or two."""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harmony_viz.cli import main
from harmony_viz.data import sample_paths
from harmony_viz.runs import Run, RunMetadata, load_runs
from harmony_viz.scale import plan_units, rows_for_batch, summarise, write_parquet
from harmony_viz.stats import analyze_runs
from harmony_viz.stats import rows_for_batch as stats_rows_for_batch


def memory_rows(paths) -> list[dict]:
    """Today's in-memory path: load every run, scan, one ``stats --json`` row each."""
    return [u.to_json() for u in analyze_runs(load_runs([str(p) for p in paths]), progress=False)]


@pytest.fixture(scope="module")
def bundled_runs():
    return load_runs(sample_paths())


@pytest.fixture(scope="module")
def big_jsonl(tmp_path_factory, bundled_runs) -> Path:
    """The bundled runs five times (about 2.7 MB, so two jobs split it by lines), repeated ids,
    lines with no id (named by line number), a blank line and a line that is not JSON."""
    path = tmp_path_factory.mktemp("scale") / "runs.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for _ in range(5):
            for run in bundled_runs:
                f.write(run.to_jsonl_line() + "\n")
        f.write("\nnot json {\n")
        for run in bundled_runs[:7]:
            obj = run.to_json()
            obj.pop("id")
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return path


@pytest.fixture(scope="module")
def expected(big_jsonl) -> list[dict]:
    return memory_rows([big_jsonl])


def test_parquet_rows_equal_the_in_memory_rows(big_jsonl, expected, tmp_path):
    out = tmp_path / "rows.parquet"
    assert write_parquet([str(big_jsonl)], out, batch_size=100, progress=False) == len(expected)
    rows = pq.read_table(out).to_pylist()
    assert rows == expected
    # Every run is a row even where ids repeat; the id-less lines are named by their line number.
    ids = [r["id"] for r in rows]
    assert len(set(ids)) < len(ids) and ids[-1] == f"runs#line-{5 * 123 + 2 + 7}"
    assert rows[5 * 123]["diagnostic_codes"] == ["load.bad-json"]


def test_two_jobs_give_exactly_the_rows_of_one(big_jsonl, expected, tmp_path):
    units = plan_units([str(big_jsonl)], pieces=8)
    assert len(units) > 1 and units[0].first == 1 and units[1].first > 1  # cut by lines
    out = tmp_path / "rows2.parquet"
    assert write_parquet([str(big_jsonl)], out, jobs=2, batch_size=64, progress=False) == len(expected)
    assert pq.read_table(out).to_pylist() == expected


def test_gzip_jsonl_reads_as_the_plain_file(big_jsonl, expected, tmp_path):
    gz = tmp_path / "runs.jsonl.gz"
    gz.write_bytes(gzip.compress(big_jsonl.read_bytes()))
    out = tmp_path / "gz.parquet"
    write_parquet([str(gz)], out, progress=False)
    assert pq.read_table(out).to_pylist() == expected


def test_mixed_files_keep_their_order(tmp_path):
    paths = [str(p) for p in sample_paths()]
    out = tmp_path / "mixed.parquet"
    write_parquet(paths[::-1], out, jobs=2, progress=False)
    assert pq.read_table(out).to_pylist() == memory_rows(paths[::-1])


def test_parquet_input_of_run_objects(bundled_runs, tmp_path):
    """Our run objects as Parquet rows (token-id runs and text runs side by side, so some columns are null)."""
    src = tmp_path / "runs.parquet"
    keys = ("id", "text", "prompt_token_ids", "completion_token_ids")
    records = [{k: r.to_json().get(k) for k in keys} for r in bundled_runs]
    for record, run in zip(records, bundled_runs):
        record["metadata"] = json.loads(json.dumps({k: run.metadata.to_json().get(k) for k in ("source", "model", "reasoning_effort")}))
    pq.write_table(pa.Table.from_pylist(records), src, row_group_size=40)
    out = tmp_path / "rows.parquet"
    write_parquet([str(src)], out, jobs=2, progress=False)
    got = pq.read_table(out).to_pylist()
    want = [u.to_json() for u in analyze_runs(bundled_runs, progress=False)]
    drop = ("diagnostics", "errors", "diagnostic_codes")  # load diagnostics of the original files are not in the records
    assert [{k: v for k, v in r.items() if k not in drop} for r in got] == [{k: v for k, v in r.items() if k not in drop} for r in want]


def test_column_holds_text_token_ids_or_chat_messages(bundled_runs, tmp_path):
    text_run = next(r for r in bundled_runs if r.text is not None)
    ids_run = next(r for r in bundled_runs if r.text is None and r.completion_token_ids)
    chat = [
        {"role": "user", "content": "What is 2 + 2?"},
        {"role": "assistant", "reasoning_content": "Add them.", "content": "4"},
    ]
    table = pa.table({"body": [text_run.text, None], "name": ["t", "n"]})
    first, empty = rows_for_batch(table, column="body", source="x.parquet").to_pylist()
    assert (first["id"], first["reasoning_share"], first["output_tokens"]) == ("x#row-0", run_share(text_run), run_row(text_run)["output_tokens"])
    assert (empty["id"], empty["diagnostic_codes"]) == ("x#row-1", ["load.unknown-shape"])  # a null cell is no run
    got = rows_for_batch([{"toks": list(ids_run.completion_token_ids), "prompt_token_ids": list(ids_run.prompt_token_ids), "model": "m"}], column="toks").to_pylist()[0]
    assert got["completion_tokens"] == len(ids_run.completion_token_ids) and got["model"] == "m"
    assert got["output_tokens"] == run_row(ids_run)["output_tokens"]
    row = rows_for_batch({"messages": [chat], "reasoning_effort": ["high"]}, column="messages", source="chats").to_pylist()[0]
    assert (row["id"], row["reasoning_effort"], row["reasoning_chars"], row["final_chars"]) == ("chats#row-0", "high", len("Add them."), 1)
    assert stats_rows_for_batch([{"messages": 3}], column="messages").to_pylist()[0]["diagnostic_codes"] == ["load.unknown-shape"]


def run_row(run) -> dict:
    return analyze_runs([run], progress=False)[0].to_json()


def run_share(run) -> float | None:
    return run_row(run)["reasoning_share"]


def test_saved_hugging_face_dataset(bundled_runs, tmp_path):
    datasets = pytest.importorskip("datasets")
    texts = [r for r in bundled_runs if r.text is not None][:20]
    folder = tmp_path / "ds"
    datasets.Dataset.from_dict({"harmony": [r.text for r in texts], "id": [r.id for r in texts]}).save_to_disk(str(folder))
    out = tmp_path / "ds.parquet"
    assert main(["stats", str(folder), "--column", "harmony", "--parquet", str(out), "--jobs", "2", "--no-progress"]) == 0
    got = pq.read_table(out).to_pylist()
    assert [r["id"] for r in got] == [r.id for r in texts]
    assert [r["output_tokens"] for r in got] == [run_row(r)["output_tokens"] for r in texts]


def test_cli_parquet_prints_one_summary_line(big_jsonl, expected, tmp_path, capsys):
    out = tmp_path / "cli.parquet"
    assert main(["stats", str(big_jsonl), "--parquet", str(out), "--no-progress"]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and line.startswith(f"wrote {len(expected)} runs to {out}: ")
    shares = [r["reasoning_share"] for r in expected if r["reasoning_share"] is not None]
    assert f"median reasoning share {statistics.median(shares):.2f} of tokens" in line
    summary = summarise(out)
    assert summary.median_share == pytest.approx(statistics.median(shares))
    assert summary.output_tokens == sum(r["output_tokens"] for r in expected)
    assert summary == summarise(pq.read_table(out).to_pandas())  # DuckDB and pandas agree


def test_cli_streams_json_from_parquet_input(tmp_path, capsys):
    src = tmp_path / "texts.parquet"
    text = "<|start|>assistant<|channel|>final<|message|>hi<|end|>"
    pq.write_table(pa.table({"t": [text]}), src)
    assert main(["stats", str(src), "--column", "t", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    want = run_row(Run(id="texts#row-0", metadata=RunMetadata(source="texts"), text=text))
    assert rows == [want] and want["final_tokens"] > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--parquet", "o.parquet", "--json"], "--parquet writes the rows to Parquet and prints a summary; leave out --json and --csv (read the Parquet instead)"),
        (["--engine", "ray"], "--engine ray writes Parquet: add --parquet OUT (a folder of parts)"),
    ],
)
def test_bad_options_are_one_line(big_jsonl, extra, message, capsys):
    assert main(["stats", str(big_jsonl), *extra]) == 2
    assert capsys.readouterr().err == f"harmony-viz stats: {message}\n"


def test_jobs_names_its_range(big_jsonl, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["stats", str(big_jsonl), "--jobs", "0"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--jobs: expected a whole number of 1 or more, got 0" in err and "Traceback" not in err


def test_a_missing_column_names_the_columns(tmp_path, capsys):
    src = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1], "b": ["x"]}), src)
    assert main(["stats", str(src), "--column", "text", "--parquet", str(tmp_path / "o.parquet")]) == 2
    assert capsys.readouterr().err == f"harmony-viz stats: {src}: no column 'text'; its columns: a, b\n"


def test_jobs_without_parquet_print_the_usual_outputs(capsys):
    paths = [str(p) for p in sample_paths()[:2]]
    assert main(["stats", *paths, "--jobs", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == memory_rows(paths)
    assert main(["stats", *paths, "--jobs", "2", "--csv", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run,source,model,reasoning_effort,") and len(lines) == 1 + len(memory_rows(paths))
