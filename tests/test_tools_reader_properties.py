"""The tools reader reads what the renderers write: ours and openai-harmony's, nasty text included (issue 25).

Generated tool sets (names, parameters whose descriptions and defaults hold newlines, quotes,
``*/``, ``//``, braces and ``*** End Patch``; nested objects, arrays, enums, optional and
nullable parameters) are rendered, then read back: the same tool names and parameter names
come out, and lint finds nothing wrong with the tools.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from _tool_schemas import objects

from harmony_viz._lint import declared_tools, lint
from harmony_viz._lint import read_typescript
from harmony_viz.render import Conversation, DeveloperContent, Message, SystemContent, ToolDescription, render_text

# Codes that say the prompt's tools were misread; none may appear on a render of ours.
TOOL_CODES = {"tools-unreadable", "undeclared-tool", "routing-line-missing", "routing-line-unused", "tools-unexpected-message", "unknown-argument"}

# Pieces of real prompts that broke the reader: a patch tool's default, comment markers,
# braces and quotes. No ": " pairs: a description line 'a: b,' under openai-harmony's
# first-line-only '//' is indistinguishable from a field, in any reader.
_FRAGMENTS = ["\n", '"', "*/", "/*", "//", "{", "}", "[", "]", "*** Begin Patch", "*** End Patch", "@@", "-    return 1", "+x", "a", "b c", " ", "'", "=>", "|", ";"]
_nasty = st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=8).map("".join)
_words = st.text(alphabet="abcdefghij klm", min_size=1, max_size=10).map(str.strip).filter(bool)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


def _decorate(base: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda schema, desc: {**schema, **({"description": desc} if desc is not None else {})}, base, st.none() | _nasty)


_leaf = st.one_of(
    st.sampled_from([{"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "boolean"}, {"type": ["string", "null"]}, {"type": "string", "nullable": True}]),
    st.builds(lambda d: {"type": "string", "default": d}, _nasty),
    st.lists(_words, min_size=1, max_size=3, unique=True).map(lambda vs: {"type": "string", "enum": vs}),
    st.builds(lambda d: {"type": "integer", "default": d}, st.integers(-5, 5)),
)


_schema = st.recursive(
    _decorate(_leaf),
    lambda children: st.one_of(
        objects(children),
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(lambda a, b: {"oneOf": [a, b]}, st.sampled_from([{"type": "string"}, {"type": "number"}]), st.sampled_from([{"type": "boolean"}, {"type": "null"}])),
    ),
    max_leaves=6,
)
_tool_sets = st.lists(st.tuples(_names, _nasty, st.none() | objects(_schema)), min_size=1, max_size=3, unique_by=lambda t: t[0])


def _conversation(tools: list[tuple[str, str, dict[str, Any] | None]]) -> Conversation:
    descs = [ToolDescription.new(name, desc, params) for name, desc, params in tools]
    return Conversation.from_messages(
        [
            Message.from_role_and_content("system", SystemContent.new()),
            Message.from_role_and_content("developer", DeveloperContent.new().with_function_tools(descs)),
            Message.from_role_and_content("user", "hi"),
        ]
    )


def _calls(tools: list[tuple[str, str, dict[str, Any] | None]]) -> str:
    return "".join(f'<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{{}}<|call|>' for name, _d, _p in tools)


def _params(params: dict[str, Any] | None) -> list[str] | None:
    return list(params.get("properties", {})) if params is not None else None


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_tool_sets)
def test_our_render_reads_back(tools):
    text = render_text(_conversation(tools))
    note(repr(text[text.find("# Tools") :]))
    read = declared_tools(text)
    assert [t.name for t in read] == [name for name, _d, _p in tools]
    assert [_params(t.parameters) for t in read] == [_params(p) for _n, _d, p in tools]
    found = lint(text + _calls(tools))
    assert [(d.code, d.message) for d in found if d.code in TOOL_CODES] == []


@_SETTINGS
@given(_tool_sets)
def test_string_defaults_read_back_exactly(tools):
    """A top-level string default (a patch template) comes back character for character."""
    text = render_text(_conversation(tools))
    note(repr(text[text.find("# Tools") :]))
    for t, (_n, _d, params) in zip(declared_tools(text), tools):
        for key, sub in (params or {}).get("properties", {}).items():
            if "default" in sub and isinstance(sub["default"], str) and "enum" not in sub:
                assert t.parameters["properties"][key]["default"] == sub["default"]


@_SETTINGS
@given(_tool_sets)
def test_openai_harmony_render_reads_back(reference_encoding, tools):
    oh = pytest.importorskip("openai_harmony")
    descs = [oh.ToolDescription.new(name, desc, parameters=params) for name, desc, params in tools]
    conv = oh.Conversation.from_messages(
        [
            oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new()),
            oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools(descs)),
            oh.Message.from_role_and_content(oh.Role.USER, "hi"),
        ]
    )
    text = reference_encoding.decode_utf8(reference_encoding.render_conversation(conv))
    assert text == render_text(_conversation(tools))  # the two renderers agree, so one reader serves both
    read = declared_tools(text)
    assert [(t.name, _params(t.parameters)) for t in read] == [(name, _params(p)) for name, _d, p in tools]
    assert [d.code for d in lint(text + _calls(tools)) if d.code in TOOL_CODES] == []


def test_apply_patch_default_that_ends_in_end_patch():
    """The real prompt of the issue: a patch tool whose default runs over lines and ends in '*** End Patch'."""
    patch = '*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return {"a": 1} // old */\n+    return 2\n*** End Patch'
    params = {
        "type": "object",
        "properties": {"input": {"type": "string", "description": "The patch.\nUse the format below.", "default": patch}, "pid": {"type": "integer"}},
        "required": ["input"],
    }
    tools = [("apply_patch", "Apply a patch.", params), ("ls", "List.", {"type": "object", "properties": {"path": {"type": "string"}}})]
    text = render_text(_conversation(tools))
    patch_tool, ls = declared_tools(text)
    assert (patch_tool.name, ls.name) == ("apply_patch", "ls")
    assert patch_tool.parameters["properties"]["input"]["default"] == patch
    call = '<|start|>assistant<|channel|>commentary to=functions.apply_patch <|constrain|>json<|message|>' + json.dumps({"input": patch}) + "<|call|>"
    assert [d.code for d in lint(text + call) if d.code in TOOL_CODES | {"schema-violation"}] == []


@pytest.mark.parametrize(
    "body",
    [
        "type f = (_: {\npid: integer,\nwhen?: Date | null,\ntags: string[],\n}) => any;",  # names real prompts use
        "type f = (_: { pid: number, opts?: {a: string, b?: boolean} }) => any;",  # all on one line
        "// F.\ntype f = (_: {\n// cities\ncities: Array<string>,\nmode?: \"a\" | \"b\", // default: \"a\"\n}) => any;",
    ],
)
def test_hand_written_declarations(body):
    tools, problems = read_typescript(f"namespace functions {{\n\n{body}\n\n}} // namespace functions")
    assert [t.name for t in tools] == ["f"] and problems == []
    assert tools[0].parameters is not None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='type f=(_:{}),;|"/*\n ?abc', max_size=120))
def test_arbitrary_namespace_text_never_raises(junk):
    tools, problems = read_typescript(f"namespace functions {{\n{junk}\n}} // namespace functions")
    for p in problems:
        assert p.line >= 1 and p.column >= 1 and "\n" not in p.message
