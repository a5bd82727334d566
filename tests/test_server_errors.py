"""A server error is never read as an answer (issue 27 item 7): each shape an outage takes is server-error, alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from _lens import STREAMS

from harmony_viz.servers import check_captures
from harmony_viz.servers.core import check_answer, read_stream, with_stream_final

REPORTS = Path(__file__).resolve().parents[1] / "docs" / "conformance" / "reports"


@pytest.mark.parametrize("capture", ["vllm-0.16.0-error-body-200.chat.json", "vllm-0.16.0-without-block-size.chat.json"])
def test_vllm_016s_error_bodies_with_http_200_are_server_errors(capture: str) -> None:
    # Real answers of vLLM 0.16.0 (see docs/conformance/reports/PROVENANCE.md): HTTP 200 with {"error": {...}} for a body.
    (r,) = check_captures([str(REPORTS / capture)])
    assert r.error is not None and "in a 200 answer" in r.error
    assert {d.code for d in r.discrepancies} == {"server-error"}


def test_an_error_event_mid_stream_is_not_also_a_stream_final_mismatch() -> None:
    ids = read_stream(str(STREAMS / "clean-final.txt"))
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "The answer"}, "finish_reason": None}]}
    broken = check_answer("s", "chat-stream", ids, [chunk, {"error": {"message": "list index out of range", "code": 500}}])
    whole = check_answer("s", "chat", ids, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                            "choices": [{"index": 0, "message": {"role": "assistant", "content": "The answer is 4."}, "finish_reason": "stop"}]})
    _, streamed = with_stream_final([whole, broken])
    assert streamed.error is not None and {d.code for d in streamed.discrepancies} == {"server-error"}


def test_a_failed_response_is_a_server_error_and_a_completed_one_is_not() -> None:
    ids = read_stream(str(STREAMS / "clean-final.txt"))
    failed = {"id": "r", "object": "response", "created_at": 0, "model": "m", "status": "failed", "output": [],
              "error": {"code": "server_error", "message": "the engine died"}}
    r = check_answer("s", "responses", ids, failed)
    assert {d.code for d in r.discrepancies} == {"server-error"} and "the engine died" in (r.error or "")
    ok = {**failed, "status": "completed", "error": None,
          "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The answer is 4."}]}]}
    assert check_answer("s", "responses", ids, ok).error is None
