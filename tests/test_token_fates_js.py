"""The browser's reading of fates and log-probs (js/src/replay/chips.ts) under node, against the Python side.

Each case is a page payload of shipped captures (one per engine, the capture of five
alternatives, and one stream's checks across three engines); node decodes it as the browser
does and must find every check's fate of every token, each log-prob and alternative, and the
token card's lines on them, as the server lens and the capture say.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _js import node, run_node_tests

from harmony_viz._replay import logprobs_of, payload, server_tab
from harmony_viz.inputs import read
from harmony_viz.servers import check_captures, lens
from harmony_viz.servers.core import FATES, result_fates
from harmony_viz.tokens import encoding, special_by_id
from harmony_viz.trace import Trace


def _capture(engine: str, name: str) -> str:
    return next(p for p in lens.shipped_captures(engine) if Path(p).name == name)


def _half(x: float) -> float:
    return float(np.float16(x))


def _expected(results: list, lp, n: int, offset: int) -> dict:  # noqa: ANN001
    enc = encoding()
    fates = []
    for r in results:
        f = result_fates(r)
        rows: list = [None] * n
        if f is not None:
            for t, (a, b) in enumerate(zip(f.fate, f.expected)):
                if a:
                    rows[offset + t] = [FATES[a], FATES[b], a != b]
        fates.append(rows)
    logprobs = None
    if lp is not None:
        logprobs = []
        for t in range(n):
            v = float(lp.value[t])
            alts = [[i, _half(x), enc.decode_single_token_bytes(i).decode("utf-8", errors="replace"),
                     special_by_id(i).literal if special_by_id(i) else None] for i, x in lp.alternatives(t)]
            logprobs.append([None if np.isnan(v) else _half(v), alts])
    label = f"{results[0].engine or 'server'} {results[0].api}" if results else ""
    cards = [[t, {"fate": row[0], "expected": row[1], "mismatch": row[2], "check": label}] for t, row in enumerate(fates[0]) if row][:12] if fates else []
    return {"fates": fates, "logprobs": logprobs, "cards": cards}


def test_the_browser_reads_fates_and_log_probs_as_python_wrote_them(tmp_path: Path) -> None:
    node()
    sources = {
        "vllm-seed-001-chat": _capture("vllm", "seed-001.chat.json"),
        "llama-builtin-python-call-chat": _capture("llama.cpp", "builtin-python-call.chat.json"),
        "sglang-doubled-channel-chat": _capture("sglang", "doubled-channel.chat.json"),
        "gpt-oss-seed-001-responses": _capture("gpt-oss", "seed-001.responses.json"),
        "llama-top5": str(lens.DATA / "alternatives" / "seed-001.llama.cpp.chat.json"),
        "doubled-channel-3-engines": [r for e in ("vllm", "llama.cpp", "sglang") for r in check_captures(lens.shipped_captures(e))
                                      if lens.stream_name(r) == "doubled-channel"],
    }
    for name, source in sources.items():
        stream = read(source).stream()
        trace = Trace.build(stream.ids, "token", role=stream.role)
        server = server_tab(stream)
        lp = logprobs_of(stream)
        meta, buf = payload(trace, server, prompt_tokens=stream.prompt_tokens, logprobs=lp)
        if isinstance(source, list):
            results, offset = source, 0
        else:
            from harmony_viz.servers import load_capture
            from harmony_viz.servers.core import capture_result

            run = load_capture(source)
            results, offset = [capture_result(run)], len(run.prompt_token_ids)
        (tmp_path / f"{name}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
        (tmp_path / f"{name}.bin").write_bytes(buf)
        (tmp_path / f"{name}.expected.json").write_text(json.dumps(_expected(results, lp, int(trace.tokens.size), offset)), encoding="utf-8")
    out = run_node_tests("test/chips.test.mjs", {"HV_CHIP_FIXTURES": str(tmp_path)})
    assert f"# pass {len(sources) + 4}" in out and "# fail 0" in out, out[-3000:]
