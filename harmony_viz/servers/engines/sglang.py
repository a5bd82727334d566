"""SGLang as an engine of the lens (``scripts/install-sglang-parser.sh``): its own gpt-oss parser code, run offline on a stream's tokens.

SGLang's server needs a GPU, but the part that turns gpt-oss output into an answer is plain Python.
``sglang_runner.py`` runs that code inside SGLang's venv (scripts/install-sglang-parser.sh); here the
tokens become the text SGLang's detokenizer would give it, and the runner's results become the objects
SGLang's ``serving_chat.py`` would send (``--reasoning-parser gpt-oss --tool-call-parser gpt-oss``),
so they are checked as any server's answer is.

What SGLang's server does, and so what we do:
- Stop tokens: its detokenizer drops the matched stop token from the text (``trim_matched_stop``),
  except ``<|call|>`` under the gpt-oss tool parser, which the call detector needs.
- Text: special tokens are spelled whole (``skip_special_tokens=False`` for gpt-oss). A token whose
  bytes are not whole UTF-8 characters is decoded incrementally, as its streaming detokenizer does:
  the incomplete bytes wait for the next token, so no byte is lost and the pieces join to the whole.
- Calls: read by SGLang's gpt-oss tool detector from the parser's ``tool_call`` events, only when the
  request declares tools (as its FunctionCallParser); if the detector cannot load, the runner says
  so and calls are read from the events themselves.
"""

from __future__ import annotations

import codecs
import json
import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harmony_viz.servers._launch import LaunchError, find_venv_python
from harmony_viz.servers.core._exchange import CHAT_APIS
from harmony_viz.servers.core._read import read_stream
from harmony_viz.servers.core._result import CheckResult, check_answer, with_stream_final
from harmony_viz.servers.engines._engine import Engine

SGLANG_RUNNER = Path(__file__).resolve().parents[1] / "sglang_runner.py"
DEFAULT_VENV = Path(__file__).resolve().parents[3] / ".venv-sglang"  # the install script's default, in a checkout
INSTALL_HINT = ("no Python with SGLang's parser found: run scripts/install-sglang-parser.sh (makes .venv-sglang with sglang 0.5.23), "
                "then pass --sglang-python .venv-sglang/bin/python or set HARMONY_VIZ_SGLANG_PYTHON")
MODEL = "gpt-oss"
KEPT_STOP = "<|call|>"  # the stop token SGLang keeps in the text for the gpt-oss tool parser
STOP_LITERALS = ("<|return|>", "<|call|>", "<|endoftext|>")  # gpt-oss's eos tokens: generation ends on them
RUN_TIMEOUT_S = 600


def find_sglang_python(explicit: str | None = None, *, venv: Path = DEFAULT_VENV) -> str:
    """``explicit`` (``--sglang-python``), else ``$HARMONY_VIZ_SGLANG_PYTHON``, else the install script's venv (``venv``, ``.venv-sglang``)."""
    return find_venv_python(explicit, flag="--sglang-python", env="HARMONY_VIZ_SGLANG_PYTHON", module="sglang", venv=venv, hint=INSTALL_HINT)


@dataclass(frozen=True)
class SGLangRun:
    """What the runner answered: SGLang's version, why the tool detector did not load (None when it did), per-stream results."""

    version: str
    tool_detector: str | None
    results: list[dict[str, Any]]


def sglang_texts(ids: Sequence[int]) -> tuple[str, list[str]]:
    """The text SGLang parses for a completion, whole and per token (see the module's notes)."""
    from harmony_viz.tokens import encoding, special_by_literal

    enc = encoding()
    stops = {special_by_literal(s).id for s in STOP_LITERALS if s != KEPT_STOP}
    if ids and ids[-1] in stops:
        ids = ids[:-1]
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pieces = [decoder.decode(enc.decode_single_token_bytes(t)) for t in ids]
    tail = decoder.decode(b"", final=True)  # bytes still waiting at the end: U+FFFD, as a whole decode gives
    if tail and pieces:
        pieces[-1] += tail
    return "".join(pieces), pieces


