"""The scanner on real transcripts: agreement with openai-harmony where it parses, recovery where it raises.

Also holds the corpus loaders the other scanner tests import.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from harmony_viz.scanner import ContentDelta, MessageEnd, MessageStart, scan


def transcripts(corpus: Path) -> dict[str, str]:
    """Every full Harmony transcript in the corpus, by a stable name."""
    out: dict[str, str] = {}
    nd = corpus / "ndurner_gpt-oss-rt-run"
    for stem in ("findings-tournament", "findings-rag"):
        walks = json.loads((nd / f"{stem}.json").read_text(encoding="utf-8"))["harmony_response_walkthroughs"]
        for i, text in enumerate(walks):
            out[f"{stem}[{i}]"] = text
    for path in sorted((nd / "finding5_runs").glob("*.json")):
        out[f"finding5/{path.stem}"] = json.loads(path.read_text(encoding="utf-8"))["output_text"]
    for sub, file in (("unsloth", "unsloth_notebook_outputs/unsloth_gpt-oss_outputs.jsonl"), ("rft", "openai_gpt-oss_rft_notebook/rft_outputs.jsonl")):
        for i, line in enumerate((corpus / file).read_text(encoding="utf-8").splitlines()):
            if line.strip():
                out[f"{sub}[{i}]"] = json.loads(line)["output_text"]
    for path in sorted((corpus / "aldehir_tool_calling").glob("*.md")):
        for i, block in enumerate(re.findall(r"```\n(.*?)```", path.read_text(encoding="utf-8"), re.S)):
            out[f"aldehir/{path.stem}/turn{i + 1}"] = block
    return out


def completions(corpus: Path) -> dict[str, tuple[str, str]]:
    """The finding5 runs split as the server saw them: (prompt text, completion text)."""
    out = {}
    for path in sorted((corpus / "ndurner_gpt-oss-rt-run" / "finding5_runs").glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))
        out[path.stem] = (run["prefill_text"], run["completion_text"])
    return out


def reference_messages(reference_encoding, tokens: list[int], role=None) -> list[dict] | None:
    """openai-harmony's strict parse as JSON dicts, or None when it raises."""
    try:
        msgs = reference_encoding.parse_messages_from_completion_tokens(tokens, role, strict=True)
    except Exception:  # HarmonyError is a RuntimeError; the reference's failure is the data here
        return None
    return [json.loads(m.to_json()) for m in msgs]


def _describe(ours: list[dict], ref: list[dict]) -> str:
    for i, (a, b) in enumerate(zip(ours, ref)):
        if a != b:
            return f"message {i} differs:\n ours {json.dumps(a)[:400]}\n ref  {json.dumps(b)[:400]}"
    return f"{len(ours)} messages vs the reference's {len(ref)}"


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> dict[str, str]:
    """All full transcripts of the corpus."""
    return transcripts(corpus_dir)


@pytest.fixture(scope="module")
def tokenized(corpus: dict[str, str], enc) -> dict[str, list[int]]:
    """The transcripts as token ids."""
    return {name: enc.encode(text, allowed_special="all") for name, text in corpus.items()}


@pytest.fixture(scope="module")
def strict_ok(tokenized, reference_encoding) -> dict[str, list[dict]]:
    """Reference messages of every transcript openai-harmony parses strictly."""
    out = {}
    for name, tokens in tokenized.items():
        ref = reference_messages(reference_encoding, tokens)
        if ref is not None:
            out[name] = ref
    return out


def test_agrees_with_reference_on_every_strictly_parsed_transcript(tokenized, strict_ok):
    assert len(strict_ok) >= 100  # the corpus holds 112 such transcripts; a loader bug would shrink this
    for name, ref in strict_ok.items():
        result = scan(tokenized[name])
        ours = [m.to_json() for m in result.messages]
        assert ours == ref, f"{name}: {_describe(ours, ref)}"
        errors = [d for d in result.diagnostics if d.severity == "error"]
        assert not errors, f"{name}: {errors[:3]}"


def test_text_input_agrees_with_token_input(corpus, tokenized, strict_ok):
    for name in strict_ok:
        by_text = [m.to_json() for m in scan(corpus[name]).messages]
        assert by_text == strict_ok[name], name


