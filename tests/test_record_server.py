"""Recording through a server: the vLLM replay server (tiny random model, scripted streams), the tool loop,
append-as-you-go and --resume; retries and failures against a real HTTP server that answers errors."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harmony_viz._record import PromptSpec, ServerOptions, record, record_server_batch
from harmony_viz.cli import main
from harmony_viz.runs import load_runs, run_usage
from harmony_viz.servers.core import turn_checks
from harmony_viz.tokens import encoding

CALL_TEXT = (
    "<|channel|>analysis<|message|>Use the calculator.<|end|>"
    '<|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression": "2 + 3 * 4"}<|call|>'
)
FINAL_TEXT = "<|channel|>final<|message|>It is 14.<|return|>"


def ids(text: str) -> tuple[int, ...]:
    return tuple(encoding().encode(text, allowed_special="all"))


@pytest.mark.server
def test_tool_loop_through_the_replay_server(replay_server, tmp_path):
    out = tmp_path / "runs.jsonl"
    options = ServerOptions(model="tiny", reasoning_effort="high", tools="demo", max_tokens=200, temperature=0, seed=11,
                            scripts=(ids(CALL_TEXT), ids(FINAL_TEXT)))  # fmt: skip
    batch = record_server_batch(replay_server.url, [PromptSpec("calc", "What is 2 + 3 * 4?")], options, out=out, progress=False, keep_runs=True)
    assert (batch.recorded, batch.failures, batch.stop_reasons) == (1, (), {"return": 1})
    run = batch.runs[0]
    meta = run.metadata
    assert (run.id, meta.reasoning_effort, meta.seed, meta.model) == ("calc#0", "high", 11, "tiny")
    extra = meta.extra
    assert extra["turns"] == 2 and extra["token_ids_source"] == "return_token_ids"
    # The model's tokens are kept exactly as generated; between them the server's tool message.
    call, final = ids(CALL_TEXT), ids(FINAL_TEXT)
    (a, b), = extra["harness_spans"]
    assert run.completion_token_ids[:a] == call and run.completion_token_ids[b:] == final and a == len(call)
    harness = encoding().decode(list(run.completion_token_ids[a:b]))
    assert harness.startswith("<|start|>functions.calculator") and '"result": 14' in harness and harness.endswith("<|start|>assistant")
    assert extra["tool_calls"][0]["name"] == "calculator" and json.loads(extra["tool_calls"][0]["content"])["result"] == 14
    assert extra["tool_calls"][0]["span"] == [a, b]
    # Prompt ids as the server rendered them: the request asked for high effort.
    prompt = encoding().decode(list(run.prompt_token_ids))
    assert "Reasoning: high" in prompt and prompt.endswith("What is 2 + 3 * 4?<|end|><|start|>assistant")
    # One arrival time per completion token, non-decreasing; TTFT from the stream.
    assert len(run.token_times) == len(run.completion_token_ids)
    assert all(x <= y for x, y in zip(run.token_times, run.token_times[1:]))
    assert 0 < extra["ttft_s"] <= run.token_times[0]
    # The server's answers, one capture per request, with the chunks as streamed.
    turns = extra["server_turns"]
    assert [t["api"] for t in turns] == ["chat-stream", "chat-stream"]
    assert turns[1]["request"]["messages"][-1]["role"] == "tool"
    assert sum(len(c["choices"][0].get("token_ids") or []) for c in turns[1]["chunks"] if c["choices"]) == len(final)
    # The stats see reasoning, a tool call and a final answer, as the scripted text has.
    kinds = run_usage(run).output_tokens_by_kind()
    assert kinds["reasoning"] > 0 and kinds["tool_call"] > 0 and kinds["final"] > 0
    assert [r.id for r in load_runs(out)] == ["calc#0"]
    # Turn by turn: turn 2's prompt against turn 1 as the model wrote it. vLLM keeps the pending
    # call's analysis, but re-renders the call without <|constrain|>.
    (check,) = turn_checks(run)
    assert check.file == "calc#0 turn 2" and check.server[: len(run.prompt_token_ids)] == run.prompt_token_ids
    found = set(check.codes)
    assert "constrain-missing" in found and "analysis-dropped" not in found, check.differences
    assert main(["prompt-check", "--json", str(out)]) == 1


@pytest.mark.server
def test_one_run_with_record_is_a_capture(replay_server):
    from harmony_viz.servers.core import is_capture

    run = record("tiny", "Say hi.", server=replay_server.url, effort="low", temperature=0, max_new_tokens=50, run_id="hi")
    assert run.id == "hi" and run.metadata.reasoning_effort == "low"
    assert is_capture(run) and run.metadata.extra["server"]["token_ids_source"] == "return_token_ids"
    streamed = [t for c in run.metadata.extra["server"]["chunks"] for ch in c["choices"] for t in ch.get("token_ids") or []]
    assert tuple(streamed) == run.completion_token_ids and 0 < len(streamed) <= 50


@pytest.mark.server
def test_cli_appends_and_resumes(replay_server, tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"id": "add", "prompt": "What is 2 + 2?", "reasoning_effort": "low"}\nName a colour.\n')
    out = tmp_path / "runs.jsonl"
    argv = ["record", "--server", replay_server.url, "--model", "tiny", "--prompts", str(prompts), "--max-tokens", "6",
            "--seed", "5", "--concurrency", "3", "--out", str(out), "--no-progress"]  # fmt: skip
    assert main([*argv, "--n", "2"]) == 0
    first = load_runs(out)
    assert sorted(r.id for r in first) == ["add#0", "add#1", "p00001#0", "p00001#1"]
    assert {r.id: r.metadata.seed for r in first} == {"add#0": 5, "add#1": 6, "p00001#0": 5, "p00001#1": 6}
    assert {r.id: r.metadata.reasoning_effort for r in first}["add#0"] == "low"
    assert all(len(r.completion_token_ids) == 6 and r.metadata.extra["stop_reason"] == "token_limit" for r in first)
    assert "recorded 4 run(s)" in capsys.readouterr().err
    # An interrupted write leaves half a line; --resume closes it and records only what is missing.
    with out.open("a") as f:
        f.write('{"id": "add#2", "metadata": {')
    assert main([*argv, "--n", "3", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "recorded 2 run(s)" in err and "skipped 4 already in the file" in err
    ids_now = [r.id for r in load_runs(out) if not r.diagnostics]
    assert sorted(ids_now) == sorted(["add#0", "add#1", "add#2", "p00001#0", "p00001#1", "p00001#2"])


class _Failing(BaseHTTPRequestHandler):
    """A real HTTP server that answers every completion with the next status of ``plan`` (its last one forever)."""

    plan: list[int] = []
    seen: list[str] = []

    def do_POST(self) -> None:  # noqa: N802
        self.seen.append(self.path)
        status = self.plan[min(len(self.seen) - 1, len(self.plan) - 1)]
        if status == 200:  # a plain OpenAI-style stream: text, but no token ids (not vLLM)
            return self._stream()
        body = json.dumps({"error": {"message": f"status {status} from the test server", "type": "test"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(body)

    def _stream(self) -> None:
        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "tiny"}
        events = [
            {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]},
            {**chunk, "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]},
        ]
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body.encode())))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_GET(self) -> None:  # noqa: N802  (GET /v1/models)
        body = json.dumps({"object": "list", "data": [{"id": "tiny", "object": "model", "created": 1, "owned_by": "test"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def failing_server():
    _Failing.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("plan", "attempts", "error"),
    [
        ([429, 503], 3, "gave up after 3 attempts: 503 InternalServerError: status 503 from the test server"),
        ([500, 400], 2, "400 BadRequestError: status 400 from the test server"),  # a 400 is not retried
    ],
)
def test_retries_with_backoff_then_names_the_failure(failing_server, tmp_path, plan, attempts, error):
    server, url = failing_server
    _Failing.plan = plan
    out = tmp_path / "runs.jsonl"
    options = ServerOptions(model="tiny", attempts=3, backoff=0.01, timeout=10)
    batch = record_server_batch(url, [PromptSpec("x", "hi")], options, out=out, progress=False)
    assert batch.recorded == 0 and not out.exists()
    (failure,) = batch.failures
    assert (failure.run_id, failure.attempts) == ("x#0", attempts)
    assert failure.error == error
    assert _Failing.seen == ["/v1/chat/completions"] * attempts


def test_a_server_without_token_ids_is_said_clearly(failing_server, tmp_path, capsys):
    _, url = failing_server
    _Failing.plan = [200]
    out = tmp_path / "runs.jsonl"
    assert main(["record", "--server", url, "--model", "tiny", "--prompt", "hi", "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "warning: the server returned no token ids for 1 run(s) (vLLM's return_token_ids)" in err
    (run,) = load_runs(out)
    extra = run.metadata.extra
    assert run.completion_token_ids == () and extra["token_ids_source"] is None and "no token ids" in extra["problem"]
    assert extra["server"]["token_ids_note"].startswith("the server returned no token ids")
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in extra["server"]["chunks"]) == "Hello"
    assert extra["stop_reason"] == "return"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--n", "0"], "--n must be at least 1, got 0"),
        (["--reasoning-effort", "huge"], "unknown reasoning effort 'huge'; expected one of low, medium, high"),
    ],
)
def test_bad_options_are_one_line(extra, message, tmp_path, capsys):
    argv = ["record", "--server", "http://127.0.0.1:9/v1", "--model", "tiny", "--prompt", "hi", "--out", str(tmp_path / "r.jsonl"), *extra]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"harmony-viz record: {message}\n"


def test_bad_prompts_file_and_unreachable_server(tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "ok"}\n{"text": "no prompt"}\n')
    base = ["record", "--server", "http://127.0.0.1:9/v1", "--model", "tiny", "--out", str(tmp_path / "r.jsonl")]
    assert main([*base, "--prompts", str(prompts)]) == 2
    assert capsys.readouterr().err == f"harmony-viz record: {prompts} line 2: expected an object with a \"prompt\" string\n"
    assert main([*base, "--prompt", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harmony-viz record: cannot reach http://127.0.0.1:9/v1") and err.count("\n") == 1
    assert main(["record", "--model", "tiny", "--prompt", "hi", "--n", "2", "--out", str(tmp_path / "r.jsonl")]) == 2
    assert capsys.readouterr().err == "harmony-viz record: --n needs --server (recording with transformers makes one run at a time)\n"
