"""The server lens against a real llama.cpp llama-server (llama-cpp-python 0.3.36's tree; marked ``server``; one server per session).

Each row of LLAMACPP.md's table, replayed through a token-id grammar, must give the codes it implies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _lens import APIS, LLAMA_CAPTURES, REQUEST, STREAMS, codes

from harmony_viz.cli import main
from harmony_viz.servers import check_captures, check_streams, read_request
from harmony_viz.servers.core import read_stream
from harmony_viz.servers.engines import detect_engine
from harmony_viz.servers.engines.llama_cpp import NO_TOOLS_NOTE, llama_grammar

pytestmark = pytest.mark.server

# Chat Completions, not streamed: the codes each row of LLAMACPP.md's table implies, and the only
# error-severity codes allowed. llama.cpp answers 500 on a malformed header: the whole turn is lost.
LLAMA_CHAT_CODES = {
    "seed-001": ({"tool-call-missing"}, set()),  # no tools sent: the call is dropped, info
    "doubled-channel": (set(), set()),  # right
    "leading-space-channel": ({"server-error"}, {"server-error"}),
    "glued-channel": ({"server-error"}, {"server-error"}),
    "capitalised-channel": ({"server-error"}, {"server-error"}),
    "no-channel": ({"server-error"}, {"server-error"}),
    "stripped-control-tokens": ({"server-error"}, {"server-error"}),
    "preamble-then-final": (set(), set()),  # "Let me think.Done.": joined with no separator, at most info
    "analysis-cut-off": (set(), set()),
    # content = "<|channel|>analysis to=python code<|message|>print(1)": control tokens, and the analysis shown
    "builtin-python-call": ({"control-token-in-content"}, {"control-token-in-content", "reasoning-in-content", "text-dropped"}),
    "clean-final": (set(), set()),
}


@pytest.fixture(scope="module")
def live(llama_server) -> dict[tuple[str, str], object]:  # noqa: ANN001
    """Every shipped stream through every api of the live llama-server, once."""
    files = sorted(str(p) for p in STREAMS.glob("*.txt"))
    results = check_streams(llama_server.url, files, request=read_request(str(REQUEST)))
    return {(Path(r.file).stem, r.api): r for r in results}


def test_the_engine_is_detected_and_every_result_says_how_the_replay_differed(llama_server, live) -> None:  # noqa: ANN001
    assert detect_engine(llama_server.url) == "llama.cpp"
    assert all(r.engine == "llama.cpp" and NO_TOOLS_NOTE in r.notes for r in live.values())


@pytest.mark.parametrize("stream", sorted(LLAMA_CHAT_CODES))
def test_the_llamacpp_md_rows_give_the_codes_they_imply(live, stream: str) -> None:  # noqa: ANN001
    implied, errors_allowed = LLAMA_CHAT_CODES[stream]
    r = live[(stream, "chat")]
    assert implied <= codes(r), (r.discrepancies, r.error)
    assert {d.code for d in r.discrepancies if d.severity == "error"} <= errors_allowed, r.discrepancies
    streamed = live[(stream, "chat-stream")]
    assert {d.code for d in streamed.discrepancies if d.severity == "error"} <= errors_allowed, streamed.discrepancies
    if "server-error" in implied:
        assert "server-error" in codes(streamed), "the stream ends in an error event"
    else:
        assert r.error is None and r.replayed is True, "the grammar must force exactly the stream, read back from logprobs"
        # streamed, logprobs come only with the chunks that carry a delta: not a confirmation, and said so
        assert streamed.error is None and streamed.replayed is None and any("carried logprobs for" in n for n in streamed.notes)


def test_a_500_is_a_server_error_with_the_servers_text(live) -> None:  # noqa: ANN001
    r = live[("glued-channel", "chat")]
    assert r.error.startswith("500") and "peg-native" in r.error
    (d,) = [d for d in r.discrepancies if d.code == "server-error"]
    assert d.where.start == 0 and d.where.end == len(r.token_ids)
    streamed = live[("glued-channel", "chat-stream")]
    assert streamed.error is not None and [d.code for d in streamed.discrepancies] == ["server-error"]


def test_the_builtin_call_differs_between_stream_and_answer(live) -> None:  # noqa: ANN001
    r = live[("builtin-python-call", "chat")]
    assert "<|channel|>" in r.server["choices"][0]["message"]["content"]
    assert "stream-final-mismatch" in codes(live[("builtin-python-call", "chat-stream")])


def test_preamble_then_final_is_joined_with_no_separator(live) -> None:  # noqa: ANN001
    r = live[("preamble-then-final", "chat")]
    assert r.server["choices"][0]["message"]["content"] == "Let me think.Done."
    assert r.worst in (None, "info")


def test_the_responses_api_is_checked_without_ids(live) -> None:  # noqa: ANN001
    for stream in ("clean-final", "seed-001"):
        for api in ("responses", "responses-stream"):
            r = live[(stream, api)]
            assert r.replayed is None and r.error is None, (stream, api, r.error)
    assert live[("clean-final", "responses")].worst != "error"


def test_the_shipped_captures_still_say_what_the_server_says(live) -> None:  # noqa: ANN001
    shipped = {(Path(r.file).name.split(".")[0], r.api): r for r in check_captures(sorted(str(p) for p in LLAMA_CAPTURES.glob("*.json")))}
    assert set(shipped) == set(live)
    for key, r in live.items():
        assert codes(r) == codes(shipped[key]), key
        assert shipped[key].engine == "llama.cpp" and (r.error is None) == (shipped[key].error is None), key


@pytest.mark.parametrize("stream", ["seed-001", "builtin-python-call"])
def test_a_capture_with_logprob_ids_round_trips_into_an_offline_check(llama_server, live, stream: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    ids = read_stream(str(STREAMS / f"{stream}.txt"))
    body = {"messages": read_request(str(REQUEST))["messages"], "grammar": llama_grammar(ids[:-1]), "logit_bias": {str(ids[-1]): 100},
            "max_tokens": len(ids), "cache_prompt": False}
    (tmp_path / "req.json").write_text(json.dumps(body))
    out = tmp_path / "cap.json"
    assert main(["capture", "--base-url", llama_server.url, "--request", str(tmp_path / "req.json"), "-o", str(out)]) == 0
    assert "token ids (logprobs)" in capsys.readouterr().err and "llama.cpp" in out.read_text()
    server = json.loads(out.read_text())["metadata"]["server"]
    # A capture asks for the top 5 alternatives by default: each generated token comes with them.
    assert server["request"]["top_logprobs"] == 5
    entries = server["final"]["choices"][0]["logprobs"]["content"]
    assert len(entries) == len(ids) and all(1 <= len(e["top_logprobs"]) <= 5 for e in entries)
    assert main(["server-check", "--json", str(out)]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["engine"] == "llama.cpp" and line["replayed"] is True
    assert {d["code"] for d in line["discrepancies"]} == codes(live[(stream, "chat")])


def test_matrix_json_has_one_object_per_stream_engine_and_api(llama_server, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    files = sorted(str(p) for p in STREAMS.glob("*.txt"))
    assert main(["matrix", "--llama-cpp", llama_server.url, "--sglang", "--request", str(REQUEST), "--json", *files]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    keys = [(Path(x["file"]).stem, x["engine"], x["api"]) for x in lines]
    want = {(Path(f).stem, "llama.cpp", api) for f in files for api in APIS} | {(Path(f).stem, "sglang", api) for f in files for api in ("chat", "chat-stream")}
    assert len(keys) == len(set(keys)) == len(want) and set(keys) == want
    assert main(["matrix", "--llama-cpp", llama_server.url, "--request", str(REQUEST), str(STREAMS / "glued-channel.txt")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["stream", "llama.cpp", "chat"] and "error: server-error" in table[2]


@pytest.mark.stops_server
def test_the_llama_replay_server_stops_cleanly_on_sigterm(llama_server) -> None:  # noqa: ANN001
    import _server

    _server.assert_stops_cleanly(llama_server, "llama-server")
