"""The lints flag what chat templates do to calls: arguments encoded twice, `json` without <|constrain|>."""

from __future__ import annotations

import pytest
from _templates import DATE, WEATHER, call, real_template, request

from harmony_viz._lint import CODES, lint
from harmony_viz.templates import render_ours, render_template
from harmony_viz.tokens import encoding

REQUEST = request(
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]},
    tools=[WEATHER],
)


def test_codes_are_in_the_table():
    assert CODES["arguments-double-encoded"][0] == "error"
    assert CODES["constrain-missing"][0] == "warning"


def test_a_template_rendered_call_is_flagged_twice():
    pytest.importorskip("transformers")
    text = render_template(real_template(), REQUEST, date=DATE)
    found = {d.code: d for d in lint(text)}
    assert {"arguments-double-encoded", "constrain-missing"} <= set(found)
    assert text[found["arguments-double-encoded"].start:found["arguments-double-encoded"].end] == '"{\\"city\\": \\"Paris\\"}"'
    assert text[found["constrain-missing"].start:found["constrain-missing"].end] == (
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>")
    assert "arguments-not-json" not in found  # the specific code, not the generic one


def test_the_same_call_rendered_in_the_format_is_clean():
    ids = render_ours(REQUEST, date=DATE)
    codes = {d.code for d in lint(ids)}
    assert not codes & {"arguments-double-encoded", "constrain-missing", "arguments-not-json"}
    # token ids and text give the same findings
    assert {d.code for d in lint(encoding().decode(ids))} == codes


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('"{\\"city\\": \\"Paris\\"}"', "arguments-double-encoded"),
        ('"Paris"', "arguments-not-json"),  # a JSON string, but not one holding an object
        ('"[1, 2]"', "arguments-not-json"),
    ],
)
def test_only_a_string_holding_an_object_is_double_encoded(body, code):
    text = f"<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{body}<|call|>"
    codes = [d.code for d in lint(text, role="assistant")]
    assert code in codes and ({"arguments-double-encoded", "arguments-not-json"} - {code}).isdisjoint(codes)
    assert "constrain-missing" not in codes
