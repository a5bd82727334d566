"""The server lens from Python: check streams or captures, tabulate the findings, run a replay server.

>>> from harmony_viz.servers import lens
>>> results = list(lens.check_captures(lens.shipped_captures()))   # vLLM 0.32's answers, shipped
>>> sorted(set(lens.discrepancy_table(results)["code"].dropna()))[:2]
['arguments-reserialized', 'control-token-in-content']
>>> lens.matrix_frame(lens.check_captures(lens.shipped_captures("llama.cpp"))).loc["glued-channel", ("llama.cpp", "chat")]
'error: server-error'
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz.servers import engines
from harmony_viz.servers._capture import capture
from harmony_viz.servers._check import check_captures, check_streams
from harmony_viz.servers._launch import LaunchError
from harmony_viz.servers._matrix import stream_label
from harmony_viz.servers.core._capture_file import load_capture
from harmony_viz.servers.core._exchange import APIS, CHAT_APIS, RESPONSES_APIS
from harmony_viz.servers.core._read import read_request
from harmony_viz.servers.core._result import CheckResult, MatrixCell

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ReplayServer", "bug_zoo_markdown", "capture", "capture_prompts", "check_captures", "check_streams", "discrepancy_table", "load_capture",
    "matrix_frame", "prompt_requests", "shipped_captures", "shipped_engines", "shipped_prompt_captures", "shipped_request", "shipped_streams",
    "start_replay_server", "stream_name", "two_step_requests", "zoo_columns",
]

# Names that left this face: reading one is an AttributeError in one line that says where it lives now.
_MOVED: dict[str, str] = {
    "CODES": "harmony_viz.servers.core.CODES",
    "CheckResult": "harmony_viz.servers.CheckResult",
    "check_sglang": "harmony_viz.servers.engines.sglang.check_sglang",
    "engine_table": "harmony_viz.servers.lens.matrix_frame",
    **{name: f"harmony_viz.servers.engines.get({engine!r}).installed" for name, engine in
       (("vllm_python", "vllm"), ("llama_server", "llama.cpp"), ("sglang_python", "sglang"), ("gpt_oss_python", "gpt-oss"))},
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        raise AttributeError(f"harmony_viz.servers.lens has no attribute {name!r}; it lives in {_MOVED[name]}")
    raise AttributeError(f"module 'harmony_viz.servers.lens' has no attribute {name!r}")

DATA = Path(__file__).resolve().parents[1] / "data" / "server_lens"


def shipped_streams() -> list[str]:
    """The bug-zoo streams and seed 001's, as Harmony text files (completions after ``<|start|>assistant``)."""
    return sorted(str(p) for p in (DATA / "streams").glob("*.txt"))


def shipped_captures(engine: str = "vllm") -> list[str]:
    """What an engine returned for each shipped stream through each API: ``"vllm"`` (0.32.0), ``"llama.cpp"``
    (llama-cpp-python 0.3.36's tree), ``"sglang"`` (0.5.23's parser, offline) or ``"gpt-oss"`` (the reference
    server, 0.0.9). See the data PROVENANCE.md."""
    shipped = shipped_engines()
    if engine not in shipped:
        raise ValueError(f"no shipped captures for engine {engine!r}; expected one of {', '.join(shipped)}")
    order = {api: k for k, api in enumerate(APIS)}
    files = (DATA / "captures" / engine).glob("*.json")
    return [str(p) for p in sorted(files, key=lambda p: (p.name.split(".")[0], order.get(p.name.split(".")[1], len(order))))]


def shipped_engines() -> tuple[str, ...]:
    """The engines of the registry that shipped captures of the bug zoo come from, in registry order."""
    return tuple(n for n in engines.names() if (DATA / "captures" / n).is_dir())


PROMPT_DATA = DATA.parent / "prompt_lens"
_WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def _weather_call(n: int, city: str) -> dict[str, Any]:
    return {"id": f"call_{n}", "type": "function", "function": {"name": "get_weather", "arguments": f'{{"city": "{city}"}}'}}


