"""``harmony-viz demo``: the README's main job writes a replay page and a stats report of the bundled runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony_viz.cli import REPLAY_SAMPLE, demo_paths, main, replay_tokens
from harmony_viz.data import sample_path


def test_demo_writes_both_pages_beside_the_named_file(tmp_path):
    out = tmp_path / "demo.html"
    result = subprocess.run(
        [sys.executable, "-m", "harmony_viz", "demo", "-o", str(out), "--no-progress"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    stats = tmp_path / "demo-stats.html"
    assert result.stdout.splitlines() == [str(out), str(stats)]
    assert result.stderr == f"open {out} in a browser; the pages work offline\n"
    report = stats.read_text()
    for source in ("findings-rag", "findings-tournament", "tournament_helpful", "tournament_cyberthreat", "reinforcement-fine-tuning",
                   "tool-calling cot=true", "tool-calling cot=false"):  # fmt: skip
        assert f"<td>{source}</td>" in report, source
    replay = out.read_text()
    assert replay.startswith("<!DOCTYPE html>") and "Harmony replay" in replay


def test_replay_is_the_whole_bundled_tool_calling_conversation(enc):
    ids = replay_tokens()
    text = enc.decode(ids)
    assert text.startswith("<|start|>system<|message|>") and text.endswith("<|return|>")
    assert text.count("<|start|>functions.get_weather to=assistant") == 3
    block = sample_path(REPLAY_SAMPLE).read_text().split("### Turn 4\n\n```\n", 1)[1].split("\n```", 1)[0]
    assert text == block.replace("<|end|>\n\n<|start|>", "<|end|><|start|>").replace("<|call|>\n\n<|start|>", "<|call|><|start|>")


def test_demo_into_a_folder(tmp_path, capsys):
    folder = tmp_path / "demo"  # the folder named is made; the folder it sits in must exist (see below)
    assert main(["demo", "-o", str(folder), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(folder / "replay.html"), str(folder / "stats.html")]
    assert (folder / "stats.html").stat().st_size > 1_000_000  # plotly.js inlined


def test_demo_pages_say_what_they_show_and_link_each_other(tmp_path, capsys):
    folder = tmp_path / "demo"
    assert main(["demo", "-o", str(folder), "--no-progress"]) == 0
    replay, stats = (folder / "replay.html").read_text(), (folder / "stats.html").read_text()
    assert "<title>cities_3_cot_true_trial-1.md (a real gpt-oss-20b tool-calling run) · Harmony replay</title>" in replay
    line = re.search(r'<p class="hv-page-line" data-hv="page-line">(.*?)</p>', replay).group(1)
    assert line.startswith("A replay of cities_3_cot_true_trial-1.md (a real gpt-oss-20b tool-calling run): 399 tokens fed to the Harmony scanner one token at a time")
    assert "Step with ←/→" in line and 'href="stats.html"' in line
    assert re.search(r'data-hv="page-line">Token statistics of gpt-oss runs: .*Hover a chart.* See also: <a href="replay.html"', stats)


def test_demo_and_html_open_at_the_same_step(tmp_path, enc):
    """Both open at the end of the stream: the whole conversation shows, scrub back to replay it."""
    folder = tmp_path / "demo"
    assert main(["demo", "-o", str(folder), "--no-progress"]) == 0
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(replay_tokens()))
    assert main(["html", str(ids), "-o", str(tmp_path / "html.html")]) == 0

    def opening_step(page: Path) -> tuple[int, int]:
        data = json.loads(re.search(r'<script type="application/json" id="hv-data">(.*?)</script>', page.read_text(), re.S).group(1))
        return data["traits"]["step"], data["meta"]["n_steps"]

    assert opening_step(folder / "replay.html") == opening_step(tmp_path / "html.html") == (400, 401)


def test_demo_paths(tmp_path):
    a = tmp_path / "a"
    a.mkdir()
    assert demo_paths(f"{a}/demo.html") == (a / "demo.html", a / "demo-stats.html")
    assert demo_paths(f"{a}/out") == (a / "out/replay.html", a / "out/stats.html")


@pytest.mark.parametrize("target", ["no/such/dir/x.html", "no/such/dir"])
def test_demo_and_html_refuse_a_missing_folder_alike(tmp_path, cli, target):
    """issue 32: ``demo -o /no/such/dir/x.html`` made the folders where ``html`` refused; a missing folder is most likely a typo."""
    out = tmp_path / target
    missing = tmp_path / "no/such/dir" if target.endswith(".html") else tmp_path / "no/such"
    rc, stdout, err = cli("demo", "-o", str(out), "--no-progress")
    assert (rc, stdout) == (2, "")
    assert err == f"harmony-viz demo: {out}: the folder {missing} does not exist; create it first, or check the name\n"
    text = tmp_path / "t.txt"
    text.write_text("<|start|>user<|message|>Hi<|end|>", encoding="utf-8")
    page = tmp_path / "no/such/dir/x.html"
    rc, stdout, err = cli("html", str(text), "-o", str(page))
    assert (rc, stdout) == (2, "")
    assert err == f"harmony-viz html: {page}: the folder {page.parent} does not exist; create it first, or check the name\n"
    assert not (tmp_path / "no").exists()


def test_demo_onto_an_existing_file_that_is_not_html_is_refused(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    assert main(["demo", "-o", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"harmony-viz demo: {target}: exists and is not a folder; give a name ending in .html or a folder\n"
    )
    assert target.read_text() == "keep me"


@pytest.mark.parametrize("name", ["demo.html", "demo.HTM"])
def test_html_suffixes_name_a_file(name, tmp_path):
    replay, report = demo_paths(str(tmp_path / name))
    assert replay.name == name and report.name == f"{name.rsplit('.', 1)[0]}-stats.html"
