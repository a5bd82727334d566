"""``server-check``: replay streams through a server (or an engine that runs here, or read captures) and list where its answer departs.

For each stream and api: the server's answer, our projection of the same tokens, whether the
server returned exactly those tokens (``replayed``), and the discrepancies (the verdict is the
core's ``check_answer``). Each exchange can be kept as a capture (``save_captures``), which
``server-check`` checks again offline.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harmony_viz.servers import engines
from harmony_viz.servers._client import client_for, default_model, send
from harmony_viz.servers.core._capture_file import capture_of_result, capture_result, capture_run, load_capture, save_capture
from harmony_viz.servers.core._exchange import APIS, ServerError
from harmony_viz.servers.core._read import read_stream
from harmony_viz.servers.core._result import CheckResult, check_answer, with_stream_final


def check_streams(base_url: str, streams: Sequence[str], *, model: str | None = None, request: dict[str, Any] | None = None,
                  apis: Sequence[str] = APIS, timeout: float = 120.0, save_captures: str | Path | None = None,
                  engine: str | None = None) -> Iterator[CheckResult]:
    """Replay each stream file through the server for each api and compare.

    ``engine`` is a registry name (``servers.engines``: how the stream is forced, which APIs it
    serves); None detects it from the server. An API it does not serve gives a ``served=False``
    result. ``save_captures`` is a folder: each exchange is also saved there as a capture
    (``STEM.API.json``), which ``server-check`` can check again offline.
    """
    parsed = [(s, read_stream(s)) for s in streams]  # bad input fails before any request
    yield from check_ids(base_url, parsed, model=model, request=request, apis=apis, timeout=timeout, save_captures=save_captures, engine=engine)


def _served_by(base_url: str, engine: str | None, client: Any) -> engines.Engine:
    """The engine named, else the one detected behind ``base_url``; ServerError when none answers as itself."""
    found = engines.get(engine) if engine is not None else engines.detect(base_url)
    if found is None:
        default_model(client)  # an unreachable server is told as such
        raise ServerError(f"cannot tell which engine serves {base_url} (none of {', '.join(engines.names())} answers as itself); pass --engine")
    if found.offline:
        raise ValueError(f"{found.name} runs offline: it takes no server URL")
    return found


def check_ids(base_url: str, named: Sequence[tuple[str, Sequence[int]]], *, model: str | None = None, request: dict[str, Any] | None = None,
              apis: Sequence[str] = APIS, timeout: float = 120.0, save_captures: str | Path | None = None,
              engine: str | None = None) -> Iterator[CheckResult]:
    """:func:`check_streams` for streams already read: ``(name, ids)`` pairs."""
    parsed = [(name, list(ids)) for name, ids in named]
    client = client_for(base_url, timeout=timeout)
    found = _served_by(base_url, engine, client)
    model = model or found.model(client)  # also tells an unreachable server before any replay
    version = found.version(engines.Probe(base_url, timeout=timeout))
    body = request or {}
    folder = Path(save_captures) if save_captures is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    for name, ids in parsed:
        results = []
        for api in apis:
            if api not in found.apis:
                results.append(not_served(name, api, ids, found, version))
                continue
            replay = found.replay(api, body, ids, model=model)
            ex = send(client, api, replay.request)
            if folder is not None:
                run = capture_run(base_url, ex, model=model, script=list(replay.ids), engine=found.name, notes=replay.notes,
                                  withheld_tools=body.get("tools") if replay.tools_withheld else None, engine_version=version)
                save_capture(run, folder / f"{Path(name).stem}.{api}.json")
            result = check_answer(name, api, replay.ids, ex.server, tools=body.get("tools"), error=ex.error, server_seconds=ex.elapsed,
                                  engine=found.name, notes=replay.notes, tools_withheld=replay.tools_withheld)
            results.append(replace(result, engine_version=version))
        yield from with_stream_final(results)


def check_engine(engine: str, streams: Sequence[str], *, base_url: str | None = None, request: dict[str, Any] | None = None,
                 apis: Sequence[str] = APIS, options: dict[str, Any] | None = None, save_captures: str | Path | None = None,
                 **kwargs: Any) -> Iterator[CheckResult]:
    """Each stream file through ``engine`` (a registry name): live at ``base_url``, or offline for an engine that runs here.

    APIs the engine does not serve give ``served=False`` results, in the order asked. ``save_captures``
    keeps each answer as a capture, as :func:`check_streams` does.
    """
    parsed = [(s, read_stream(s)) for s in streams]  # bad input fails before any engine is asked
    yield from check_named(engine, parsed, base_url=base_url, request=request, apis=apis, options=options, save_captures=save_captures, **kwargs)


def check_named(engine: str, named: Sequence[tuple[str, Sequence[int]]], *, base_url: str | None = None, request: dict[str, Any] | None = None,
                apis: Sequence[str] = APIS, options: dict[str, Any] | None = None, save_captures: str | Path | None = None,
                **kwargs: Any) -> Iterator[CheckResult]:
    """:func:`check_engine` for streams already read: ``(name, ids)`` pairs."""
    found = engines.get(engine)
    if not found.offline:
        if base_url is None:
            raise ValueError(f"{found.name} is checked through a server: give its URL")
        yield from check_ids(base_url, named, request=request, apis=apis, engine=found.name, save_captures=save_captures, **kwargs)
        return
    served = [a for a in apis if a in found.apis]
    got = list(found.check_offline(named, request=request or {}, apis=served, options=options or {})) if served else []
    if save_captures is not None:
        got = list(_saving(got, Path(save_captures), request or {}))
    by_key = {(r.file, r.api): r for r in got}
    version = next((r.engine_version for r in got), None)
    for name, ids in named:
        for api in apis:
            hit = by_key.get((name, api))
            yield hit if hit is not None else not_served(name, api, ids, found, version)


def _saving(results: Iterable[CheckResult], folder: Path, request: dict[str, Any]) -> Iterator[CheckResult]:
    """Pass offline results on, saving each as a capture (``STEM.API.json``) on the way."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in results:
        if r.served:
            model = f"{r.engine}-{r.engine_version}-parser"
            run = capture_of_result(r, {**request, "model": model}, base_url=f"offline:{r.engine}", model=model)
            save_capture(run, folder / f"{Path(r.file).stem}.{r.api}.json")
        yield r


def check_captures(paths: Sequence[str]) -> Iterator[CheckResult]:
    """Compare captures (``capture -o``, ``--save-captures``) offline: the tokens they hold against the answer they hold."""
    loaded = [(p, load_capture(p)) for p in paths]  # bad input fails before any output
    # A streamed and a non-streamed capture of the same tokens are compared with each other too.
    yield from with_stream_final([capture_result(run, str(path)) for path, run in loaded])


def not_served(file: str, api: str, ids: Sequence[int], engine: engines.Engine, version: str | None = None) -> CheckResult:
    """The result for an API ``engine`` (a registry entry) does not serve: said in its notes, no finding."""
    return CheckResult(file=file, api=api, token_ids=tuple(ids), replayed=None, server=None, expected=None, discrepancies=(),
                       engine=engine.name, notes=(engine.not_served(api),), engine_version=version, served=False)
