"""The prompt lens: the prompt a server fed the model, against ours (offline parts, then the real vLLM and llama.cpp replay servers)."""

from __future__ import annotations

import copy
import json
import re

import pytest
from _templates import DATE, WEATHER, call, conversations, real_template, request
from hypothesis import HealthCheck, assume, given, settings

from harmony_viz.cli import main
from harmony_viz.findings import Sides
from harmony_viz.servers import LaunchError, PromptCheck, ServerError, check_file, prompt_check
from harmony_viz.servers.core import chat_of_responses, request_rejected
from harmony_viz.templates import CODES, LensError, render_ours, render_template
from harmony_viz.tokens import encoding

USER = {"role": "user", "content": "Weather in Paris?"}
ANALYSIS = "<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>"


def tool_turn(*, content: str | None = None, field: str = "reasoning_content", result: str = "sunny, 21 C", calls: int = 1) -> dict:
    """user → assistant (analysis in ``field``, maybe a preamble, ``calls`` calls) → the tool results: a pending call."""
    assistant = {"role": "assistant", field: "Need the weather.",
                 "tool_calls": [call(f"c{i}", "get_weather", json.dumps({"city": c})) for i, c in enumerate(["Paris", "Lyon"][:calls])]}
    if content is not None:
        assistant["content"] = content
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": result} for i in range(calls)]
    return request(USER, assistant, *results, tools=[WEATHER])


def check_quotes(r: PromptCheck) -> None:
    ours, server = encoding().decode(list(r.ours)), encoding().decode(list(r.server or ()))
    for d in r.differences:
        assert d.code in CODES and d.severity == CODES[d.code][0]
        if d.code == "request-rejected":  # it quotes the server's refusal, not a render
            assert r.error and d.theirs == r.error and r.server is None
            continue
        assert d.ours in ours and d.theirs in server, (d.code, d.ours, d.theirs)
        assert isinstance(d.where, Sides) or d.where is None


# ---- offline: our side of the rule, the comparison, the readers


def test_our_render_keeps_a_pending_calls_analysis_and_drops_it_after_a_final_answer():
    pending = encoding().decode(render_ours(tool_turn(), date=DATE, for_completion=True))
    assert ANALYSIS in pending
    finished = request(USER, {"role": "assistant", "reasoning_content": "Need the weather.", "content": "Sunny."}, {"role": "user", "content": "Thanks"})
    assert ANALYSIS not in encoding().decode(render_ours(finished, date=DATE, for_completion=True))


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content", "thinking"])
def test_our_renderer_reads_every_reasoning_field(field):
    assert ANALYSIS in encoding().decode(render_ours(tool_turn(field=field), date=DATE, for_completion=True))


def test_a_server_that_drops_the_pending_calls_analysis_gets_analysis_dropped():
    req = tool_turn()
    ours = render_ours(req, date=DATE, for_completion=True)
    text = encoding().decode(ours)
    dropped = encoding().encode(text.replace(ANALYSIS, ""), allowed_special="all")
    r = prompt_check(req, prompt_ids=dropped)
    (d,) = r.differences
    assert (d.code, d.severity, d.ours, d.theirs) == ("analysis-dropped", "error", ANALYSIS, "")
    assert "pending tool call" in d.message and d.where.theirs is None
    assert prompt_check(req, prompt_ids=ours).identical


def test_the_date_and_the_default_effort_come_from_the_servers_prompt():
    req = request(USER)
    server = render_ours({**req, "reasoning_effort": "low"}, date="2031-02-03", for_completion=True)
    r = prompt_check(req, prompt_ids=server)
    assert r.identical and r.ours == tuple(server)
    # no date line on the server's side: none on ours
    assert prompt_check(req, prompt_ids=render_ours(req, date=None, for_completion=True)).identical
    # a request that names its effort is held to it
    (d,) = prompt_check({**req, "reasoning_effort": "high"}, prompt_ids=server).differences
    assert (d.code, d.ours, d.theirs) == ("effort-ignored", "Reasoning: high", "Reasoning: low")


def test_request_rejected_keeps_the_servers_text():
    d = request_rejected("400: Cannot continue an assistant message that contains tool calls.")
    assert (d.code, d.severity, d.theirs) == ("request-rejected", "error", "400: Cannot continue an assistant message that contains tool calls.")
    assert d.to_json()["server"] == d.theirs and d.to_json()["where"] == {"ours": None, "server": None}


