"""Every command reads its input the same way, says what it read, and meets bad input with one line.

Each test names a defect found by trying the commands as a new user would (issue 22).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _replay_streams import long_ids

from harmony_viz.tokens import encode

PROMPT = "<|start|>system<|message|>Reasoning: low<|end|><|start|>user<|message|>What is 2+2?<|end|>"
ANSWER = "<|start|>assistant<|channel|>analysis<|message|>Add them.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>"
TRIAL = "aldehir_tool_calling/cities_3_cot_true_trial-1.md"


# ---- bad input: one line, exit 2 --------------------------------------------------------------


@pytest.mark.parametrize("ids", [[1, 2, 999999999], [5, 201088]])
def test_lint_ids_out_of_range_is_one_line_and_exit_2(tmp_path, cli, ids):
    """Defect: ``lint ids.json`` with ids out of range printed a 24-line traceback and exited 1."""
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(ids))
    bad = len(ids) - 1
    rc, out, err = cli("lint", str(path))
    assert (rc, out) == (2, "")
    assert err == f"harmony-viz lint: {path}: token {bad} is {ids[bad]}, outside the o200k_harmony vocabulary 0..201087\n"


def test_html_says_the_json_is_invalid_with_line_and_column(tmp_path, cli):
    """Defect: ``html invalid.json`` said "cannot replay a Run" and never that the JSON was invalid."""
    path = tmp_path / "invalid.json"
    path.write_text('{"messages": [\n  {"role": "user",, }\n]}')
    rc, out, err = cli("html", str(path), "-o", str(tmp_path / "out.html"))
    assert rc == 2 and out == ""
    assert err == f"harmony-viz html: {path}: invalid JSON at line 2, column 19: Expecting property name enclosed in double quotes\n"
    assert not (tmp_path / "out.html").exists()


BAD_FILES = {
    "garbage.bin": bytes(range(256)),
    "invalid.json": b'{"a": [1, 2,, 3]}',
    "ids.json": b"[200006, -4]",
    "floats.json": b"[1.5, 2.5]",
    "shapeless.json": b'{"hello": "world"}',
    "null.json": b"null",  # JSON of no known shape; an empty array is an empty stream (tests/test_edges.py)
    "string.json": b'"<|start|>user"',
    "folder": None,
    "missing.txt": None,
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["render", "parse", "lint", "html", "stats", "template-check"])
def test_bad_input_never_gives_a_traceback(tmp_path, cli, command, name):
    """Every command meets bad input with one line on stderr; ``stats`` names it and exits 1, the others exit 2."""
    path = tmp_path / name
    if name == "folder":
        path.mkdir()
    elif BAD_FILES[name] is not None:
        path.write_bytes(BAD_FILES[name])
    argv = {"html": [str(path), "-o", str(tmp_path / "o.html")], "template-check": ["--template", str(path), str(path)]}.get(command, [str(path)])
    rc, out, err = cli(command, *argv)  # a traceback would raise here, in-process
    assert rc == (1 if command == "stats" else 2), err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"harmony-viz {command}: ") and str(path) in lines[0], err
    assert out in ("", "[]\n") or command == "stats"


# ---- what was read is said --------------------------------------------------------------------


def test_the_form_read_is_said_on_stderr(tmp_path, cli, corpus_dir):
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": [{"role": "user", "content": "Hi"}]}))
    assert cli("lint", str(req)).err.splitlines()[0] == f"read {req} as a Chat Completions request"
    trial = corpus_dir / TRIAL
    assert cli("parse", str(trial), "--run", "1").err.splitlines()[0] == (
        f"read {trial} as a Markdown trial (4 runs); run 1 of 4 (cities_3_cot_true_trial-1#turn-2)"
    )


def test_parse_and_lint_read_a_markdown_trial_as_stats_does(corpus_dir, cli):
    """Defect: ``parse``/``lint`` read a Markdown trial as 5 text-outside-message errors; ``stats`` read it right."""
    from harmony_viz._lint import lint
    from harmony_viz.runs import load_runs
    from harmony_viz.scanner import scan

    path = corpus_dir / TRIAL
    runs = load_runs(path)
    for k in (0, -1):
        ids = [*runs[k].prompt_token_ids, *runs[k].completion_token_ids]
        rc, out, _ = cli("parse", str(path), "--run", str(k))
        parsed = json.loads(out)
        assert rc == 0 and parsed["unit"] == "tokens"
        assert parsed["messages"] == scan(ids).to_json()["messages"]
        assert "text-outside-message" not in {d["code"] for d in parsed["diagnostics"]}
        rc, out, _ = cli("lint", str(path), "--run", str(k))
        assert rc == 0 and json.loads(out)["diagnostics"] == [d.to_json() for d in lint(ids)]
    assert len(json.loads(cli("parse", str(path), "--run", "-1").out)["messages"]) > len(json.loads(cli("parse", str(path)).out)["messages"])


# ---- usage counts the prompt ------------------------------------------------------------------


def test_parse_output_chat_counts_the_prompt(tmp_path, cli):
    """Defect: ``parse --output chat`` said ``prompt_tokens: 0`` when the input held the whole prompt."""
    path = tmp_path / "t.txt"
    path.write_text(PROMPT + ANSWER)
    total, prompt = len(encode(PROMPT + ANSWER)), len(encode(PROMPT))
    usage = json.loads(cli("parse", str(path), "--output", "chat").out)["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (prompt, total - prompt, total)
    assert usage["completion_tokens_details"]["reasoning_tokens"] == len(encode("Add them."))
    usage = json.loads(cli("parse", str(path), "--output", "responses").out)["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (prompt, total - prompt, total)
    stream = [json.loads(line) for line in cli("parse", str(path), "--output", "chat-stream").out.splitlines()]
    assert stream[-1]["usage"]["prompt_tokens"] == prompt


def test_parse_output_chat_counts_a_runs_prompt_ids(tmp_path, cli):
    """A run says where its prompt ends (its prompt ids): that is the prompt, even mid-header."""
    prompt_ids = encode(PROMPT + "<|start|>assistant")
    completion_ids = encode(ANSWER)[2:]  # the completion follows <|start|>assistant
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({"id": "r", "prompt_token_ids": prompt_ids, "completion_token_ids": completion_ids}) + "\n")
    usage = json.loads(cli("parse", str(path), "--output", "chat").out)["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (len(prompt_ids), len(completion_ids))


def test_widget_api_view_counts_the_prompt(corpus_dir):
    """Defect: the replay widget's API view said ``prompt_tokens: 0`` too."""
    import harmony_viz as hv
    from harmony_viz.runs import load_runs

    w = hv.replay(PROMPT + ANSWER, step=-1)
    usage = w.api_view["views"]["chat"]["usage"]
    total, prompt = len(encode(PROMPT + ANSWER)), len(encode(PROMPT))
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (prompt, total - prompt, total)
    assert w.api_view["views"]["responses"]["usage"]["input_tokens"] == prompt
    w.chunking = "chars:5"  # a text chunking counts the same tokens
    w.step = w.n_steps - 1
    assert w.api_view["views"]["chat"]["usage"]["prompt_tokens"] == prompt
    run = load_runs(corpus_dir / TRIAL)[-1]
    usage = hv.replay(run, step=-1).api_view["views"]["chat"]["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (len(run.prompt_token_ids), len(run.completion_token_ids))


# ---- save_report takes a frame ------------------------------------------------------------------


def test_save_report_accepts_what_runs_frame_returns(tmp_path):
    """Defect: ``save_report(runs_frame(...), "r.html")`` failed with "run: no such run file"."""
    import harmony_viz as hv
    from harmony_viz.data import sample_path

    frame = hv.runs_frame(hv.analyze_runs([sample_path("rft_outputs.jsonl"), sample_path(TRIAL.replace("aldehir_", ""))]))
    page = hv.save_report(frame, tmp_path / "r.html").read_text()
    assert page.count('class="plotly-graph-div"') >= 3
    assert all(run in page for run in frame["run"])


# ---- findings for people --------------------------------------------------------------------------


def test_findings_read_like_a_compiler(tmp_path, cli):
    """parse and lint print each finding as PATH:LINE:COL: severity code message, the line and a caret; stdout keeps the JSON."""
    path = tmp_path / "t.txt"
    path.write_text("<|start|>user<|message|>Hi<|end|>\n  stray\n<|start|>assistant<|channel|>final<|message|>Yo<|end|>")
    rc, out, err = cli("parse", str(path))
    assert rc == 0 and json.loads(out)["unit"] == "chars"
    (diag,) = json.loads(out)["diagnostics"]
    assert err.splitlines() == [
        f"read {path} as Harmony text",
        f"{path}:2:3: error text-outside-message {diag['message']}",
        "    stray",
        "    ^~~~~",
    ]
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(encode(path.read_text())))
    rc, out, err = cli("parse", str(ids))
    assert json.loads(out)["unit"] == "tokens"
    assert err.splitlines()[1:] == [f"{ids}:2:3: error text-outside-message {diag['message']}", "    stray", "    ^~~~~"]  # token spans, placed in the decoded text
    rc, out, err = cli("lint", str(ids))
    assert json.loads(out)["unit"] == "tokens"
    assert err.splitlines()[-3:] == [
        f"{ids}:3:48: warning stop-token the completion's last message (2) should end in <|return|>; it ends in <|end|>",
        "  <|start|>assistant<|channel|>final<|message|>Yo<|end|>",
        "  " + " " * 47 + "^~~~~~~",
    ]


