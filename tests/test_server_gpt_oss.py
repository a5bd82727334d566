"""The server and prompt lenses against OpenAI's reference Responses server (gpt-oss 0.0.9; marked ``server``).

The server runs for real: ``harmony-viz replay-server --engine gpt-oss`` serves their own
``create_api_server`` with our ``infer_next_token``, in the venv of scripts/install-gpt-oss.sh.
Each behaviour of ../shared/GPTOSS.md must come out as a finding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _lens import GPT_OSS_CAPTURES, REQUEST, STREAMS, codes

from harmony_viz.cli import main
from harmony_viz.servers import check_captures, check_streams, engines, read_request
from harmony_viz.servers.core import read_stream
from harmony_viz.servers.engines import detect_engine

pytestmark = pytest.mark.server

RESPONSES = ("responses", "responses-stream")
# What GPTOSS.md measured, per stream and api: codes that must be there.
EXPECTED = {
    ("seed-001", "responses"): {"preamble-hidden"},  # the preamble beside the call is dropped
    ("seed-001", "responses-stream"): {"preamble-hidden", "call-not-streamed"},  # and the call comes only as output_item.done
    ("preamble-then-final", "responses"): {"preamble-hidden"},
    ("leading-space-channel", "responses"): {"server-error"},  # 500 No messages to process
    ("leading-space-channel", "responses-stream"): {"server-error"},  # a 200 whose body is cut, no error event
    ("no-channel", "responses"): {"server-error"},  # 500 KeyError
    ("no-channel", "responses-stream"): {"server-error"},
    ("analysis-cut-off", "responses"): {"finish-reason-mismatch"},  # cut by max_output_tokens, yet `completed`
    ("clean-final", "responses"): set(),
    ("clean-final", "responses-stream"): set(),
}


@pytest.fixture(scope="module")
def live(gpt_oss_server) -> dict[tuple[str, str], object]:  # noqa: ANN001
    files = sorted(str(p) for p in STREAMS.glob("*.txt"))
    return {(Path(r.file).stem, r.api): r for r in check_streams(gpt_oss_server.url, files, request=read_request(str(REQUEST)))}


def test_it_is_detected_with_its_version(gpt_oss_server) -> None:  # noqa: ANN001
    assert detect_engine(gpt_oss_server.url) == "gpt-oss"
    assert engines.get("gpt-oss").version(engines.Probe(gpt_oss_server.url)) == "0.0.9"


@pytest.mark.parametrize(("stream", "api"), sorted(EXPECTED))
def test_each_measured_behaviour_is_a_finding(live, stream: str, api: str) -> None:  # noqa: ANN001
    r = live[(stream, api)]
    assert r.engine == "gpt-oss" and r.engine_version == "0.0.9" and r.served
    want = EXPECTED[(stream, api)]
    assert want <= codes(r) if want else not [d for d in r.discrepancies if d.severity in ("error", "warning")], (stream, api, codes(r))
    if "server-error" in want:  # an outage is not read as an answer: nothing else is reported beside it
        assert codes(r) == {"server-error"}


def test_the_chat_apis_are_not_served_rather_than_failed(live) -> None:  # noqa: ANN001
    for (stream, api), r in live.items():
        if api.startswith("chat"):
            assert not r.served and r.discrepancies == () and r.error is None, (stream, api)
            assert "does not serve" in r.notes[0]
        else:
            assert r.served and r.replayed is None  # it returns no ids


def test_a_cut_stream_says_it_was_cut(live) -> None:  # noqa: ANN001
    r = live[("leading-space-channel", "responses-stream")]
    assert "connection broken" in (r.error or "") or "without response.completed" in (r.error or "")


def test_the_shipped_captures_still_say_what_the_server_says(live) -> None:  # noqa: ANN001
    shipped = {(Path(r.file).name.split(".")[0], r.api): r for r in check_captures(sorted(str(p) for p in GPT_OSS_CAPTURES.glob("*.json")))}
    served = {k: r for k, r in live.items() if r.served}
    assert set(shipped) == set(served)
    for key, r in served.items():
        assert codes(r) == codes(shipped[key]), key
        assert shipped[key].engine == "gpt-oss" and shipped[key].engine_version == "0.0.9"


def test_server_check_cli_marks_chat_not_served(gpt_oss_server, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["server-check", "--base-url", gpt_oss_server.url, "--request", str(REQUEST), "--json", str(STREAMS / "seed-001.txt")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["api"], x["served"]) for x in lines] == [("chat", False), ("chat-stream", False), ("responses", True), ("responses-stream", True)]
    assert all(x["engine"] == "gpt-oss" and x["engine_version"] == "0.0.9" for x in lines)


def _two_step(tmp_path: Path) -> list[str]:
    from harmony_viz.servers import lens

    paths = []
    for name, body in lens.two_step_requests().items():
        (tmp_path / f"{name}.json").write_text(json.dumps(body))
        paths.append(str(tmp_path / f"{name}.json"))
    return paths


def test_prompt_check_gets_the_references_own_prompt(gpt_oss_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    # One user message and a tool: the reference renders what harmony renders, dated and at effort low as it is.
    assert main(["prompt-check", "--base-url", gpt_oss_server.url, "--json", str(REQUEST)]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["engine"] == "gpt-oss" and line["identical"] and "render" in line["prompt_source"]


def test_a_tool_loop_shows_the_lost_constrain(gpt_oss_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    first, second = _two_step(tmp_path)
    assert main(["prompt-check", "--base-url", gpt_oss_server.url, "--json", first, second]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    for line in lines:
        lost = [d for d in line["differences"] if "<|constrain|>json" in (d["ours"] or "") and "<|constrain|>" not in (d["server"] or "")]
        assert lost, line["differences"]
    # The second turn's earlier analysis is dropped: the reference keeps reasoning only after the last assistant message.
    assert "analysis-dropped" in {d["code"] for d in lines[1]["differences"]}


def test_reasoning_is_sent_as_reasoning_text_items() -> None:
    from harmony_viz.servers import lens
    from harmony_viz.servers.core import responses_of_chat

    body = responses_of_chat(lens.two_step_requests()["two-step-1"])
    kinds = [i["type"] for i in body["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    assert body["input"][1]["content"] == [{"type": "reasoning_text", "text": "I need Paris first."}] and body["input"][1]["summary"] == []
    assert body["tools"][0]["name"] == "get_weather"


def test_capture_keeps_the_answer_and_no_ids(gpt_oss_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    ids = read_stream(str(STREAMS / "clean-final.txt"))
    # A forced answer, as a real model's would come: the script rides in the request's extra fields.
    (tmp_path / "req.json").write_text(json.dumps({"messages": [{"role": "user", "content": "Hi"}], "harmony_viz_script": ids}))
    out = tmp_path / "cap.json"
    assert main(["capture", "--base-url", gpt_oss_server.url, "--request", str(tmp_path / "req.json"), "--stream", "-o", str(out)]) == 0
    assert "gpt-oss" in capsys.readouterr().err
    server = json.loads(out.read_text())["metadata"]["server"]
    assert server["api"] == "responses-stream" and server["engine"] == "gpt-oss" and server["engine_version"] == "0.0.9"
    assert server["error"] is None and server["token_ids_source"] is None
    assert any(e["type"] == "response.completed" for e in server["chunks"])
    assert main(["server-check", "--json", str(out)]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["replayed"] is None and line["engine"] == "gpt-oss"
    # Chat is refused in one line: the reference serves only Responses.
    assert main(["capture", "--base-url", gpt_oss_server.url, "--prompt", "Hi", "--api", "chat", "-o", str(tmp_path / "c.json")]) == 2
    assert "does not serve the chat API" in capsys.readouterr().err


def test_matrix_adds_the_reference_columns(gpt_oss_server, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    files = [str(STREAMS / "seed-001.txt"), str(STREAMS / "clean-final.txt")]
    assert main(["matrix", "--gpt-oss", gpt_oss_server.url, "--request", str(REQUEST), *files]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["stream", "gpt-oss", "responses", "gpt-oss", "responses-stream"]
    assert "preamble-hidden" in next(row for row in table if row.startswith("seed-001"))


@pytest.mark.stops_server
def test_the_reference_replay_server_stops_cleanly_on_sigterm(gpt_oss_server) -> None:  # noqa: ANN001
    import _server

    _server.assert_stops_cleanly(gpt_oss_server, "reference server")
