"""``matrix``: every stream through every engine named, one cell per stream, engine and api.

A cell holds a ``CheckResult`` (its discrepancies are findings, a server error included), or
the one-line reason the engine could not be checked at all (unreachable, not installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harmony_viz.servers import engines
from harmony_viz.servers._check import check_engine
from harmony_viz.servers._launch import LaunchError
from harmony_viz.servers.core._exchange import ServerError
from harmony_viz.servers.core._read import read_stream
from harmony_viz.servers.core._result import MatrixCell


def stream_label(path: str) -> str:
    """``seed-001`` for ``…/seed-001.txt`` and for a capture of it, ``…/seed-001.chat-stream.json``."""
    return Path(path).name.split(".")[0]


def matrix(streams: Sequence[str], *, request: dict[str, Any] | None = None, timeout: float = 120.0, **targets: Any) -> list[MatrixCell]:
    """Check every stream through each engine named, by its registry name with ``_`` for ``.`` and ``-``.

    ``vllm="http://…/v1"``, ``llama_cpp=URL``, ``gpt_oss=URL`` for engines behind a server,
    ``sglang=True`` for one that runs offline; any other keyword is an engine option
    (``sglang_python=PY``). Columns come in registry order, one per engine and API it serves.
    """
    for s in streams:
        read_stream(s)  # bad input fails before any request
    by_dest = {e.dest: e for e in engines.engines()}
    options = {k: v for k, v in targets.items() if k not in by_dest}
    cells: list[MatrixCell] = []
    for dest, engine in by_dest.items():
        target = targets.get(dest)
        if not target:
            continue
        url = None if engine.offline else str(target)
        try:
            results = list(check_engine(engine.name, streams, base_url=url, request=request, apis=engine.apis, options=options, timeout=timeout))
        except (ServerError, LaunchError) as exc:
            cells += [MatrixCell(stream=stream_label(s), engine=engine.name, api=api, failure=str(exc)) for s in streams for api in engine.apis]
            continue
        cells += [MatrixCell(stream=stream_label(r.file), engine=engine.name, api=r.api, result=r) for r in results]
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
