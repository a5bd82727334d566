"""The structured-output family (issue 34 item 6): the engine generates under its own grammar, and the stream must still be Harmony.

The envelope check is held on written streams; the family runs through a real llama.cpp server
(its grammar sampled on the tiny random model, three seeds a case) against the shipped known
divergences; the reference server and SGLang's parser have no generation to ask.
"""

from __future__ import annotations

import pytest

from harmony_viz.conformance import KNOWN_DIR, Target, load_suite, read_known, run_suite, select
from harmony_viz.conformance import STRUCTURED_API, envelope_codes
from harmony_viz.conformance import STRUCTURED_CODES as CODES
from harmony_viz.tokens import encode

SCHEMA = {"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}}}
TOOLS = {"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}
CALL = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}'


@pytest.mark.parametrize(("text", "request_", "codes"), [
    ('<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>{"ok":true}<|return|>', SCHEMA, ()),
    ('<|channel|>final <|constrain|>json<|message|>{"ok":true}<|return|>', SCHEMA, ()),
    ('<|channel|>final<|message|>{"ok":', SCHEMA, ()),  # cut by max_tokens inside the JSON: a well-formed prefix
    ('{"ok":true}<|return|>', SCHEMA, ("json-not-final", "missing-message", "no-channel-header")),  # JSON from the first token (sglang#31019)
    ("<|channel|>final<|message|>not json<|return|>", SCHEMA, ("final-not-json",)),
    ("<|channel|>analysis<|message|>x<|end|><|start|>assistant" + CALL + "<|call|>", SCHEMA, ("json-not-final",)),
    ("<|channel|>finalxyz", SCHEMA, ("bad-channel",)),  # cut inside a header whose channel runs into a content type
    (CALL + "<|call|>", {**TOOLS, "tool_choice": "required"}, ()),
    ("<|channel|>final<|message|>Hi<|return|>", {**TOOLS, "tool_choice": "required"}, ("call-missing",)),
    (CALL + "<|call|>", {**TOOLS, "tool_choice": {"type": "function", "function": {"name": "get_time"}}}, ("call-wrong-function",)),
    (CALL + "<|return|>", {**TOOLS, "tool_choice": "required"}, ("call-ended-by-return", "stop-token-wrong")),
    ("<|channel|>analysis to=functions.get_weather<|message|>{}<|call|>", {**TOOLS, "tool_choice": "required"}, ("call-on-analysis",)),
])
def test_the_envelope_of_a_written_stream(text: str, request_: dict, codes: tuple[str, ...]) -> None:
    ids = encode(text)
    assert envelope_codes(ids, None, request_) == codes


def test_the_family_and_its_codes() -> None:
    cases = select(load_suite(), "structured/*")
    assert len(cases) >= 6 and all(c.kind == "structured" and c.ids is None and len(c.seeds) >= 2 and c.rules for c in cases)
    asked = [c.request.get("response_format", {}).get("type") or c.request.get("tool_choice") for c in cases]
    assert {"json_object", "json_schema", "required"} <= {a for a in asked if isinstance(a, str)} and any(isinstance(a, dict) for a in asked)
    assert any(t["function"].get("strict") for c in cases for t in c.request.get("tools", []))
    assert all(severity == "error" for severity, _ in CODES.values())


def test_an_offline_engine_generates_nothing() -> None:
    outs = run_suite(select(load_suite(), "structured/*"), [Target(engine="sglang")])
    assert outs and {o.status for o in outs} == {"not-served"} and {o.api for o in outs} == {STRUCTURED_API}


def _known() -> dict:
    out: dict = {}
    for f in sorted(KNOWN_DIR.glob("*.jsonl")):
        out.update(read_known(f))
    return out


@pytest.mark.server
def test_structured_output_through_llama_cpp(llama_server) -> None:  # noqa: ANN001
    cases = select(load_suite(), "structured/*")
    outs = run_suite(cases, [Target(engine="llama.cpp", url=llama_server.url)], known=_known())
    assert [o.case.id for o in outs] == [c.id for c in cases]
    assert {o.status for o in outs} <= {"pass", "fail", "known"}, [(o.case.id, o.status, o.reason) for o in outs]
    for o, c in zip(outs, cases):
        gens = o.check.generations
        assert [g.seed for g in gens] == list(c.seeds)
        for g in gens:
            assert g.error or g.ids, (c.id, g.seed)  # every seed either generated tokens or was refused with the server's line
            if not g.error:  # the codes are the stream's own: the ids the engine returned, read again
                assert g.finish_reason in ("stop", "length", "tool_calls") and envelope_codes(g.ids, g.finish_reason, c.request) == g.codes
                assert (g.finish_reason == "length") == (g.ids[-1] not in (200002, 200012))
        assert set(o.codes) == {f.code for f in o.check.discrepancies}
    by = {o.case.name: o for o in outs}
    # a named tool_choice is read as auto by this llama.cpp: the free output fails its own parser (HTTP 500) on every seed
    assert by["tool-choice-named"].codes == ("server-error",) and all("peg-native" in (g.error or "") for g in by["tool-choice-named"].check.generations)
    print({o.case.id: (o.status, o.codes) for o in outs})


@pytest.mark.server
def test_the_reference_server_has_no_structured_output(gpt_oss_server) -> None:  # noqa: ANN001
    outs = run_suite(select(load_suite(), "structured/*"), [Target(engine="gpt-oss", url=gpt_oss_server.url)])
    assert {o.status for o in outs} == {"not-served"} and all(o.engine_version for o in outs)


@pytest.mark.server
def test_structured_output_through_vllm(replay_server) -> None:  # noqa: ANN001
    cases = select(load_suite(), "structured/*")
    outs = run_suite(cases, [Target(engine="vllm", url=replay_server.url)], known=_known())
    assert {o.status for o in outs} <= {"pass", "fail", "known"}, [(o.case.id, o.status, o.reason) for o in outs]
    for o, c in zip(outs, cases):
        assert [g.seed for g in o.check.generations] == list(c.seeds)
        for g in o.check.generations:
            assert g.error or g.ids, (c.id, g.seed)  # vLLM returns the generated ids (return_token_ids), or its error line
            if not g.error:
                assert envelope_codes(g.ids, g.finish_reason, c.request) == g.codes
    print({o.case.id: (o.status, o.codes) for o in outs})
