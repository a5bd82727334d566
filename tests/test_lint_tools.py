"""Declared tools: the rendered TypeScript read back, checked against openai-harmony as the oracle."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _tool_schemas import objects

from harmony_viz._lint import DeclaredTool, ToolParseError, tools_from_json, tools_from_typescript
from harmony_viz._lint import read_typescript

openai_harmony = pytest.importorskip("openai_harmony")


def _developer_text(reference_encoding, tools: list[tuple[str, str, dict | None]]) -> str:
    """The body of a developer message rendered by openai-harmony, declaring ``tools``."""
    oh = openai_harmony
    descs = [oh.ToolDescription.new(name, desc, parameters=params) for name, desc, params in tools]
    msg = oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools(descs))
    text = reference_encoding.decode_utf8(reference_encoding.render(msg))
    return text[text.index("<|message|>") + len("<|message|>") : text.rindex("<|end|>")]


def _round_trip(reference_encoding, tools):
    text = _developer_text(reference_encoding, tools)
    parsed = tools_from_typescript(text)
    again = _developer_text(reference_encoding, [(t.name, t.description, t.parameters) for t in parsed])
    return text, parsed, again


# ---- hand-picked shapes, each a quirk of the reference renderer


QUIRKS = {
    "nested objects and required": {"type": "object", "properties": {"o": {"type": "object", "description": "obj desc", "properties": {"p": {"type": "string", "description": "inner", "enum": ["a b", 'c"d']}}, "required": ["p"]}}, "required": ["o"]},
    "array of objects": {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}}},
    "multi-line property description loses its //": {"type": "object", "properties": {"b": {"type": "boolean", "description": "line one\nline two"}}},
    "oneOf with descriptions": {"type": "object", "properties": {"q": {"oneOf": [{"type": "string", "description": "s1"}, {"type": "number"}]}}},
    "oneOf of object and array": {"type": "object", "properties": {"u": {"oneOf": [{"type": "object", "properties": {"k": {"type": "string"}}}, {"type": "array", "items": {"type": "string"}}]}}},
    "title, examples, default": {"type": "object", "properties": {"t": {"type": "string", "title": "T", "description": "D", "examples": ["a"], "default": "b"}}},
    "non-string examples leave a bare heading": {"type": "object", "properties": {"ex": {"type": "integer", "examples": [1, 2]}}},
    "odd property names": {"type": "object", "properties": {"my-key": {"type": "string"}, "a b": {"type": "string", "default": "x y"}}, "required": ["my-key"]},
    "array of enum": {"type": "object", "properties": {"arr": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}}}},
    "type lists, null, Array<any>, any": {"type": "object", "properties": {"t": {"type": ["string", "number"]}, "nn": {"type": ["null"]}, "x": {"type": "array"}, "g": {}, "c": {"const": "k"}}},
    "object default": {"type": "object", "properties": {"de": {"type": "string", "default": {"k": 1}}}},
    "non-object parameters": {"type": "string"},
    "empty object": {"type": "object", "properties": {}},
    "no parameters": None,
}


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_read_back_renders_identically(reference_encoding, name):
    text, parsed, again = _round_trip(reference_encoding, [("f", "Does f.\nSecond line.", QUIRKS[name])])
    assert [t.recipient for t in parsed] == ["functions.f"]
    assert parsed[0].description == "Does f.\nSecond line."
    assert again == text


def test_read_back_keeps_names_required_enums_and_defaults(reference_encoding):
    params = {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
            "format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["location"],
    }
    text = _developer_text(reference_encoding, [("get_location", "Gets the location of the user.", None), ("get_current_weather", "Gets the weather.", params)])
    loc, weather = tools_from_typescript(text)
    assert (loc.name, loc.parameters) == ("get_location", None)
    assert weather.parameters == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
            "format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
        "required": ["location"],
    }
    # spans point at the declaration, comment included
    assert text[weather.start : weather.end].startswith("// Gets the weather.\ntype get_current_weather")
    assert text[weather.start : weather.end].endswith("}) => any;")


def test_builtin_tools_in_the_system_message(reference_encoding):
    oh = openai_harmony
    msg = oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new().with_browser_tool())
    text = reference_encoding.decode_utf8(reference_encoding.render(msg))
    tools = tools_from_typescript(text)
    assert [t.recipient for t in tools] == ["browser.search", "browser.open", "browser.find"]
    assert tools[0].parameters["required"] == ["query"]
    assert tools[1].parameters["properties"]["id"] == {"type": ["number", "string"], "default": -1}


def test_llama_cpp_template_declaration(corpus_dir):
    """The aldehir transcripts were rendered by llama.cpp's template; the same syntax reads back."""
    text = (corpus_dir / "aldehir_tool_calling" / "cities_3_cot_true_trial-1.md").read_text()
    body = text[text.index("# Tools") : text.index("} // namespace functions") + len("} // namespace functions")]
    (tool,) = tools_from_typescript(body)
    assert tool.recipient == "functions.get_weather"
    assert tool.description == "Obtain the weather for a given city."
    assert tool.parameters == {"type": "object", "properties": {"city": {"type": "string", "description": "City"}}, "required": ["city"]}


# ---- property: whatever openai-harmony renders reads back into something it renders identically

_words = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=12).map(str.strip).filter(bool)
_descriptions = st.lists(_words, min_size=1, max_size=3).map("\n".join)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