def test_responses_input_becomes_the_chat_request_it_stands_for():
    body = {"instructions": "Be brief.", "reasoning": {"effort": "high"},
            "tools": [{"type": "function", "name": "get_weather", "parameters": WEATHER["function"]["parameters"]}],
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
                      {"type": "reasoning", "content": [{"type": "reasoning_text", "text": "Need the weather."}]},
                      {"type": "function_call", "call_id": "c0", "name": "get_weather", "arguments": '{"city": "Paris"}'},
                      {"type": "function_call_output", "call_id": "c0", "output": "sunny"}]}
    chat = chat_of_responses(body)
    assert chat["reasoning_effort"] == "high" and chat["tools"][0]["function"]["name"] == "get_weather"
    assert [m["role"] for m in chat["messages"]] == ["developer", "user", "assistant", "tool"]
    assert chat["messages"][2]["reasoning"] == "Need the weather." and chat["messages"][2]["tool_calls"][0]["id"] == "c0"
    assert ANALYSIS in encoding().decode(render_ours(chat, date=DATE, for_completion=True))


def test_a_shipped_capture_carries_its_prompt_check_into_the_server_tab():
    from harmony_viz.servers import lens, lens_source

    (vllm,) = [p for p in lens.shipped_prompt_captures("vllm") if p.endswith("two-step-2.json")]
    run = lens.load_capture(vllm)
    ids, role, payload = lens_source(run)
    (view,) = payload["checks"]
    prompt = view["prompt"]
    assert [d["code"] for d in prompt["differences"]] == list(check_file(vllm).codes)
    assert "preamble-moved" in [d["code"] for d in prompt["differences"]]
    diff = prompt["diff"]
    assert diff["layout"] == "prompt" and diff["model"] == list(run.prompt_token_ids) == ids[:len(run.prompt_token_ids)] and role is None
    for d in diff["differences"]:
        ours, server = d["ours_span"], d["template_span"]
        assert [ours, server] == [d["where"]["ours"], d["where"]["server"]]
        if ours:
            assert encoding().decode(diff["reference"][ours[0]:ours[1]]) == d["ours"]
        if server:
            assert encoding().decode(diff["model"][server[0]:server[1]]) == d["server"]


