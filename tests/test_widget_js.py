"""The frontend's pure logic under node's test runner, fed traces written by the Python side.

The node tests decode each payload the way the browser does and compare every step's
events, state and message text with what the Python trace recorded from the real scanner.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _js import node, run_node_tests
from _replay_streams import XSS_TEXT, finding5

from harmony_viz._replay import ApiViews, Lints, payload, stream_findings
from harmony_viz.findings import SEVERITIES
from harmony_viz.scanner import ContentDelta
from harmony_viz.tokens import token_sentence
from harmony_viz.trace import Trace

# Calls of every kind the Responses API tells apart, the last one cut off by the end of the stream.
CALLS_TEXT = (
    "<|start|>user<|message|>Find the docs, open them, file an issue.<|end|>"
    "<|start|>assistant<|channel|>analysis<|message|>Search first.<|end|>"
    "<|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|>"
    '<|start|>assistant<|channel|>analysis to=browser.search<|message|>{"query": "harmony format", "topn": 3}<|call|>'
    '<|start|>assistant<|channel|>analysis to=browser.open<|message|>{"id": 2, "cursor": 1}<|call|>'
    '<|start|>assistant<|channel|>analysis to=browser.find<|message|>{"pattern": ["é", 1]}<|call|>'
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    '<|start|>assistant<|channel|>commentary to=github.create_issue<|message|>{"title": "bug"'
)


# Every special token the format uses (and two it does not), a spaced channel, a call without <|constrain|>:
# findings of the scanner and of the lints, on chips of every kind.
SPECIALS_TEXT = (
    "<|startoftext|><|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant<|channel|> final<|message|>Checking.<|end|>"
    '<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>'
    "<|start|>assistant<|channel|>final<|message|>Sunny <|reserved_200100|> and warm.<|return|><|endoftext|>"
)


def _chip_marks(trace: Trace, placed: list) -> list:
    """``[token, worst severity, codes]`` of every marked chip once all findings show (an empty span marks its one token)."""
    n = int(trace.tokens.size)
    on: dict[int, list] = {}
    for p in placed:
        if p.tokens is None or n == 0:
            continue
        a = min(p.tokens[0], n - 1)
        for t in range(a, max(a + 1, min(p.tokens[1], n))):
            on.setdefault(t, []).append(p)
    out = []
    for t in sorted(on):
        codes = list(dict.fromkeys(p.code for p in on[t]))
        out.append([t, min((p.severity for p in on[t]), key=SEVERITIES.index), " ".join(codes)])
    return out


def _expected(trace: Trace) -> dict:
    starts = trace.token_char_starts if trace.unit == "chars" else None
    pos = (lambda t: int(starts[t])) if starts is not None else (lambda t: t)
    pos_end = (lambda t: int(starts[t + 1])) if starts is not None else (lambda t: t + 1)
    steps = []
    index_of = {m.index: i for i, m in enumerate(trace.messages)}
    bodies = ["" for _ in trace.messages]
    for s in trace.steps:
        events = []
        for e in s.events:
            if isinstance(e, ContentDelta):
                events.append(["ContentDelta", e.message, e.start, e.end, e.text])
                bodies[index_of[e.message]] += e.text
            else:
                m = getattr(e, "message", -1)
                events.append([type(e).__name__, m if isinstance(m, int) else -1, e.start, e.end, None])
        fed = sum(1 for t in range(trace.tokens.size) if pos_end(t) <= s.end)
        steps.append({"fed_full": fed, "events": events, "content": list(bodies),
                      "snapshot": {f: getattr(s.snapshot, f) for f in s.snapshot.__slots__}})
    last = trace.steps[-1].end
    message_of = []
    for t in range(trace.tokens.size):
        owner = [m.index for m in trace.messages if m.start <= pos(t) < (m.end if m.end is not None else last)]
        message_of.append([t, owner[0] if owner else -1])
    ends = np.array([s.end for s in trace.steps])
    step_of = [[t, int(np.argmax(ends >= pos_end(t)))] for t in range(trace.tokens.size)]
    placed = stream_findings(trace, Lints().of(trace)[0])
    return {
        "findings": [[p.step, *(p.tokens if p.tokens else (None, None)), p.code, p.severity, p.source, p.message] for p in placed],
        "chip_marks": _chip_marks(trace, placed),
        "sentences": [[t, token_sentence(int(i))] for t, i in enumerate(trace.tokens.tolist()) if token_sentence(int(i))],
        "ids": trace.tokens.tolist(),
        "token_text": [trace.token_bytes_of(int(t)).decode("utf-8", errors="replace") for t in trace.tokens],
        "steps": steps,
        "message_of_token": message_of,
        "step_of_token": step_of,
    }


def test_frontend_logic_matches_the_python_trace(enc, corpus_dir, tmp_path: Path) -> None:
    node()  # skip early, before the fixtures are written
    streams = {
        "xss": XSS_TEXT,
        "tool_call": finding5(corpus_dir, "cyberthreat-17")[-3000:],
        "bare_commentary": finding5(corpus_dir, "cyberthreat-24")[-2500:],
    }
    cases = {name: enc.encode(text, allowed_special="all") for name, text in streams.items()}
    # Lengths around 256, where a column's type steps from u1 to u2 (an off-by-one there would wrap).
    long_ids = enc.encode(finding5(corpus_dir, "helpful-1"), allowed_special="all")
    for length in (255, 256, 257, 260):
        cases[f"len{length}"] = long_ids[:length]
    cases["calls"] = enc.encode(CALLS_TEXT, allowed_special="all")
    cases["specials"] = enc.encode(SPECIALS_TEXT, allowed_special="all")
    cases["tool_calling_trial"] = _trial_ids()
    n = n_api = 0
    for name, ids in cases.items():
        specs = ("token", "random:3", "chars:7", "bytes:2", "server") if not name.startswith("len") else ("token", "every:1")
        for spec in specs:
            trace = Trace.build(ids, spec)
            views = ApiViews(trace)
            meta, buf = payload(trace)  # the page's payload: API view data and every finding (scanner and lints)
            stem = f"{name}-{spec.replace(':', '_')}"
            (tmp_path / f"{stem}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
            if not name.startswith("len"):
                # the page's API view, built in the browser, against Python's at every step
                (tmp_path / f"{stem}.api.json").write_text(json.dumps([views.at(k) for k in range(trace.n_steps)]), encoding="utf-8")
                n_api += 1
            (tmp_path / f"{stem}.bin").write_bytes(buf)
            (tmp_path / f"{stem}.expected.json").write_text(json.dumps(_expected(trace)), encoding="utf-8")
            n += 1
    out = run_node_tests("test/replay.test.mjs", {"HV_FIXTURES": str(tmp_path)})
    # the fixture tests really ran, next to the pure-logic unit tests
    assert f"# pass {n + n_api + 14}" in out, out[-2000:]


def _trial_ids() -> list[int]:
    """The demo's transcript: a real tool-calling run, the whole conversation."""
    from harmony_viz.cli import replay_tokens

    return replay_tokens()
