"""The check's record and verdict: one server answer against our projection of the same tokens.

``check_answer`` is the verdict every command gives (``server-check`` live, a capture offline,
SGLang's parser, ``matrix``): the answer reduced, compared, and kept with its stream as a
:class:`CheckResult`. An answer that is itself an error (an error body, a failed response, a
stream cut short) is that one finding.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from harmony_viz.servers.core._answer import answer_of
from harmony_viz.servers.core._compare import Discrepancy, compare, compare_stream_final, messages_of, server_error

if TYPE_CHECKING:
    from harmony_viz.servers.core._prompt_diff import PromptCheck


class CheckInputError(ValueError):
    """A stream, request or capture file that cannot be used; the message says why, in one line."""


@dataclass(frozen=True)
class CheckResult:
    """One stream through one api of one engine. ``check_seconds`` is our own cost (projection and comparison).

    ``server`` and ``expected`` are the answers as JSON (an object, or a list of chunks/events).
    ``engine`` is a registry name (``servers.engines``; None when unknown) and ``engine_version``
    its version as the server told it; ``notes`` say how the replay differed from the request (e.g.
    tools not sent), empty when nothing needs saying. ``served`` is False for an API the engine does
    not serve: no answer, no finding, not a failure.
    """

    file: str
    api: str
    token_ids: tuple[int, ...]
    replayed: bool | None
    server: Any
    expected: Any
    discrepancies: tuple[Discrepancy, ...]
    error: str | None = None
    server_seconds: float = 0.0
    check_seconds: float = 0.0
    engine: str | None = None
    notes: tuple[str, ...] = ()
    prompt: PromptCheck | None = None  # a capture's prompt check, when it kept the prompt ids
    engine_version: str | None = None
    served: bool = True

    def to_json(self) -> dict[str, Any]:
        out = {"file": self.file, "engine": self.engine, "engine_version": self.engine_version, "api": self.api, "served": self.served,
               "replayed": self.replayed, "notes": list(self.notes), "server": self.server, "expected": self.expected,
               "discrepancies": [d.to_json() for d in self.discrepancies]}
        if self.error is not None:
            out["error"] = self.error
        if self.prompt is not None:
            out["prompt"] = self.prompt.to_json()
        return out

    @property
    def worst(self) -> str | None:
        for level in ("error", "warning", "info"):
            if any(d.severity == level for d in self.discrepancies):
                return level
        return None


@dataclass(frozen=True)
class MatrixCell:
    """One stream through one engine's api (a ``matrix`` cell): its result, or why it could not be checked."""

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


def expected_for(api: str, ids: Sequence[int], tools: list[dict[str, Any]] | None = None, *, model: str = "gpt-oss") -> Any:
    """Our projection of the completion ``ids`` in the shape ``api`` returns (objects, or chunks/events)."""
    from harmony_viz import projections as pj
    from harmony_viz.scanner import Scanner

    scanner = Scanner(role="assistant")
    steps = [scanner.feed([t]) for t in ids]
    steps.append(scanner.flush())
    if api == "chat":
        return pj.chat_completion([e for s in steps for e in s], model=model, tools=tools)
    if api == "chat-stream":
        return pj.chat_completion_chunks(steps, model=model, tools=tools)
    if api == "responses":
        return pj.response([e for s in steps for e in s], model=model, tools=tools)
    if api == "responses-stream":
        return pj.response_events(steps, model=model, tools=tools)
    raise ValueError(f"unknown api {api!r}")


def check_answer(file: str, api: str, ids: Sequence[int], server: Any, *, tools: list[dict[str, Any]] | None = None,
                 error: str | None = None, server_seconds: float = 0.0, engine: str | None = None, notes: Sequence[str] = (),
                 tools_withheld: bool = False, replayed: bool | None = None) -> CheckResult:
    """Compare one server answer (object or chunks/events) with our projection of ``ids``.

    An error (HTTP status, error event, broken connection) is itself the finding: ``server-error``
    over the whole stream, and what little came before it is not compared. ``replayed`` is
    worked out from the ids the answer carries unless given (a capture knows where its ids came from).
    """
    t0 = time.perf_counter()
    expected = expected_for(api, ids, tools)
    if error is None and server is not None:
        error = answer_error(api, server)
    findings: tuple[Discrepancy, ...] = ()
    if error is not None:
        findings = (server_error(error, len(ids)),)
    elif server is not None:
        got = answer_of(api, server)
        findings = tuple(compare(api, got, answer_of(api, expected), messages_of(ids), ids, tools_withheld=tools_withheld))
        if replayed is None and got.token_ids is not None:
            replayed, notes = _replayed(api, got.token_ids, got.token_ids_from, ids, notes)
    return CheckResult(file=file, api=api, token_ids=tuple(ids), replayed=replayed if error is None and server is not None else None,
                       server=server, expected=expected, discrepancies=findings, error=error, server_seconds=server_seconds,
                       check_seconds=time.perf_counter() - t0, engine=engine, notes=tuple(notes))


