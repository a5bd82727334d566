"""The round-trip family (issue 34 item 5): an engine's own answer sent back as history, the prompt it then renders held against the format's.

The builders are checked offline on written answers; the family runs through a real llama.cpp
server (the Chat shapes) and the reference server (the Responses shapes and previous_response_id),
against the shipped known divergences.
"""

from __future__ import annotations

import pytest

from harmony_viz.conformance import KNOWN_DIR, Target, load_suite, read_known, run_suite, select
from harmony_viz.conformance import ROUNDTRIP_API, SHAPES, expected_prompt, second_request
from harmony_viz.tokens import encoding

ANALYSIS_CALL = "The user wants the weather in Paris: call get_weather."
ANALYSIS_FINAL = "A greeting; answer briefly."


def _case(name: str):  # noqa: ANN202
    return select(load_suite(), f"roundtrip/{name}")[0]


def _known() -> dict:
    out: dict = {}
    for f in sorted(KNOWN_DIR.glob("*.jsonl")):
        out.update(read_known(f))
    return out


def _text(ids) -> str:  # noqa: ANN001
    return encoding().decode(list(ids))


def test_the_family_has_a_case_for_every_client_shape() -> None:
    cases = select(load_suite(), "roundtrip/*")
    assert len(cases) >= 6 and all(c.kind == "roundtrip" and c.ids and c.then and c.rules for c in cases)
    assert {c.shape for c in cases} == set(SHAPES)


def test_the_formats_prompt_keeps_a_pending_calls_analysis_and_drops_a_finished_turns() -> None:
    pending = _text(expected_prompt(_case("chat-reasoning_content-pending-call"), _case("chat-reasoning_content-pending-call").ids, ()))
    assert ANALYSIS_CALL in pending and "<|constrain|>json" in pending and pending.count('{"temp": 20}') == 1
    assert pending.endswith("<|start|>assistant")
    bare = _text(expected_prompt(_case("chat-no-reasoning-pending-call"), _case("chat-no-reasoning-pending-call").ids, ()))
    assert ANALYSIS_CALL not in bare and "<|constrain|>json" in bare  # the client sent no reasoning: none is expected back
    finished = _text(expected_prompt(_case("chat-reasoning_content-finished"), _case("chat-reasoning_content-finished").ids, ()))
    assert ANALYSIS_FINAL not in finished and "Hello! How can I help?" in finished and "And what can you do?" in finished
    preamble = _text(expected_prompt(_case("chat-reasoning_content-preamble-final"), _case("chat-reasoning_content-preamble-final").ids, ()))
    assert "<|channel|>commentary<|message|>One moment.<|end|>" in preamble


