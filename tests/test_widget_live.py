"""The replay widget following a stream as it grows (the recorder's live view), without a model."""

from __future__ import annotations

from harmony_viz import replay
from harmony_viz.runs import Run
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

STREAM = (
    "<|start|>user<|message|>Weather in Paris?<|end|>"
    "<|start|>assistant<|channel|>analysis<|message|>Need the weather tool.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>"
)


def _ids() -> list[int]:
    return encode(STREAM)


def test_appended_tokens_end_up_in_the_trace_and_the_view_follows() -> None:
    ids = _ids()
    w = replay([])
    w.start_live(ids[:5], run_id="r1")
    assert list(w.trace.tokens) == ids[:5] and w.step == w.n_steps - 1
    for i in range(5, len(ids), 3):
        w.append_tokens(ids[i : i + 3], [0.0] * len(ids[i : i + 3]))
    w.finish_live()
    assert list(w.trace.tokens) == ids
    assert w.step == w.n_steps - 1
    # The live view is the replay of the recorded run: its prompt is what start_live was given.
    recorded = replay(Run(id="r1", prompt_token_ids=tuple(ids[:5]), completion_token_ids=tuple(ids[5:])), step=-1)
    assert w.get_state()["_columns"] == recorded.get_state()["_columns"] and w.get_state()["_meta"] == recorded.get_state()["_meta"]
    assert Trace.build(ids, "token").to_payload()[1] in w.get_state()["_columns"]  # the trace's columns, then the API view's
    assert w.api_view == recorded.api_view
    assert w.api_view["views"]["chat"]["usage"]["prompt_tokens"] == 5


def test_a_viewer_looking_back_is_not_moved() -> None:
    ids = _ids()
    w = replay([])
    w.start_live(ids[:20])
    w.step = 3
    w.append_tokens(ids[20:], None)
    w.finish_live()
    assert w.step == 3 and list(w.trace.tokens) == ids


def test_rechunking_after_a_live_run_keeps_every_token() -> None:
    ids = _ids()
    w = replay([])
    w.start_live([])
    w.append_tokens(ids, None)
    w.finish_live()
    w.chunking = "every:4"
    assert list(w.trace.tokens) == ids and str(w.trace.chunking) == "every:4"
