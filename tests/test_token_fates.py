"""What the server made of each token (fates) and the model's alternatives (log-probs), as the replay carries them.

Fates come from the server lens's own alignment (``servers._compare.fates``): on every shipped
capture of every engine, the tokens whose fate differs from the format's are exactly those of
the spans where the lens reports a misplaced text. Log-probs come from a capture's
``logprobs.content`` (llama.cpp's, top 1 in the zoo, top 5 in ``alternatives/``) or from a run
recorded with ``top_logprobs``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from harmony_viz import replay
from harmony_viz._replay import logprob_columns, logprobs_of, payload
from harmony_viz.inputs import read
from harmony_viz.servers import check_captures, lens, load_capture
from harmony_viz.servers import lens_logprobs as result_logprobs
from harmony_viz.servers.core import FATES, answer_logprobs, capture_logprobs, result_fates
from harmony_viz.trace import Logprobs, Trace

# The codes whose span is a message the answer put somewhere else than the format does.
MISPLACED = {"reasoning-in-content", "preamble-hidden", "text-dropped", "tool-json-in-content", "tool-call-missing", "tool-call-extra", "server-error"}
ALTERNATIVES = lens.DATA / "alternatives" / "seed-001.llama.cpp.chat.json"


def _results(engine: str) -> list:
    return list(check_captures(lens.shipped_captures(engine)))


@pytest.fixture(scope="module")
def every_result() -> dict[str, list]:
    return {engine: _results(engine) for engine in lens.shipped_engines()}


@pytest.mark.parametrize("engine", ["vllm", "llama.cpp", "sglang", "gpt-oss"])
def test_mismatched_fates_are_exactly_where_the_lens_reports_misplaced_text(every_result, engine: str) -> None:
    results = every_result[engine]
    assert len(results) >= 26
    marked = 0
    for r in results:
        f = result_fates(r)
        assert f is not None and len(f.fate) == len(f.expected) == len(r.token_ids), r.file
        wrong = set(f.mismatches())
        spans = [d.where for d in r.discrepancies if d.code in MISPLACED and d.where is not None]
        covered = {t for s in spans for t in range(s.start, s.end)}
        assert wrong <= covered, (r.file, r.api, sorted(wrong - covered))
        for s in spans:  # and every such span has a misplaced token
            assert any(s.start <= t < s.end for t in wrong), (r.file, r.api, s)
        # a misplaced message's every text token is marked, not a part of it
        for d in r.discrepancies:
            if d.code in ("reasoning-in-content", "text-dropped") and d.where is not None:
                body = [t for t in range(d.where.start, d.where.end) if FATES[f.expected[t]] not in ("control", "call-name")]
                assert body and all(t in wrong for t in body), (r.file, r.api, d.code)
        marked += bool(wrong)
    assert marked >= 5  # every engine misplaces something in the zoo


def test_fates_name_where_each_engine_put_the_text(every_result) -> None:
    def names(engine: str, stream: str, api: str) -> list[str]:
        r = next(r for r in every_result[engine] if lens.stream_name(r) == stream and r.api == api)
        return result_fates(r).names()

    # seed-001 through vLLM: analysis as reasoning, the preamble as content, the call's name and arguments as a call
    seed = names("vllm", "seed-001", "chat")
    ids = list(next(r for r in every_result["vllm"] if lens.stream_name(r) == "seed-001").token_ids)
    assert set(seed) == {"control", "reasoning", "content", "call-name", "call-arguments"}
    assert seed[ids.index(200008) + 1] == "reasoning" and seed[-1] == "control"  # the first body token; <|call|>
    # the reference server hides seed-001's preamble: dropped, where the format shows it
    gpt = next(r for r in every_result["gpt-oss"] if lens.stream_name(r) == "seed-001" and r.api == "responses")
    f = result_fates(gpt)
    assert {(FATES[f.fate[t]], FATES[f.expected[t]]) for t in f.mismatches()} == {("dropped", "content")}
    # SGLang shows a doubled header's chain of thought as content; an HTTP error drops every text token
    assert ("content", "reasoning") in {(a, b) for a, b in zip(names("sglang", "doubled-channel", "chat"),
                                                             (FATES[c] for c in result_fates(next(r for r in every_result["sglang"] if lens.stream_name(r) == "doubled-channel" and r.api == "chat")).expected))}
    lost = names("llama.cpp", "glued-channel", "chat")
    assert "dropped" in lost and not {"content", "reasoning"} & set(lost)


def test_the_payload_carries_one_fate_column_pair_per_check_and_keeps_the_json_clean(every_result) -> None:
    results = [r for r in every_result["vllm"] if lens.stream_name(r) == "doubled-channel"]
    w = replay(results)
    meta = w._meta
    assert meta["fates"]["codes"] == list(FATES) and meta["fates"]["checks"] == [True] * len(results)
    names = {c["name"] for c in meta["columns"]}
    assert {f"fate.{i}.{k}" for i in range(len(results)) for k in ("len", "value")} <= names
    assert "fates" not in meta["server"]  # the runs travel as columns, not as JSON
    # decoded as the browser does: the runs cover the stream, each value fate | expected << 3 | mismatch << 6
    col = {c["name"]: c for c in meta["columns"]}
    buf = w._columns

    def read(name: str) -> np.ndarray:
        c = col[name]
        return np.frombuffer(buf, dtype="<" + c["dtype"], count=c["length"], offset=c["offset"]).astype(int)

    for i, r in enumerate(results):
        values = np.repeat(read(f"fate.{i}.value"), read(f"fate.{i}.len"))
        f = result_fates(r)
        assert values.size == len(r.token_ids)
        assert (values & 7).tolist() == list(f.fate) and (values >> 3 & 7).tolist() == list(f.expected)
        assert np.flatnonzero(values & 64).tolist() == f.mismatches()


def test_a_capture_with_its_prompt_has_no_fate_on_the_prompt() -> None:
    path = next(p for p in lens.shipped_captures("vllm") if p.endswith("seed-001.chat.json"))
    run = load_capture(path)
    w = replay(path)
    col = {c["name"]: c for c in w._meta["columns"]}
    lens_ = np.frombuffer(w._columns, dtype="<" + col["fate.0.len"]["dtype"], count=col["fate.0.len"]["length"], offset=col["fate.0.len"]["offset"])
    vals = np.frombuffer(w._columns, dtype="<" + col["fate.0.value"]["dtype"], count=col["fate.0.value"]["length"], offset=col["fate.0.value"]["offset"])
    assert int(lens_[0]) == len(run.prompt_token_ids) and int(vals[0]) == 0
    assert int(lens_.sum()) == len(run.prompt_token_ids) + len(run.completion_token_ids)


def test_llama_cpp_captures_carry_their_log_probs_and_others_none() -> None:
    for path in lens.shipped_captures("llama.cpp"):
        run = load_capture(path)
        lp = capture_logprobs(run)
        api = run.metadata.extra["server"]["api"]
        if api == "chat" and run.metadata.extra["server"].get("error") is None:
            assert lp is not None and lp.k == 1 and lp.reported == len(run.completion_token_ids), path
            assert lp.n == len(run.prompt_token_ids) + len(run.completion_token_ids)
            assert np.isnan(lp.value[: len(run.prompt_token_ids)]).all()
        if api.startswith("responses"):
            assert lp is None
    for engine in ("vllm", "sglang", "gpt-oss"):
        assert all(capture_logprobs(load_capture(p)) is None for p in lens.shipped_captures(engine))


def test_the_capture_of_five_alternatives_reads_back_exactly() -> None:
    run = load_capture(ALTERNATIVES)
    server = run.metadata.extra["server"]
    entries = server["final"]["choices"][0]["logprobs"]["content"]
    lp = capture_logprobs(run)
    prompt = len(run.prompt_token_ids)
    assert lp.k == 5 and lp.reported == len(entries) == len(run.completion_token_ids) == 43
    for t, e in enumerate(entries):
        assert lp.value[prompt + t] == pytest.approx(e["logprob"], abs=1e-5)
        assert lp.alternatives(prompt + t) == [(a["id"], pytest.approx(a["logprob"], abs=1e-5)) for a in sorted(e["top_logprobs"], key=lambda a: -a["logprob"])]
    # the page's columns: float16 log-probs, the alternatives through their own table, the special ones named
    cols, meta = logprob_columns(lp, lp.n)
    assert meta["k"] == 5 and meta["reported"] == 43 and "llama.cpp chat, top 5" in meta["source"]
    assert meta["start"] == prompt and cols["lp.value"].size == 43  # the prompt costs nothing
    assert cols["lp.value"].dtype == np.float16 and cols["lp.alt.n"].sum() == 5 * 43
    assert np.allclose(cols["lp.value"].astype(float), lp.value[prompt:], atol=0.01)
    table = np.cumsum(cols["lp.vocab.gap"])
    assert [int(table[i]) for i in cols["lp.alt.id"][:5]] == [i for i, _ in lp.alternatives(prompt)]


def test_vllm_style_entries_are_matched_by_token_id_text_or_bytes_and_skipped_tokens_keep_none() -> None:
    ids = [200005, 35644, 200008, 12194]
    chunks = [{"choices": [{"delta": {}, "logprobs": {"content": [
        {"token": "token_id:200005", "logprob": -0.1, "top_logprobs": [{"token": "token_id:200005", "logprob": -0.1}, {"token": "token_id:200007", "logprob": -2.5}]},
        {"token": "Hi", "bytes": list(b"Hi"), "logprob": -0.5, "top_logprobs": [{"token": "<|end|>", "bytes": list(b"<|end|>"), "logprob": -1.5}]},
    ]}}]}]
    lp = answer_logprobs("chat-stream", chunks, ids, source="vllm chat-stream")
    assert lp.value[0] == pytest.approx(-0.1) and math.isnan(lp.value[1]) and math.isnan(lp.value[2]) and lp.value[3] == pytest.approx(-0.5)
    assert lp.alternatives(0) == [(200005, pytest.approx(-0.1)), (200007, pytest.approx(-2.5))]
    assert lp.alternatives(3) == [(200007, pytest.approx(-1.5))]
    assert answer_logprobs("responses", {"output": []}, ids, source="x") is None


def test_replays_carry_log_probs_from_captures_and_check_results_and_say_none_otherwise() -> None:
    w = replay(str(ALTERNATIVES))
    assert w._meta["logprobs"]["k"] == 5 and {c["name"] for c in w._meta["columns"]} >= {"lp.value", "lp.alt.id", "lp.vocab.gap", "lp.vocab.bytes"}
    assert next(c for c in w._meta["columns"] if c["name"] == "lp.value")["dtype"] == "f2"
    results = [r for r in _results("llama.cpp") if lens.stream_name(r) == "seed-001"]
    got = result_logprobs(results)
    assert got is not None and got.k == 1 and "llama.cpp chat" in got.source
    assert replay(results)._meta["logprobs"]["k"] == 1
    # a stream without them: no columns, meta null (the card says so)
    plain = replay("<|start|>assistant<|channel|>final<|message|>Hi<|end|>")
    assert plain._meta["logprobs"] is None and plain._meta["fates"] is None
    assert not any(c["name"].startswith(("lp.", "fate.")) for c in plain._meta["columns"])
    # the chunking changes, the log-probs stay
    w.chunking = "every:4"
    assert w._meta["logprobs"]["k"] == 5


def test_a_recorded_runs_log_probs_travel_into_the_trace(tmp_path) -> None:  # noqa: ANN001
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from harmony_viz._record import load_model, make_tiny_model, record

    tiny = load_model(make_tiny_model(tmp_path / "model"), device="cpu")
    run = record(tiny, "What is 2 + 3 * 4?", date="2026-01-15", temperature=0, max_new_tokens=6, top_logprobs=3)
    path = tmp_path / "run.json"
    path.write_text(__import__("json").dumps(run.to_json()))
    stream = read(str(path)).stream()
    lp = logprobs_of(stream)
    n_prompt = len(run.prompt_token_ids)
    assert lp is not None and lp.k == 3 and lp.n == n_prompt + len(run.completion_token_ids)
    assert lp.reported == len(run.completion_token_ids) and np.isnan(lp.value[:n_prompt]).all()
    top = run.metadata.extra["top_logprobs"]
    for t in range(len(run.completion_token_ids)):
        assert lp.value[n_prompt + t] == pytest.approx(run.logprobs[t], abs=1e-4)
        assert [i for i, _ in lp.alternatives(n_prompt + t)] == [i for i, _ in top[t]]
    # greedy: the token is the model's first choice
    assert all(lp.alternatives(n_prompt + t)[0][0] == run.completion_token_ids[t] for t in range(len(run.completion_token_ids)))
    meta = replay(str(path))._meta
    assert meta["logprobs"]["k"] == 3 and "recorder" in meta["logprobs"]["source"]


def test_harness_tokens_have_no_log_prob() -> None:
    from harmony_viz.runs import Run, RunMetadata

    run = Run(id="r", metadata=RunMetadata(model="m", extra={"top_logprobs": [[[5, -0.1]], [], [], [[7, -0.2]]], "harness_spans": [[1, 3]]}),
              prompt_token_ids=(1, 2), completion_token_ids=(5, 9, 9, 7), logprobs=(-0.1, 0.0, 0.0, -0.2))
    lp = Logprobs.from_run(run, offset=2)
    assert lp.n == 6 and lp.reported == 2 and math.isnan(lp.value[3]) and lp.alternatives(5) == [(7, pytest.approx(-0.2))]


def test_bytes_per_token_that_fates_and_log_probs_add_on_a_real_capture() -> None:
    """The payload growth, stated in the README: fates are runs (a few bytes a message); log-probs 3 bytes a token,
    3 an alternative, and each distinct alternative's id and bytes once."""
    from harmony_viz._replay import server_tab

    run = load_capture(ALTERNATIVES)
    stream = read(str(ALTERNATIVES)).stream()
    trace = Trace.build(stream.ids, "token", role=stream.role)
    server = server_tab(stream)
    n, reported = int(trace.tokens.size), len(run.completion_token_ids)
    bare = len(payload(trace, {k: v for k, v in server.items() if k != "fates"})[1])
    with_fates = len(payload(trace, server)[1])
    meta, both = payload(trace, server, logprobs=capture_logprobs(run))
    size = {c["name"]: c["length"] * int(c["dtype"][1]) for c in meta["columns"] if c["name"].startswith("lp.")}
    per_token = sum(v for k, v in size.items() if not k.startswith("lp.vocab.")) / reported
    table = sum(v for k, v in size.items() if k.startswith("lp.vocab."))
    distinct = next(c["length"] for c in meta["columns"] if c["name"] == "lp.vocab.len")
    fates_per_token = (with_fates - bare) / n
    lp_per_token = (len(both) - with_fates) / reported
    print(f"fates: {fates_per_token:.2f} bytes/token over {n} tokens; log-probs (top 5): {lp_per_token:.1f} bytes/token reported "
          f"= {per_token:.1f} per token + a table of {distinct} distinct alternatives ({table / distinct:.1f} bytes each)")
    assert fates_per_token < 0.5
    assert per_token == 2 + 1 + 5 * (1 + 2)  # a half and a count per token, an index and a half per alternative
    assert len(both) - with_fates < per_token * reported + table + 4 * 7  # and each column's padding