CHAT_ANSWER = {"choices": [{"message": {"role": "assistant", "content": None, "reasoning_content": ANALYSIS_CALL,
                                        "tool_calls": [{"id": "abc", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]}}]}
RESPONSES_ANSWER = {"id": "resp_1", "output": [
    {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": ANALYSIS_CALL}], "encrypted_content": None},
    {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "get_weather", "arguments": '{"city":"Paris"}', "status": "completed"}]}


def test_the_second_request_carries_the_answer_in_each_shape() -> None:
    got, message, calls = second_request(_case("chat-reasoning_content-pending-call"), CHAT_ANSWER)
    assert calls == 1 and message["reasoning_content"] == ANALYSIS_CALL and got["messages"][-1] == {"role": "tool", "tool_call_id": "abc", "content": '{"temp": 20}'}
    got, message, _ = second_request(_case("chat-reasoning-pending-call"), CHAT_ANSWER)
    assert message["reasoning"] == ANALYSIS_CALL and "reasoning_content" not in message and got["tools"]
    _, message, _ = second_request(_case("chat-no-reasoning-pending-call"), CHAT_ANSWER)
    assert "reasoning" not in message and "reasoning_content" not in message and message["tool_calls"][0]["id"] == "abc"
    got, items, _ = second_request(_case("responses-reasoning_text-pending-call"), RESPONSES_ANSWER)
    assert items[0]["content"][0]["text"] == ANALYSIS_CALL and "encrypted_content" not in items[0]  # null fields are not sent back
    assert got["input"][-1] == {"type": "function_call_output", "call_id": "call_9", "output": '{"temp": 20}'}
    _, items, _ = second_request(_case("responses-summary-pending-call"), RESPONSES_ANSWER)
    assert "content" not in items[0] and items[0]["summary"] == [{"type": "summary_text", "text": ANALYSIS_CALL}]
    got, _, _ = second_request(_case("previous-response-id-pending-call"), RESPONSES_ANSWER)
    assert got["previous_response_id"] == "resp_1" and got["input"] == [{"type": "function_call_output", "call_id": "call_9", "output": '{"temp": 20}'}]
    assert got["tools"][0]["name"] == "get_weather"  # tools are not inherited by a stored response: sent again


def test_an_offline_engine_serves_no_round_trip() -> None:
    outs = run_suite(select(load_suite(), "roundtrip/*"), [Target(engine="sglang")])
    assert outs and {o.status for o in outs} == {"not-served"} and {o.api for o in outs} == {ROUNDTRIP_API}


def _run(engine: str, url: str) -> dict:
    outs = run_suite(select(load_suite(), "roundtrip/*"), [Target(engine=engine, url=url)], known=_known())
    bad = [(o.case.id, o.status, o.codes, o.reason) for o in outs if o.status not in ("pass", "known", "not-served")]
    assert bad == []
    return {o.case.name: o for o in outs}


@pytest.mark.server
def test_the_round_trip_through_llama_cpp(llama_server) -> None:  # noqa: ANN001
    got = _run("llama.cpp", llama_server.url)
    for name in ("chat-reasoning_content-finished", "chat-reasoning-finished"):
        assert got[name].status == "pass", got[name].reason
        assert ANALYSIS_FINAL not in _text(got[name].check.server) and "Hello! How can I help?" in _text(got[name].check.server)
    merged = got["chat-reasoning_content-preamble-final"]  # its Chat answer joins preamble and final: the preamble is gone
    assert merged.status == "known" and "preamble-dropped" in merged.codes and merged.check.answer["content"] == "One moment.Hello! How can I help?"
    for name, o in got.items():
        if "-call" in name:
            assert o.status == "not-served" and "cannot return the call" in o.reason  # a grammar is refused with tools
        if name.startswith(("responses-", "previous-")) and "-call" not in name:
            assert o.status == "not-served" and "Chat Completions prompt" in o.reason


@pytest.mark.server
def test_the_round_trip_through_the_reference_server(gpt_oss_server) -> None:  # noqa: ANN001
    got = _run("gpt-oss", gpt_oss_server.url)
    assert all(o.status == "not-served" for n, o in got.items() if n.startswith("chat-"))
    for name in ("responses-reasoning_text-finished", "previous-response-id-finished"):
        assert got[name].status == "pass", got[name].codes
    kept = got["responses-reasoning_text-pending-call"]
    assert kept.status == "known" and kept.codes == ("other",)  # <|constrain|>json lost, the analysis kept
    assert ANALYSIS_CALL in _text(kept.check.server) and "<|constrain|>" not in _text(kept.check.server)
    stored = got["previous-response-id-pending-call"]
    assert stored.status == "known" and ANALYSIS_CALL in _text(stored.check.server)  # the stored input and output came back
    summary = got["responses-summary-pending-call"]
    assert summary.status == "known" and "analysis-dropped" in summary.codes and ANALYSIS_CALL not in _text(summary.check.server)


@pytest.mark.server
def test_the_round_trip_through_vllm(replay_server) -> None:  # noqa: ANN001
    outs = run_suite(select(load_suite(), "roundtrip/*"), [Target(engine="vllm", url=replay_server.url)], known=_known())
    assert {o.status for o in outs} <= {"pass", "fail", "known", "not-served"}, [(o.case.id, o.status, o.reason) for o in outs]
    got = {o.case.name: o for o in outs}
    # vLLM replays with tools and shows both prompts: every Chat and Responses shape is served (a call comes back as a call)
    assert all((o.status == "not-served") == n.startswith("previous-") for n, o in got.items()), {n: o.reason for n, o in got.items()}
    assert got["chat-reasoning_content-pending-call"].check.answer["tool_calls"][0]["function"]["name"] == "get_weather"
    assert all("previous_response_id" in o.reason for n, o in got.items() if n.startswith("previous-"))  # its render endpoint is stateless
    finished = got["chat-reasoning_content-finished"]
    assert finished.status == "pass" and ANALYSIS_FINAL not in _text(finished.check.server)
    print({n: (o.status, o.codes, o.reason[:80]) for n, o in got.items()})