def _replayed(api: str, back: Sequence[int], source: str | None, ids: Sequence[int], notes: Sequence[str]) -> tuple[bool | None, Sequence[str]]:
    """Whether the ids an answer carries are the stream's; not known (None, said in a note) for a stream's partial logprobs."""
    if list(back) != list(ids) and source == "logprobs" and api.endswith("-stream") and _in_order(back, ids):
        # llama.cpp streams logprobs only with the chunks that carry a delta: header tokens never come back.
        return None, (*notes, f"the stream carried logprobs for {len(back)} of {len(ids)} tokens (those that made a delta), so the replay is not confirmed")
    return list(back) == list(ids), notes


_LAST_EVENTS = frozenset(("response.completed", "response.incomplete", "response.failed"))


def answer_error(api: str, server: Any) -> str | None:
    """Why an answer that came with HTTP 200 is a server error, else None: an error body in place of the
    object (vLLM 0.16 answers so when it refuses a stream or its engine dies), a Responses object that
    failed, or a stream that carried an error or was cut (:func:`stream_cut`)."""
    if isinstance(server, dict):
        err = server.get("error")
        if isinstance(err, dict) and (not server.get("choices") and not server.get("output") or server.get("status") == "failed"):
            return f"{err.get('code') or 'error'} in a 200 answer: {err.get('message') or err}"
        return None
    return stream_cut(api, server)


def stream_cut(api: str, server: Any) -> str | None:
    """Why a stream that ended without error is not whole (an error event, or no last event), else None."""
    if not api.endswith("-stream") or not isinstance(server, list):
        return None
    if api == "responses-stream":
        for event in server:
            if isinstance(event, dict) and event.get("type") == "error":
                return f"the stream carried an error event: {event.get('message') or event.get('code') or event}"
        if not any(isinstance(e, dict) and e.get("type") in _LAST_EVENTS for e in server):
            return f"the stream ended after {len(server)} event(s) without response.completed, .incomplete or .failed"
        return None
    chunks = [c for c in server if isinstance(c, dict)]
    if not chunks:
        # Older llama.cpp answers 200 and then sends a bare `error: {...}` line, which no client reads as a chunk.
        return "the stream ended with no chunk at all (an error line outside the event stream reads so)"
    if any(c.get("error") for c in chunks):
        bad = next(c["error"] for c in chunks if c.get("error"))
        return f"the stream carried an error: {bad.get('message') if isinstance(bad, dict) else bad}"
    if chunks and not any(ch.get("finish_reason") for c in chunks for ch in c.get("choices") or []):
        return f"the stream ended after {len(chunks)} chunk(s) without a finish_reason"
    return None


def _in_order(part: Sequence[int], whole: Sequence[int]) -> bool:
    """Whether ``part`` is ``whole`` with some tokens left out (a subsequence)."""
    rest = iter(whole)
    return all(any(t == w for w in rest) for t in part)


def with_stream_final(results: list[CheckResult]) -> list[CheckResult]:
    """Add stream-final-mismatch to each stream api whose non-streamed twin was checked too."""
    by_key = {(r.api, r.token_ids): r for r in results}
    out = []
    for r in results:
        twin = by_key.get((r.api.removesuffix("-stream"), r.token_ids)) if r.api.endswith("-stream") else None
        # A turn lost to a server error on either side is that finding alone, not also a difference between the two.
        if twin is not None and twin.server is not None and r.server and r.error is None and twin.error is None:
            t0 = time.perf_counter()
            extra = compare_stream_final(answer_of(r.api, r.server), answer_of(twin.api, twin.server))
            r = replace(r, discrepancies=r.discrepancies + tuple(extra), check_seconds=r.check_seconds + time.perf_counter() - t0)
        out.append(r)
    return out


def format_result(r: CheckResult, *, with_file: bool = True) -> str:
    """One table row (api, replayed, findings), then one line per discrepancy; the file first unless ``with_file`` is off."""
    replayed = {True: "yes", False: "NO", None: "n/a"}[r.replayed]
    n = len(r.discrepancies)
    found = f"error: {r.error}" if r.error else ("no discrepancies" if n == 0 else f"{n} discrepanc{'y' if n == 1 else 'ies'}")
    lines = [f"{r.file}  ({len(r.token_ids)} tokens)"] if with_file else []
    engine = f"{r.engine} " if r.engine else ""
    if not r.served:
        found = "not served"
    lines.append(f"  {engine}{r.api:<17} replayed={replayed:<4} {found}")
    lines += [f"      note: {n}" for n in r.notes]
    for d in r.discrepancies:
        span = f"  (tokens {d.where.start}-{d.where.end})" if d.where else ""
        lines.append(f"      [{d.severity}] {d.code}: {d.message}{span}")
    if r.prompt is not None:
        n = len(r.prompt.differences)
        lines.append(f"  prompt ({r.prompt.prompt_source}): " + ("identical" if r.prompt.identical else f"{n} difference{'' if n == 1 else 's'}"))
        lines += [f"      [{d.severity}] {d.code}: {d.message}" for d in r.prompt.differences]
    return "\n".join(lines)