def _decorate(base: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        lambda schema, desc, title: {**schema, **({"description": desc} if desc else {}), **({"title": title} if title else {})},
        base,
        st.none() | _descriptions,
        st.none() | _words,
    )


_leaf = st.one_of(
    st.sampled_from([{"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "boolean"}, {"type": ["string", "null"]}]),
    st.lists(_words, min_size=1, max_size=3, unique=True).map(lambda vs: {"type": "string", "enum": vs}),
    st.builds(lambda d: {"type": "number", "default": d}, st.integers(-5, 5)),
    st.builds(lambda e: {"type": "string", "examples": e}, st.lists(_words, min_size=1, max_size=2)),
)


_schema = st.recursive(
    _decorate(_leaf),
    lambda children: st.one_of(
        _decorate(objects(children)),
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(lambda a, b: {"oneOf": [a, b]}, _leaf, _leaf),
    ),
    max_leaves=8,
)


@given(st.lists(st.tuples(_names, _descriptions, st.none() | objects(_schema)), min_size=1, max_size=3, unique_by=lambda t: t[0]))
def test_any_rendered_declaration_reads_back(reference_encoding, tools):
    text, parsed, again = _round_trip(reference_encoding, tools)
    assert [t.name for t in parsed] == [name for name, _d, _p in tools]
    assert again == text


# ---- JSON sources


def test_openai_tools_array_both_spellings():
    params = {"type": "object", "properties": {"q": {"type": "string"}}}
    chat = [{"type": "function", "function": {"name": "search", "description": "Search.", "parameters": params}}]
    responses = [{"type": "function", "name": "search", "description": "Search.", "parameters": params}]
    expected = [DeclaredTool("functions", "search", "Search.", params)]
    assert tools_from_json(chat) == expected
    assert tools_from_json(responses) == expected
    assert tools_from_json({"model": "gpt-oss", "tools": chat}) == expected


def test_conversation_json_from_openai_harmony():
    oh = openai_harmony
    params = {"type": "object", "properties": {"city": {"type": "integer"}}, "required": ["city"]}
    conv = oh.Conversation.from_messages(
        [
            oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new().with_browser_tool()),
            oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools([oh.ToolDescription.new("w", "Weather.", parameters=params)])),
        ]
    )
    tools = tools_from_json(json.loads(conv.to_json()))
    assert [t.recipient for t in tools] == ["browser.search", "browser.open", "browser.find", "functions.w"]
    assert tools[-1].parameters == params  # exact: integer stays integer


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([{"type": "function", "function": {"description": "x"}}], r"tools\[0\] has no function name"),
        (["search"], r"tools\[0\] is str, expected an object"),
        ({"foo": 1}, r"expected a tools array.*keys foo"),
        (3, "expected a JSON array of tools, got int"),
        ([{"name": "f", "parameters": "string"}], r"tools\[0\] \(f\): 'parameters' must be a JSON Schema object"),
    ],
)
def test_bad_tools_json_names_the_problem(data, match):
    with pytest.raises(ToolParseError, match=match):
        tools_from_json(data)


def test_bad_typescript_says_where_and_goes_on():
    """A namespace with no readable declaration is a problem with its line and column; the others still read."""
    text = "namespace functions {\n\nfunction f() {}\n\n} // namespace functions\n\nnamespace other {\ntype g = () => any;\n} // namespace other"
    tools, problems = read_typescript(text)
    assert [t.recipient for t in tools] == ["other.g"]
    (p,) = problems
    assert (p.namespace, p.line, p.column, p.recovered) == ("functions", 3, 1, False)
    assert "function f() {}" in p.message


def test_unknown_type_names_read_as_named_types():
    (tool,) = tools_from_typescript("namespace functions {\ntype f = (_: {\nwhen: Date,\npid: integer,\nopts?: Record<string, any>,\n}) => any;\n} // namespace functions")
    assert tool.parameters == {"type": "object", "properties": {"when": {}, "pid": {"type": "integer"}, "opts": {"type": "object"}}, "required": ["when", "pid"]}


def test_a_broken_declaration_still_declares_its_tool():
    text = "namespace functions {\n// F.\ntype f = (_: {\nx: string,\n%%% junk\n}) => any;\n\ntype g = () => any;\n} // namespace functions"
    tools, problems = read_typescript(text)
    assert [(t.name, t.parameters) for t in tools] == [("f", None), ("g", None)]
    assert [(p.line, p.recovered) for p in problems] == [(5, True)]


@pytest.mark.parametrize("module", ["harmony_viz._lint"])  # the private modules' examples run in test_doctests
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@given(st.data())
def test_damaged_declarations_never_raise(reference_encoding, data):
    """Lints run on arbitrary prompts: a broken declaration must fail with a readable error, nothing else."""
    text = _developer_text(reference_encoding, [("f", "Does f.", QUIRKS[data.draw(st.sampled_from(sorted(k for k in QUIRKS if QUIRKS[k])))])])
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 30)))
    junk = data.draw(st.text(alphabet='{}[]|:?,"/ \nab', max_size=6))
    damaged = text[:start] + junk + text[end:]
    tools, problems = read_typescript(damaged)  # never raises
    for p in problems:
        # A readable problem: one line that says what was expected or where it broke.
        assert p.message and "\n" not in p.message and "Traceback" not in p.message
        assert p.line >= 1 and p.column >= 1