def test_aldehir_turns_without_display_separators_agree(corpus, enc, reference_encoding):
    """The aldehir notebook joins messages with blank lines for display; without them the reference parses."""
    checked = 0
    for name, text in corpus.items():
        if not name.startswith("aldehir/"):
            continue
        joined = re.sub(r"(<\|(?:end|call|return)\|>)\n\n(?=<\|start\|>)", r"\1", text).rstrip("\n")
        tokens = enc.encode(joined, allowed_special="all")
        ref = reference_messages(reference_encoding, tokens)
        if ref is None:
            continue
        checked += 1
        result = scan(tokens)
        assert [m.to_json() for m in result.messages] == ref, name
        assert not [d for d in result.diagnostics if d.severity == "error"], name
    assert checked >= 30


def test_separators_are_reported_not_fatal(corpus):
    result = scan(corpus["aldehir/cities_3_cot_true_trial-1/turn1"])
    codes = {d.code for d in result.diagnostics}
    assert codes == {"whitespace-outside-message"}
    assert [m.role for m in result.messages] == ["system", "developer", "user", "assistant", "assistant"]


def test_eleven_ndurner_transcripts_make_the_reference_raise_and_we_recover(tokenized, strict_ok, corpus):
    broken = [n for n in tokenized if (n.startswith("findings-") or n.startswith("finding5/")) and n not in strict_ok]
    assert len(broken) == 11, broken
    for name in broken:
        result = scan(tokenized[name])
        assert any(d.severity == "error" for d in result.diagnostics), name
        # Everything before the broken turn is still read; the user turns all survive.
        users = [m for m in result.messages if m.role == "user"]
        assert len(users) == corpus[name].count("<|start|>user"), name


def test_finding5_completions_agree_with_reference_as_completions(corpus_dir, enc, reference_encoding):
    import openai_harmony

    agreed = 0
    for name, (prompt, completion) in completions(corpus_dir).items():
        assert prompt.endswith("<|start|>assistant"), name
        tokens = enc.encode(completion, allowed_special="all")
        ref = reference_messages(reference_encoding, tokens, openai_harmony.Role.ASSISTANT)
        result = scan(tokens, role="assistant")
        if ref is None:
            assert any(d.severity == "error" for d in result.diagnostics), name
            continue
        agreed += 1
        assert [m.to_json() for m in result.messages] == ref, name
    assert agreed >= 5


def test_finding5_call_to_undeclared_tool_without_namespace(corpus_dir, enc):
    """cyberthreat-17: `to=report_back_to_reception <|constrain|>json`, <|call|> stripped by the server."""
    _, completion = completions(corpus_dir)["cyberthreat-17"]
    result = scan(enc.encode(completion, allowed_special="all"), role="assistant")
    call = result.messages[-1]
    assert call.recipient == "report_back_to_reception"  # as written: no functions. added
    assert call.kind == "tool_call" and call.terminator == "eos"
    codes = {d.code: d.severity for d in result.diagnostics}
    assert codes["recipient-without-namespace"] == "warning"
    assert codes["call-cut-off"] == "warning"
    end = [e for e in result.events if type(e).__name__ == "ToolCallEnd"][0]
    assert end.name == "report_back_to_reception" and end.error is None and set(end.parsed) == {"msg"}


def test_every_token_belongs_to_at_most_one_message(tokenized):
    for name, tokens in tokenized.items():
        owner: dict[int, int] = {}
        for ev in scan(tokens).events:
            if type(ev) in (MessageStart, ContentDelta, MessageEnd):
                for i in range(ev.start, ev.end):
                    assert owner.setdefault(i, ev.message) == ev.message, f"{name}: token {i}"


def test_message_spans_cover_header_body_and_terminator(tokenized):
    tokens = tokenized["findings-rag[0]"]
    spans = defaultdict(list)
    for ev in scan(tokens).events:
        if type(ev) in (MessageStart, ContentDelta, MessageEnd):
            spans[ev.message].append((ev.start, ev.end))
    covered = sorted(i for s in spans.values() for a, b in s for i in range(a, b))
    # A well-formed transcript: every token belongs to exactly one message.
    assert covered == list(range(len(tokens)))


