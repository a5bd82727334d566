"""server-check without a server: shipped vLLM 0.32 captures, hand-made server objects, the CLI's bad input."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from _lens import CAPTURES, CHAT_CODES, STREAMS, codes

from harmony_viz.cli import main
from harmony_viz.servers import CheckInputError, LaunchError, answer_of, check_captures, load_capture
from harmony_viz.servers.core import CODES, check_answer, compare_stream_final, expected_for, ids_from_logprobs, read_stream
from harmony_viz.servers.engines.vllm import ensure_model

SEED = STREAMS / "seed-001.txt"


def test_the_servers_package_and_the_script_processor_import_nothing_heavy() -> None:
    code = ("import sys, harmony_viz.servers; "
            "print([m for m in sys.modules if m.split('.')[0] in ('numpy', 'tiktoken', 'openai', 'pandas', 'torch', 'harmony_viz') "
            "and m not in ('harmony_viz', 'harmony_viz.servers') and getattr(sys.modules[m], '__file__', None)])")  # old-path aliases load no code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
    tree = ast.parse((Path(__file__).parents[1] / "harmony_viz" / "servers" / "vllm_script.py").read_text())
    tops = {(n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
            for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in (n.names if isinstance(n, ast.Import) else [n])}
    assert tops - set(sys.stdlib_module_names) - {"__future__"} == {"vllm", "torch"}


def _shipped() -> dict[tuple[str, str], object]:
    results = list(check_captures(sorted(str(p) for p in CAPTURES.glob("*.json"))))
    return {(Path(r.file).name.split(".")[0], r.api): r for r in results}


@pytest.fixture(scope="module")
def shipped() -> dict[tuple[str, str], object]:
    return _shipped()


def test_every_stream_was_captured_through_every_api(shipped) -> None:  # noqa: ANN001
    assert set(shipped) == {(s, api) for s in CHAT_CODES for api in ("chat", "chat-stream", "responses", "responses-stream")}


@pytest.mark.parametrize("stream", sorted(CHAT_CODES))
def test_vllm_032_chat_answers_give_the_codes_their_rows_imply(shipped, stream: str) -> None:  # noqa: ANN001
    r = shipped[(stream, "chat")]
    assert r.replayed is True and r.error is None
    assert CHAT_CODES[stream] <= codes(r), r.discrepancies
    # and nothing else of error severity
    assert {d.code for d in r.discrepancies if d.severity == "error"} <= CHAT_CODES[stream]


def test_seed_001_shows_no_error_through_any_api(shipped) -> None:  # noqa: ANN001
    for api in ("chat", "chat-stream", "responses", "responses-stream"):
        r = shipped[("seed-001", api)]
        assert r.error is None and r.worst != "error", (api, r.discrepancies)
    assert shipped[("seed-001", "responses")].replayed is None  # vLLM's Responses API returns no token ids


def test_findings_point_at_the_messages_responsible(shipped) -> None:  # noqa: ANN001
    d = next(d for d in shipped[("stripped-control-tokens", "chat")].discrepancies if d.code == "reasoning-in-content")
    ids = read_stream(str(STREAMS / "stripped-control-tokens.txt"))
    from harmony_viz.tokens import encoding

    assert encoding().decode(ids[d.where.start:d.where.end]).startswith("analysis")
    d = next(d for d in shipped[("dangling-header", "chat")].discrepancies if d.code == "control-token-in-content")
    assert ids_at(STREAMS / "dangling-header.txt", d.where) == [200006]


def ids_at(path: Path, where: dict) -> list[int]:
    return read_stream(str(path))[where.start:where.end]


def test_a_failed_request_is_a_finding_in_the_error_field(shipped) -> None:  # noqa: ANN001
    r = shipped[("glued-channel", "responses")]
    assert r.error is not None and r.error.startswith("400") and "Unknown channel" in r.error


# ---- hand-made server objects: the codes vLLM 0.32 does not exhibit ---------------------------------

@pytest.fixture(scope="module")
def seed_ids() -> list[int]:
    return read_stream(str(SEED))


def _check(api: str, ids: list[int], server) -> set[str]:  # noqa: ANN001
    return codes(check_answer("hand-made", api, ids, server))


def test_our_own_projection_has_no_discrepancy_with_itself(seed_ids: list[int]) -> None:
    for api in ("chat", "chat-stream", "responses", "responses-stream"):
        assert _check(api, seed_ids, expected_for(api, seed_ids)) == set(), api


def test_a_preamble_moved_to_reasoning_is_preamble_hidden(seed_ids: list[int]) -> None:
    chat = copy.deepcopy(expected_for("chat", seed_ids))
    msg = chat["choices"][0]["message"]
    msg["reasoning_content"] = f"{msg['reasoning_content']}\n{msg['content']}"
    msg["content"] = None
    r = check_answer("hand-made", "chat", seed_ids, chat)
    hidden = next(d for d in r.discrepancies if d.code == "preamble-hidden")
    assert "in reasoning" in hidden.message and hidden.severity == "error"
    resp = copy.deepcopy(expected_for("responses", seed_ids))
    item = next(i for i in resp["output"] if i["type"] == "message")
    item.update(type="reasoning", content=[{"type": "reasoning_text", "text": item["content"][0]["text"]}], summary=[])
    hidden = next(d for d in check_answer("hand-made", "responses", seed_ids, resp).discrepancies if d.code == "preamble-hidden")
    assert "a reasoning item" in hidden.message


def test_legacy_vllm_puts_tool_json_in_content(seed_ids: list[int]) -> None:
    from harmony_viz import projections

    events = [e for step in _steps(seed_ids) for e in step]
    legacy = projections.chat_completion(events, legacy_vllm=True)
    assert "tool-json-in-content" in _check("chat", seed_ids, legacy)


def _steps(ids: list[int]) -> list:
    from harmony_viz.scanner import Scanner

    sc = Scanner(role="assistant")
    return [sc.feed([t]) for t in ids] + [sc.flush()]


def test_calls_missing_extra_and_changed(seed_ids: list[int]) -> None:
    chat = copy.deepcopy(expected_for("chat", seed_ids))
    calls = chat["choices"][0]["message"]["tool_calls"]
    missing = copy.deepcopy(chat)
    missing["choices"][0]["message"]["tool_calls"] = None
    assert "tool-call-missing" in _check("chat", seed_ids, missing)
    extra = copy.deepcopy(chat)
    extra["choices"][0]["message"]["tool_calls"] = calls + [{"id": "x", "type": "function", "function": {"name": "delete_all", "arguments": "{}"}}]
    assert "tool-call-extra" in _check("chat", seed_ids, extra)
    changed = copy.deepcopy(chat)
    changed["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"city": "Lyon"}'
    found = _check("chat", seed_ids, changed)
    assert "arguments-changed" in found and "arguments-reserialized" not in found
    same = copy.deepcopy(chat)
    same["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{ "city" : "Paris" }'
    assert "arguments-reserialized" in _check("chat", seed_ids, same) and CODES["arguments-reserialized"][0] == "info"


def test_finish_reason_and_reasoning_tokens(seed_ids: list[int]) -> None:
    chat = copy.deepcopy(expected_for("chat", seed_ids))
    chat["choices"][0]["finish_reason"] = "stop"
    assert "finish-reason-mismatch" in _check("chat", seed_ids, chat)
    counted = copy.deepcopy(expected_for("chat", seed_ids))
    counted["usage"]["completion_tokens_details"] = {"reasoning_tokens": 999}
    assert "reasoning-tokens-mismatch" in _check("chat", seed_ids, counted)
    counted["usage"] = None  # no count reported: nothing to compare
    assert "reasoning-tokens-mismatch" not in _check("chat", seed_ids, counted)


@pytest.mark.parametrize("spelling", ["<|endoftext|>", "<|startoftext|>", "<|reserved_200013|>", "<|endofprompt|>"])
def test_any_special_spelling_in_the_servers_text_is_a_control_token_in_content(seed_ids: list[int], spelling: str) -> None:
    # issue 32: the chat and Responses checks know every special token of o200k_harmony (one table in tokens)
    chat = copy.deepcopy(expected_for("chat", seed_ids))
    chat["choices"][0]["message"]["content"] = (chat["choices"][0]["message"]["content"] or "") + spelling
    found = [d for d in check_answer("hand-made", "chat", seed_ids, chat).discrepancies if d.code == "control-token-in-content"]
    assert [d.message for d in found] == [f"{spelling} is spelled out in the server's text"]
    resp = copy.deepcopy(expected_for("responses", seed_ids))
    item = next(i for i in resp["output"] if i["type"] == "message")
    item["content"][0]["text"] += spelling
    assert "control-token-in-content" in _check("responses", seed_ids, resp)


def test_items_out_of_token_order(seed_ids: list[int]) -> None:
    resp = copy.deepcopy(expected_for("responses", seed_ids))
    resp["output"] = list(reversed(resp["output"]))
    assert "item-order" in _check("responses", seed_ids, resp)


def test_a_stream_that_differs_from_the_final_answer(seed_ids: list[int]) -> None:
    chunks = copy.deepcopy(expected_for("chat-stream", seed_ids))
    final = answer_of("chat", expected_for("chat", seed_ids))
    assert compare_stream_final(answer_of("chat-stream", chunks), final) == []
    for c in chunks:
        for ch in c["choices"]:
            if ch["delta"].get("content"):
                ch["delta"]["content"] = ch["delta"]["content"].upper()
    found = compare_stream_final(answer_of("chat-stream", chunks), final)
    assert [d.code for d in found] == ["stream-final-mismatch"] and "content" in found[0].message


def test_field_name_is_reported_for_reasoning_under_another_name(seed_ids: list[int]) -> None:
    chat = copy.deepcopy(expected_for("chat", seed_ids))
    msg = chat["choices"][0]["message"]
    msg["reasoning"] = msg.pop("reasoning_content")
    assert _check("chat", seed_ids, chat) == {"field-name"}


def test_every_code_has_a_severity_and_a_meaning() -> None:
    assert all(sev in ("error", "warning", "info") and text for sev, text in CODES.values())
    assert CODES["server-error"][0] == "error" and CODES["tool-call-missing"][0] == "error"


def test_token_ids_from_logprobs() -> None:
    from harmony_viz.tokens import encoding

    enc = encoding()
    ids = enc.encode("Hello world", allowed_special="all")
    chat = {"choices": [{"logprobs": {"content": [{"token": enc.decode([t]), "bytes": list(enc.decode_single_token_bytes(t))} for t in ids]}}]}
    assert ids_from_logprobs("chat", chat) == tuple(ids)
    assert ids_from_logprobs("chat", {"choices": [{"logprobs": {"content": [{"token": "token_id:200006"}]}}]}) == (200006,)
    assert ids_from_logprobs("chat", {"choices": [{"logprobs": None}]}) is None
    assert ids_from_logprobs("responses", {"output": []}) is None


# ---- the command line ---------------------------------------------------------------------------------

def test_offline_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in CAPTURES.glob("seed-001.*.json"))
    assert main(["server-check", "--json", *files]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["api"] for line in lines] == ["chat-stream", "chat", "responses-stream", "responses"]
    for line in lines:
        assert {"file", "api", "replayed", "server", "expected", "discrepancies"} <= set(line)
        assert all(set(d) == {"code", "severity", "message", "where"} for d in line["discrepancies"])


def test_readable_output_names_each_stream_and_api(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["server-check", str(CAPTURES / "stripped-control-tokens.chat.json")]) == 0
    out = capsys.readouterr().out
    assert "chat" in out and "[error] reasoning-in-content" in out and "replayed=yes" in out


@pytest.mark.parametrize("argv, message", [
    (["server-check", "no-such.json"], "no-such.json"),
    (["server-check", str(SEED)], "not a capture"),
    (["server-check", "--api", "chat", str(CAPTURES / "seed-001.chat.json")], "need --base-url"),
    (["server-check", "--base-url", "http://127.0.0.1:9/v1", "no-such.txt"], "no-such.txt: no such file"),
    (["server-check", "--base-url", "http://127.0.0.1:9/v1", str(SEED)], "cannot reach"),
    (["capture", "--base-url", "http://127.0.0.1:9/v1", "--prompt", "hi", "-o", "x.json"], "cannot reach"),
    (["vllm-replay-server", "--python", sys.executable, "--port", "8123"], "cannot import vllm"),
    (["vllm-replay-server", "--port", "0"], "not a port number"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_an_empty_or_out_of_vocabulary_stream_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "big.json").write_text("[1, 999999]")
    (tmp_path / "req.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    for name, why in (("empty.txt", "empty"), ("big.json", "outside the o200k_harmony vocabulary"), ("req.json", "read as a Chat Completions request")):
        with pytest.raises(CheckInputError, match=why):
            read_stream(str(tmp_path / name))


def test_a_shipped_capture_is_a_run_for_html_replay_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harmony_viz import replay

    path = CAPTURES / "seed-001.chat-stream.json"
    run = load_capture(path)
    assert run.metadata.extra["server"]["token_ids_source"] == "return_token_ids" and len(run.token_times) == len(run.completion_token_ids)
    w = replay(run)
    checks = w._meta["server"]["checks"]
    assert checks[0]["api"] == "chat-stream" and w.trace.tokens.size == len(run.prompt_token_ids) + len(run.completion_token_ids)
    out = tmp_path / "cap.html"
    assert main(["html", str(path), "-o", str(out)]) == 0
    assert '"server":{"checks"' in out.read_text()
    assert main(["stats", str(path)]) == 0


def test_a_model_dir_that_holds_something_else_is_refused(tmp_path: Path) -> None:


    (tmp_path / "notes.txt").write_text("not a model")
    with pytest.raises(LaunchError, match="holds no servable model"):
        ensure_model(tmp_path)
