"""A real client on our streams (issue 36): the openai SDK's own accumulators build our non-streamed objects.

Every projected stream (``chat-stream``, ``responses-stream``) is fed chunk by chunk, event by
event, to ``ChatCompletionStreamState`` and ``ResponseStreamState`` (what
``client.chat.completions.stream()`` and ``client.responses.stream()`` run, see ``_sdk_client``);
what the client holds at the end must equal the non-streamed projection (``chat``,
``responses``) of the same stream: content, reasoning, calls and their arguments, usage, finish
reason or status. Over the corpus transcripts, the bug zoo and generated streams, under several
chunkings, for the correct server and with ``--legacy-vllm``. The replay's API view, which
claims to be what a streaming client holds at each step, is held to the same client.
"""

from __future__ import annotations

import bisect
import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from _sdk_client import ResponsesClient, chat_client, chat_fields, responses_client
from hypothesis import given
from hypothesis import strategies as st
from test_projections_properties import completions
from test_scanner_corpus import transcripts

import harmony_viz
from harmony_viz.cli import main
from harmony_viz.projections import project_for_cli
from harmony_viz.scanner import Scanner

LENS = Path(harmony_viz.__file__).parent / "data" / "server_lens"
ZOO = sorted((LENS / "streams").glob("*.txt"))


def _steps(source: str | list[int], chunking: str, role: str | None) -> list[list[Any]]:
    """The scanner's steps for ``source`` fed whole, a token (or character) a step, or in random pieces."""
    scanner = Scanner(role=role)
    if chunking == "whole":
        pieces = [source]
    elif chunking == "token":
        pieces = [source[i : i + 1] for i in range(len(source))]
    else:
        rng = random.Random(f"{chunking}{len(source)}")
        pieces, i = [], 0
        while i < len(source):
            n = rng.randint(1, 16)
            pieces.append(source[i : i + n])
            i += n
    steps = [scanner.feed(p) for p in pieces]
    steps.append(scanner.flush())
    return steps


def differences(steps: list[list[Any]], *, legacy: bool, tools: list[Any] | None = None, reasoning_field: str = "reasoning_content") -> list[str]:
    """Where what the SDK's accumulators build from our streams departs from our non-streamed objects."""
    out = []
    kw: dict[str, Any] = {"legacy_vllm": legacy, "tools": tools}
    chat = chat_fields(project_for_cli("chat", steps, reasoning_field=reasoning_field, **kw))  # type: ignore[arg-type]
    built = chat_fields(chat_client(project_for_cli("chat-stream", steps, reasoning_field=reasoning_field, **kw)))  # type: ignore[arg-type]
    if built != chat:
        out.append(f"chat: client {_first_diff(built, chat)}")
    final = project_for_cli("responses", steps, **kw)
    built_response = responses_client(project_for_cli("responses-stream", steps, **kw))  # type: ignore[arg-type]
    if built_response != final:
        out.append(f"responses: client {_first_diff(built_response, final)}")
    return out


def _first_diff(got: Any, want: Any, where: str = "") -> str:
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if got.get(key, "<absent>") != want.get(key, "<absent>"):
                return _first_diff(got.get(key, "<absent>"), want.get(key, "<absent>"), f"{where}.{key}")
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                return _first_diff(a, b, f"{where}[{i}]")
    return f"{where or 'object'}: {json.dumps(got)[:200]} where the non-streamed object has {json.dumps(want)[:200]}"


@pytest.fixture(scope="module")
def corpus_ids(corpus_dir: Path, enc) -> dict[str, list[int]]:
    return {name: enc.encode(text, allowed_special="all") for name, text in transcripts(corpus_dir).items()}


@pytest.mark.parametrize("chunking", ["whole", "token", "random"])
def test_the_sdk_builds_our_objects_from_every_corpus_stream(corpus_ids: dict[str, list[int]], chunking: str) -> None:
    bad = []
    names = list(corpus_ids)
    if chunking == "token":  # a token a step, as a server streams: a SDK accumulator's step is slow, so every sixth transcript
        names = names[::6]
    for name in names:
        steps = _steps(corpus_ids[name], chunking, None)
        for legacy in (False, True):
            bad += [f"{name} (legacy {legacy}): {d}" for d in differences(steps, legacy=legacy)]
    assert len(corpus_ids) >= 150
    assert not bad, f"{len(bad)} differences, first: " + "\n".join(bad[:5])


def _cli(path: Path, output: str, *extra: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["parse", str(path), "--output", output, *extra]) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return lines if output.endswith("-stream") else lines[0]


def test_the_sdk_builds_what_parse_prints(corpus_dir: Path, tmp_path: Path) -> None:
    """The command line as a user runs it: ``parse --output responses-stream`` against ``--output responses`` (issue 36's trial)."""
    names = transcripts(corpus_dir)
    picked = {n: names[n] for n in sorted(names)[::12]}  # every corpus source, a dozen files in all
    assert len({n.split("[")[0].split("/")[0] for n in picked}) >= 4
    for name, text in picked.items():
        path = tmp_path / "t.txt"
        path.write_text(text, encoding="utf-8")
        for extra in ([], ["--legacy-vllm"], ["--chunk-seed", "5"], ["--legacy-vllm", "--chunk-seed", "9"]):
            assert responses_client(_cli(path, "responses-stream", *extra)) == _cli(path, "responses", *extra), (name, extra)
            assert chat_fields(chat_client(_cli(path, "chat-stream", *extra))) == chat_fields(_cli(path, "chat", *extra)), (name, extra)


