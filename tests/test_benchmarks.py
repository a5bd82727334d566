"""The benchmarks in benchmarks/ run and print ratios against a reference timed in the same run.

They live outside the package (issue 16); these tests only check that each runs and reports
its figures in the documented form, never a speed.
"""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_door, bench_scanner
from benchmarks.bench_projections import bench_projections, format_report


@pytest.mark.parametrize(("module", "bad", "why"), [
    (bench_scanner, ["--rounds", "0"], "--rounds 0: give at least 1"),
    (bench_door, ["--rounds", "0"], "--rounds 0: give at least 1"),
    (bench_door, ["--tokens", "0"], "--tokens 0: give at least 1"),
])
def test_benchmarks_reject_bad_arguments(module, bad, why, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        module.main(bad)
    assert e.value.code == 2 and why in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no transcript corpus at"):
        module.main(["--corpus", str(tmp_path)])


def test_scanner_benchmark_prints_ratios(corpus_dir, capsys):
    assert bench_scanner.main(["--corpus", str(corpus_dir), "--rounds", "1", "--trace-tokens", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"corpus: 1\d\d real token streams that openai-harmony parses strictly, [\d,]+ tokens \(.*\)", lines[0])
    assert re.fullmatch(r"  per-token feed vs StreamableParser.process: ours [\d.]+ M tok/s, reference [\d.]+ M tok/s, ratio [\d.]+x \(rounds: [\d.]+\)", lines[2])
    assert re.fullmatch(r"trace of every step, 3,000 tokens fed one at a time: \d+ MB \(\d+ B/step: events, step offsets, snapshots\), limit 300 MB; .*", lines[4])


def test_extra_times_the_renderer_and_projections(corpus_dir, capsys):
    assert bench_scanner.main(["--corpus", str(corpus_dir), "--rounds", "1", "--trace-tokens", "0", "--extra"]) == 0
    lines = capsys.readouterr().out.splitlines()
    render = [l for l in lines if re.fullmatch(r"  .+ \([\d,]+ tokens\): ours [\d.]+ ms, openai-harmony [\d.]+ ms, ratio [\d.]+x", l)]
    assert len(render) == 2
    cases = [l.split()[0] for l in lines if re.fullmatch(r"\S+.*\s[\d.]+ ms\s+[\d.]+x scan\s+[\d.]+ us/token", l)]
    assert cases[0] == "scan" and len(cases) == 4


def test_projection_benchmark_reports_ratios_against_the_scan(enc):
    tokens = enc.encode("<|start|>assistant<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", allowed_special="all")
    result = bench_projections(tokens, rounds=1)
    assert set(result) == {"scan", "scan+project+streams", "scan+chat view per step", "scan+responses view per step"}
    assert all(v > 0 for v in result.values())
    lines = format_report(result, len(tokens)).splitlines()
    assert len(lines) == 4 and lines[0].split()[-4] == "1.00x"


def test_no_benchmark_code_inside_the_package():
    from pathlib import Path

    import harmony_viz

    root = Path(harmony_viz.__file__).parent
    assert [p for p in root.rglob("_bench.py")] == []


def test_door_benchmark_prints_its_ratios_against_references_of_the_same_run(corpus_dir, capsys):
    """Run small (one round, a 3,000-token page): the figures are printed in their documented form, no speed asserted."""
    assert bench_door.main(["--corpus", str(corpus_dir), "--rounds", "1", "--tokens", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    num = r"-?[\d.]+"
    assert re.fullmatch(rf"start-up \(cities_3_cot_true_trial-1\.md, fresh processes, median of 1\): vocabulary {num} s, parse {num} s, lint {num} s", lines[0])
    assert re.fullmatch(r"  lint - parse: [+-][\d.]+ s \(limit \+0\.30 s\); parse - vocabulary: [+-][\d.]+ s \(limit \+0\.70 s\)", lines[1])
    assert re.fullmatch(rf"first call \(fresh processes, median of 1\): replay {num} s, playground {num} s; playground / replay {num}x \(limit 1\.00x\)", lines[2])
    assert re.fullmatch(rf"page of 3,000 tokens \({num} MB; one process, vocabulary loaded, CPU seconds, median of 1\): encode {num} s, scan {num} s, "
                        rf"replay\(text\)\.save_html {num} s, html {num} s", lines[3])
    assert re.fullmatch(rf"  scan / encode {num}x \(limit 3x\); save_html / scan {num}x, html / scan {num}x \(limit 10x, aim 5x\)", lines[4])
    assert re.fullmatch(rf"  peak memory of replay\(text\)\.save_html above the loaded vocabulary: {num} MB = \d+ B/token \(tracemalloc, Python allocations; limit 300\)", lines[5])
    assert len(lines) == 6


def test_door_benchmark_stream_is_real_transcripts_cut_to_length(corpus_dir, enc):
    from benchmarks.bench_door import context_stream

    ids = context_stream(corpus_dir, 5000)
    assert len(ids) == 5000
    text = enc.decode(ids)
    assert text.startswith("<|start|>system<|message|>") and "to=functions.get_weather" in text


def test_linear_benchmark_reports_growth_and_stats_against_parse(corpus_dir, capsys):
    """Run tiny (two sizes of an eighth of a MB or less, one round): the growth check is worked out and printed, no speed asserted."""
    from benchmarks import bench_linear

    piece = bench_linear.transcript(corpus_dir)
    assert piece.startswith("<|start|>system<|message|>") and "\n\n<|start|>assistant" in piece
    text = bench_linear.long_text(piece, 0.0625)
    assert text == piece * round(62_500 / len(piece.encode("utf-8")))
    result = bench_linear.bench_linear(piece, [0.03125, 0.0625], 1, 0.0625)
    first, last = (row["ratio"] for row in result["sizes"])
    assert set(result["growth"]) == set(bench_linear.COMMANDS) == set(first)
    for c in bench_linear.COMMANDS:
        assert result["growth"][c] == pytest.approx(last[c] / first[c])
    assert result["growth_ok"] == all(g <= 1.5 for g in result["growth"].values())
    v = result["versus"]
    assert v["ratio"] == pytest.approx(v["stats"] / v["parse"]) and v["ok"] == (v["ratio"] <= 2.0)

    assert bench_linear.main(["--corpus", str(corpus_dir), "--rounds", "1", "--sizes", "0.0625,0.03125", "--versus", "0.0625"]) == 0
    lines = capsys.readouterr().out.splitlines()
    num = r"[\d.]+"
    assert re.fullmatch(r"input: cities_15_cot_true_trial-0\.md, its last turn's conversation \([\d,]+ chars\) repeated; one process, vocabulary loaded, CPU seconds, median of 1", lines[0])
    assert lines[1].split() == ["size", "encode", "parse", "lint", "stats", "html"]
    assert [l.split()[0] for l in lines[2:4]] == ["0.03125", "0.0625"]  # smallest first, whatever the order given
    assert all(re.fullmatch(rf"\s*{num} MB\s+{num}s" + rf"\s+{num}s\s+{num}x" * 4, l) for l in lines[2:4])
    assert re.fullmatch(rf"growth \(0\.0625 MB ratio / 0\.03125 MB ratio, limit 1\.50\): parse {num}, lint {num}, stats {num}, html {num}; (within limit|OVER LIMIT)", lines[4])
    assert re.fullmatch(rf"stats vs parse at 0\.0625 MB: stats {num} s, parse {num} s, stats / parse {num}x \(limit 2\.00x\); (within limit|OVER LIMIT)", lines[5])
    assert len(lines) == 6


@pytest.mark.parametrize(("bad", "why"), [
    (["--sizes", "1"], "--sizes 1: give at least two sizes above 0"),
    (["--sizes", "1,x"], "--sizes 1,x: give sizes in MB"),
    (["--versus", "-1"], "--versus -1: give a size in MB, or 0 to skip"),
    (["--rounds", "0"], "--rounds 0: give at least 1"),
])
def test_linear_benchmark_rejects_bad_arguments(bad, why, capsys):
    from benchmarks import bench_linear

    with pytest.raises(SystemExit) as e:
        bench_linear.main(bad)
    assert e.value.code == 2 and why in capsys.readouterr().err


def test_page_write_benchmark_prints_its_ratio_and_bytes_per_token(corpus_dir, capsys):
    """Run small (one round, a 3,000-token page): the figures in their documented form, no speed or size asserted."""
    from benchmarks import bench_page_write

    ids, used, repeated = bench_page_write.context_stream(corpus_dir, 50_000)
    pieces = bench_page_write.transcripts(corpus_dir)
    assert len(ids) == 50_000 and not repeated and len({tuple(p) for p in pieces}) == len(pieces) > 100  # distinct, none twice
    assert bench_page_write.main(["--corpus", str(corpus_dir), "--rounds", "1", "--tokens", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    num = r"[\d.]+"
    assert re.fullmatch(r"text: 3,000 tokens, [\d,]+ characters, of \d+ distinct real transcripts back to back, none repeated", lines[0])
    assert re.fullmatch(rf"page \({num} MB; one process, vocabulary loaded, a small page written, CPU seconds, median of 1 interleaved rounds\): "
                        rf"encode {num} s, replay\(text\)\.save_html {num} s", lines[1])
    assert re.fullmatch(rf"  save_html / encode {num}x \(limit 5x\); (within limit|OVER LIMIT)", lines[2])
    assert re.fullmatch(rf"first call in a fresh Jupyter kernel \(imports included; the vocabulary loaded before, {num} s, as encode has it; median of 1\): "
                        rf"replay\(text\)\.save_html {num} s, encode {num} s", lines[3])
    assert re.fullmatch(rf"  first save_html / encode {num}x \(limit 10x\); (within limit|OVER LIMIT)", lines[4])
    assert re.fullmatch(rf"  peak memory above the warm start \(vocabulary loaded, a small page written\): {num} MB = \d+ B/token "
                        r"\(VmHWM of a fresh process, median of 1; limit 300\); (within limit|OVER LIMIT)", lines[5])
    assert len(lines) == 6
    with pytest.raises(SystemExit) as e:
        bench_page_write.main(["--tokens", "0"])
    assert e.value.code == 2 and "--tokens 0: give at least 1" in capsys.readouterr().err
