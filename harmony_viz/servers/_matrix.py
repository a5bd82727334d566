"""``matrix``: every stream through every engine named, one cell per stream, engine and api.

A cell holds a ``CheckResult`` (its discrepancies are findings, a server error included), or
the one-line reason the engine could not be checked at all (unreachable, not installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz.servers._check import CheckResult, check_streams, read_stream
from harmony_viz.servers._client import APIS, ServerError

SGLANG_APIS = ("chat", "chat-stream")


@dataclass(frozen=True)
class MatrixCell:
    """One stream through one engine's api: its result, or why it could not be checked."""

    stream: str
    engine: str
    api: str
    result: CheckResult | None = None
    failure: str | None = None

    @property
    def summary(self) -> str:
        """The worst severity and its codes (``error: text-dropped``), ``ok``, or ``not checked``."""
        if self.result is None:
            return "not checked"
        worst = self.result.worst
        if worst is None:
            return "ok"
        codes = sorted({d.code for d in self.result.discrepancies if d.severity == worst})
        return f"{worst}: {', '.join(codes)}"


def stream_label(path: str) -> str:
    return Path(path).name.split(".")[0]


def matrix(streams: Sequence[str], *, vllm: str | None = None, llama_cpp: str | None = None, sglang: bool = False,
           sglang_python: str | None = None, request: dict[str, Any] | None = None, timeout: float = 120.0) -> list[MatrixCell]:
    """Check every stream through each engine given (a base URL for vLLM and llama.cpp, ``sglang=True`` for SGLang's parser)."""
    from harmony_viz.servers._launch import LaunchError
    from harmony_viz.servers._sglang import check_sglang

    for s in streams:
        read_stream(s)  # bad input fails before any request
    plan: list[tuple[str, tuple[str, ...], Any]] = []
    if vllm:
        plan.append(("vllm", APIS, lambda: check_streams(vllm, streams, request=request, timeout=timeout, engine="vllm")))
    if llama_cpp:
        plan.append(("llama.cpp", APIS, lambda: check_streams(llama_cpp, streams, request=request, timeout=timeout, engine="llama.cpp")))
    if sglang:
        plan.append(("sglang", SGLANG_APIS, lambda: check_sglang(streams, python=sglang_python, request=request)))
    cells: list[MatrixCell] = []
    for engine, apis, run in plan:
        try:
            results = list(run())
        except (ServerError, LaunchError) as exc:
            cells += [MatrixCell(stream_label(s), engine, api, failure=str(exc)) for s in streams for api in apis]
            continue
        cells += [MatrixCell(stream_label(r.file), engine, r.api, result=r) for r in results]
    return cells


def matrix_table(cells: Sequence[MatrixCell]) -> str:
    """A text table: one row per stream, one column per engine and api, each cell its worst severity and codes."""
    columns = list(dict.fromkeys((c.engine, c.api) for c in cells))
    rows = list(dict.fromkeys(c.stream for c in cells))
    by_key = {(c.stream, c.engine, c.api): c.summary for c in cells}
    header = ["stream", *(f"{e} {a}" for e, a in columns)]
    body = [[r, *(by_key.get((r, e, a), "") for e, a in columns)] for r in rows]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*row).rstrip() for row in body]
    return "\n".join(lines)
