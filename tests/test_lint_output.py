"""Output rules on prompts rendered by openai-harmony (the oracle) with completions appended.

Real transcripts for the rules that have one are in test_lint_corpus.py; the completions
here are written by hand for the rules the corpus has no example of, each with a clean
control case.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz._lint import lint, tools_from_json

oh = pytest.importorskip("openai_harmony")

WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City and state"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "note": {"type": ["string", "null"]},
    },
    "required": ["location"],
}
SEARCH = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


@pytest.fixture(scope="module")
def prompt(reference_encoding) -> str:
    """System + developer (two function tools) + user, rendered by openai-harmony for completion."""
    tools = [oh.ToolDescription.new("get_weather", "Gets the weather.", parameters=WEATHER), oh.ToolDescription.new("search", "Searches the web.", parameters=SEARCH)]
    conv = oh.Conversation.from_messages(
        [
            oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new().with_conversation_start_date("2025-06-28")),
            oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_instructions("Be brief.").with_function_tools(tools)),
            oh.Message.from_role_and_content(oh.Role.USER, "What is the weather in Paris?"),
        ]
    )
    return reference_encoding.decode_utf8(reference_encoding.render_conversation_for_completion(conv, oh.Role.ASSISTANT))


ANALYSIS = "<|channel|>analysis<|message|>Need weather for Paris.<|end|><|start|>assistant"


def _call(recipient: str, body: str, *, channel: str = "commentary", stop: str = "<|call|>") -> str:
    return f"<|channel|>{channel} to={recipient} <|constrain|>json<|message|>{body}{stop}"


def _codes(diags):
    return [(d.code, d.severity) for d in diags]


def _only(diags, code):
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, _codes(diags)
    return found[0]


def test_clean_call_has_no_diagnostics(prompt):
    assert lint(prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris"}')) == []


def test_clean_final_answer_has_no_diagnostics(prompt):
    text = prompt + ANALYSIS + "<|channel|>final<|message|>It is sunny in Paris. Let me know if you need more.<|return|>"
    assert lint(text) == []


def test_undeclared_tool_names_it_and_suggests_the_nearest(prompt):
    text = prompt + ANALYSIS + _call("functions.get_wether", '{"location": "Paris"}')
    d = _only(lint(text), "undeclared-tool")
    assert d.severity == "error"
    assert d.message == "call to undeclared tool 'functions.get_wether'; did you mean functions.get_weather? declared: functions.get_weather, functions.search"
    assert text[d.start : d.end] == "<|start|>assistant<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>"


def test_undeclared_tool_spans_count_tokens_for_token_input(prompt, enc):
    text = prompt + ANALYSIS + _call("functions.get_wether", '{"location": "Paris"}')
    ids = enc.encode(text, allowed_special="all")
    d = _only(lint(ids), "undeclared-tool")
    assert enc.decode(ids[d.start : d.end]) == "<|start|>assistant<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>"


def test_missing_namespace_is_undeclared_with_the_fix(prompt):
    d = _only(lint(prompt + ANALYSIS + _call("get_weather", '{"location": "Paris"}')), "undeclared-tool")
    assert d.message == "call to 'get_weather': the declared tool is functions.get_weather; write to=functions.get_weather"


def test_schema_violations_report_json_paths(prompt):
    text = prompt + ANALYSIS + _call("functions.get_weather", '{"unit": "kelvin"}')
    diags = [d for d in lint(text) if d.code == "schema-violation"]
    assert [(d.severity, d.message) for d in diags] == [
        ("error", '$ in the call to functions.get_weather: "location" is a required property'),
        ("error", '$.unit in the call to functions.get_weather: "kelvin" is not one of "celsius" or "fahrenheit"'),
    ]
    assert text[diags[1].start : diags[1].end] == '"unit":'


def test_unknown_keys_are_errors_when_additional_properties_is_false(prompt):
    strict = dict(SEARCH, additionalProperties=False)
    tools = [{"type": "function", "function": {"name": "search", "parameters": strict}}]
    text = prompt + ANALYSIS + _call("functions.search", '{"query": "paris", "lang": "fr"}')
    d = _only(lint(text, tools=tools), "schema-violation")
    assert d.message == "$ in the call to functions.search: Additional properties are not allowed ('lang' was unexpected)"
    # without additionalProperties: false an extra key is only noted
    assert _codes(lint(text)) == [("unknown-argument", "info")]


def test_a_schema_pointing_at_another_document_is_not_fetched(prompt):
    """A $ref to a URL is named as a schema the lint cannot check, offline, with no request made."""
    remote = {"type": "object", "properties": {"query": {"$ref": "http://127.0.0.1:9/schema.json"}}}
    tools = [{"type": "function", "function": {"name": "search", "parameters": remote}}]
    d = _only(lint(prompt + ANALYSIS + _call("functions.search", '{"query": "paris"}'), tools=tools), "schema-violation")
    assert d.message.startswith("the declared schema of functions.search is itself invalid (") and "the lint does not fetch schemas" in d.message


def test_null_for_an_optional_argument(prompt):
    allowed = lint(prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris", "note": null}'))
    assert [(d.code, d.severity, d.message) for d in allowed] == [("null-optional", "info", "$.note is null in the call to functions.get_weather; leave unset optional arguments out")]
    forbidden = lint(prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris", "unit": null}'))
    assert sorted(d.message for d in forbidden if d.code == "schema-violation") == [
        "$.unit in the call to functions.get_weather: null is not of type \"string\"; leave an unset optional argument out instead of sending null",
        "$.unit in the call to functions.get_weather: null is not one of \"celsius\" or \"fahrenheit\"; leave an unset optional argument out instead of sending null",
    ]


def test_arguments_not_json(prompt):
    text = prompt + ANALYSIS + _call("functions.get_weather", "location=Paris")
    d = _only(lint(text), "arguments-not-json")
    assert d.severity == "error"
    assert d.message == "arguments to functions.get_weather are not JSON (Expecting value at character 0); the body must be one JSON object"


def test_html_escape_quotes_the_entity(prompt):
    text = prompt + ANALYSIS + _call("functions.search", '{"query": "Procter &amp; Gamble"}')
    d = _only(lint(text), "html-escape")
    assert (d.severity, d.message) == ("warning", "&amp; in $.query of the call to functions.search: JSON strings need no HTML escaping; write &")
    assert text[d.start : d.end] == "&amp;"


def test_several_calls_in_one_message(prompt):
    text = prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris"}{"location": "Rome"}')
    d = _only(lint(text), "calls-in-one-message")
    assert d.message == "2 JSON values in one call to functions.get_weather; send each call as its own message ending in <|call|>"
    assert text[d.start : d.end] == '{"location": "Rome"}'


def test_consecutive_calls_each_end_in_call(prompt):
    good = prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris"}') + "<|start|>assistant" + _call("functions.get_weather", '{"location": "Rome"}')
    assert lint(good) == []
    bad = prompt + ANALYSIS + _call("functions.get_weather", '{"location": "Paris"}', stop="<|end|>") + "<|start|>assistant" + _call("functions.get_weather", '{"location": "Rome"}')
    d = _only(lint(bad), "call-terminator")
    assert d.message == "call to functions.get_weather ends in <|end|>, not <|call|>; every call is its own message ending in <|call|>"
    assert bad[d.start : d.end] == "<|end|>"


def test_preamble_ends_in_end(prompt):
    good = prompt + ANALYSIS + "<|channel|>commentary<|message|>Checking the forecast for Paris now.<|end|><|start|>assistant" + _call("functions.get_weather", '{"location": "Paris"}')
    assert lint(good) == []
    bad = prompt + ANALYSIS + "<|channel|>commentary<|message|>Checking the forecast.<|call|>"
    d = _only(lint(bad), "preamble-terminator")
    assert bad[d.start : d.end] == "<|call|>"


def test_function_call_on_analysis_but_builtins_are_fine(prompt):
    text = prompt + _call("functions.get_weather", '{"location": "Paris"}', channel="analysis")
    d = _only(lint(text), "call-on-analysis")
    assert "call to functions.get_weather on the analysis channel" in d.message  # the scanner's finding: lint reports it once
    python = prompt + "<|channel|>analysis to=python code<|message|>print(1)<|call|>"
    assert [d.code for d in lint(python)] == ["undeclared-tool"]  # python is not declared in this prompt
    assert "call-on-analysis" not in [d.code for d in lint(python)]


def test_call_in_a_code_fence_names_the_tool(prompt):
    final = '```json\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n```'
    text = prompt + ANALYSIS + f"<|channel|>final<|message|>Here:\n{final}<|return|>"
    d = _only(lint(text), "call-in-fence")
    assert d.message.startswith("a call to functions.get_weather written inside a code fence in the final answer")
    assert text[d.start : d.end] == final


def test_call_as_json_in_visible_text_found_by_its_arguments(prompt):
    text = prompt + ANALYSIS + '<|channel|>final<|message|>{"location": "Paris", "unit": "celsius"}<|return|>'
    d = _only(lint(text), "call-in-text")
    assert d.message.startswith("a call to functions.get_weather written as JSON in the final answer")
    control = prompt + ANALYSIS + '<|channel|>final<|message|>The config is {"debug": true}.<|return|>'
    assert lint(control) == []


def test_tool_result_written_by_the_model(prompt):
    completion = _call("functions.get_weather", '{"location": "Paris"}') + '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|>'
    d = _only(lint(completion, role="assistant"), "fabricated-tool-result")
    assert d.severity == "error"
    assert completion[d.start : d.end] == '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|>'
    # in a transcript the host's result after <|call|> is fine; after <|end|> the model wrote it
    host = prompt + ANALYSIS + completion + "<|start|>assistant<|channel|>final<|message|>20 degrees.<|return|>"
    assert lint(host) == []
    model = host.replace('"Paris"}<|call|>', '"Paris"}<|end|>')
    assert "fabricated-tool-result" in [d.code for d in lint(model)]


def test_announced_call_without_a_call(prompt):
    text = prompt + ANALYSIS + "<|channel|>final<|message|>Sure. Let me check the current weather in Paris for you.<|return|>"
    d = _only(lint(text), "announced-no-call")
    assert text[d.start : d.end] == "Let me check"
    then_call = prompt + ANALYSIS + "<|channel|>commentary<|message|>Let me check the weather in Paris.<|end|><|start|>assistant" + _call("functions.get_weather", '{"location": "Paris"}')
    assert lint(then_call) == []


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        ("Il fait 20 °C à Paris. Let me check the forecast.", "Let me check"),
        # letters that IGNORECASE reads as i, s and k, though lower() keeps two of them apart: still announcements
        ("Il fait 20 °C à Paris. \u0130'll check the forecast.", "\u0130'll check"),
        ("Il fait 20 °C. Let me \u017fearch the forecast.", "Let me \u017fearch"),
        ("Il fait 20 °C. Let me chec\u212a it.", "Let me chec\u212a"),
    ],
)
def test_announcements_in_text_beyond_ascii(prompt, answer, phrase):
    text = prompt + ANALYSIS + f"<|channel|>final<|message|>{answer}<|return|>"
    d = _only(lint(text), "announced-no-call")
    assert text[d.start : d.end] == phrase


@pytest.mark.parametrize(
    "answer",
    [
        "It is 20 °C in Paris. Let me know if you need anything else.",
        "I'll be happy to help with more questions.",
        "Let me explain: the weather depends on the season.",
        "Let me run through the options:\n\n1. Take an umbrella.\n2. Stay in.\n\nEither works well.",
    ],
)
def test_ordinary_answers_do_not_trip_the_announcement_heuristic(prompt, answer):
    assert lint(prompt + ANALYSIS + f"<|channel|>final<|message|>{answer}<|return|>") == []


def test_stop_token_sanity(prompt):
    text = prompt + ANALYSIS + "<|channel|>final<|message|>Sunny.<|end|>"
    d = _only(lint(text), "stop-token")
    assert d.message == "the completion's last message (4) should end in <|return|>; it ends in <|end|>"
    assert text[d.start : d.end] == "<|end|>"


def test_without_declared_tools_only_the_form_is_checked():
    completion = "<|channel|>analysis<|message|>x<|end|><|start|>assistant" + _call("functions.anything", '{"a": "&lt;b&gt;"}')
    assert _codes(lint(completion, role="assistant")) == [("html-escape", "warning")]
    tools = tools_from_json([{"type": "function", "function": {"name": "other"}}])
    assert _codes(lint(completion, role="assistant", tools=tools))[0] == ("undeclared-tool", "error")


def test_package_name_and_lazy_imports():
    """``harmony_viz.lint`` stays the function after its package is imported, and loads nothing heavy."""
    import subprocess
    import sys

    code = (
        "import sys, harmony_viz, harmony_viz._lint\n"
        "print([d.code for d in harmony_viz.lint('<|start|>assistant<|channel|>final<|message|>hi<|end|>')])\n"
        "print(sorted(m for m in ('pandas', 'plotly', 'torch', 'jsonschema_rs', 'anywidget') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "['stop-token']\n[]\n"


def test_text_ids_and_scan_results_agree(prompt, enc):
    """The same findings whatever the input form; token spans cover the characters text spans cover."""
    from harmony_viz.scanner import scan

    text = prompt + ANALYSIS + _call("functions.search", '{"query": "Procter &amp; Gamble", "n": null}')
    ids = enc.encode(text, allowed_special="all")
    by_text, by_ids, by_scan = lint(text), lint(ids), lint(scan(text))
    assert by_scan == by_text
    assert [(d.code, d.message) for d in by_ids] == [(d.code, d.message) for d in by_text]
    for t, i in zip(by_text, by_ids):
        assert text[t.start : t.end] in enc.decode(ids[i.start : i.end])


_FRAGMENTS = [
    "<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|call|>", "<|return|>", "<|constrain|>",
    "assistant", "user", "system", "developer", "functions.get_weather", " to=functions.get_weather", " to=python",
    "analysis", "commentary", "final", "json", '{"location": "Paris"}', '{"name": "search", "arguments": {}}',
    "{", "}", "```", "\n", "Let me check", " the user ", "&amp;", "null", "namespace functions {", "type f = (_: {",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40), st.sampled_from([None, "assistant"]))
def test_lint_never_raises_and_spans_stay_inside(prompt, parts, role):
    text = "".join(parts)
    for d in lint(text, role=role, check_prompt=True):
        assert 0 <= d.start <= d.end <= len(text), d
    for d in lint(prompt + text):
        assert 0 <= d.start <= d.end <= len(prompt + text), d


def test_reasoning_on_commentary_needs_two_signals_when_a_call_follows():
    """A call after the preamble: one chain-of-thought signal is not enough, two are (issue 16's missed branch)."""
    call = '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>'
    one = "<|channel|>commentary<|message|>The user wants the weather; checking now.<|end|>" + call
    two = "<|channel|>commentary<|message|>The user wants the weather. We need to call the tool.<|end|>" + call
    assert "reasoning-on-commentary" not in {d.code for d in lint(one, role="assistant")}
    (d,) = [d for d in lint(two, role="assistant") if d.code == "reasoning-on-commentary"]
    assert "reads like chain-of-thought" in d.message
    # With no call after it and the final answer next, one signal is enough.
    final = "<|start|>assistant<|channel|>final<|message|>Sunny.<|return|>"
    (d,) = [d for d in lint(one.split("<|start|>")[0] + final, role="assistant") if d.code == "reasoning-on-commentary"]
    assert "the final answer follows" in d.message