def run_sglang(streams: Sequence[Sequence[int]], *, python: str | None = None, tools: Sequence[dict[str, Any]] = ()) -> SGLangRun:
    """One runner process for all ``streams``."""
    exe = find_sglang_python(python)
    payload = {"tools": list(tools), "streams": [dict(zip(("whole", "pieces"), sglang_texts(ids))) for ids in streams]}
    try:
        proc = subprocess.run([exe, str(SGLANG_RUNNER)], input=json.dumps(payload), capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LaunchError(f"SGLang's parser could not run with {exe}: {exc}") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise LaunchError(f"SGLang's parser failed with {exe} (exit {proc.returncode}): {last}")
    try:
        out = json.loads(proc.stdout)
        return SGLangRun(out["sglang"], out["tool_detector"], out["results"])
    except (json.JSONDecodeError, KeyError, TypeError):
        raise LaunchError(f"SGLang's parser with {exe} did not answer in JSON: {proc.stdout[:200]!r}") from None


def _finish(ids: Sequence[int], has_calls: bool) -> str:
    from harmony_viz.tokens import special_by_literal

    if not ids or ids[-1] not in {special_by_literal(s).id for s in STOP_LITERALS}:
        return "length"  # a replay of a completion without a stop token ends at max_tokens
    return "tool_calls" if has_calls else "stop"


def _event_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls read from ``tool_call`` events, when the tool detector is not there: the recipient of the header, the body."""
    out = []
    for e in events:
        if e["type"] == "tool_call":
            m = re.search(r"to=([^\s<]+)", e["raw_text"] or "")
            out.append({"index": len(out), "name": (m.group(1) if m else "").split(".")[-1], "arguments": e["content"]})
    return out


def _visible(step: dict[str, Any], detector: bool) -> tuple[str, list[dict[str, Any]]]:
    """Content and calls of one step, as serving_chat makes them from the reasoning parser's normal text."""
    if step["tools"] is not None:  # the tool detector ran (tools declared)
        return step["tools"]["normal"], step["tools"]["calls"]
    if detector:  # no tools declared: SGLang's tool parser does not run, the normal text is the content
        return step["normal"], []
    return "".join(e["content"] for e in step["events"] if e["type"] == "normal"), _event_calls(step["events"])


def _tool_call(call: dict[str, Any], index: int) -> dict[str, Any]:
    return {"id": f"call_{index:024d}", "index": index, "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}


def chat_object(step: dict[str, Any], ids: Sequence[int], *, detector: bool, ident: str) -> dict[str, Any]:
    """The ``chat.completion`` SGLang sends for the whole-text parse."""
    from harmony_viz.projections import validate

    content, calls = _visible(step, detector)
    message: dict[str, Any] = {"role": "assistant", "content": content or "", "reasoning_content": step["reasoning"] or None,
                               "tool_calls": [_tool_call(c, i) for i, c in enumerate(calls)] or None}
    obj = {"id": ident, "object": "chat.completion", "created": 0, "model": MODEL,
           "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(ids, bool(calls))}]}
    validate("chat", obj)
    return obj


def chat_chunks(steps: list[dict[str, Any]], ids: Sequence[int], *, detector: bool, ident: str) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects SGLang streams: a role chunk, then per step reasoning, content, calls; then the finish."""
    from harmony_viz.projections import validate

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    n_calls = 0
    for step in steps:
        if step["reasoning"]:
            out.append(chunk({"reasoning_content": step["reasoning"]}))
        content, calls = _visible(step, detector)
        if content:
            out.append(chunk({"content": content}))
        for call in calls:
            out.append(chunk({"tool_calls": [_tool_call(call, call["index"])]}))
            n_calls += 1
    out.append(chunk({}, _finish(ids, n_calls > 0)))
    validate("chat-stream", out)
    return out


def _answers(run: SGLangRun, streams: Sequence[Sequence[int]]) -> list[dict[str, Any]]:
    detector = run.tool_detector is None
    out = []
    for n, (ids, result) in enumerate(zip(streams, run.results)):
        ident = f"chatcmpl-sglang-offline-{n}"
        whole, stream = result.get("whole"), result.get("stream")
        out.append({"chat": None if whole is None else chat_object(whole, ids, detector=detector, ident=ident),
                    "chat-stream": None if stream is None else chat_chunks(stream, ids, detector=detector, ident=ident),
                    "errors": dict(result.get("errors") or {})})
    return out


def _request_tools(request: dict[str, Any] | None) -> list[dict[str, Any]]:
    body = request or {}
    return [] if body.get("tool_choice") == "none" else list(body.get("tools") or [])


def check_sglang(streams: Sequence[str], *, python: str | None = None, request: dict[str, Any] | None = None,
                 apis: Sequence[str] = CHAT_APIS) -> Iterator[CheckResult]:
    """``server-check --engine sglang``: each stream file through SGLang's parser code, for ``apis`` (``chat``, ``chat-stream``)."""
    if set(apis) - set(CHAT_APIS):
        raise ValueError(f"SGLang's parser gives Chat Completions answers only: apis {', '.join(CHAT_APIS)}, not {', '.join(sorted(set(apis) - set(CHAT_APIS)))}")
    parsed = [(s, read_stream(s)) for s in streams]  # bad input fails before the runner starts
    tools = _request_tools(request)
    yield from sglang_results(run_sglang([ids for _, ids in parsed], python=python, tools=tools), parsed, tools, apis=apis)


def sglang_results(run: SGLangRun, parsed: Sequence[tuple[str, Sequence[int]]], tools: Sequence[dict[str, Any]] = (), *,
               apis: Sequence[str] = CHAT_APIS) -> Iterator[CheckResult]:
    """The check results for a runner's answers to the streams ``parsed`` (name, ids), in the same order."""
    notes = (f"SGLang {run.version} parser code, run offline (not its server)",)
    if run.tool_detector is not None:
        notes += ("calls are read from the parser's tool_call events (the gpt-oss tool detector's dependencies did not install)",)
    for (name, ids), answer in zip(parsed, _answers(run, [ids for _, ids in parsed])):
        results = []
        for api in (a for a in CHAT_APIS if a in apis):
            result = check_answer(name, api, ids, answer[api], tools=list(tools) or None, error=answer["errors"].get(api))
            results.append(replace(result, engine=ENGINE.name, engine_version=run.version, notes=notes, replayed=None))
        yield from with_stream_final(results)


class SGLang(Engine):
    name = "sglang"
    label = "SGLang 0.5.23"
    apis = CHAT_APIS  # what SGLang's parser answers; its Responses API is another path
    offline = True
    install = "`scripts/install-sglang-parser.sh` (sglang 0.5.23's parser in `.venv-sglang`, no GPU server)"
    forcing = "none needed: its parser and tool detector run offline on the tokens"
    ids_back = "the ids given (offline)"
    prompt_via = "not seen (no server)"
    request_fields = "tools (its tool detector runs only when tools are declared)"

    def add_arguments(self, parser: Any, command: str) -> None:
        if command in ("server-check", "matrix", "conformance"):
            parser.add_argument("--sglang-python", metavar="PY", help="the Python of SGLang's venv (default: $HARMONY_VIZ_SGLANG_PYTHON, else .venv-sglang)")

    def find(self, explicit: str | None = None) -> str:
        return find_sglang_python(explicit)

    def check_offline(self, named: Sequence[tuple[str, Sequence[int]]], *, request: dict[str, Any], apis: Sequence[str],
                      options: Any) -> Iterator[CheckResult]:
        tools = _request_tools(request)
        run = run_sglang([ids for _, ids in named], python=options.get("sglang_python"), tools=tools)
        return sglang_results(run, named, tools, apis=[a for a in apis if a in CHAT_APIS])


ENGINE = SGLang()