# ---- Ctrl-C ---------------------------------------------------------------------------------------


def _interrupt(argv: list[str], cwd: Path) -> tuple[int, float]:
    """Run ``harmony-viz ARGV`` in a real process, send SIGINT once it is busy; (exit status, seconds to exit)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    # The interrupt is for the work, not for a first import that compiles bytecode and reads
    # cold files (a fresh clone in CI): warm those once, as any earlier command would have.
    warm = "import harmony_viz.cli, harmony_viz.scale, harmony_viz.charts, pyarrow.parquet; from harmony_viz.tokens import encoding; encoding()"
    subprocess.run([sys.executable, "-c", warm], cwd=cwd, env=env, check=True, capture_output=True, timeout=120)
    # A session of its own, signalled as a whole: what Ctrl-C in a terminal does (workers get it too).
    proc = subprocess.Popen([sys.executable, "-m", "harmony_viz", *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    if "--jobs" in argv:  # the workers are at it once their parts folder is there
        deadline = time.monotonic() + 3  # or, at the latest, 3 s in (as for the other commands)
        while not any(p.name.startswith(".harmony-viz-parts-") for p in cwd.iterdir()) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
    else:
        time.sleep(3.0)  # imports and the vocabulary, then well into the work
    assert proc.poll() is None, "finished before the interrupt; give it more work"
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    rc = proc.wait(timeout=30)
    seconds = time.perf_counter() - sent
    assert proc.stderr is not None and proc.stderr.read().decode().count("Traceback") == 0
    return rc, seconds


@pytest.mark.parametrize(
    ("argv", "files"),
    [
        # one step a character: a page of 400k tokens cut by token is still being written when the interrupt comes
        (["html", "in0.json", "-o", "out.html", "--chunking", "chars:1"], 1),
        (["stats", "IN", "--html", "out.html", "--no-progress"], 12),
        # enough files that the two workers are still at it when the interrupt comes
        (["stats", "IN", "--parquet", "rows.parquet", "--jobs", "2", "--no-progress"], 48),
    ],
    ids=["html", "stats", "stats-parquet-jobs"],
)
def test_ctrl_c_exits_within_a_second_and_leaves_no_partial_output(tmp_path, corpus_dir, argv, files):
    """Defect: Ctrl-C took seconds to act, and ``stats --parquet`` left a partial file behind."""
    # stats is linear now (a 150k-token run in a fraction of a second): its cases read longer runs
    text = json.dumps(long_ids(corpus_dir, 400_000 if argv[0] == "html" else 600_000))
    inputs = [f"in{k}.json" for k in range(files)]
    for name in inputs:
        (tmp_path / name).write_text(text)
    argv = [a for x in argv for a in (inputs if x == "IN" else [x])]
    out = argv[argv.index("--parquet") + 1] if "--parquet" in argv else "out.html"
    rc, seconds = _interrupt(argv, tmp_path)
    assert rc == 130 and seconds < 1.0, (rc, seconds)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(inputs), f"{out} or a temporary file was left behind"