def _rendered_conversations():
    """Conversations built with openai-harmony's own API (the renderer is the oracle's)."""
    from openai_harmony import Author, Conversation, DeveloperContent, Message, ReasoningEffort, Role, SystemContent, ToolDescription

    weather = ToolDescription.new("get_weather", "Obtain the weather for a city.\nReturns °F.", parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    system = Message.from_role_and_content(Role.SYSTEM, SystemContent.new().with_reasoning_effort(ReasoningEffort.HIGH).with_conversation_start_date("2025-10-25"))
    developer = Message.from_role_and_content(Role.DEVELOPER, DeveloperContent.new().with_instructions("Answer briefly. Ünïcödé ✓").with_function_tools([weather]))
    tool_call = [
        Message.from_role_and_content(Role.USER, "Weather in Lima and 東京?"),
        Message.from_role_and_content(Role.ASSISTANT, "Need two calls. 🤖").with_channel("analysis"),
        Message.from_role_and_content(Role.ASSISTANT, "Checking both cities.").with_channel("commentary"),
        Message.from_role_and_content(Role.ASSISTANT, '{"city": "Lima"}').with_channel("commentary").with_recipient("functions.get_weather").with_content_type("<|constrain|>json"),
        Message.from_author_and_content(Author.new(Role.TOOL, "functions.get_weather"), '"Lima: 68F"').with_channel("commentary").with_recipient("assistant"),
        Message.from_role_and_content(Role.ASSISTANT, '{"city": "東京"}').with_channel("commentary").with_recipient("functions.get_weather").with_content_type("json"),
        Message.from_author_and_content(Author.new(Role.TOOL, "functions.get_weather"), '"Tokyo: 59F"').with_channel("commentary").with_recipient("assistant"),
        Message.from_role_and_content(Role.ASSISTANT, "| city | °F |\n|---|---|\n| Lima | 68 |\n| 東京 | 59 |").with_channel("final"),
    ]
    builtin = [
        Message.from_role_and_content(Role.USER, "Compute 2**100."),
        Message.from_role_and_content(Role.ASSISTANT, "print(2**100)").with_channel("analysis").with_recipient("python").with_content_type("code"),
        Message.from_author_and_content(Author.new(Role.TOOL, "python"), "1267650600228229401496703205376").with_channel("analysis").with_recipient("assistant"),
        Message.from_role_and_content(Role.ASSISTANT, "2**100 = 1267650600228229401496703205376").with_channel("final"),
    ]
    return {
        "tool_calls": Conversation.from_messages([system, developer, *tool_call]),
        "builtin_python": Conversation.from_messages([system, *builtin]),
        "plain_chat": Conversation.from_messages([Message.from_role_and_content(Role.USER, "Hi"), Message.from_role_and_content(Role.ASSISTANT, "Hello!").with_channel("final")]),
    }


@pytest.mark.parametrize("name", ["tool_calls", "builtin_python", "plain_chat"])
def test_agrees_on_conversations_rendered_by_openai_harmony(name, reference_encoding, enc):
    conversation = _rendered_conversations()[name]
    tokens = reference_encoding.render_conversation(conversation)
    ref = reference_messages(reference_encoding, tokens)
    # openai-harmony drops analysis before a final when rendering (a known quirk), hence <=.
    assert ref is not None and 2 <= len(ref) <= len(conversation.messages)
    for source in (tokens, enc.decode(tokens)):
        result = scan(source)
        assert [m.to_json() for m in result.messages] == ref
        assert not [d for d in result.diagnostics if d.severity == "error"]
    kinds = [m.kind for m in scan(tokens).messages]
    if name == "tool_calls":
        assert kinds == ["other", "other", "other", "preamble", "tool_call", "tool_result", "tool_call", "tool_result", "final"]


def test_agrees_on_a_conversation_rendered_by_our_renderer(reference_encoding):
    import harmony_viz.render as R
    given = [
        R.Message.from_role_and_content(R.Role.SYSTEM, R.SystemContent.new()),
        R.Message.from_role_and_content(R.Role.USER, "Weather in 東京?"),
        R.Message.from_role_and_content(R.Role.ASSISTANT, "Checking.").with_channel("commentary"),
        R.Message.from_role_and_content(R.Role.ASSISTANT, '{"city": "東京"}').with_channel("commentary").with_recipient("functions.get_weather").with_content_type("<|constrain|>json"),
        R.Message.from_author_and_content(R.Author.new(R.Role.TOOL, "functions.get_weather"), '"59F"').with_channel("commentary").with_recipient("assistant"),
        R.Message.from_role_and_content(R.Role.ASSISTANT, "59F.").with_channel("final"),
    ]
    tokens = list(R.render_conversation(R.Conversation.from_messages(given)))
    result = scan(tokens)
    assert [m.to_json() for m in result.messages] == reference_messages(reference_encoding, tokens)
    assert result.diagnostics == []
    assert [(m.channel, m.recipient, m.text) for m in result.messages[2:]] == [
        ("commentary", None, "Checking."),
        ("commentary", "functions.get_weather", '{"city": "東京"}'),
        ("commentary", "assistant", '"59F"'),
        ("final", None, "59F."),
    ]