@pytest.mark.parametrize(("content", "message"), [
    ('{"messages": 3}', "expected a Chat Completions request"),
    ('[1, 2]', "neither a request body"),
    ("not json", "invalid JSON at line 1, column 1"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    f = tmp_path / "bad.json"
    f.write_text(content)
    assert main(["prompt-check", "--base-url", "http://127.0.0.1:9/v1", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_a_request_without_a_server_is_exit_2(tmp_path, capsys):
    f = tmp_path / "req.json"
    f.write_text(json.dumps(request(USER)))
    assert main(["prompt-check", str(f)]) == 2
    assert "--base-url" in capsys.readouterr().err


def test_an_unreachable_server_is_exit_2(tmp_path, capsys):
    f = tmp_path / "req.json"
    f.write_text(json.dumps(request(USER)))
    assert main(["prompt-check", "--engine", "vllm", "--base-url", "http://127.0.0.1:9/v1", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "127.0.0.1:9" in err and len(err.splitlines()) == 1


TEMPLATE = None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations())
def test_property_against_the_template_identical_exactly_when_the_streams_are_equal(req):
    """The template's prompt as the other side (what a llama.cpp with this template feeds the model)."""
    global TEMPLATE
    TEMPLATE = TEMPLATE or real_template()
    try:
        other = encoding().encode(render_template(TEMPLATE, req, date=DATE, add_generation_prompt=True), allowed_special="all")
        r = prompt_check(req, prompt_ids=other)
    except LensError:
        assume(False)
        return
    assert r.identical == (r.ours == r.server)
    check_quotes(r)
    for d in r.differences:
        assert d.ours or d.theirs


# ---- against the real servers (the rows of ../shared/VLLM.md and ../shared/LLAMACPP.md)


def _check(server, req, **kw) -> PromptCheck:
    try:
        r = prompt_check(req, base_url=server.url, **kw)
    except (ServerError, LaunchError) as exc:  # pragma: no cover - says why in one line
        pytest.fail(str(exc))
    check_quotes(r)
    return r


PLAIN = [
    request(USER),
    request({"role": "system", "content": "Answer in one word."}, USER, reasoning_effort="high"),
    request({"role": "system", "content": "Answer in one word."}, USER, tools=[WEATHER]),
    request({"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "Greet.", "content": "Hello!"}, USER),
]
PLAIN_IDS = ["one-message", "system-effort-high", "tools", "finished-turn"]


@pytest.mark.server
@pytest.mark.parametrize("req", PLAIN, ids=PLAIN_IDS)
def test_vllm_plain_requests_differ_in_nothing_but_layout(replay_server, req):
    r = _check(replay_server, req)
    assert set(r.codes) <= {"date-varies", "whitespace"}, r.codes
    assert r.prompt_source == "vllm /v1/chat/completions/render"
    assert "Current date: " in encoding().decode(list(r.server))  # vLLM dates its prompt: ours takes its date
    if req.get("reasoning_effort") == "high":
        assert "Reasoning: high" in encoding().decode(list(r.server)) and "effort-ignored" not in r.codes


@pytest.mark.server
def test_vllm_writes_no_response_format(replay_server):
    fmt = {"type": "json_schema", "json_schema": {"name": "city", "schema": {"type": "object", "properties": {"c": {"type": "string"}}}}}
    r = _check(replay_server, request(USER, response_format=fmt))
    assert r.codes == ("response-format-missing",)
    # no instructions, no tools: vLLM writes no developer message at all
    assert r.differences[0].ours.startswith("<|start|>developer<|message|># Instructions\n\n# Response Formats\n\n## city\n\n")
    with_instructions = _check(replay_server, request({"role": "system", "content": "Be brief."}, USER, response_format=fmt))
    assert with_instructions.codes == ("response-format-missing",) and with_instructions.differences[0].ours.startswith("# Response Formats")


@pytest.mark.server
@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_vllm_keeps_the_pending_calls_analysis_and_relays_the_call(replay_server, field):
    r = _check(replay_server, tool_turn(field=field))
    assert r.codes == ("constrain-missing", "recipient-layout")
    assert r.differences[1].theirs == "<|start|>functions.get_weather<|channel|>commentary to=assistant<|message|>"
    assert ANALYSIS in encoding().decode(list(r.server))


@pytest.mark.server
def test_vllm_does_not_read_thinking(replay_server):
    r = _check(replay_server, tool_turn(field="thinking"))
    assert r.codes[0] == "analysis-dropped" and "pending tool call" in r.differences[0].message
    assert ANALYSIS not in encoding().decode(list(r.server))


@pytest.mark.server
def test_vllm_moves_the_preamble_before_the_analysis(replay_server):
    r = _check(replay_server, tool_turn(content="Let me check."))
    assert r.codes == ("preamble-moved", "constrain-missing", "recipient-layout")
    d = r.differences[0]
    assert d.ours == d.theirs == "<|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>"
    assert d.where.theirs.start < d.where.ours.start  # before the analysis on the server's side


@pytest.mark.server
def test_vllm_keeps_parallel_calls(replay_server):
    r = _check(replay_server, tool_turn(calls=2))
    assert sorted(r.codes) == ["constrain-missing", "constrain-missing", "recipient-layout", "recipient-layout"]


@pytest.mark.server
def test_vllm_rejects_arguments_given_as_an_object(replay_server):
    req = request(USER, {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]}, tools=[WEATHER])
    r = _check(replay_server, req)
    assert r.codes == ("request-rejected",) and r.error.startswith("400") and not r.identical
    assert r.differences[0].theirs == r.error


@pytest.mark.server
def test_vllm_shows_a_responses_prompt(replay_server):
    body = {"input": [{"type": "message", "role": "user", "content": "Weather in Paris?"}], "reasoning": {"effort": "low"}}
    r = _check(replay_server, body)
    assert r.prompt_source == "vllm /v1/responses/render"
    assert "Reasoning: low" in encoding().decode(list(r.server))
    assert "effort-ignored" not in r.codes
    # a pending call given as Responses items: the same findings as through Chat Completions
    body = {"reasoning": {"effort": "high"}, "tools": [{"type": "function", **WEATHER["function"]}],
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
                      {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Need the weather."}]},
                      {"type": "function_call", "call_id": "c0", "name": "get_weather", "arguments": '{"city": "Paris"}'},
                      {"type": "function_call_output", "call_id": "c0", "output": "sunny"}]}
    r = _check(replay_server, body)
    assert r.codes == ("constrain-missing", "recipient-layout") and ANALYSIS in encoding().decode(list(r.server))


@pytest.mark.server
def test_llama_drops_the_preamble_and_writes_json_without_constrain(llama_server):
    r = _check(llama_server, tool_turn(content="Let me check."))
    assert r.prompt_source == "llama.cpp /apply-template + /tokenize"
    # it JSON-encodes every tool result, plain text too ("sunny, 21 C" becomes "\"sunny, 21 C\"")
    assert r.codes == ("preamble-dropped", "constrain-missing", "tool-result-double-encoded")
    assert r.differences[2].theirs == '"sunny, 21 C"'
    assert ANALYSIS in encoding().decode(list(r.server))


@pytest.mark.server
def test_llama_re_serialises_arguments_and_encodes_a_json_tool_result_again(llama_server):
    req = tool_turn(result='{"temp": 20}')
    req["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"city":"Paris"}'
    r = _check(llama_server, req)
    assert r.codes == ("constrain-missing", "whitespace", "tool-result-double-encoded")
    assert (r.differences[1].ours, r.differences[1].theirs) == ('{"city":"Paris"}', '{"city": "Paris"}')
    assert "re-serialised" in r.differences[1].message
    assert r.differences[2].theirs == '"{\\"temp\\": 20}"'


@pytest.mark.server
@pytest.mark.parametrize(("field", "kept"), [("reasoning_content", True), ("reasoning", False), ("thinking", False)])
def test_llama_reads_only_reasoning_content(llama_server, field, kept):
    r = _check(llama_server, tool_turn(field=field))
    assert ("analysis-dropped" not in r.codes) == kept
    assert (ANALYSIS in encoding().decode(list(r.server))) == kept


@pytest.mark.server
def test_llama_drops_parallel_calls_and_writes_no_response_format(llama_server):
    r = _check(llama_server, tool_turn(calls=2))
    assert r.codes == ("constrain-missing", "parallel-calls-dropped", "tool-result-double-encoded", "tool-result-double-encoded")
    assert '{"city": "Lyon"}' in r.differences[1].ours and "Lyon" not in encoding().decode(list(r.server))
    fmt = {"type": "json_schema", "json_schema": {"name": "city", "schema": {"type": "object"}}}
    assert _check(llama_server, request(USER, response_format=fmt)).codes == ("response-format-missing",)


@pytest.mark.server
def test_llama_cannot_show_a_responses_prompt(llama_server, tmp_path, capsys):
    f = tmp_path / "responses.json"
    f.write_text(json.dumps({"input": [{"type": "message", "role": "user", "content": "Hi"}]}))
    assert main(["prompt-check", "--base-url", llama_server.url, str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "llama.cpp shows only a Chat Completions prompt" in err and len(err.splitlines()) == 1


@pytest.mark.server
def test_llama_rejects_arguments_given_as_an_object(llama_server):
    req = request(USER, {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]}, tools=[WEATHER])
    r = _check(llama_server, req)
    assert r.codes == ("request-rejected",) and r.error.startswith("400")


@pytest.mark.server
@pytest.mark.parametrize("req", PLAIN, ids=PLAIN_IDS)
def test_llama_plain_requests_differ_in_nothing_but_layout(llama_server, req):
    r = _check(llama_server, req)
    assert set(r.codes) <= {"date-varies", "whitespace"}, r.codes
    if req.get("reasoning_effort") == "high":
        assert "Reasoning: high" in encoding().decode(list(r.server)) and "effort-ignored" not in r.codes


@pytest.mark.server
def test_prompt_check_benchmark_prints_ratios(llama_server, capsys):
    from benchmarks import bench_prompt_check

    bench_prompt_check.report(bench_prompt_check.measure(llama_server.url, repeat=1, max_tokens=4))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "engine: llama.cpp" and len(out) == 2 + len(bench_prompt_check.requests()) + 2
    assert re.fullmatch(r"prompt-check's own cost per request: [\d.]+% of the server's response time; with the prompt fetch: [\d.]+% \(ratios of medians\)", out[-1])


@pytest.mark.server
def test_a_capture_round_trips_into_prompt_check_offline(replay_server, tmp_path, capsys):
    from harmony_viz.servers import capture, save_capture

    req = tool_turn(content="Let me check.")
    run = capture(replay_server.url, request=req, max_tokens=2)
    assert run.prompt_token_ids, "vLLM returns prompt_token_ids with return_token_ids"
    path = save_capture(run, tmp_path / "cap.json")
    offline = check_file(str(path))
    live = _check(replay_server, req)
    assert offline.prompt_source.startswith("capture of ") and offline.server == live.server
    assert offline.codes == live.codes == ("preamble-moved", "constrain-missing", "recipient-layout")
    assert main(["prompt-check", "--json", str(path)]) == 1
    line = json.loads(capsys.readouterr().out)
    assert set(line) == {"file", "engine", "prompt_source", "identical", "differences", "error"} and line["engine"] == "vllm"
    assert set(line["differences"][0]) == {"code", "severity", "message", "ours", "server", "where"}
    # server-check reports the prompt's differences beside the answer's discrepancies
    assert main(["server-check", "--json", str(path)]) == 0
    checked = json.loads(capsys.readouterr().out.splitlines()[0])
    assert [d["code"] for d in checked["prompt"]["differences"]] == list(live.codes)
    assert main(["server-check", str(path)]) == 0
    assert "  [warning] preamble-moved: the preamble" in capsys.readouterr().out


@pytest.mark.server
def test_a_llama_capture_keeps_the_prompt_it_rendered(llama_server, tmp_path):
    from harmony_viz.servers import capture, save_capture

    req = tool_turn(content="Let me check.")
    run = capture(llama_server.url, request=req, max_tokens=2)
    assert run.metadata.extra["server"]["prompt_source"] == "llama.cpp /apply-template + /tokenize"
    offline = check_file(str(save_capture(run, tmp_path / "cap.json")))
    assert offline.codes == _check(llama_server, req).codes and "preamble-dropped" in offline.codes


@pytest.mark.server
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(conversations())
def test_property_against_vllm(replay_server, req):
    req = copy.deepcopy(req)
    try:
        r = prompt_check(req, base_url=replay_server.url)
    except LensError:
        assume(False)
        return
    assume(r.error is None)
    assert r.identical == (r.ours == r.server)
    check_quotes(r)



def _recorded(turn1_prompt: str, wrote: str, turn2_prompt: str):  # noqa: ANN202
    """A run as `record --server` keeps it: each turn's chunks carry the prompt ids and the generated ids."""
    from harmony_viz.runs import Run, RunMetadata
    from harmony_viz.tokens import encode

    def turn(prompt: str, completion: str) -> dict:
        return {"api": "chat-stream", "chunks": [{"prompt_token_ids": encode(prompt), "choices": [{"index": 0, "delta": {}, "token_ids": encode(completion)}]}]}

    turns = [turn(turn1_prompt, wrote), turn(turn2_prompt, "<|channel|>final<|message|>14.<|return|>")]
    return Run(id="calc#0", metadata=RunMetadata(extra={"server_turns": turns}), prompt_token_ids=tuple(encode(turn1_prompt)))


def test_a_recorded_tool_loop_is_checked_turn_by_turn_against_what_the_model_wrote():
    from harmony_viz.servers.core import turn_checks

    prompt = "<|start|>user<|message|>What is 2 + 3 * 4?<|end|><|start|>assistant"
    analysis = "<|channel|>analysis<|message|>Use the calculator.<|end|>"
    call = '<|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression":"2+3*4"}<|call|>'
    result = '<|start|>functions.calculator to=assistant<|channel|>commentary<|message|>{"result": 14}<|end|><|start|>assistant'
    exact = turn_checks(_recorded(prompt, analysis + call, prompt + analysis + call + result))
    assert [c.identical for c in exact] == [True] and exact[0].file == "calc#0 turn 2"
    rerendered = call.replace("<|constrain|>json", "json")
    (c,) = turn_checks(_recorded(prompt, analysis + call, prompt + analysis + rerendered + result))
    assert "constrain-missing" in c.codes and "analysis-dropped" not in c.codes
    (c,) = turn_checks(_recorded(prompt, analysis + call, prompt + call.removeprefix("<|start|>assistant") + result))
    assert "analysis-dropped" in c.codes and next(d for d in c.differences if d.code == "analysis-dropped").severity == "error"
