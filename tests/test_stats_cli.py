"""``harmony-viz stats``: JSON in input order, CSV, the HTML report, the table, and bad input."""

from __future__ import annotations

import csv
import json
import statistics

import pytest

from harmony_viz.cli import main
from harmony_viz.data import sample_path
from harmony_viz.runs import load_runs

REQUIRED = ("output_tokens", "reasoning_tokens", "preamble_tokens", "tool_call_tokens", "final_tokens", "reasoning_share")


@pytest.fixture(scope="module")
def files() -> list[str]:
    """A few bundled files of different shapes, deliberately not in alphabetical order."""
    return [str(sample_path(n)) for n in ("rft_outputs.jsonl", "finding5_runs/helpful-47.json", "tool_calling/cities_3_cot_true_trial-1.md")]


def test_json_is_one_object_per_run_in_input_order(files, capsys):
    assert main(["stats", *files, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    expected = [r.id for r in load_runs(files)]
    assert [r["id"] for r in rows] == expected
    assert expected[:3] == ["rft_outputs#cell-37", "rft_outputs#cell-56", "helpful-47"]
    for row in rows:
        assert all(key in row for key in REQUIRED)
        shared = row["reasoning_tokens"] + row["preamble_tokens"] + row["tool_call_tokens"] + row["final_tokens"]
        assert row["reasoning_share"] == (row["reasoning_tokens"] / shared if shared else None)
    # Reversing the files reverses the file blocks.
    assert main(["stats", *reversed(files), "--json"]) == 0
    again = [r["id"] for r in json.loads(capsys.readouterr().out)]
    assert again[0].startswith("cities_3") and again[-2:] == ["rft_outputs#cell-37", "rft_outputs#cell-56"]


def test_csv_and_html_outputs(files, tmp_path, capsys):
    out_csv, out_html = tmp_path / "runs.csv", tmp_path / "report.html"
    assert main(["stats", *files, "--csv", str(out_csv), "--html", str(out_html), "--no-progress"]) == 0
    captured = capsys.readouterr()
    with out_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["run"] for r in rows] == [r.id for r in load_runs(files)]
    assert {"reasoning_share", "reasoning_share_chars", "source", "reasoning_effort"} <= set(rows[0])
    page = out_html.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count('class="plotly-graph-div"') >= 3
    assert captured.err == f"wrote {len(rows)} runs to {out_csv}\nwrote the report to {out_html}\n"
    assert captured.out.splitlines()[0].split() == ["run", "effort", "output", "reasoning", "preamble", "tool_call", "final", "share", "diags"]


def test_csv_to_stdout(files, capsys):
    assert main(["stats", files[0], "--csv", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run,source,model,reasoning_effort,") and len(lines) == 3


def test_table_summary_line_on_the_rag_findings(capsys):
    path = sample_path("findings-rag.json")
    assert main(["stats", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 82
    rows = [line.split() for line in lines[1:81]]
    shares = [float(r[7]) for r in rows]
    assert abs(statistics.median(shares) - float(lines[-1].split("median reasoning share ")[1].split()[0])) <= 0.005
    assert lines[-1].startswith("80 runs, ") and "of tokens, 0.89 of characters" in lines[-1]


def test_malformed_lines_do_not_stop_the_batch(tmp_path, capsys):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"id": "a", "text": "<|start|>assistant<|channel|>final<|message|>ok<|end|>"}\nnot json\n')
    assert main(["stats", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    assert [r["id"] for r in json.loads(captured.out)] == ["a"]  # the line that could not be read gets no row
    assert captured.err == f"harmony-viz stats: {path} line 2: not JSON (Expecting value at column 1); line skipped\n"


def test_unreadable_files_are_named_get_no_row_and_exit_1(tmp_path, capsys):
    """Defect: ``stats garbage.bin`` exited 0 with a zero-token run; the error showed only inside --json."""
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    good = sample_path("finding5_runs/helpful-47.json")
    assert main(["stats", str(garbage), str(good), str(tmp_path / "gone.json"), "--json"]) == 1
    captured = capsys.readouterr()
    assert [r["id"] for r in json.loads(captured.out)] == ["helpful-47"]  # still one JSON array, of the readable runs
    assert captured.err.splitlines() == [
        f"harmony-viz stats: {tmp_path / 'gone.json'}: no such file",
        f"harmony-viz stats: {garbage}: not UTF-8 text (byte 128); file skipped",
    ]
    assert main(["stats", str(garbage)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1].startswith("0 runs, 0 output tokens")
    assert captured.err == f"harmony-viz stats: {garbage}: not UTF-8 text (byte 128); file skipped\n"


def test_unreadable_files_at_scale_too(tmp_path, capsys):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\xff\xfe")
    out = tmp_path / "rows.parquet"
    assert main(["stats", str(garbage), str(sample_path("rft_outputs.jsonl")), "--parquet", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"harmony-viz stats: {garbage}: not UTF-8 text (byte 0); file skipped\n"
    assert captured.out.startswith(f"wrote 2 runs to {out}")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["stats", "-", "-"], "harmony-viz stats: - (stdin) can be given only once\n"),
        (["stats", "x.json", "--json", "--csv", "-"], "harmony-viz stats: --json and --csv - both write to stdout; give --csv a file name\n"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == message and captured.out == ""


def test_a_missing_file_or_a_folder_is_named_and_exits_1(tmp_path, capsys):
    assert main(["stats", "nope.json"]) == 1
    assert capsys.readouterr() == ("", "harmony-viz stats: nope.json: no such file\n")
    assert main(["stats", str(tmp_path), "--json"]) == 1
    assert capsys.readouterr() == ("[]\n", f"harmony-viz stats: {tmp_path}: is a folder; pass the run files inside it (e.g. {tmp_path}/*.json)\n")


def test_stats_keeps_a_jsonl_records_source_else_the_files_stem(tmp_path, cli):
    """issue 32: a record's own ``source`` (top level or in metadata) was read as null, so "by source" was one "unknown" box."""
    import gzip

    text = "<|start|>assistant<|channel|>final<|message|>Hi<|return|>"
    lines = [{"id": "a", "source": "rag", "metadata": {}, "text": text},
             {"id": "b", "metadata": {"source": "red-team"}, "text": text},
             {"id": "c", "text": text}]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    zipped = tmp_path / "zipped.jsonl.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    rc, out, _ = cli("stats", str(path), "--json")
    assert rc == 0 and [r["source"] for r in json.loads(out)] == ["rag", "red-team", "runs"]
    rc, out, _ = cli("stats", str(zipped), "--json")  # read in batches at scale: the same sources
    assert rc == 0 and [r["source"] for r in json.loads(out)] == ["rag", "red-team", "zipped"]
