"""Literals in tool declarations: one tokenizer of quotes, brackets and comments reads them wherever they stand (issue 33).

The renderers (ours and openai-harmony 0.0.8, the oracle) write an enum's literals without
escaping their quotes; a person or a chat template writes the whole declaration on one line
and escapes quotes as JSON does. Tool sets whose enum values hold quotes, commas, braces and
``//`` are written all three ways, and the reader recovers the same schema from each.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from _tool_schemas import objects
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from harmony_viz._lint import lint, read_typescript
from harmony_viz.render import Conversation, DeveloperContent, Message, ToolDescription, render_text

openai_harmony = pytest.importorskip("openai_harmony")

# A quote that a separator follows would end the literal in the renderers' unescaped text, where
# ``"a" | "b"`` and the one value ``a" | "b`` are the same characters; no reader can tell them apart.
_AMBIGUOUS = re.compile(r'"\s*(\||,|;|\[\]|\)|\}|>)')
_PIECES = ['"', ",", "{", "}", "//", " ", "a", "b c", "|", ":", "'", "(", ")", "[", "]", "<", ">", ";", "=>", "x, y"]
_literals = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join).filter(lambda v: not _AMBIGUOUS.search(v))
_enums = st.lists(_literals, min_size=1, max_size=3, unique=True).map(lambda vs: {"type": "string", "enum": vs})
_leaf = st.one_of(st.sampled_from([{"type": "string"}, {"type": "number"}, {"type": "boolean"}]), _enums)
_schema = st.recursive(
    _leaf,
    lambda children: st.one_of(objects(children, min_size=1), st.builds(lambda items: {"type": "array", "items": items}, children)),
    max_leaves=6,
)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_tool_sets = st.lists(st.tuples(_names, objects(_schema, min_size=1)), min_size=1, max_size=3, unique_by=lambda t: t[0])


def _as_read(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as the reader gives it back: required names in the order of the properties."""
    if schema.get("type") == "array":
        return {"type": "array", "items": _as_read(schema["items"])}
    if schema.get("type") != "object":
        return schema
    props = {name: _as_read(sub) for name, sub in schema["properties"].items()}
    required = [name for name in props if name in schema.get("required", [])]
    return {"type": "object", "properties": props, **({"required": required} if required else {})}


def _by_hand(schema: dict[str, Any]) -> str:
    """The type as a person writes it on one line: literals JSON-quoted, objects inline, arrays ``T[]`` or ``Array<union>``."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if schema["type"] == "array":
        items = schema["items"]
        return f"Array<{_by_hand(items)}>" if "enum" in items else f"{_by_hand(items)}[]"
    if schema["type"] == "object":
        required = schema.get("required", [])
        return "{ " + ", ".join(f"{name}{'' if name in required else '?'}: {_by_hand(sub)}" for name, sub in schema["properties"].items()) + " }"
    return schema["type"]


def _namespace(tools: list[tuple[str, dict[str, Any]]]) -> str:
    declarations = "\n\n".join(f"// Tool {name}.\ntype {name} = (_: {_by_hand(params)}) => any;" for name, params in tools)
    return f"namespace functions {{\n\n{declarations}\n\n}} // namespace functions"


def _ours(tools: list[tuple[str, dict[str, Any]]]) -> str:
    developer = DeveloperContent.new().with_function_tools([ToolDescription.new(name, f"Tool {name}.", params) for name, params in tools])
    return render_text(Conversation.from_messages([Message.from_role_and_content("developer", developer)]))


def _reference(encoding: Any, tools: list[tuple[str, dict[str, Any]]]) -> str:
    oh = openai_harmony
    descs = [oh.ToolDescription.new(name, f"Tool {name}.", parameters=params) for name, params in tools]
    msg = oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools(descs))
    return encoding.decode_utf8(encoding.render_conversation(oh.Conversation.from_messages([msg])))


def _read(text: str) -> list[tuple[str, dict[str, Any] | None]]:
    tools, problems = read_typescript(text)
    assert problems == []
    return [(t.name, t.parameters) for t in tools]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tool_sets)
def test_literals_read_back_the_same_from_both_renderers_and_by_hand(reference_encoding, tools):
    expected = [(name, _as_read(params)) for name, params in tools]
    ours, reference, by_hand = _ours(tools), _reference(reference_encoding, tools), _namespace(tools)
    note(reference)
    note(by_hand)
    assert ours == reference  # the oracle: our renderer writes what openai-harmony writes
    assert _read(reference) == expected
    assert _read(by_hand) == expected


# The declaration: a quoted enum holding a comma, inside an inline object, written by hand on one line.
_INLINE = 'namespace functions {\n\n// Set options.\ntype configure = (_: { opts: { mode: "say \\"x, y\\" now" | "b" } }) => any;\n\n} // namespace functions'


def _prompt(declaration: str) -> str:
    return f"<|start|>developer<|message|># Tools\n\n## functions\n\n{declaration}<|end|><|start|>user<|message|>go<|end|>"


def _call(arguments: dict[str, Any]) -> str:
    return f"<|start|>assistant<|channel|>commentary to=functions.configure <|constrain|>json<|message|>{json.dumps(arguments)}<|call|>"


def test_the_hand_written_inline_enum_reads_its_schema():
    ((name, params),) = _read(_INLINE)
    assert name == "configure"
    assert params == {"type": "object", "properties": {"opts": {"type": "object", "properties": {"mode": {"type": "string", "enum": ['say "x, y" now', "b"]}},
                                                                "required": ["mode"]}}, "required": ["opts"]}  # fmt: skip


def test_a_call_outside_the_hand_written_enum_is_a_schema_violation():
    outside = [d.message for d in lint(_prompt(_INLINE) + _call({"opts": {"mode": "c"}})) if d.code == "schema-violation"]
    assert outside == ['$.opts.mode in the call to functions.configure: "c" is not one of "say \\"x, y\\" now" or "b"']
    inside = lint(_prompt(_INLINE) + _call({"opts": {"mode": 'say "x, y" now'}}))
    assert [d.code for d in inside if d.code in ("schema-violation", "tools-unreadable")] == []
