"""SGLang's own gpt-oss parser, run offline on the shipped streams (SGLANG.md's table), and the objects we build from it.

The tests need the real SGLang code: the venv of scripts/install-sglang-parser.sh (or
HARMONY_VIZ_SGLANG_PYTHON). Without it they skip, unless HARMONY_VIZ_REQUIRE_SERVER=1 (CI).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from _lens import REQUEST, STREAMS, codes
from _server import _unavailable

from harmony_viz.servers import LaunchError, answer_of
from harmony_viz.servers.core import read_stream
from harmony_viz.servers.engines.sglang import SGLANG_RUNNER, SGLangRun, check_sglang, find_sglang_python, run_sglang, sglang_results, sglang_texts
from harmony_viz.tokens import encoding

TOOLS = json.loads(REQUEST.read_text())["tools"]
NOTE = "SGLang 0.5.23 parser code, run offline (not its server)"

# What SGLang's HarmonyParser returns for the whole completion (parse, then parse("")), as SGLANG.md states.
EVENTS = {
    "seed-001": [("reasoning", "User wants weather in Paris."), ("normal", "Let me check the weather."), ("tool_call", '{"city":"Paris"}')],
    "doubled-channel": [("normal", "Doubled header thoughts."), ("normal", "The answer is 4.")],  # chain of thought as normal text
    "glued-channel": [("normal", "Glued name thoughts."), ("normal", "The answer is 4.")],
    "leading-space-channel": [("reasoning", "Leading space thoughts."), ("normal", "The answer is 4.")],
    "capitalised-channel": [("reasoning", "Capitalised name thoughts."), ("normal", "The answer is 4.")],
    "no-channel": [],  # the answer is dropped
    "stripped-control-tokens": [("reasoning", "The user asks for 2+2."), ("normal", "The answer is 4.")],
    # Streamed as it comes; the flush re-reads the kept header and adds an empty reasoning event.
    "analysis-cut-off": [("reasoning", "Thinking about the answer and still thinking"), ("reasoning", "")],
    "builtin-python-call": [("tool_call", "print(1)")],
    "bare-name-call": [("tool_call", '{"city":"Paris"}')],
}

# The codes SGLang's answers imply, with its tool parser on and the lens's request (tools declared).
CODES = {
    ("seed-001", "chat"): {"arguments-reserialized"},  # json.dumps gives {"city": "Paris"}
    # The tool detector sees the preamble once as plain text and again before the call: it is sent twice.
    ("seed-001", "chat-stream"): {"arguments-reserialized", "stream-final-mismatch"},
    ("doubled-channel", "chat"): {"reasoning-in-content"},
    ("doubled-channel", "chat-stream"): {"reasoning-in-content"},
    ("glued-channel", "chat"): {"reasoning-in-content"},
    ("glued-channel", "chat-stream"): {"reasoning-in-content"},
    ("leading-space-channel", "chat"): set(),
    ("leading-space-channel", "chat-stream"): set(),
    ("capitalised-channel", "chat"): set(),
    ("capitalised-channel", "chat-stream"): set(),
    ("no-channel", "chat"): {"text-dropped"},
    ("no-channel", "chat-stream"): {"text-dropped"},
    ("stripped-control-tokens", "chat"): set(),  # SGLang's text fallback reads it right
    ("stripped-control-tokens", "chat-stream"): set(),
    ("clean-final", "chat"): set(),
    ("clean-final", "chat-stream"): set(),
    ("preamble-then-final", "chat"): set(),
    ("preamble-then-final", "chat-stream"): set(),
    ("analysis-cut-off", "chat"): set(),
    ("analysis-cut-off", "chat-stream"): set(),
    # The answer's call detector needs "<|start|>assistant<|channel|>commentary", which a call that opens the
    # completion lacks: the call's raw text stays in content. The streamed detector looks for "commentary to=".
    ("bare-name-call", "chat"): {"control-token-in-content", "tool-call-missing", "tool-json-in-content", "finish-reason-mismatch"},
    ("bare-name-call", "chat-stream"): {"arguments-reserialized", "stream-final-mismatch"},
    # The parser's tool_call event is no call for the detector (no <|constrain|>json): raw text in the answer's
    # content; streamed, the code goes out as reasoning before <|call|> arrives.
    ("builtin-python-call", "chat"): {"control-token-in-content", "reasoning-in-content"},
    ("builtin-python-call", "chat-stream"): {"stream-final-mismatch"},
    ("dangling-header", "chat"): {"control-token-in-content"},  # a final message ends only at <|return|>
    ("dangling-header", "chat-stream"): {"stream-final-mismatch"},
}


@pytest.fixture(scope="module")
def sglang_python() -> str:
    try:
        return find_sglang_python()
    except LaunchError as exc:
        _unavailable(str(exc))
        raise


@pytest.fixture(scope="module")
def parsed() -> list[tuple[str, list[int]]]:
    return [(str(p), read_stream(str(p))) for p in sorted(STREAMS.glob("*.txt"))]


@pytest.fixture(scope="module")
def run(sglang_python: str, parsed: list[tuple[str, list[int]]]) -> SGLangRun:
    """One runner process for every shipped stream."""
    return run_sglang([ids for _, ids in parsed], python=sglang_python, tools=TOOLS)


@pytest.fixture(scope="module")
def events(run: SGLangRun, parsed: list[tuple[str, list[int]]]) -> dict[str, dict]:
    return {Path(name).stem: result for (name, _), result in zip(parsed, run.results)}


@pytest.fixture(scope="module")
def results(run: SGLangRun, parsed: list[tuple[str, list[int]]]) -> dict[tuple[str, str], object]:
    return {(Path(r.file).stem, r.api): r for r in sglang_results(run, parsed, TOOLS)}


def test_every_shipped_stream_is_covered(parsed: list[tuple[str, list[int]]]) -> None:
    assert {(Path(name).stem, api) for name, _ in parsed for api in ("chat", "chat-stream")} == set(CODES)


def test_runner_reports_sglang_and_its_tool_detector(run: SGLangRun) -> None:
    assert run.version == "0.5.23"
    assert run.tool_detector is None  # the install script's venv holds the detector's dependencies


@pytest.mark.parametrize("stem", sorted(EVENTS))
def test_parser_events_as_sglang_md_states(events: dict[str, dict], stem: str) -> None:
    assert [(e["type"], e["content"]) for e in events[stem]["whole"]["events"]] == EVENTS[stem]


def test_tool_call_event_keeps_raw_text_for_the_detector(events: dict[str, dict]) -> None:
    (call,) = [e for e in events["seed-001"]["whole"]["events"] if e["type"] == "tool_call"]
    assert call["raw_text"].startswith("<|start|>assistant<|channel|>commentary to=functions.get_weather")
    assert call["raw_text"].endswith("<|call|>")


@pytest.mark.parametrize(("stem", "api"), sorted(CODES))
def test_codes_each_row_implies(results: dict, stem: str, api: str) -> None:
    assert codes(results[stem, api]) == CODES[stem, api]


@pytest.mark.parametrize("api", ["chat", "chat-stream"])
def test_chain_of_thought_shown_as_content(results: dict, api: str) -> None:
    for stem, thoughts in (("doubled-channel", "Doubled header thoughts."), ("glued-channel", "Glued name thoughts.")):
        r = results[stem, api]
        answer = answer_of(api, r.server)
        assert answer.content == f"{thoughts}The answer is 4." and answer.reasoning == ""
        assert r.worst == "error"


@pytest.mark.parametrize("api", ["chat", "chat-stream"])
def test_seed_001_call_and_no_error(results: dict, api: str) -> None:
    r = results["seed-001", api]
    answer = answer_of(api, r.server)
    assert r.worst != "error"
    assert [(c.name, json.loads(c.arguments)) for c in answer.calls] == [("get_weather", {"city": "Paris"})]
    assert answer.reasoning == "User wants weather in Paris." and answer.finish == "tool_calls"
    assert answer.content == "Let me check the weather." * (2 if api == "chat-stream" else 1)


def test_results_are_labelled_and_carry_no_ids(results: dict) -> None:
    for r in results.values():
        assert r.engine == "sglang" and r.notes == (NOTE,) and r.replayed is None and r.error is None
        assert answer_of(r.api, r.server).token_ids is None


def test_check_sglang_reads_files_and_runs_once(sglang_python: str, results: dict) -> None:
    files = [str(STREAMS / "doubled-channel.txt"), str(STREAMS / "seed-001.txt")]
    got = list(check_sglang(files, python=sglang_python, request=json.loads(REQUEST.read_text())))
    assert [(Path(r.file).stem, r.api) for r in got] == [(s, a) for s in ("doubled-channel", "seed-001") for a in ("chat", "chat-stream")]
    assert [codes(r) for r in got] == [codes(results[Path(r.file).stem, r.api]) for r in got]


def test_without_the_tool_detector_calls_come_from_events(sglang_python: str, tmp_path: Path) -> None:
    """The same SGLang files with their dependencies out of sight (python -S): the parser still runs."""
    found = subprocess.run([sglang_python, "-c", "import importlib.util as u; print(u.find_spec('sglang').submodule_search_locations[0])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    package = Path(found)
    bare = tmp_path / "bare"
    bare.mkdir()
    for item in [package, *package.parent.glob("sglang-*.dist-info")]:
        (bare / item.name).symlink_to(item)
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={bare} exec {sglang_python} -S "$@"\n')
    wrapper.chmod(0o755)
    got = {r.api: r for r in check_sglang([str(STREAMS / "seed-001.txt")], python=str(wrapper), request=json.loads(REQUEST.read_text()))}
    assert got["chat"].notes[1] == "calls are read from the parser's tool_call events (the gpt-oss tool detector's dependencies did not install)"
    for api, r in got.items():
        answer = answer_of(api, r.server)
        assert [(c.name, c.arguments) for c in answer.calls] == [("get_weather", '{"city":"Paris"}')]  # the event's text as written
        assert answer.content == "Let me check the weather." and r.worst is None


def test_missing_python_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HARMONY_VIZ_SGLANG_PYTHON", raising=False)
    missing = str(tmp_path / "nowhere" / "python")
    with pytest.raises(LaunchError) as explicit:
        find_sglang_python(missing)
    monkeypatch.setenv("HARMONY_VIZ_SGLANG_PYTHON", missing)
    with pytest.raises(LaunchError) as from_env:
        list(check_sglang([str(STREAMS / "seed-001.txt")]))
    monkeypatch.delenv("HARMONY_VIZ_SGLANG_PYTHON")
    with pytest.raises(LaunchError) as default:
        find_sglang_python(venv=tmp_path / ".venv-sglang")
    for exc, where in ((explicit, f"--sglang-python={missing}"), (from_env, f"HARMONY_VIZ_SGLANG_PYTHON={missing}"), (default, "no Python")):
        message = str(exc.value)
        assert "\n" not in message and message.startswith(where) and "scripts/install-sglang-parser.sh" in message


def test_texts_keep_every_byte_and_trim_the_stop_token_as_sglang_does() -> None:
    enc = encoding()
    body = "ℵ₀ ⊕ 🜁"  # characters split across byte tokens
    ids = enc.encode(f"<|channel|>final<|message|>{body}<|return|>", allowed_special="all")
    whole, pieces = sglang_texts(ids)
    assert whole == "".join(pieces) == f"<|channel|>final<|message|>{body}"  # <|return|> dropped, as its detokenizer does
    assert len(pieces) == len(ids) - 1 and "<|message|>" in pieces and "\ufffd" not in whole
    assert "" in pieces  # a token that ends inside a character gives nothing yet: its bytes wait for the next
    call = enc.encode("<|channel|>commentary to=functions.f<|message|>{}<|call|>", allowed_special="all")
    assert sglang_texts(call)[0].endswith("<|call|>")  # kept: the gpt-oss tool detector needs it
    cut = enc.encode("<|channel|>final<|message|>🜁", allowed_special="all")[:-1]
    assert sglang_texts(cut)[0].endswith("\ufffd")  # bytes left at the end are replaced, as a whole decode does


def test_runner_refuses_bad_input_in_one_line(sglang_python: str) -> None:
    proc = subprocess.run([sglang_python, str(SGLANG_RUNNER)], input="not json", capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("stdin is not JSON") and "\n" not in proc.stderr.strip()


def test_apis_chosen(run: SGLangRun, parsed: list[tuple[str, list[int]]]) -> None:
    only = list(sglang_results(run, parsed, TOOLS, apis=("chat-stream",)))
    assert {r.api for r in only} == {"chat-stream"} and len(only) == len(parsed)
    seed = next(r for r in only if Path(r.file).stem == "seed-001")
    assert codes(seed) == {"arguments-reserialized"}  # stream-final-mismatch needs the answer beside the stream
    with pytest.raises(ValueError, match="Chat Completions answers only"):
        list(check_sglang([str(STREAMS / "seed-001.txt")], apis=("chat", "responses")))
