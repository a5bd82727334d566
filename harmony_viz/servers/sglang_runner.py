"""SGLang 0.5.23's gpt-oss output parsing, run offline, inside SGLang's own venv (scripts/install-sglang-parser.sh).

Standard library and SGLang's own files only: this script never imports harmony_viz. The package
``sglang`` is not imported (its ``__init__`` pulls torch and transformers): its Harmony parser file is
loaded by path, and for the gpt-oss tool detector the name ``sglang`` is bound to the package's real
spec without running that ``__init__``, so that the detector's own imports find SGLang's files.

stdin:  ``{"tools": [TOOL, ...], "streams": [{"whole": TEXT, "pieces": [TEXT, ...]}, ...]}``; tools are
        the request's (Chat Completions shape); the tool parser runs only when some are given, as in SGLang.
stdout: ``{"sglang": VERSION, "tool_detector": null | "why it did not load", "results": [...]}``, one result
        per stream: ``{"whole": STEP, "stream": [STEP per piece..., STEP for the end]}`` where a STEP is
        ``{"events": [{"type", "content", "raw_text"}], "reasoning", "normal", "tools": null | {...}}``
        and a stream's ``error`` (with the api) when SGLang's code raised.
``--check``: exit 0 when the parser and the tool detector load, 1 (and why, on stderr) when not.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any


def _sglang_root() -> Path:
    spec = importlib.util.find_spec("sglang")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not installed in this Python; run scripts/install-sglang-parser.sh")
    return Path(next(iter(spec.submodule_search_locations)))


def load_parser(root: Path) -> Any:
    """``sglang/srt/parser/harmony_parser.py`` (standard library only), under its own module name."""
    name = "sglang.srt.parser.harmony_parser"
    spec = importlib.util.spec_from_file_location(name, root / "srt" / "parser" / "harmony_parser.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the tool detector imports it by this name: one copy of the file
    spec.loader.exec_module(module)
    return module


def load_tool_detector(root: Path) -> tuple[Any, Any] | str:
    """(GptOssDetector, Tool) from ``sglang/srt/function_call/gpt_oss_detector.py``, or why they cannot load."""
    if "sglang" not in sys.modules:
        spec = importlib.util.spec_from_file_location("sglang", root / "__init__.py", submodule_search_locations=[str(root)])
        assert spec is not None
        sys.modules["sglang"] = importlib.util.module_from_spec(spec)  # the real package, its __init__ not run
    try:
        detector = importlib.import_module("sglang.srt.function_call.gpt_oss_detector")
        protocol = importlib.import_module("sglang.srt.entrypoints.openai.protocol")
    except Exception as exc:  # a missing dependency is the usual reason; any failure leaves the events
        return f"{type(exc).__name__}: {exc}"
    return detector.GptOssDetector, protocol.Tool


def _events(events: list[Any]) -> list[dict[str, Any]]:
    return [{"type": e.event_type, "content": e.content, "raw_text": e.raw_text} for e in events]


def _split(events: list[Any]) -> tuple[str, str]:
    """What SGLang's reasoning GptOssDetector (reasoning_parser.py, which needs transformers to import) makes of
    events: reasoning joined, and normal text with each tool_call as its raw text, for the tool detector."""
    reasoning = "".join(e.content for e in events if e.event_type == "reasoning")
    normal = "".join((e.raw_text or e.content) if e.event_type == "tool_call" else e.content for e in events if e.event_type in ("normal", "tool_call"))
    return reasoning, normal


def _calls(items: list[Any]) -> list[dict[str, Any]]:
    return [{"index": c.tool_index, "name": c.name, "arguments": c.parameters} for c in items]


def _step(events: list[Any]) -> dict[str, Any]:
    reasoning, normal = _split(events)
    return {"events": _events(events), "reasoning": reasoning, "normal": normal, "tools": None}


def run_whole(parser_cls: Any, detector_cls: Any, tools: list[Any], text: str) -> dict[str, Any]:
    """The answer: ``detect_and_parse`` (parse, then parse("") to flush), then serving_chat's tool step."""
    parser = parser_cls()
    events = parser.parse(text)
    events += parser.parse("")
    step = _step(events)
    if detector_cls is not None and tools:
        # FunctionCallParser.parse_non_stream, gated by has_tool_call as serving_chat._process_tool_calls is.
        detector = detector_cls()
        if not detector.has_tool_call(step["normal"]):
            step["tools"] = {"found": False, "normal": step["normal"], "calls": []}
        else:
            try:
                result = detector.detect_and_parse(step["normal"], tools)
                step["tools"] = {"found": True, "normal": result.normal_text, "calls": _calls(result.calls)}
            except Exception as exc:  # serving_chat logs it and keeps the text, without calls
                step["tools"] = {"found": True, "normal": step["normal"], "calls": [], "error": f"{type(exc).__name__}: {exc}"}
    return step


def run_stream(parser_cls: Any, detector_cls: Any, tools: list[Any], pieces: list[str]) -> list[dict[str, Any]]:
    """The stream: one parser fed piece by piece, then parse("") to flush; each step's normal text goes
    on to the tool detector's parse_streaming_increment, and at the end its finish(), as serving_chat does."""
    parser = parser_cls()
    detector = detector_cls() if detector_cls is not None and tools else None
    steps = []
    for at, piece in enumerate([*pieces, ""]):
        step = _step(parser.parse(piece))
        if detector is not None:
            result = detector.parse_streaming_increment(step["normal"], tools)
            normal, calls = result.normal_text, list(result.calls)
            if at == len(pieces):
                end = detector.finish(tools)
                normal, calls = normal + end.normal_text, calls + list(end.calls)
            step["tools"] = {"normal": normal, "calls": _calls(calls)}
        steps.append(step)
    return steps


def run(request: dict[str, Any]) -> dict[str, Any]:
    root = _sglang_root()
    parser_cls = load_parser(root).HarmonyParser
    loaded = load_tool_detector(root)
    detector_cls, tool_cls = (None, None) if isinstance(loaded, str) else loaded
    tools = [tool_cls.model_validate(t) for t in request.get("tools") or []] if tool_cls is not None else []
    results = []
    for stream in request.get("streams") or []:
        out: dict[str, Any] = {}
        for key, api, work in (("whole", "chat", lambda s=stream: run_whole(parser_cls, detector_cls, tools, s["whole"])),
                               ("stream", "chat-stream", lambda s=stream: run_stream(parser_cls, detector_cls, tools, s["pieces"]))):
            try:
                out[key] = work()
            except Exception as exc:  # SGLang answers a parser failure with an error, not a crash of ours
                out[key] = None
                out.setdefault("errors", {})[api] = f"{type(exc).__name__}: {exc}"
        results.append(out)
    return {"sglang": importlib.metadata.version("sglang"), "tool_detector": loaded if isinstance(loaded, str) else None, "results": results}


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        root = _sglang_root()
        load_parser(root)
        loaded = load_tool_detector(root)
        if isinstance(loaded, str):
            print(f"the gpt-oss tool detector does not load: {loaded}", file=sys.stderr)
            return 1
        print(importlib.metadata.version("sglang"))
        return 0
    try:
        request = json.load(sys.stdin)
    except json.JSONDecodeError as exc:
        print(f"stdin is not JSON: {exc}", file=sys.stderr)
        return 2
    json.dump(run(request), sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
