"""The leak guard: transport escaping (plain, bytes and JSON), the detector's signals, repair."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.leak import detect_leak, escape, escape_bytes, escape_json, repair_reasoning_leak, unescape, unescape_bytes, unescape_json
from harmony_viz.tokens import SPECIAL_SPELLINGS, special_spellings_in

# The format's names, the o200k specials the format does not use, and reserved ids from the
# whole range (issue 32: every spelling the encoding reads as a special token is a control spelling).
SOME_SPELLINGS = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>",
                  "<|endoftext|>", "<|startoftext|>", "<|endofprompt|>", "<|reserved_200000|>", "<|reserved_200013|>", "<|reserved_201087|>"]
spellings = st.one_of(st.sampled_from(SOME_SPELLINGS), st.sampled_from(sorted(SPECIAL_SPELLINGS)))


def escaped(spelling: str, times: int = 1) -> str:
    return spelling.replace("|", "\\" * times + "|", 1)[::-1].replace("|", "|" + "\\" * times, 1)[::-1]


ESCAPED_SPELLINGS = [escaped(s) for s in SOME_SPELLINGS]

# Text rich in near-misses: control spellings, escaped once or more, their pieces, backslashes and bars.
pieces = st.one_of(
    spellings,
    st.builds(escaped, spellings, st.integers(1, 3)),
    st.sampled_from(["<|", "|>", "<", "|", ">", "\\", "\\|", "<\\|", "start", "end|>", "<|<|end|>", "<|reserved_201088|>", "<|nope|>", '"', "\n", "\r\n", "\r", "\ufeff", "\x00"]),
    st.text(max_size=8),
)
texts = st.lists(pieces, max_size=12).map("".join)


def test_escaped_helper():
    assert escaped("<|end|>") == "<\\|end\\|>"
    assert escaped("<|end|>", 2) == "<\\\\|end\\\\|>"


def test_escape_examples():
    assert escape("<|start|>assistant<|channel|>final<|message|>hi<|return|>") == "<\\|start\\|>assistant<\\|channel\\|>final<\\|message\\|>hi<\\|return\\|>"
    assert escape("<|constrain|>json <|call|> <|end|>") == "<\\|constrain\\|>json <\\|call\\|> <\\|end\\|>"
    # issue 32: every special token of o200k_harmony, not only the format's seven names
    assert escape("<|reserved_200014|> <|endoftext|> <|startoftext|> <|endofprompt|> a|b") == "<\\|reserved_200014\\|> <\\|endoftext\\|> <\\|startoftext\\|> <\\|endofprompt\\|> a|b"
    # not special in o200k_harmony: left alone (201088 is past the vocabulary, 200002 is spelled <|return|>)
    assert escape("<|reserved_201088|> <|reserved_200002|> <|nope|> <|END|>") == "<|reserved_201088|> <|reserved_200002|> <|nope|> <|END|>"
    assert unescape("<\\|call\\|>") == "<|call|>"


def test_every_special_spelling_is_escaped_and_back():
    for spelling in SPECIAL_SPELLINGS:
        out = escape(f"a{spelling}b")
        assert out == f"a{escaped(spelling)}b" and unescape(out) == f"a{spelling}b"


@given(texts)
def test_escape_leaves_no_control_spelling_and_unescape_gives_the_text_back(text):
    once = escape(text)
    assert not list(special_spellings_in(once))
    assert unescape(once) == text
    assert unescape(escape(once)) == once


@given(st.binary(max_size=200) | st.lists(st.one_of(texts.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=6)), max_size=6).map(b"".join))
def test_escape_bytes_round_trips_any_bytes(data):
    out = escape_bytes(data)
    assert unescape_bytes(out) == data
    assert not list(special_spellings_in(out.decode("utf-8", "surrogateescape")))


def test_escape_bytes_keeps_every_other_byte():
    data = b"\xef\xbb\xbfa\r\nb\rc\x00\xff<|endoftext|>"
    assert escape_bytes(data) == b"\xef\xbb\xbfa\r\nb\rc\x00\xff<\\|endoftext\\|>"


def test_an_escaped_spelling_goes_one_level_deeper_and_comes_back():
    # Data that already held an escaped spelling stays data: escaping is injective, not idempotent.
    text = "<\\|end\\|>"
    assert escape(text) == "<\\\\|end\\\\|>"
    assert unescape(escape(text)) == text
    assert unescape(text) == "<|end|>"
    assert escape("<\\\\|end\\|>") == "<\\\\|end\\|>"  # unequal backslashes: no escaped spelling, kept


# JSON documents whose strings (keys too) are made of the same pieces.
json_strings = texts
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), json_strings),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(json_strings, inner, max_size=4)),
    max_leaves=12,
)


def map_strings(value, fn):
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {fn(k): map_strings(v, fn) for k, v in value.items()}
    return value


@given(json_values, st.booleans(), st.sampled_from([None, 2]))
def test_json_escape_keeps_the_document_valid_and_each_string_plain_escaped(value, ascii_only, indent):
    doc = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    out = escape_json(doc, strict=True)
    assert json.loads(out) == map_strings(json.loads(doc), escape)
    assert unescape_json(out) == doc  # byte for byte, escaped spellings in the data included


def test_json_escape_sees_through_unicode_escapes_and_keeps_the_rest():
    doc = '{"a": "\\u003c|call|> \\u00e9\\ud83d\\ude00", "n": 1.50}'
    out = escape_json(doc)
    assert out == '{"a": "<\\\\|call\\\\|> \\u00e9\\ud83d\\ude00", "n": 1.50}'
    assert json.loads(out)["a"] == escape(json.loads(doc)["a"])


def test_json_escape_of_malformed_documents():
    with pytest.raises(ValueError, match=r"^not valid JSON: Unterminated string starting at line 1, column 7; pass strict=False"):
        escape_json('{"a": "<|end|>', strict=True)
    with pytest.raises(ValueError, match=r"^not valid JSON: nested too deep to read"):
        escape_json("[" * 100_000 + "]" * 100_000, strict=True)
    # Best effort on truncated tool arguments: the open string is still escaped.
    assert escape_json('{"a": "<|end|>') == '{"a": "<\\\\|end\\\\|>'


# --- Detector -------------------------------------------------------------------------------


def verdict(text, surface="assistant_text"):
    report = detect_leak(text, surface)
    return report.leak, list(report.signals)


@pytest.mark.parametrize(
    ("text", "surface", "expected"),
    [
        # H alone trips on text and thinking.
        ("Sure.<|end|><|start|>assistant<|channel|>final<|message|>Hi", "assistant_text", (True, ["H"])),
        ("Let me think <|channel|>analysis", "assistant_thinking", (True, ["H"])),
        # M with a channel word (C), glitch token (G), script mixing (S), cascade (B), fake results (R).
        ("I'll edit it now. commentary to=functions.edit", "assistant_text", (True, ["M", "C"])),
        ("ok RTLU to=functions.read then", "assistant_text", (True, ["M", "G"])),
        ("Next I check the file contents to=functions.read 大发 and then continue with the plan as written here", "assistant_text", (True, ["M", "S"])),
        ("to=functions.edit code\n{}\nmore to=functions.edit", "assistant_text", (True, ["M", "B"])),
        ("to=functions.python code_output\nCell 3: 42", "assistant_thinking", (True, ["M", "R"])),
        # Tool arguments: a marker trips only after the valid JSON (T). OMP errata example.
        ('{"path": "a.py", "edits": []} analysis to=functions.edit code 大发', "tool_arg", (True, ["M", "C", "S", "T"])),
        ('{"path": "a.py"}<|end|><|start|>assistant', "tool_arg", (True, ["H", "T"])),
        # A raw control spelling trips anywhere in the arguments, JSON or not.
        ('{"doc": "<|start|>assistant commentary to=functions.x"}', "tool_arg", (True, ["H", "M", "C"])),
        ('{"city": "Paris<|call|>', "tool_arg", (True, ["H"])),
        ("Paris<|call|>", "tool_arg", (True, ["H"])),
        # issue 32: every special token of o200k_harmony is a control spelling, on every surface.
        ("The answer is 4.<|endoftext|><|endoftext|>", "assistant_text", (True, ["H"])),
        ("<|startoftext|>think", "assistant_thinking", (True, ["H"])),
        ('{"city": "Paris<|reserved_200013|>"}', "tool_arg", (True, ["H"])),
        ('{"city": "Paris"}<|endofprompt|>', "tool_arg", (True, ["H", "T"])),
    ],
)
def test_leak_positives(text, surface, expected):
    assert verdict(text, surface) == expected


@pytest.mark.parametrize(
    ("text", "surface", "expected"),
    [
        # Documentation and prose that mention the marker: bare M never trips.
        ("The recipient is written as to=functions.get_weather after the channel.", "assistant_text", (False, ["M"])),
        ("In Harmony a call looks like to=functions.x and ends with a stop token.", "assistant_thinking", (False, ["M"])),
        # Fenced examples and inline code are exempt.
        ("Example:\n```\n<|start|>assistant<|channel|>commentary to=functions.x<|message|>{}<|call|>\n```\nThat's it.", "assistant_text", (False, [])),
        ("~~~text\ncommentary to=functions.edit\n~~~", "assistant_text", (False, [])),
        ("Escape `<|end|>` and write `commentary to=functions.x` literally.", "assistant_text", (False, [])),
        # Tool arguments are data: a marker inside the valid JSON is not a leak, nor an escaped control spelling.
        ('{"doc": "commentary to=functions.x"}', "tool_arg", (False, ["M", "C"])),
        ('{"doc": "<\\\\|start\\\\|>assistant"}', "tool_arg", (False, [])),
        ("print('to=functions.x')", "tool_arg", (False, ["M"])),
        ("<|reserved_201088|> and <|endof_text|> are not tokens of the encoding", "assistant_text", (False, [])),
        ('{"doc": "<\\\\|endoftext\\\\|>"}', "tool_arg", (False, [])),
        ("", "assistant_text", (False, [])),
    ],
)
def test_leak_negatives(text, surface, expected):
    assert verdict(text, surface) == expected


def test_detector_reports_spans_and_rejects_unknown_surfaces():
    text = "ok commentary to=functions.edit"
    report = detect_leak(text)
    assert [(f.letters, text[f.start : f.end]) for f in report.findings] == [(("M", "C"), "to=functions.edit")]
    with pytest.raises(ValueError, match="unknown surface 'tool'; expected one of assistant_text, assistant_thinking, tool_arg"):
        detect_leak("x", "tool")  # type: ignore[arg-type]


@pytest.mark.parametrize("surface", ["assistant_text", "assistant_thinking", "tool_arg"])
def test_every_special_spelling_is_a_leak_on_every_surface(surface):
    for spelling in SPECIAL_SPELLINGS:
        report = detect_leak(f'{{"a": "x{spelling}"}}', surface)
        assert report.leak and [f.text for f in report.findings] == [spelling]
        assert not detect_leak(f'{{"a": "x{escape(spelling)}"}}', surface).leak


def test_a_tool_argument_nested_too_deep_is_no_crash():
    report = detect_leak("[" * 100_000 + "<|end|>", "tool_arg")
    assert report.leak and report.signals == ("H",)


def test_explicit_parsed_end():
    text = "edit a.py\nanalysis to=functions.edit"
    assert detect_leak(text, "tool_arg").leak is False  # not JSON: no boundary, inert
    assert detect_leak(text, "tool_arg", parsed_end=9).signals == ("M", "C", "T")


# --- Repair ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected_content", "expected_reasoning"),
    [
        ("<|channel|>analysis<|message|>Need weather.<|end|>It is sunny.", "It is sunny.", "Need weather."),
        (
            "<|start|>assistant<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>",
            "It is sunny.",
            "Need weather.",
        ),
        ("<|channel|>analysis<|message|>A<|start|>assistant<|channel|>final<|message|>B", "B", "A"),
        # sglang#9244: special tokens stripped.
        ("analysisThe user greets. Reply.assistantfinalHello! How can I help?", "Hello! How can I help?", "The user greets. Reply."),
    ],
)
def test_repair_moves_leaked_analysis_to_reasoning(content, expected_content, expected_reasoning):
    fixed = repair_reasoning_leak(content)
    assert (fixed.content, fixed.reasoning) == (expected_content, expected_reasoning)
    assert fixed.changed
    assert not detect_leak(fixed.content).leak


def test_repair_appends_to_existing_reasoning_and_leaves_clean_text_alone():
    assert repair_reasoning_leak("<|channel|>analysis<|message|>B<|end|>x", "A").reasoning == "A\nB"
    for clean in ("It is sunny.", "Use `<|channel|>analysis<|message|>` to open reasoning.", "```\n<|channel|>analysis<|message|>x<|end|>\n```", "analysis shows it; final answer: 4"):
        fixed = repair_reasoning_leak(clean)
        assert (fixed.content, fixed.reasoning, fixed.changed) == (clean, "", False)


@given(texts, st.sampled_from(["assistant_text", "assistant_thinking", "tool_arg"]))
def test_detector_and_repair_never_raise_and_escaped_text_never_trips_h(text, surface):
    report = detect_leak(text, surface)
    assert set(report.signals) <= {"H", "M", "C", "G", "S", "B", "R", "T"}
    if surface == "tool_arg":  # any control token, JSON or not; a marker only after the JSON value
        assert report.leak == ("T" in report.signals or "H" in report.signals)
    else:
        assert report.leak == any("H" in f.letters or len(f.letters) > 1 for f in report.findings)
    assert "H" not in detect_leak(escape(text), surface).signals
    repair_reasoning_leak(text)


def test_a_control_token_in_arguments_that_are_not_json_is_a_leak():
    """Defect: ``{"city": "Paris<|call|>`` (the call's stop token swallowed into unfinished JSON) gave no leak."""
    from harmony_viz.leak import detect_leak

    broken = detect_leak('{"city": "Paris<|call|>', "tool_arg")
    assert broken.leak and "H" in broken.to_json()["signals"]
    assert not detect_leak('{"city": "Paris"}', "tool_arg").leak
    assert not detect_leak("plain text with no markup", "tool_arg").leak
    # after a whole JSON value, markup is a leak as before (T)
    assert detect_leak('{"city": "Paris"}<|call|>', "tool_arg").leak


def test_control_spellings_in_any_argument_text_json_or_not():
    """Issue 25 item 5b: a control spelling in a call's arguments is found wherever it is, and in JSON strings too."""
    for args in ('{"city": "Paris<|call|>', '{"city": "Paris<|call|>"}', '{"q": ["a", "<|end|>"]}', "city=Paris<|return|>", "<|channel|>"):
        report = detect_leak(args, "tool_arg")
        assert report.leak and report.signals[0] == "H", args
        assert [f.text for f in report.findings if "H" in f.letters] == [m for m in ("<|call|>", "<|end|>", "<|return|>", "<|channel|>") if m in args]
    # the way to carry one: escaped, the JSON still valid
    quoted = escape_json('{"doc": "<|start|>assistant<|message|>"}')
    assert json.loads(quoted) and not detect_leak(quoted, "tool_arg").leak


def test_the_arguments_of_the_real_calls_that_swallowed_markup_leak():
    """anyclaude-local: the call's arguments ran on into `commentary<|message|>We need to read file.` (no <|call|>);
    the scanner's arguments, checked as tool_arg, leak."""
    from harmony_viz.scanner import ToolCallEnd, scan

    stream = '<|channel|>commentary to=functions.Read code<|message|>{"file_path":"/path/to/README.md"}commentary<|message|>We need to read file.<|channel|>'
    (end,) = [e for e in scan(stream, role="assistant").events if type(e) is ToolCallEnd]
    assert "<|message|>" in end.arguments and detect_leak(end.arguments, "tool_arg").leak
