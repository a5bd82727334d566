"""Lints that know a prompt from a completion (issue 32, item 5).

A prompt that hands over at ``<|start|>assistant`` (what ``render --for-completion`` writes, what a
server feeds the model) has no completion: its last message is history, so no ``stop-token`` and
no ``eos-in-header``. A request read as JSON is linted as that prompt, and its findings say their
positions are in the rendered prompt. ``dropped-analysis`` says what is known: the analysis is
absent, not that someone dropped it.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz._lint import lint
from harmony_viz.render import Role, conversation_from_chat, render_conversation, render_conversation_for_completion
from harmony_viz.tokens import encoding
from tests._templates import WEATHER, call, request, text

pytest.importorskip("openai_harmony")

LOOKUP = {
    "type": "function",
    "function": {"name": "lookup", "description": "Look a word up.",
                 "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
}
# Each declared tool and arguments its schema accepts.
ARGUMENT_KEY = {"get_weather": "city", "lookup": "q"}


@st.composite
def well_formed_requests(draw) -> dict:
    """Chat Completions requests as a client sends them to gpt-oss: histories with finals, tool calls (each with the
    reasoning the model wrote before it, and now and then a preamble), tool results, later system/developer text,
    declared tools; the last turn may be open (calls answered or not yet) or finished."""
    tools = draw(st.sampled_from([[], [WEATHER], [WEATHER, LOOKUP]]))
    names = [t["function"]["name"] for t in tools]
    messages: list[dict] = []
    if draw(st.booleans()):
        messages.append({"role": draw(st.sampled_from(["system", "developer"])), "content": draw(text)})
    n_call = 0
    turns = draw(st.integers(1, 3))
    for turn in range(turns):
        last = turn == turns - 1
        if turn and draw(st.integers(0, 4)) == 0:  # an instruction between turns: a developer message of its own
            messages.append({"role": draw(st.sampled_from(["system", "developer"])), "content": draw(text)})
        messages.append({"role": "user", "content": draw(text)})
        for _step in range(draw(st.integers(0, 2)) if names else 0):
            msg: dict = {"role": "assistant", draw(st.sampled_from(["reasoning_content", "reasoning", "thinking"])): draw(text)}
            if draw(st.booleans()):
                msg["content"] = draw(text)  # a preamble on commentary
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                n_call += 1
                name = draw(st.sampled_from(names))
                calls.append(call(f"c{n_call}", name, json.dumps({ARGUMENT_KEY[name]: draw(text)}, ensure_ascii=False)))
            msg["tool_calls"] = calls
            messages.append(msg)
            if last and draw(st.integers(0, 3)) == 0:
                break  # calls not answered yet: the request ends at them
            for c in calls:
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": draw(text)})
        if not last or draw(st.booleans()):
            final: dict = {"role": "assistant", "content": draw(text)}
            if draw(st.booleans()):
                final[draw(st.sampled_from(["thinking", "reasoning_content"]))] = draw(text)
            if messages[-1]["role"] == "assistant":  # unanswered calls end the request
                continue
            messages.append(final)
    extra = {"reasoning_effort": draw(st.sampled_from(["low", "medium", "high"]))} if draw(st.booleans()) else {}
    return request(*messages, tools=tools or None, **extra)


def _prompt(req: dict) -> list[int]:
    return render_conversation_for_completion(conversation_from_chat(req), Role.ASSISTANT)


def _loud(diags) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diags if d.severity in ("error", "warning")]


@given(well_formed_requests())
def test_a_rendered_prompt_of_a_well_formed_request_lints_clean(req):
    """lint of ``render --for-completion`` of any well-formed request: nothing at warning or above, as text, ids and the request."""
    ids = _prompt(req)
    prompt = encoding().decode(ids)
    assert prompt.endswith("<|start|>assistant")
    for source in (prompt, ids, req):
        found = lint(source)
        assert _loud(found) == [], (source if source is req else prompt, found)
        assert not {"stop-token", "eos-in-header"} & {d.code for d in found}


def test_the_last_message_of_a_transcript_is_still_a_completion():
    """Without the handover the same text is a transcript whose completion ends in <|end|>: stop-token still speaks."""
    req = request({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"})
    prompt = encoding().decode(_prompt(req))
    assert [d.code for d in lint(prompt)] == []
    transcript = encoding().decode(render_conversation(conversation_from_chat(req)))
    (d,) = lint(transcript)
    assert (d.code, d.message) == ("stop-token", "the completion's last message (2) should end in <|return|>; it ends in <|end|>")
    # a bare completion that stops right after <|start|>assistant is cut off, not a prompt
    assert "stop-token" in [d.code for d in lint("<|channel|>final<|message|>Hi<|end|><|start|>assistant", role="assistant")]


def test_a_call_announced_last_in_a_prompt_is_left_to_the_completion():
    """announced-no-call: in a prompt that hands over, the last message's turn goes on; in a transcript it has ended."""
    req = request({"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "Let me check the weather for you."})
    assert "announced-no-call" not in [d.code for d in lint(_prompt(req))]
    assert "announced-no-call" in [d.code for d in lint(render_conversation(conversation_from_chat(req)))]


PENDING = request(
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    tools=[WEATHER],
)


def test_dropped_analysis_says_what_is_known():
    """A pending call without analysis: the prompt lacks it (text), the request gave none (JSON); neither says it 'was dropped'."""
    (from_text,) = [d for d in lint(encoding().decode(_prompt(PENDING))) if d.code == "dropped-analysis"]
    (from_request,) = [d for d in lint(PENDING) if d.code == "dropped-analysis"]
    assert "was dropped" not in from_text.message and "was dropped" not in from_request.message
    assert from_text.message.startswith("tool call 3 (functions.get_weather) is part of a pending tool-use turn, but no analysis comes before it in the prompt;")
    assert from_request.message.startswith("tool call 3 (functions.get_weather) is part of a pending tool-use turn, but the request gives no reasoning before it;")
    assert "reasoning_content" in from_request.message
    # with the reasoning sent back there is nothing to say
    kept = json.loads(json.dumps(PENDING))
    kept["messages"][1]["reasoning_content"] = "Need the weather; call get_weather."
    assert "dropped-analysis" not in [d.code for d in lint(kept)]


@pytest.mark.parametrize(
    "req",
    [
        request({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}),  # the issue's [user, assistant]
        {**PENDING, "messages": [PENDING["messages"][0], {**PENDING["messages"][1], "reasoning_content": "Call it.", "content": "Checking."},
                                 PENDING["messages"][2]]},
        request({"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Paris?"},
                {"role": "assistant", "reasoning_content": "Look.", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]}, tools=[WEATHER]),
        request({"role": "system", "content": "You help."}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "thinking": "t"},
                {"role": "user", "content": "c"}, reasoning_effort="high"),
    ],
    ids=["user-assistant", "pending-call-with-preamble", "unanswered-call", "history-with-final"],
)
def test_strict_lint_of_render_for_completion_exits_0(cli, tmp_path, req):
    """The CLI: ``render --for-completion`` then ``lint --strict`` (file and stdin), and ``lint --strict`` of the request itself."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(req))
    rc, prompt, _ = cli("render", str(path), "--for-completion")
    assert rc == 0 and prompt.endswith("<|start|>assistant")
    (tmp_path / "prompt.txt").write_text(prompt)
    for argv, stdin in ((["lint", "--strict", str(tmp_path / "prompt.txt")], None), (["lint", "--strict", "-"], prompt), (["lint", "--strict", str(path)], None)):
        rc, out, err = cli(*argv, stdin=stdin)
        assert (rc, json.loads(out)["diagnostics"]) == (0, []), (argv, err)


def test_a_position_in_a_rendered_prompt_says_so(cli, tmp_path):
    """Read from a request, a finding's place is in the rendered prompt: said so, not a bare PATH:LINE:COL of the JSON file."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(PENDING))
    rc, out, err = cli("lint", str(path))
    (d,) = json.loads(out)["diagnostics"]
    prompt = encoding().decode(_prompt(PENDING))
    ids = _prompt(PENDING)
    # the span counts the rendered prompt's tokens: it is the call's header there
    assert encoding().decode(ids[d["start"] : d["end"]]).startswith("<|start|>assistant to=functions.get_weather")
    start = len(encoding().decode(ids[: d["start"]]))
    line = prompt.count("\n", 0, start) + 1
    column = start - (prompt.rfind("\n", 0, start) + 1) + 1
    assert f"{path}: in the rendered prompt, line {line}, column {column}: warning dropped-analysis tool call 3" in err
    assert f"{path}:{line}:" not in err
    # a text file's positions are its own
    (tmp_path / "prompt.txt").write_text(prompt)
    _, _, err = cli("lint", str(tmp_path / "prompt.txt"))
    assert f"{tmp_path / 'prompt.txt'}:{line}:{column}: warning dropped-analysis" in err


