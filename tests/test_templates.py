"""Template lens: every code, produced by a conversation rendered through the real gpt-oss template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _templates import DATE, WEATHER, call, real_template, request

from harmony_viz.templates import CODES, ChatTemplate, LensError, TemplateSourceError, compare, load_template, template_from_model

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def template():
    return real_template()


def codes(result) -> list[str]:
    return [d.code for d in result.differences]


def one(result, code: str):
    (d,) = [d for d in result.differences if d.code == code]
    return d


def check_quotes(result) -> None:
    for d in result.differences:
        assert d.code in CODES
        assert d.ours in result.ours.text and d.theirs in result.template.text


USER = {"role": "user", "content": "Weather in Paris?"}
TOOL_TURN = (
    USER,
    {"role": "assistant", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny, 21 C"},
)


def test_plain_conversation_shows_only_whitespace(template):
    req = request({"role": "system", "content": "Answer in one word."}, USER, {"role": "assistant", "content": "Sunny."})
    result = compare(req, template, date=DATE)
    assert set(codes(result)) <= {"whitespace", "date-varies"}
    d = one(result, "whitespace")
    # the template ends developer instructions in a blank line where the format does not
    assert (d.ours, d.theirs) == ("# Instructions\n\nAnswer in one word.", "# Instructions\n\nAnswer in one word.\n\n")
    check_quotes(result)


def test_plain_conversation_without_instructions_is_identical(template):
    result = compare(request(USER, {"role": "assistant", "content": "Sunny."}), template, date=DATE)
    assert result.identical and result.differences == ()
    assert result.ours.text == result.template.text
    assert result.ours.text.endswith("<|channel|>final<|message|>Sunny.<|return|>")


def test_date_varies_when_only_the_date_line_differs(template):
    req = request({"role": "system", "content": "Be brief."}, USER, {"role": "assistant", "content": "Sunny."})
    result = compare(req, template, date=DATE, template_date="2026-01-02")
    assert "date-varies" in codes(result) and set(codes(result)) <= {"whitespace", "date-varies"}
    d = one(result, "date-varies")
    assert (d.ours, d.theirs) == (f"Current date: {DATE}", "Current date: 2026-01-02")
    check_quotes(result)


def test_string_arguments_and_results_are_encoded_twice_and_json_loses_constrain(template):
    result = compare(request(*TOOL_TURN, tools=[WEATHER]), template, date=DATE)
    assert codes(result) == ["constrain-missing", "arguments-double-encoded", "tool-result-double-encoded"]
    args = one(result, "arguments-double-encoded")
    assert args.ours == '{"city": "Paris"}' and json.loads(args.theirs) == args.ours
    res = one(result, "tool-result-double-encoded")
    assert (res.ours, res.theirs) == ("sunny, 21 C", '"sunny, 21 C"')
    con = one(result, "constrain-missing")
    assert con.ours.endswith("commentary <|constrain|>json<|message|>") and con.theirs.endswith("commentary json<|message|>")
    check_quotes(result)


def test_object_arguments_are_not_double_encoded(template):
    req = request(USER, {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris", "days": [1, 2]})]},
                  {"role": "tool", "tool_call_id": "c1", "content": {"sky": "sunny"}}, tools=[WEATHER])
    result = compare(req, template, date=DATE)
    assert "arguments-double-encoded" not in codes(result)
    assert "tool-result-double-encoded" not in codes(result)
    assert codes(result) == ["constrain-missing"]


def test_parallel_calls_after_the_first_are_dropped(template):
    req = request(USER, {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris"}), call("c2", "get_weather", {"city": "Lyon"})]},
                  tools=[WEATHER])
    result = compare(req, template, date=DATE)
    d = one(result, "parallel-calls-dropped")
    assert '{"city": "Lyon"}' in d.ours and d.theirs == ""
    assert '"Lyon"' not in result.template.text and '{"city": "Paris"}' in result.template.text
    check_quotes(result)


def test_preamble_with_a_later_final_is_dropped(template):
    req = request(USER, {"role": "assistant", "content": "Let me check.", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]},
                  {"role": "tool", "tool_call_id": "c1", "content": "sunny"}, {"role": "assistant", "content": "Sunny."}, tools=[WEATHER])
    result = compare(req, template, date=DATE)
    d = one(result, "preamble-dropped")
    assert d.ours == "<|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>" and d.theirs == ""
    assert "Let me check." not in result.template.text


def test_preamble_without_a_later_final_becomes_analysis(template):
    # seed 001's example: vLLM hid this preamble as reasoning; the template renders it as reasoning
    search = {"type": "function", "function": {"name": "web_search", "description": "Search the web.",
              "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}
    req = request({"role": "user", "content": "Weather in SF?"},
                  {"role": "assistant", "content": "I'll search for the weather in SF.", "tool_calls": [call("c1", "web_search", {"query": "weather in SF"})]},
                  tools=[search])
    result = compare(req, template, date=DATE)
    d = one(result, "preamble-as-analysis")
    assert d.ours == "<|start|>assistant<|channel|>commentary<|message|>" and d.theirs == "<|start|>assistant<|channel|>analysis<|message|>"
    assert "<|channel|>analysis<|message|>I'll search for the weather in SF.<|end|>" in result.template.text
    assert "<|channel|>commentary<|message|>I'll search for the weather in SF.<|end|>" in result.ours.text
    check_quotes(result)


@pytest.mark.parametrize("field", ["thinking", "reasoning_content"])
def test_last_turn_thinking_is_kept_by_the_template_for_training(template, field):
    req = request(USER, {"role": "assistant", field: "The user wants weather.", "content": "Sunny."})
    result = compare(req, template, date=DATE)
    d = one(result, "analysis-kept")
    assert d.ours == "" and d.theirs == "<|start|>assistant<|channel|>analysis<|message|>The user wants weather.<|end|>"
    # the prompt for the next turn drops it on both sides
    assert compare(req, template, date=DATE, for_completion=True).identical


def test_earlier_thinking_is_dropped_by_the_template_while_a_call_is_pending(template):
    req = request({"role": "user", "content": "Hi"}, {"role": "assistant", "thinking": "Greet back.", "content": "Hello!"}, USER,
                  {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]}, tools=[WEATHER])
    result = compare(req, template, date=DATE)
    d = one(result, "analysis-dropped")
    assert d.ours == "<|start|>assistant<|channel|>analysis<|message|>Greet back.<|end|>" and d.theirs == ""


def test_recipient_layout_with_a_template_that_writes_it_after_the_channel(template):
    # The shipped template writes the recipient in the role section, as openai-harmony does;
    # this variant of it writes what the model writes: the recipient after the channel.
    old = '{{- "<|start|>assistant to=" }}\n            {{- "functions." + tool_call.name + "<|channel|>commentary " }}'
    assert old in template.source
    new = '{{- "<|start|>assistant<|channel|>commentary to=" }}\n            {{- "functions." + tool_call.name + " " }}'
    variant = ChatTemplate(template.source.replace(old, new), "variant")
    req = request(USER, {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]}, tools=[WEATHER])
    result = compare(req, variant, date=DATE)
    d = one(result, "recipient-layout")
    assert d.ours.startswith("<|start|>assistant to=functions.get_weather<|channel|>")
    assert d.theirs.startswith("<|start|>assistant<|channel|>commentary to=functions.get_weather")
    assert "recipient-layout" not in codes(compare(req, template, date=DATE))


def test_schema_text_differs_for_a_default(template):
    tool = {"type": "function", "function": {"name": "roll", "description": "Roll dice.",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}}}
    result = compare(request(USER, tools=[tool]), template, date=DATE)
    d = one(result, "schema-text")
    assert "n?: number, // default: 3\n" in d.ours and "n?: number, // default: 3,\n" in d.theirs
    check_quotes(result)


def test_a_later_system_message_is_other(template):
    req = request(USER, {"role": "assistant", "content": "Sunny."}, {"role": "system", "content": "Answer in French."},
                  {"role": "user", "content": "Merci"})
    result = compare(req, template, date=DATE, for_completion=True)
    d = one(result, "other")
    assert "Answer in French." in d.ours and d.theirs == ""
    assert "Answer in French." not in result.template.text


def test_effort_ignored_by_a_template_that_hard_codes_the_effort(template):
    old = '{{- "Reasoning: " + reasoning_effort + "\\n\\n" }}'
    assert old in template.source
    variant = ChatTemplate(template.source.replace(old, '{{- "Reasoning: medium\\n\\n" }}'), "variant")
    req = request(USER, reasoning_effort="high")
    d = one(compare(req, variant, date=DATE), "effort-ignored")
    assert (d.ours, d.theirs, d.severity) == ("Reasoning: high", "Reasoning: medium", "error")
    assert "effort-ignored" not in codes(compare(req, template, date=DATE))
    # a request that asks for the template's fixed effort sees no difference
    assert "effort-ignored" not in codes(compare(request(USER, reasoning_effort="medium"), variant, date=DATE))


def test_tools_missing_from_a_template_that_drops_them(template):
    old = '{{- render_tool_namespace("functions", tools) }}'
    assert old in template.source
    variant = ChatTemplate(template.source.replace('{{- "# Tools\\n\\n" }}', "").replace(old, ""), "variant")
    req = request({"role": "system", "content": "Be brief."}, USER, tools=[WEATHER])
    result = compare(req, variant, date=DATE)
    d = one(result, "tools-missing")
    assert d.ours.startswith("# Tools") and "type get_weather" in d.ours and d.theirs == "" and d.severity == "error"
    check_quotes(result)
    # without any instructions its developer message is empty: the same code
    result = compare(request(USER, tools=[WEATHER]), variant, date=DATE)
    assert "<|start|>developer<|message|><|end|>" in result.template.text
    assert one(result, "tools-missing").ours.startswith("# Tools")


def test_response_format_missing_from_the_template(template):
    fmt = {"type": "json_schema", "json_schema": {"name": "city", "description": "A city.", "schema": {"type": "object", "properties": {"c": {"type": "string"}}}}}
    req = request({"role": "system", "content": "Answer in JSON."}, USER, response_format=fmt)
    result = compare(req, template, date=DATE)
    d = one(result, "response-format-missing")
    assert d.ours == '# Response Formats\n\n## city\n\n// A city.\n{"type":"object","properties":{"c":{"type":"string"}}}' and d.theirs == ""
    assert d.severity == "warning" and set(codes(result)) <= {"response-format-missing", "whitespace"}
    check_quotes(result)


def test_preamble_moved_before_the_analysis():
    from harmony_viz.templates import compare_renders, render_ours

    req = request(USER, {"role": "assistant", "reasoning": "Look it up.", "content": "Let me check.",
                         "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]}, tools=[WEATHER])
    ours = render_ours(req, date=DATE, for_completion=True)
    text = __import__("harmony_viz.tokens", fromlist=["encoding"]).encoding().decode(ours)
    analysis = "<|start|>assistant<|channel|>analysis<|message|>Look it up.<|end|>"
    preamble = "<|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>"
    assert analysis + preamble in text
    result = compare_renders(ours, text.replace(analysis + preamble, preamble + analysis), side="server")
    (d,) = result.differences
    assert (d.code, d.ours, d.theirs) == ("preamble-moved", preamble, preamble)
    assert d.where.ours != d.where.theirs and "the server" in d.message
    assert d.to_json()["server"] == preamble and set(d.to_json()["where"]) == {"ours", "server"}


def test_every_code_is_covered_by_this_file():
    import inspect
    import sys

    # request-rejected needs a server: tests/test_prompt_check.py covers it
    source = inspect.getsource(sys.modules[__name__]) + (Path(__file__).parent / "test_prompt_check.py").read_text(encoding="utf-8")
    assert [c for c in CODES if f'"{c}"' not in source] == []


def test_template_refusal_is_one_line(template):
    req = request(USER, {"role": "assistant", "content": "a", "thinking": "b", "tool_calls": [call("c1", "get_weather", "{}")]})
    with pytest.raises(LensError, match=r"^template: refuses this conversation: Cannot pass both content and thinking") as info:
        compare(req, template, date=DATE)
    assert "\n" not in str(info.value)


def test_our_renderer_refusal_names_our_side(template):
    with pytest.raises(LensError, match=r"^ours: messages\[0\]\.role: unknown role"):
        compare(request({"role": "robot", "content": "x"}), template, date=DATE)


def test_template_from_model_folder(tmp_path, template):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"chat_template": [{"name": "default", "template": template.source}]}))
    assert template_from_model(tmp_path).source == template.source
    (tmp_path / "chat_template.json").write_text(json.dumps({"chat_template": "{{ messages }}"}))
    assert template_from_model(tmp_path).source == "{{ messages }}"
    (tmp_path / "chat_template.jinja").write_text("{{ messages[0].content }}")
    assert template_from_model(tmp_path).source == "{{ messages[0].content }}"
    with pytest.raises(TemplateSourceError, match="not a folder"):
        template_from_model(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TemplateSourceError, match="holds neither chat_template.jinja nor tokenizer_config.json"):
        load_template(empty)
