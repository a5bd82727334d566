"""The server tab's data: server-check results (or a capture) as JSON the widget and page carry.

The page asks for it (``harmony_viz._replay.server_tab`` calls :func:`lens_source` with the
record the reader kept on the stream); the reader only reads captures and check results.

Spans in ``where`` are shifted into the replayed stream's token units, so a capture that
holds its prompt ids highlights the right tokens.

Each check also says what its answer made of every token (``fates``: the server lens's own
alignment, ``core._fates``), run-length coded over the replayed stream: a run's value is
``fate | expected << 3 | mismatch << 6`` (codes index ``FATES``; the prompt's tokens are 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from harmony_viz._diffview import diff_json
from harmony_viz.servers.core._answer import Answer, answer_of
from harmony_viz.servers.core._capture_file import capture_logprobs, capture_result, is_capture
from harmony_viz.servers.core._fates import FATES, fate_runs, result_fates
from harmony_viz.servers.core._logprobs import answer_logprobs
from harmony_viz.servers.core._prompt_diff import PromptCheck
from harmony_viz.servers.core._result import CheckResult

if TYPE_CHECKING:
    from harmony_viz.trace import Logprobs


def _answer_json(answer: Answer) -> dict[str, Any]:
    out = asdict(answer)
    out["calls"] = [asdict(c) for c in answer.calls]
    out["items"] = [asdict(i) for i in answer.items]
    out.pop("token_ids", None)
    out.pop("token_ids_from", None)
    return out


def check_view(result: CheckResult, *, offset: int = 0) -> dict[str, Any]:
    """One result as the panel draws it: both answers reduced, the raw objects, the discrepancies."""
    discrepancies = []
    for d in result.discrepancies:
        item = d.to_json()
        if d.where:
            item["where"] = {"message": d.message_index, "start": d.where.start + offset, "end": d.where.end + offset}  # the step depends on the chunking: the browser finds it
        discrepancies.append(item)
    return {
        "file": result.file,
        "engine": result.engine,
        "notes": list(result.notes),
        "api": result.api,
        "replayed": result.replayed,
        "error": result.error,
        "answer": _answer_json(answer_of(result.api, result.server)) if result.server else None,
        "expected_answer": _answer_json(answer_of(result.api, result.expected)) if result.expected is not None else None,
        "server": result.server,
        "expected": result.expected,
        "discrepancies": discrepancies,
        "prompt": prompt_view(result.prompt) if result.prompt is not None else None,
    }


def prompt_view(check: PromptCheck) -> dict[str, Any]:
    """A prompt check as the prompt tab draws it: its JSON, and the render diff of both prompts (none when refused)."""
    diff = diff_json(check.ours, check.server, check.differences, layout="prompt", origin=check.prompt_source) if check.server is not None else None
    return {**check.to_json(), "diff": diff}


def result_logprobs(results: Sequence[CheckResult]) -> Logprobs | None:
    """The log-probs the first answer that carries some has for its completion, or None."""
    for r in results:
        if r.server and r.error is None:
            got = answer_logprobs(r.api, r.server, list(r.token_ids), source=f"{r.engine or 'the server'} {r.api}")
            if got is not None:
                return got
    return None


def server_payload(results: Sequence[CheckResult], *, offset: int = 0) -> dict[str, Any]:
    """The ``server`` entry of a trace payload: one view per result (e.g. one per api), and each one's fates."""
    return {"checks": [check_view(r, offset=offset) for r in results],
            "fates": {"codes": list(FATES), "checks": [fate_runs(result_fates(r), offset) for r in results]}}


def lens_source(source: Any) -> tuple[list[int], str | None, dict[str, Any]] | None:
    """(token ids, scanner role, server payload) for a server-check result, a list of them, a capture run, or a prompt check; else None.

    A prompt check (``servers.prompt_check``) replays the server's prompt, with the prompt tab only.
    """
    if isinstance(source, PromptCheck):
        return list(source.server if source.server is not None else source.ours), None, {"checks": [], "prompt": prompt_view(source)}
    if isinstance(source, CheckResult):
        source = [source]
    if isinstance(source, (list, tuple)) and source and all(isinstance(r, CheckResult) for r in source):
        ids = list(source[0].token_ids)
        if any(list(r.token_ids) != ids for r in source):
            raise ValueError("these server-check results are for different streams; replay one stream's results at a time")
        return ids, "assistant", server_payload(source)
    if is_capture(source):
        prompt = list(source.prompt_token_ids)
        role = None if prompt else "assistant"
        return prompt + list(source.completion_token_ids), role, server_payload([capture_result(source)], offset=len(prompt))
    return None


def lens_logprobs(lens: Any) -> Logprobs | None:
    """The log-probs of what a page replays from a server-lens record (a capture run, a check result or a list of them), or None."""
    if is_capture(lens):
        return capture_logprobs(lens)
    results = [lens] if isinstance(lens, CheckResult) else lens
    if isinstance(results, (list, tuple)) and results and all(isinstance(r, CheckResult) for r in results):
        return result_logprobs(results)
    return None
