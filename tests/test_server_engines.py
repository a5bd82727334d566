"""The engines layer offline: how a replay is asked of llama.cpp, server errors as findings, ids from logprobs, the matrix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _lens import REQUEST, STREAMS

from harmony_viz.cli import main
from harmony_viz.servers import CheckResult, answer_of, build_request, matrix_table, read_request
from harmony_viz.servers.core import Discrepancy, MatrixCell, check_answer, read_stream
from harmony_viz.servers.engines import detect_engine, replay_request
from harmony_viz.servers.engines.llama_cpp import NO_TOOLS_NOTE, llama_grammar

RETURN, CALL, END = 200002, 200012, 200007


def test_llama_replay_forces_every_id_but_the_final_stop_token_and_sends_no_tools() -> None:
    ids = read_stream(str(STREAMS / "seed-001.txt"))
    assert ids[-1] == CALL
    r = replay_request("llama.cpp", "chat", read_request(str(REQUEST)), ids, model="tiny")
    assert r.ids == tuple(ids) and r.tools_withheld and r.notes == (NO_TOOLS_NOTE,)
    assert "tools" not in r.request and r.request["max_tokens"] == len(ids)
    assert r.request["logit_bias"] == {str(CALL): 100} and r.request["logprobs"] is True
    assert r.request["extra_body"]["grammar"] == llama_grammar(ids[:-1])
    assert f"<[{CALL}]>" not in r.request["extra_body"]["grammar"]
    streamed = replay_request("llama.cpp", "responses-stream", {}, ids, model="tiny")
    assert streamed.request["stream"] is True and streamed.request["extra_body"]["logit_bias"] == {str(CALL): 100}
    assert not streamed.notes and not streamed.tools_withheld


def test_llama_replay_stops_at_the_first_stop_token_and_says_so() -> None:
    ids = [200005, 17196, 200008, 12194, RETURN, 200006, 173781]  # …<|return|><|start|>assistant
    r = replay_request("llama.cpp", "chat", {}, ids, model="tiny")
    assert r.ids == tuple(ids[:5]) and r.request["max_tokens"] == 5
    assert any("first stop token (token 5 of 7)" in n for n in r.notes)
    cut = [200005, 17196, 200008, 12194]  # no stop token: all in the grammar, no bias
    r = replay_request("llama.cpp", "chat", {}, cut, model="tiny")
    assert r.request["extra_body"]["grammar"] == llama_grammar(cut) and "logit_bias" not in r.request


def test_vllm_replay_is_the_script_and_keeps_the_tools() -> None:
    ids = read_stream(str(STREAMS / "seed-001.txt"))
    r = replay_request("vllm", "chat", read_request(str(REQUEST)), ids, model="tiny")
    assert r.request["extra_body"]["vllm_xargs"]["script"] == ids and r.request["tools"] and not r.notes
    with pytest.raises(ValueError, match="replays work with vllm, llama.cpp, gpt-oss"):
        replay_request("sglang", "chat", {}, ids, model="tiny")


def test_fields_the_api_does_not_define_travel_in_extra_body() -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "grammar": "root ::= \"x\"", "cache_prompt": False, "logit_bias": {"1": 5}}
    chat = build_request("chat", body, model="m", max_tokens=3, script=None, token_ids=False)
    assert chat["extra_body"] == {"grammar": "root ::= \"x\"", "cache_prompt": False} and chat["logit_bias"] == {"1": 5}
    resp = build_request("responses", body, model="m", max_tokens=3, script=None, token_ids=False)
    assert resp["extra_body"]["grammar"] == "root ::= \"x\"" and resp["extra_body"]["logit_bias"] == {"1": 5}
    assert "messages" not in resp and resp["input"] == [{"role": "user", "content": "hi"}]


def test_an_http_error_is_a_server_error_finding_over_the_whole_stream() -> None:
    ids = read_stream(str(STREAMS / "glued-channel.txt"))
    r = check_answer("glued", "chat", ids, None, error="500: The model produced output that does not match the expected peg-native format")
    (d,) = r.discrepancies
    assert (d.code, d.severity) == ("server-error", "error") and d.where.start == 0 and d.where.end == len(ids)
    assert "peg-native" in d.message and r.worst == "error"
    # a stream that ended in an error event, after some chunks: the error is the finding, the fragments are not compared
    r = check_answer("glued", "chat-stream", ids, [{"choices": [{"index": 0, "delta": {"content": "x"}}]}], error="error: boom")
    assert [d.code for d in r.discrepancies] == ["server-error"]


def _llama_chat(ids: list[int], content: str, reasoning: str) -> dict:
    from harmony_viz.tokens import encoding

    enc = encoding()
    logprobs = {"content": [{"id": t, "token": enc.decode([t]), "logprob": 0.0, "bytes": list(enc.decode_single_token_bytes(t))} for t in ids]}
    message = {"role": "assistant", "content": content, "reasoning_content": reasoning}
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "tiny",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if ids[-1] == CALL else "stop", "logprobs": logprobs}]}


def test_ids_from_logprobs_fill_replayed_and_a_withheld_tool_call_is_info() -> None:
    ids = read_stream(str(STREAMS / "seed-001.txt"))
    server = _llama_chat(ids, "Let me check the weather.", "User wants weather in Paris.")
    server["choices"][0]["finish_reason"] = "stop"
    got = answer_of("chat", server)
    assert got.token_ids == tuple(ids) and got.token_ids_from == "logprobs"
    r = check_answer("seed", "chat", ids, server, tools=read_request(str(REQUEST))["tools"], tools_withheld=True, engine="llama.cpp", notes=(NO_TOOLS_NOTE,))
    assert r.replayed is True and r.engine == "llama.cpp" and r.to_json()["notes"] == [NO_TOOLS_NOTE]
    missing = [d for d in r.discrepancies if d.code == "tool-call-missing"]
    assert missing and all(d.severity == "info" for d in missing) and r.worst != "error"
    # the same answer, when the tools were sent, is an error
    assert any(d.code == "tool-call-missing" and d.severity == "error" for d in check_answer("seed", "chat", ids, server).discrepancies)
    # and a server that returned other ids did not replay the stream
    assert check_answer("seed", "chat", ids, _llama_chat(ids[:-2] + [CALL], "", "")).replayed is False


def test_a_result_says_its_engine_and_notes_in_json_and_text() -> None:
    from harmony_viz.servers import format_result

    r = CheckResult(file="s.txt", api="chat", token_ids=(1, 2), replayed=True, server={}, expected={}, discrepancies=(), engine="llama.cpp",
                    notes=(NO_TOOLS_NOTE,))
    assert r.to_json()["engine"] == "llama.cpp" and r.to_json()["notes"] == [NO_TOOLS_NOTE]
    text = format_result(r)
    assert "llama.cpp chat" in text and f"note: {NO_TOOLS_NOTE}" in text


def test_an_unreachable_url_is_no_engine() -> None:
    assert detect_engine("http://127.0.0.1:9/v1", timeout=2) is None


def test_the_matrix_table_has_a_row_per_stream_and_a_column_per_engine_and_api() -> None:
    found = (Discrepancy(code="text-dropped", severity="error", message="x"), Discrepancy(code="field-name", severity="info", message="y"))
    ok = CheckResult(file="a.txt", api="chat", token_ids=(), replayed=True, server={}, expected={}, discrepancies=())
    bad = CheckResult(file="b.txt", api="chat", token_ids=(), replayed=True, server={}, expected={}, discrepancies=found)
    cells = [MatrixCell(stream="a", engine="vllm", api="chat", result=ok), MatrixCell(stream="b", engine="vllm", api="chat", result=bad),
             MatrixCell(stream="a", engine="llama.cpp", api="chat", failure="down"), MatrixCell(stream="b", engine="llama.cpp", api="chat", failure="down")]
    lines = matrix_table(cells).splitlines()
    assert lines[0].split() == ["stream", "vllm", "chat", "llama.cpp", "chat"]
    assert lines[2].split() == ["a", "ok", "not", "checked"] and lines[3].split()[:3] == ["b", "error:", "text-dropped"]


def test_matrix_cli_says_which_engine_it_could_not_check_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["matrix", "--llama-cpp", "http://127.0.0.1:9/v1", "--json", str(STREAMS / "seed-001.txt")])
    out, err = capsys.readouterr()
    assert rc == 1 and out == "" and err.count("\n") == 1 and "llama.cpp: not checked: cannot reach" in err
    assert main(["matrix", str(STREAMS / "seed-001.txt")]) == 2
    assert main(["matrix", "--llama-cpp", "http://127.0.0.1:9/v1", "no-such-file.txt"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_server_check_engine_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["server-check", "--engine", "sglang", "--base-url", "http://127.0.0.1:9/v1", str(STREAMS / "seed-001.txt")]) == 2
    assert "takes no --base-url" in capsys.readouterr().err
    # An API the engine does not serve is said so, not failed, and no engine is run for it.
    assert main(["server-check", "--engine", "sglang", "--api", "responses", str(STREAMS / "seed-001.txt")]) == 0
    out = capsys.readouterr().out
    assert "responses" in out and "not served" in out and "sglang does not serve the responses API" in out
    assert main(["server-check", "--engine", "llama.cpp", str(STREAMS / "seed-001.txt")]) == 2
    assert "need --base-url" in capsys.readouterr().err


def test_replay_server_needs_a_template_and_a_binary_for_llama_cpp(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # noqa: ANN001
    monkeypatch.delenv("HARMONY_VIZ_CHAT_TEMPLATE", raising=False)
    monkeypatch.setenv("HARMONY_VIZ_CACHE", str(tmp_path))  # no build there
    monkeypatch.delenv("HARMONY_VIZ_LLAMA_SERVER", raising=False)
    assert main(["replay-server", "--engine", "llama.cpp"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scripts/install-llama-cpp.sh" in err
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    assert main(["replay-server", "--engine", "llama.cpp", "--llama-server", str(fake)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a gpt-oss chat template" in err and "HARMONY_VIZ_CHAT_TEMPLATE" in err


def test_check_json_lines_carry_engine_and_notes(capsys: pytest.CaptureFixture[str]) -> None:
    from _lens import CAPTURES

    assert main(["server-check", "--json", str(CAPTURES / "seed-001.chat.json")]) == 0
    line = json.loads(capsys.readouterr().out)
    assert set(line) >= {"engine", "notes", "api", "replayed", "discrepancies"} and line["notes"] == []


def _shipped(folder) -> dict:  # noqa: ANN001
    from harmony_viz.servers import check_captures

    return {(Path(r.file).name.split(".")[0], r.api): r for r in check_captures(sorted(str(p) for p in folder.glob("*.json")))}


def test_the_shipped_llama_cpp_captures_give_llamacpp_md_codes_offline() -> None:
    from _lens import LLAMA_CAPTURES, codes

    shipped = _shipped(LLAMA_CAPTURES)
    assert {s for s, _ in shipped} == {p.stem for p in STREAMS.glob("*.txt")} and {a for _, a in shipped} == {"chat", "chat-stream", "responses", "responses-stream"}
    assert all(r.engine == "llama.cpp" and NO_TOOLS_NOTE in r.notes for r in shipped.values())
    for stream in ("glued-channel", "leading-space-channel", "capitalised-channel", "no-channel", "stripped-control-tokens"):
        assert codes(shipped[(stream, "chat")]) == {"server-error"} and "peg-native" in shipped[(stream, "chat")].error
    for stream in ("clean-final", "doubled-channel", "preamble-then-final", "seed-001"):
        assert shipped[(stream, "chat")].worst in (None, "info", "warning") and shipped[(stream, "chat")].replayed is True, stream
    assert {"control-token-in-content"} <= codes(shipped[("builtin-python-call", "chat")])
    assert "stream-final-mismatch" in codes(shipped[("builtin-python-call", "chat-stream")])
    assert [d.severity for d in shipped[("seed-001", "chat")].discrepancies if d.code == "tool-call-missing"] == ["info"]


def test_the_shipped_sglang_captures_give_sglang_md_codes_offline() -> None:
    from _lens import SGLANG_CAPTURES, codes

    shipped = _shipped(SGLANG_CAPTURES)
    assert {a for _, a in shipped} == {"chat", "chat-stream"} and all(r.engine == "sglang" and r.replayed is None for r in shipped.values())
    assert all(any("run offline (not its server)" in n for n in r.notes) for r in shipped.values())
    for stream in ("doubled-channel", "glued-channel"):
        assert "reasoning-in-content" in codes(shipped[(stream, "chat")])  # the chain of thought shown as content
    assert "text-dropped" in codes(shipped[("no-channel", "chat")])
    for stream in ("leading-space-channel", "capitalised-channel", "stripped-control-tokens", "clean-final", "seed-001"):
        assert shipped[(stream, "chat")].worst in (None, "info"), stream


def test_the_docs_bug_zoo_table_is_the_one_the_captures_make() -> None:
    import re

    from harmony_viz.servers import lens

    page = (Path(__file__).resolve().parents[1] / "docs" / "server-lens.md").read_text()
    block = re.search(r"<!-- bug-zoo-table -->\n(.*?)\n<!-- /bug-zoo-table -->", page, re.S)
    assert block is not None and block.group(1) == lens.bug_zoo_markdown(), "regenerate: python -c 'from harmony_viz.servers import lens; print(lens.bug_zoo_markdown())'"