@pytest.mark.parametrize("as_ids", [True, False], ids=["ids", "text"])
def test_the_pages_lints_know_a_prompt_too(as_ids):
    """The replay's lint findings (a token trace's read from its messages, a text trace's by lint): no stop-token on a prompt's history."""
    from harmony_viz import replay

    prompt = encoding().decode(_prompt(request({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"})))
    transcript = prompt.removesuffix("<|start|>assistant")

    def codes(text: str) -> list[str]:
        return replay(encoding().encode(text, allowed_special="all") if as_ids else text)._meta["findings"]["codes"]

    assert "stop-token" not in codes(prompt)
    assert "stop-token" in codes(transcript)


def test_parse_of_a_conversation_places_findings_in_its_rendering(cli, tmp_path):
    """parse renders a conversation JSON as it is (no handover): its findings say they are in the rendered conversation."""
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"messages": [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {"role": "assistant", "channel": "commentary", "recipient": "get_weather", "content_type": "<|constrain|>json",
         "content": [{"type": "text", "text": '{"city": "Paris"}'}]},
    ]}))
    rc, _out, err = cli("parse", str(path))
    assert rc == 0
    assert f"{path}: in the rendered conversation, line 1, column 40: warning recipient-without-namespace" in err
    assert f"{path}:1:40" not in err