@pytest.mark.parametrize("chunking", ["whole", "token", "random"])
@pytest.mark.parametrize("unit", ["ids", "text"])
def test_the_sdk_builds_our_objects_from_every_zoo_stream(enc, chunking: str, unit: str) -> None:
    request = json.loads((LENS / "request.json").read_text(encoding="utf-8"))
    assert len(ZOO) >= 10
    for path in ZOO:
        text = path.read_text(encoding="utf-8")
        source = enc.encode(text, allowed_special="all") if unit == "ids" else text
        steps = _steps(source, chunking, "assistant")
        for legacy in (False, True):
            for tools, field in ((None, "reasoning_content"), (request["tools"], "reasoning"), (request["tools"], "both")):
                assert not differences(steps, legacy=legacy, tools=tools, reasoning_field=field), (path.stem, legacy, field)


@given(completions(), st.data(), st.booleans(), st.booleans(), st.sampled_from(["reasoning_content", "reasoning", "both"]))
def test_the_sdk_builds_our_objects_from_generated_streams(enc, case, data, as_ids: bool, legacy: bool, field: str) -> None:
    """Generated completions, well-formed and not, cut off or not, split at any places (any chunking)."""
    _msgs, text, _cut = case
    source = enc.encode(text, allowed_special="all") if as_ids else text
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(source)), max_size=len(source)), label="cuts")) | {0, len(source)})
    scanner = Scanner(role="assistant")
    steps = [scanner.feed(source[a:b]) for a, b in zip(cuts, cuts[1:])]
    steps.append(scanner.flush())
    assert not differences(steps, legacy=legacy, reasoning_field=field)
    _announced_empty(project_for_cli("responses-stream", steps, legacy_vllm=legacy))  # type: ignore[arg-type]


def _announced_empty(events: list[dict[str, Any]]) -> int:
    """No item announces a body that its parts or deltas then add again; returns the items checked."""
    parts: dict[int, int] = {}
    for e in events:
        if e["type"] == "response.output_item.added":
            item = e["item"]
            if item["type"] in ("message", "reasoning"):
                assert item["content"] == [], e
            if item["type"] in ("function_call", "mcp_call"):
                assert item["arguments"] == "", e
        elif e["type"] == "response.content_part.added":
            parts[e["output_index"]] = parts.get(e["output_index"], 0) + 1
            assert e["part"]["text"] == "", e
        elif e["type"] == "response.output_item.done" and e["item"]["type"] in ("message", "reasoning"):
            # each part of the finished item arrived once, by content_part.added
            assert parts.get(e["output_index"], 0) == len(e["item"]["content"]), e
    return sum(1 for e in events if e["type"] == "response.output_item.added")


def test_no_item_is_announced_with_its_body(enc) -> None:
    checked = 0
    for path in ZOO:
        ids = enc.encode(path.read_text(encoding="utf-8"), allowed_special="all")
        for legacy in (False, True):
            checked += _announced_empty(project_for_cli("responses-stream", _steps(ids, "token", "assistant"), legacy_vllm=legacy))  # type: ignore[arg-type]
    assert checked >= 30


def test_the_api_view_is_what_the_sdk_client_holds_at_every_step(enc, corpus_dir: Path) -> None:
    """The replay's API view (Python's, which the page's is checked equal to in test_widget_js) against the SDK's client, step by step.

    The correct server only: legacy vLLM streams nothing for a preamble, so its client learns of
    that item only from the closing event, while the view shows the object the server builds.
    """
    from _replay_streams import XSS_TEXT, finding5
    from test_widget_js import CALLS_TEXT

    from harmony_viz._replay import ApiViews
    from harmony_viz.projections import Projector
    from harmony_viz.trace import Trace

    streams = {"calls": CALLS_TEXT, "xss": XSS_TEXT, "tool_call": finding5(corpus_dir, "cyberthreat-17")[-3000:],
               "seed-001": (LENS / "streams" / "seed-001.txt").read_text(encoding="utf-8")}
    compared = silent = 0
    for name, text in streams.items():
        ids = enc.encode(text, allowed_special="all")
        for spec in ("token", "random:3", "chars:7"):
            trace = Trace.build(ids, spec)
            views = ApiViews(trace)
            # usage counts the prompt in tokens, a trace fed as characters says where each token starts (as ApiViews does)
            starts = None if trace.unit == "tokens" else trace.token_char_starts
            p = Projector(unit=trace.unit, tokens_before=None if starts is None else lambda at, s=starts: bisect.bisect_left(s, at))
            events: list[dict[str, Any]] = []
            for k in range(trace.n_steps):
                p.add(trace.events(k, since=k), fed=len(ids) if k == trace.n_steps - 1 else None)  # by the last step, every token
                if k == trace.n_steps - 1:
                    p.finish()
                view = views.at(k)["views"]["responses"]
                if p.response_events is not events:  # a new turn: a new response, a new client
                    events, client = p.response_events, ResponsesClient()
                    seen = 0
                if not events:
                    silent += 1  # no assistant output in this turn yet: the server has sent nothing, the client holds nothing
                    continue
                client.feed(events[seen:])
                seen = len(events)
                assert client.response() == view, (name, spec, k)
                compared += 1
    assert compared > 500 and compared > 2 * silent
