"""OpenAI's reference Responses server with forced streams (harmony_viz/servers/gpt_oss_app.py), for real.

The script runs in the gpt-oss venv (``scripts/install-gpt-oss.sh`` makes ``.venv-gpt-oss``, or
``HARMONY_VIZ_GPT_OSS_PYTHON`` names its Python); the official ``openai`` client talks to it.
Without that venv the tests skip, unless ``HARMONY_VIZ_REQUIRE_SERVER=1``, where they fail.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from harmony_viz.tokens import encode

import _server

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "harmony_viz" / "servers" / "gpt_oss_app.py"
START_TIMEOUT_S = 60

CLEAN = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hello.<|return|>"
NO_CHANNEL = "<|message|>Hello.<|return|>"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Gets the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
INSTRUCTIONS = "Answer in one sentence."
QUESTION = "What's the weather in Paris?"


def _python() -> str:
    explicit = os.environ.get("HARMONY_VIZ_GPT_OSS_PYTHON")
    if explicit:
        return explicit
    local = ROOT / ".venv-gpt-oss" / "bin" / "python"
    if not local.is_file():
        _server._unavailable("no gpt-oss venv: run scripts/install-gpt-oss.sh or set HARMONY_VIZ_GPT_OSS_PYTHON")
    return str(local)


class App:
    def __init__(self, log: Path) -> None:
        self.port = _server.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        t0 = time.monotonic()
        # Its own session: the group id is its pid, so a surviving child is seen.
        self.proc = subprocess.Popen([_python(), str(SCRIPT), "--host", "127.0.0.1", "--port", str(self.port)],
                                     stdout=subprocess.PIPE, stderr=log.open("wb"), stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        while time.monotonic() - t0 < START_TIMEOUT_S:
            if self.proc.poll() is not None:
                break
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    self.startup_s = time.monotonic() - t0
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"gpt_oss_app.py did not answer /health (exit {self.proc.returncode}); log tail:\n"
                    + log.read_text(errors="replace")[-3000:], pytrace=False)

    def client(self):
        import openai

        return openai.OpenAI(base_url=f"{self.url}/v1", api_key="EMPTY", max_retries=0, timeout=30)

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                return None
        return self.proc.returncode


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    server = App(tmp_path_factory.mktemp("gpt_oss_app") / "server.log")
    yield server
    server.stop()
    if _server.group_alive(server.proc.pid):
        os.killpg(server.proc.pid, signal.SIGKILL)


def _forced(client, text: str, extra: dict | None = None, **kwargs):
    body = {"harmony_viz_script": encode(text), **(extra or {})}
    return client.responses.create(model="gpt-oss", input=QUESTION, extra_body=body, **kwargs)


def test_the_script_imports_only_the_standard_library_at_its_top_and_nothing_of_harmony_viz():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    top = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            names = {(node.module or "").split(".")[0]}
        else:
            continue
        assert "harmony_viz" not in names
        if node in tree.body:
            top |= names
    assert top - {"__future__"} <= set(sys.stdlib_module_names)
    assert ast.get_docstring(tree) and "harmony_viz_script" in ast.get_docstring(tree)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_clean_forced_stream_is_reasoning_then_the_message(app, stream):
    client = app.client()
    if not stream:
        response = _forced(client, CLEAN)
    else:
        events = list(_forced(client, CLEAN, stream=True))
        types = [e.type for e in events]
        assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
        assert [e.delta for e in events if e.type == "response.output_text.delta"] and \
            "".join(e.delta for e in events if e.type == "response.output_text.delta") == "Hello."
        response = events[-1].response
    assert [item.type for item in response.output] == ["reasoning", "message"]
    assert response.output[0].content[0].text == "Think."
    assert response.output_text == "Hello."
    assert response.status == "completed"


def _render(app, body: dict) -> httpx.Response:
    return httpx.post(f"{app.url}/v1/responses/render", json=body, timeout=30)


def test_render_is_openai_harmonys_own_render_with_the_servers_date_and_low_effort(app):
    oh = pytest.importorskip("openai_harmony")
    body = {"model": "gpt-oss", "instructions": INSTRUCTIONS, "tools": [WEATHER], "input": QUESTION}
    answer = _render(app, body)
    assert answer.status_code == 200, answer.text
    assert list(answer.json()) == ["token_ids"]
    ids = answer.json()["token_ids"]
    encoding = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    date = re.search(r"Current date: (\d{4}-\d{2}-\d{2})", encoding.decode_utf8(ids)).group(1)
    system = oh.SystemContent.new().with_conversation_start_date(date).with_reasoning_effort(oh.ReasoningEffort.LOW)
    tool = oh.ToolDescription.new(WEATHER["name"], WEATHER["description"], WEATHER["parameters"])
    developer = oh.DeveloperContent.new().with_instructions(INSTRUCTIONS).with_function_tools([tool])
    conversation = oh.Conversation.from_messages([
        oh.Message.from_role_and_content(oh.Role.SYSTEM, system),
        oh.Message.from_role_and_content(oh.Role.DEVELOPER, developer),
        oh.Message.from_role_and_content(oh.Role.USER, QUESTION),
    ])
    assert ids == encoding.render_conversation_for_completion(conversation, oh.Role.ASSISTANT)
    assert ids[-2:] == encode("<|start|>assistant")


def test_render_passes_their_errors_before_rendering_through(app):
    missing_input = _render(app, {"model": "gpt-oss"})
    assert missing_input.status_code == 422
    assert missing_input.json()["detail"][0]["loc"] == ["body", "input"]
    tools_null = _render(app, {"instructions": "x", "tools": None, "input": "hi"})  # their TypeError, before rendering
    assert tools_null.status_code == 500


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_prompt_a_keyed_request_was_fed_is_kept(app, stream):
    key = f"k-{uuid.uuid4().hex}"
    client = app.client()
    answer = _forced(client, CLEAN, instructions=INSTRUCTIONS, tools=[WEATHER], stream=stream, extra={"harmony_viz_key": key})
    if stream:
        assert list(answer)[-1].type == "response.completed"
    kept = httpx.get(f"{app.url}/harmony_viz/prompts/{key}", timeout=10)
    assert kept.status_code == 200
    rendered = _render(app, {"instructions": INSTRUCTIONS, "tools": [WEATHER], "input": QUESTION}).json()
    assert kept.json() == rendered
    assert httpx.get(f"{app.url}/harmony_viz/prompts/no-such-{key}", timeout=10).status_code == 404


def test_info_and_health(app):
    info = httpx.get(f"{app.url}/harmony_viz/info", timeout=10)
    assert info.status_code == 200
    body = info.json()
    assert set(body) == {"engine", "version", "harmony", "replay"}
    assert body["engine"] == "gpt-oss" and body["replay"] is True
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", body["version"]) and re.fullmatch(r"\d+\.\d+\.\d+.*", body["harmony"])
    health = httpx.get(f"{app.url}/health", timeout=10)
    assert (health.status_code, health.json()) == (200, {})


def test_our_fields_malformed_are_a_400(app):
    bad = httpx.post(f"{app.url}/v1/responses", json={"input": "hi", "harmony_viz_script": ["x"]}, timeout=10)
    assert bad.status_code == 400 and "harmony_viz_script" in bad.json()["error"]["message"]


def test_concurrent_requests_each_get_their_own_script(app):
    texts = {n: "word " * 40 + f"number {n}." for n in range(2)}
    results: dict[int, list[str]] = {0: [], 1: []}
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def worker(n: int) -> None:
        try:
            client = app.client()
            script = f"<|channel|>final<|message|>{texts[n]}<|return|>"
            for i in range(6):
                barrier.wait(10)
                if i % 2:
                    results[n].append(_forced(client, script).output_text)
                else:
                    events = list(_forced(client, script, stream=True))
                    results[n].append(events[-1].response.output_text)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert results == {n: [texts[n]] * 6 for n in range(2)}


def test_their_failures_reach_the_client_as_they_are(app):
    import openai

    with pytest.raises(openai.InternalServerError):
        _forced(app.client(), NO_CHANNEL)  # their KeyError: 'channel', a plain 500
    stream = _forced(app.client(), NO_CHANNEL, stream=True)  # a fresh connection: uvicorn drops the one after a 500
    assert stream.response.status_code == 200
    seen = []
    with pytest.raises(openai.APIConnectionError):
        for event in stream:
            seen.append(event.type)
    assert seen == ["response.created", "response.in_progress"]  # cut: no error event, no completed


def test_a_request_without_a_script_is_their_answer_to_an_empty_completion(app):
    # <|return|> at once: their handler raises "No messages to process", a 500.
    plain = httpx.post(f"{app.url}/v1/responses", json={"input": "hi"}, timeout=10)
    assert plain.status_code == 500


def test_check_prints_the_version():
    done = subprocess.run([_python(), str(SCRIPT), "--check"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*\n", done.stdout)


def test_sigterm_stops_it_cleanly_with_stdout_empty(tmp_path: Path):
    app = App(tmp_path / "server.log")
    try:
        assert app.startup_s < START_TIMEOUT_S
        list(_forced(app.client(), CLEAN, stream=True))  # their handler prints; none of it on stdout
        _forced(app.client(), CLEAN)
    finally:
        rc = app.stop()
    assert rc == 0, f"exit status {rc}; log tail:\n{app.log.read_text(errors='replace')[-2000:]}"
    deadline = time.monotonic() + 10
    while _server.group_alive(app.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _server.group_alive(app.proc.pid), "a process of the server's group outlived SIGTERM"
    assert app.proc.stdout.read() == b""
    assert "request received" in app.log.read_text(errors="replace")