def two_step_requests() -> dict[str, dict[str, Any]]:
    """A two-step tool conversation, as the prompt of each step: after the first call's result, then after the second's."""
    user = {"role": "user", "content": "Is it warmer in Paris or in Lyon?"}
    step1 = {"role": "assistant", "reasoning_content": "I need Paris first.", "tool_calls": [_weather_call(1, "Paris")]}
    step2 = {"role": "assistant", "reasoning_content": "Paris is 21 C. Now Lyon.", "content": "Now Lyon.", "tool_calls": [_weather_call(2, "Lyon")]}
    first = [user, step1, {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'}]
    second = [*first, step2, {"role": "tool", "tool_call_id": "call_2", "content": '{"temp": 24}'}]
    return {"two-step-1": {"messages": first, "tools": [_WEATHER_TOOL]}, "two-step-2": {"messages": second, "tools": [_WEATHER_TOOL]}}


def prompt_requests() -> dict[str, dict[str, Any]]:
    """A small generated set of multi-turn requests for the prompt lens: every reasoning field, with or without a preamble,
    one or two calls, the calls pending or answered and followed by a new question."""
    out: dict[str, dict[str, Any]] = {}
    cities = ("Paris", "Lyon", "Oslo")
    for field in ("reasoning", "reasoning_content", "thinking"):
        for preamble in (False, True):
            for calls in (1, 2):
                for finished in (False, True):
                    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Weather in " + " and ".join(cities[:calls]) + "?"}]
                    turn: dict[str, Any] = {"role": "assistant", field: "Look the cities up.", "tool_calls": [_weather_call(i, cities[i]) for i in range(calls)]}
                    if preamble:
                        turn["content"] = "Checking."
                    msgs += [turn, *({"role": "tool", "tool_call_id": f"call_{i}", "content": f"{20 + i} C"} for i in range(calls))]
                    if finished:
                        msgs += [{"role": "assistant", field: "Answer now.", "content": "Mild."}, {"role": "user", "content": "Thanks. And tomorrow?"}]
                    name = f"{field}-{'preamble' if preamble else 'bare'}-{calls}call-{'finished' if finished else 'pending'}"
                    out[name] = {"messages": msgs, "tools": [_WEATHER_TOOL]}
    return out


def capture_prompts(base_url: str, folder: str | os.PathLike[str], requests: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """Capture each request (one token; the prompt the server rendered kept) into ``folder/NAME.json``; the paths, in order."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    requests = requests if requests is not None else {**two_step_requests(), **prompt_requests()}
    paths = []
    for name, req in requests.items():
        capture(base_url, request=req, max_tokens=1, out=out / f"{name}.json")
        paths.append(str(out / f"{name}.json"))
    return paths


def shipped_prompt_captures(engine: str = "vllm") -> list[str]:
    """Captures of ``two_step_requests()`` and ``prompt_requests()`` made by an engine (vLLM 0.32.0, llama.cpp), each with the prompt it rendered."""
    shipped = [n for n in engines.names() if (PROMPT_DATA / n).is_dir()]
    if engine not in shipped:
        raise ValueError(f"no shipped prompt captures for engine {engine!r}; expected one of {', '.join(shipped)}")
    names = [*two_step_requests(), *prompt_requests()]
    return [str(PROMPT_DATA / engine / f"{n}.json") for n in names]


def shipped_request() -> dict[str, Any]:
    """The request the shipped streams were sent with: one user message and the ``get_weather`` tool."""
    return read_request(str(DATA / "request.json"))


def stream_name(result: CheckResult) -> str:
    """``seed-001`` for ``…/seed-001.txt`` and for ``…/seed-001.chat-stream.json``."""
    return stream_label(result.file)


def discrepancy_table(results: Sequence[CheckResult]) -> pd.DataFrame:
    """One row per discrepancy (or per clean/failed check): stream, engine, api, replayed, error, code, severity, message, tokens."""
    import pandas as pd

    rows = []
    for r in results:
        base = {"stream": stream_name(r), "engine": r.engine, "api": r.api, "replayed": r.replayed, "error": r.error}
        if not r.discrepancies:
            rows.append({**base, "code": None, "severity": None, "message": None, "tokens": None})
        for d in r.discrepancies:
            span = f"{d.where.start}-{d.where.end}" if d.where else None
            rows.append({**base, "code": d.code, "severity": d.severity, "message": d.message, "tokens": span})
    return pd.DataFrame(rows, columns=["stream", "engine", "api", "replayed", "error", "code", "severity", "message", "tokens"])


def matrix_frame(results: Iterable[CheckResult]) -> pd.DataFrame:
    """One row per stream, one column per (engine, api): the worst severity and its codes, as ``matrix`` prints them."""
    import pandas as pd

    cells = [MatrixCell(stream=stream_name(r), engine=r.engine or "?", api=r.api, result=r) for r in results]
    frame = pd.DataFrame([{"stream": c.stream, "engine": c.engine, "api": c.api, "cell": c.summary} for c in cells])
    if frame.empty:
        return frame
    table = frame.pivot(index="stream", columns=["engine", "api"], values="cell")
    return table[list(dict.fromkeys((c.engine, c.api) for c in cells))]


def zoo_columns() -> tuple[tuple[str, str], ...]:
    """The bug-zoo table's columns: each engine with shipped captures, through its Chat APIs (its Responses APIs when it serves no Chat)."""
    out = []
    for name in shipped_engines():
        served = engines.get(name).apis
        out += [(name, a) for a in (CHAT_APIS if "chat" in served else RESPONSES_APIS) if a in served]
    return tuple(out)


def bug_zoo_markdown() -> str:
    """The server-lens page's "how each engine reads the bug zoo" table, from the shipped captures of every engine that has some.

    ``python -c "from harmony_viz.servers import lens; print(lens.bug_zoo_markdown())"`` writes it anew.
    """
    columns = zoo_columns()
    results = [r for engine in shipped_engines() for r in check_captures(shipped_captures(engine))]
    table = matrix_frame(results)
    head = ["stream", *(f"{engines.get(e).label} {'streamed' if a.endswith('-stream') else a}" for e, a in columns)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for stream in table.index:
        cells = [str(table.loc[stream, col]) if col in table.columns else "" for col in columns]
        cells = [c if c != "nan" else "" for c in cells]
        lines.append("| " + " | ".join([f"`{stream}`", *(c.replace("error: ", "**error**: ") for c in cells)]) + " |")
    return "\n".join(lines)


class ReplayServer:
    """``harmony-viz replay-server`` run from Python; ``url`` once it is up, ``stop()`` (SIGTERM) when done."""

    def __init__(self, proc: subprocess.Popen[bytes], url: str) -> None:
        self.proc = proc
        self.url = url

    def stop(self, timeout: float = 60.0) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> ReplayServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_replay_server(*, engine: str = "vllm", python: str | None = None, chat_template: str | None = None, port: int | None = None,
                        timeout: float = 600.0, log: str | os.PathLike[str] | None = None) -> ReplayServer:
    """Start a replay server and return once it answers; the engine's log goes to ``log``.

    vLLM takes 1-2 minutes on 2 cores; llama.cpp a few seconds (plus a one-off GGUF conversion); the
    reference server a few seconds. ``python`` is the engine's own venv (vLLM's, the reference's);
    ``chat_template`` is llama.cpp's; the engine says which option passes each on.
    """
    import socket

    if port is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "harmony_viz", "replay-server", "--engine", engine, "--port", str(port),
           *engines.get(engine).replay_server_args(python=python, chat_template=chat_template)]
    sink = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it open
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=sink, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 1.0)[0]:
            line = proc.stdout.readline().decode().strip()
            if line.startswith("http://"):
                return ReplayServer(proc, line)
    ReplayServer(proc, "").stop()
    raise LaunchError(f"the replay server did not come up within {timeout:.0f} s (exit status {proc.returncode})")
