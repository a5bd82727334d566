"""The server lens against a real vLLM 0.32 replay server (marked ``server``; one server per session)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _lens import APIS, CAPTURES, CHAT_CODES, REQUEST, STREAMS, codes

from harmony_viz.cli import main
from harmony_viz.servers import build_request, check_captures, check_streams, client_for, read_request, send
from harmony_viz.servers.core import read_stream

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def live(replay_server) -> dict[tuple[str, str], object]:  # noqa: ANN001
    """Every shipped stream through every api of the live server, once."""
    files = sorted(str(p) for p in STREAMS.glob("*.txt"))
    results = check_streams(replay_server.url, files, request=read_request(str(REQUEST)))
    return {(Path(r.file).stem, r.api): r for r in results}


def test_seed_001_through_every_api_shows_no_error(live) -> None:  # noqa: ANN001
    for api in APIS:
        r = live[("seed-001", api)]
        assert r.error is None and r.worst != "error", (api, r.discrepancies)
    assert live[("seed-001", "chat")].replayed is True and live[("seed-001", "chat-stream")].replayed is True
    assert live[("seed-001", "responses")].replayed is None


@pytest.mark.parametrize("stream", sorted(CHAT_CODES))
def test_the_vllm_md_streams_give_the_codes_their_rows_imply(live, stream: str) -> None:  # noqa: ANN001
    r = live[(stream, "chat")]
    assert r.replayed is True, "the script processor must force exactly the stream"
    assert CHAT_CODES[stream] <= codes(r)
    assert {d.code for d in r.discrepancies if d.severity == "error"} <= CHAT_CODES[stream]


def test_the_shipped_captures_still_say_what_the_server_says(live) -> None:  # noqa: ANN001
    shipped = {(Path(r.file).name.split(".")[0], r.api): r for r in check_captures(sorted(str(p) for p in CAPTURES.glob("*.json")))}
    assert set(shipped) == set(live)
    for key, r in live.items():
        assert codes(r) == codes(shipped[key]), key
        assert (r.error is None) == (shipped[key].error is None), key


def test_the_codes_vllm_exhibits_come_from_real_responses(live) -> None:  # noqa: ANN001
    seen = {c for r in live.values() for c in codes(r)}
    # what vLLM 0.32 does to these streams, as found live
    assert {"text-dropped", "control-token-in-content", "reasoning-in-content", "arguments-reserialized", "field-name",
            "reasoning-tokens-mismatch", "stream-final-mismatch", "tool-call-extra"} <= seen


def test_server_check_cli_json_against_the_live_server(replay_server, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["server-check", "--base-url", replay_server.url, "--request", str(REQUEST), "--api", "chat", "--json", str(STREAMS / "seed-001.txt")]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["api"] == "chat" and line["replayed"] is True
    assert line["server"]["choices"][0]["token_ids"] == read_stream(str(STREAMS / "seed-001.txt"))
    assert line["expected"]["object"] == "chat.completion"


def test_an_http_error_is_a_finding_not_a_failure(replay_server, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["server-check", "--base-url", replay_server.url, "--model", "no-such-model", "--json", str(STREAMS / "no-channel.txt")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["api"] for x in lines] == list(APIS)
    assert all(x["error"].startswith("404") for x in lines)


def test_the_script_forces_its_tokens_and_then_lets_the_model_go_on(replay_server) -> None:  # noqa: ANN001


    client = client_for(replay_server.url)
    script = [200005, 17196, 200008]  # <|channel|>final<|message|>
    ex = send(client, "chat", build_request("chat", {}, model="tiny", max_tokens=6, script=script))
    ids = ex.final["choices"][0]["token_ids"]
    assert ids[:3] == script and 3 < len(ids) <= 6
    bad = send(client, "chat", build_request("chat", {}, model="tiny", max_tokens=3, script=None) | {"extra_body": {"vllm_xargs": {"script": ["x"]}}})
    assert bad.error is not None and bad.error.startswith("400")


def test_a_live_capture_round_trips_into_html_replay_and_stats(replay_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    from harmony_viz import capture, replay
    from harmony_viz.runs import load_runs

    out = tmp_path / "cap.json"
    assert main(["capture", "--base-url", replay_server.url, "--prompt", "What is 2+2?", "--stream", "--max-tokens", "12", "-o", str(out)]) == 0
    assert "token ids (return_token_ids)" in capsys.readouterr().err
    (run,) = load_runs(out)
    server = run.metadata.extra["server"]
    assert server["api"] == "chat-stream" and len(server["chunks"]) == len(server["arrival_times"]) > 0
    assert run.prompt_token_ids[-2:] == (200006, 173781) and 0 < len(run.completion_token_ids) <= 12
    assert run.metadata.model == "tiny" and run.token_times is not None
    w = replay(run)
    assert w._meta["server"]["checks"][0]["api"] == "chat-stream"
    assert main(["html", str(out), "-o", str(tmp_path / "cap.html")]) == 0
    assert '"server":{"checks"' in (tmp_path / "cap.html").read_text()
    assert main(["stats", str(out)]) == 0
    assert main(["server-check", str(out)]) == 0
    # the Python API, Responses: no token ids, and the capture says so
    resp = capture(replay_server.url, prompt="Hi", api="responses", max_tokens=4)
    assert resp.completion_token_ids == () and "no token ids" in resp.metadata.extra["server"]["token_ids_note"]


def test_notebook_05_runs_against_the_live_server(replay_server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # noqa: ANN001
    import nbformat
    from nbclient import NotebookClient

    root = Path(__file__).resolve().parents[1] / "notebooks"
    monkeypatch.setenv("HARMONY_VIZ_VLLM_URL", replay_server.url)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(root / "05_server_lens.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert f"live: {replay_server.url}" in text


@pytest.mark.stops_server
def test_the_replay_server_stops_cleanly_on_sigterm(replay_server) -> None:  # noqa: ANN001
    import _server

    _server.assert_stops_cleanly(replay_server, "vLLM")
