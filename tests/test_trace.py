"""The trace model: chunkings, steps, messages and the columnar payload, against the real scanner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _replay_streams import XSS_TEXT, finding5, long_ids, rft
from hypothesis import example, given
from hypothesis import strategies as st

from harmony_viz.scanner import ContentDelta, MessageEnd, MessageStart, Scanner
from harmony_viz.trace import Chunking, Trace, parse_chunking, text_chunks, token_chunks

TOKEN_CHUNKINGS = ["token", "every:3", "every:1000", "random:0", "random:5:2"]
TEXT_CHUNKINGS = ["chars:1", "chars:7", "bytes:1", "bytes:5", "server", "server:3"]


@pytest.fixture(scope="module")
def tool_run(corpus_dir) -> str:
    """A real run whose completion calls an undeclared tool (stop token stripped)."""
    return finding5(corpus_dir, "cyberthreat-17")


@pytest.fixture(scope="module")
def xss_ids(enc) -> list[int]:
    """The hostile stream as token ids."""
    return enc.encode(XSS_TEXT, allowed_special="all")


# ---- chunkings ---------------------------------------------------------------------

@pytest.mark.parametrize(
    "spec, expected",
    [("token", Chunking("token")), ("every:4", Chunking("every", 4)), ("random:7", Chunking("random", 8, 7)),
     ("random:7:3", Chunking("random", 3, 7)), ("chars:16", Chunking("chars", 16)), ("bytes:3", Chunking("bytes", 3)),
     ("server", Chunking("server", 1)), ("server:2", Chunking("server", 2)), (" every:2 ", Chunking("every", 2))],
)
def test_parse_chunking_round_trips(spec: str, expected: Chunking) -> None:
    got = parse_chunking(spec)
    assert got == expected
    assert parse_chunking(str(got)) == got


@pytest.mark.parametrize(
    "spec, message",
    [("tokens", "unknown chunking 'tokens'; use one of: token, every:N, random:SEED, chars:N, bytes:N, server"),
     ("every", "chunking 'every' needs a size, e.g. 'every:4'"),
     ("every:0", "chunking 'every:0': the size must be at least 1, got 0"),
     ("token:3", "chunking 'token:3': 'token' takes no number; for N tokens per step write 'every:N'"),
     ("random", "chunking 'random' needs a seed, e.g. 'random:0'")],
)
def test_parse_chunking_errors_say_what_to_write(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_chunking(spec)
    assert str(info.value) == message


@given(n=st.integers(0, 300), spec=st.sampled_from(TOKEN_CHUNKINGS + ["random:11", "every:7"]))
def test_token_chunks_cover_the_stream_once(n: int, spec: str) -> None:
    ends = list(token_chunks(n, parse_chunking(spec)))
    assert ends == sorted(set(ends))
    assert (ends[-1] if ends else 0) == n
    assert all(e > 0 for e in ends)


def test_random_chunking_is_seeded() -> None:
    a = token_chunks(500, parse_chunking("random:3"))
    assert a == token_chunks(500, parse_chunking("random:3"))
    assert a != token_chunks(500, parse_chunking("random:4"))
    sizes = np.diff([0, *a])
    assert sizes.min() >= 1 and sizes.max() <= 8 and len(set(sizes.tolist())) > 3


@given(text=st.text(alphabet=st.sampled_from(list("ab é日🙂\n<|>")), max_size=60), spec=st.sampled_from(TEXT_CHUNKINGS))
def test_text_chunks_join_to_the_text(enc, text: str, spec: str) -> None:
    ids = enc.encode(text, allowed_special="all")
    token_bytes = [enc.decode_single_token_bytes(t) for t in ids]
    pieces = text_chunks(text, token_bytes, parse_chunking(spec))
    assert "".join(pieces) == text
    if spec.startswith("server"):
        assert all(pieces)  # a server sends no empty deltas


def test_server_chunking_holds_back_split_characters(enc) -> None:
    text = "🦜🦜"
    ids = enc.encode(text)
    token_bytes = [enc.decode_single_token_bytes(t) for t in ids]
    assert any(not _complete(b) for b in token_bytes), "the test needs an emoji split across tokens"
    pieces = text_chunks(text, token_bytes, parse_chunking("server"))
    assert pieces == ["🦜", "🦜"]


def _complete(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# ---- the trace ---------------------------------------------------------------------

def _reference(ids: list[int]) -> tuple[list[tuple], dict[int, str]]:
    """Headers and bodies from feeding the whole stream at once (flush included)."""
    s = Scanner()
    events = [*s.feed(ids), *s.flush()]
    heads = [(e.message, e.role, e.recipient, e.channel, e.content_type) for e in events if isinstance(e, MessageStart)]
    bodies: dict[int, str] = {}
    for e in events:
        if isinstance(e, ContentDelta):
            bodies[e.message] = bodies.get(e.message, "") + e.text
    return heads, bodies


@pytest.mark.parametrize("spec", TOKEN_CHUNKINGS + TEXT_CHUNKINGS)
def test_every_chunking_replays_to_the_whole_stream_result(enc, tool_run: str, spec: str) -> None:
    ids = enc.encode(tool_run, allowed_special="all")
    trace = Trace.build(ids, spec)
    heads, bodies = _reference(ids)
    got_heads = [(e.message, e.role, e.recipient, e.channel, e.content_type) for e in trace.events() if isinstance(e, MessageStart)]
    assert got_heads == heads
    assert {m.index: trace.content(m.index) for m in trace.messages if m.index in bodies} == bodies
    # every piece fed exactly once, in order
    if trace.unit == "tokens":
        assert [t for s in trace.steps for t in s.chunk] == ids
    else:
        assert "".join(s.chunk for s in trace.steps) == enc.decode(ids) == trace.text
    assert [s.start for s in trace.steps[1:]] == [s.end for s in trace.steps[:-1]]


def _fed_step_by_step(ids: list[int], spec: str, role: str | None = None) -> list[tuple]:
    """Each step as a plain feed gives it: (start, end, chunk, events, snapshot), a snapshot taken every step."""
    chunking = parse_chunking(spec)
    scanner = Scanner(role=role)
    out = [(0, 0, () if chunking.unit == "tokens" else "", (), scanner.snapshot())]
    if chunking.unit == "tokens":
        chunks = [ids[a:b] for a, b in zip([0, *token_chunks(len(ids), chunking)], token_chunks(len(ids), chunking))]
    else:
        from harmony_viz.tokens import encoding

        token_bytes = [encoding().decode_single_token_bytes(t) for t in ids]
        chunks = text_chunks(b"".join(token_bytes).decode("utf-8", errors="replace"), token_bytes, chunking)
    pos = 0
    for chunk in chunks:
        events = scanner.feed(chunk)
        out.append((pos, pos + len(chunk), tuple(chunk) if chunking.unit == "tokens" else chunk, tuple(events), scanner.snapshot()))
        pos += len(chunk)
    events = scanner.flush()
    out.append((pos, pos, () if chunking.unit == "tokens" else "", tuple(events), scanner.snapshot()))
    return out


@pytest.mark.parametrize("spec", ["token", "every:3", "random:2", "chars:5", "bytes:3", "server"])
def test_steps_rebuilt_from_the_columns_are_the_plain_feed(enc, corpus_dir, spec: str) -> None:
    """A trace keeps columns and the state only where it changed; every step read back is what feeding gave."""
    import harmony_viz

    zoo = sorted((Path(harmony_viz.__file__).parent / "data" / "server_lens" / "streams").glob("*.txt"))
    texts = [XSS_TEXT, finding5(corpus_dir, "cyberthreat-17")[-1500:], finding5(corpus_dir, "cyberthreat-24")[-1500:],
             "<|start|>assistant<|channel|>final<|message|>a <|fake|> <|ca" + "ll|> é\U0001f99c cut off",
             *(p.read_text(encoding="utf-8") for p in zoo)]
    assert len(texts) > 8
    for text in texts:
        ids = enc.encode(text, allowed_special="all")
        trace = Trace.build(ids, spec)
        got = [(s.start, s.end, s.chunk, s.events, s.snapshot) for s in trace.steps]
        assert got == _fed_step_by_step(ids, spec), text[:80]
    completion = enc.encode("<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi", allowed_special="all")
    assert [s.snapshot for s in Trace.build(completion, spec, role="assistant").steps] == [x[4] for x in _fed_step_by_step(completion, spec, "assistant")]


def test_steps_are_initial_chunks_then_flush(enc) -> None:
    ids = enc.encode("<|start|>assistant<|channel|>final<|message|>Hello there", allowed_special="all")
    trace = Trace.build(ids, "token")
    assert trace.n_steps == len(ids) + 2
    first, last = trace.steps[0], trace.steps[-1]
    assert (first.chunk, first.events, first.snapshot.state) == ((), (), "outside")
    assert last.flush and last.chunk == () and last.start == last.end == len(ids)
    # the unterminated final message is closed at end of stream, in the flush step
    assert any(isinstance(e, MessageEnd) and e.terminator == "eos" for e in last.events)
    assert trace.messages[0].step_ended == trace.n_steps - 1


def test_messages_record_when_they_start_and_end(enc, tool_run: str) -> None:
    ids = enc.encode(tool_run, allowed_special="all")
    trace = Trace.build(ids, "token")
    for m in trace.messages:
        start_step = next(s.index for s in trace.steps if any(isinstance(e, MessageStart) and e.message == m.index for e in s.events))
        assert m.step_started == start_step
        # in token steps, the header ends with the token fed in that step
        assert trace.steps[m.step_started].end == m.header_end
    calls = [m for m in trace.messages if m.kind == "tool_call"]
    assert calls, "the run calls report_back_to_reception"
    assert calls[-1].recipient.endswith("report_back_to_reception")
    assert isinstance(calls[-1].parsed, dict) and "msg" in calls[-1].parsed


def test_content_until_a_step_is_a_prefix(enc, corpus_dir) -> None:
    ids = enc.encode(rft(corpus_dir, 0), allowed_special="all")
    trace = Trace.build(ids, "every:5")
    final = [m for m in trace.messages if m.kind == "final"][-1]
    whole = trace.content(final.index)
    assert whole
    for k in range(0, trace.n_steps, 7):
        assert whole.startswith(trace.content(final.index, k))


def test_role_starts_inside_an_assistant_message(enc) -> None:
    ids = enc.encode("Just an answer.<|return|>", allowed_special="all")
    trace = Trace.build(ids, "token", role="assistant")
    assert trace.messages and trace.messages[0].role == "assistant"
    assert trace.content(trace.messages[0].index) == "Just an answer."


@pytest.mark.parametrize("spec", ["token", "every:3", "random:5", "every:1000"])
def test_a_token_traces_scanned_messages_are_a_whole_scans(enc, corpus_dir, spec: str) -> None:
    """The lints read a trace's messages as one scan of the whole stream gives them: same text, spans (pieces joined) and fields."""
    from harmony_viz.scanner import scan

    zoo = sorted((Path(__file__).parents[1] / "harmony_viz" / "data" / "server_lens" / "streams").glob("*.txt"))
    texts = [XSS_TEXT, finding5(corpus_dir, "cyberthreat-17"), finding5(corpus_dir, "cyberthreat-24"), rft(corpus_dir, 0),
             "<|start|>assistant<|channel|>final<|message|>a <|fake|> <|ca" + "ll|> é\U0001f99c cut off",
             "<|start|>assistant<|channel|>analysis<|message|>x <|end|> y <|start|>user<|message|>z<|channel|>w<|end|>",
             *(p.read_text(encoding="utf-8") for p in zoo)]
    for text in texts:
        ids = enc.encode(text, allowed_special="all")
        for role in (None, "assistant"):
            assert Trace.build(ids, spec, role=role).scanned_messages() == scan(ids, role=role).messages, text[:80]
    assert Trace.build([], spec).scanned_messages() == []


@given(ids=st.lists(st.one_of(st.sampled_from([200006, 200005, 200008, 200007, 200012, 200002, 200003, 200018, 27, 91, 1750, 49361]),
                              st.integers(0, 200_000)), max_size=60),
       spec=st.sampled_from(["token", "every:2", "random:3"]))
@example(ids=[200008, 27, 27], spec="token")  # the flush releases the held '<': a piece of its own in the whole scan too
@example(ids=[200008, 200008, 27], spec="token")
def test_scanned_messages_of_any_token_stream(ids: list[int], spec: str) -> None:
    from harmony_viz.scanner import scan

    assert Trace.build(ids, spec).scanned_messages() == scan(ids).messages


@pytest.mark.parametrize("spec", ["token", "every:3", "chars:7", "server"])
def test_headers_are_the_message_fold_of_the_rare_events(enc, corpus_dir, spec: str) -> None:
    """The trace folds its headers itself (one record a message, made in one call): MessageFold's records, field for field."""
    from harmony_viz.scanner import MessageFold

    texts = [XSS_TEXT, finding5(corpus_dir, "cyberthreat-17"), finding5(corpus_dir, "cyberthreat-33"), rft(corpus_dir, 1),
             '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1', "<|start|>assistant<|channel|>fin"]
    for text in texts:
        for role in (None, "assistant"):
            trace = Trace.build(enc.encode(text, allowed_special="all"), spec, role=role)
            fold = MessageFold(trace.unit)
            for r in trace.rare:
                fold.add(r.event, r.step)
            assert trace.headers == tuple(fold.messages(include_open=True)), text[:60]


def test_a_text_trace_has_no_scanned_messages(enc) -> None:
    with pytest.raises(ValueError, match="for token traces"):
        Trace.build(enc.encode("<|start|>user<|message|>Hi<|end|>", allowed_special="all"), "chars:3").scanned_messages()


def test_the_collector_waits_while_a_trace_is_built_and_runs_as_before_after() -> None:
    import gc

    from harmony_viz.trace import collecting_after

    seen = []
    probe = collecting_after(lambda fail=False: seen.append(gc.isenabled()) or (1 / 0 if fail else "done"))
    assert gc.isenabled() and probe() == "done" and seen == [False] and gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        probe(fail=True)
    assert gc.isenabled()
    gc.disable()
    try:
        assert probe() == "done" and not gc.isenabled()  # left off when it was off
    finally:
        gc.enable()


def test_build_rejects_ids_outside_the_vocabulary() -> None:
    with pytest.raises(ValueError, match=r"token \d+ is 300000, outside the o200k_harmony vocabulary 0\.\.201087"):
        Trace.build([200006, 300000], "token")
    with pytest.raises(ValueError, match="flat list of ids"):
        Trace.build([[1, 2]], "token")


def test_build_reads_any_flat_sequence_of_ids_and_names_a_bad_one(xss_ids) -> None:
    want = Trace.build(xss_ids, "token").steps[-1]
    mixed = [*xss_ids[:3], np.int64(xss_ids[3]), *xss_ids[4:]]  # a numpy integer among Python ints
    for given in (tuple(xss_ids), np.array(xss_ids, dtype=np.int64), np.array(xss_ids, dtype=np.uint32), [np.int64(t) for t in xss_ids], mixed):
        assert Trace.build(given, "token").steps[-1] == want, type(given)
    with pytest.raises(ValueError, match=r"token 1 is 2\.5, not an integer id"):
        Trace.build([200006, 2.5, 1], "token")
    with pytest.raises(ValueError, match=r"token 0 is -1, outside"):
        Trace.build([-1, 200006], "token")
    with pytest.raises(ValueError, match=r"flat list of ids, got an array of shape \(2, 2\)"):
        Trace.build(np.zeros((2, 2), dtype=np.int64), "token")


@pytest.mark.parametrize("spec", ["token", "every:3", "chars:5", "server"])
def test_the_numpy_views_are_the_columns_the_trace_keeps(enc, corpus_dir, spec: str) -> None:
    """A trace keeps stdlib columns (runs of deltas as runs); the numpy views a caller asks for say the same."""
    ids = enc.encode(finding5(corpus_dir, "cyberthreat-17")[-3000:], allowed_special="all")
    trace = Trace.build(ids, spec)
    assert trace.tokens.tolist() == ids == list(trace.ids) and trace.n_tokens == len(ids)
    assert trace.ids[3:9] == ids[3:9]
    assert trace.step_ends.tolist() == [s.end for s in trace.steps] == [trace.step_end(k) for k in range(trace.n_steps)]
    d = trace.deltas
    deltas = [e for s in trace.steps for e in s.events if isinstance(e, ContentDelta)]
    assert len(deltas) == len(d) > 100
    assert [trace.delta(i) for i in range(len(d))] == deltas
    assert d.message.tolist() == [e.message for e in deltas]
    assert list(zip(d.start.tolist(), d.end.tolist())) == [(e.start, e.end) for e in deltas]
    steps = [s.index for s in trace.steps for e in s.events if isinstance(e, ContentDelta)]
    assert d.step.tolist() == steps
    assert [d.first_at(k) for k in range(trace.n_steps + 1)] == [sum(1 for s in steps if s < k) for k in range(trace.n_steps + 1)]
    if spec == "token":
        assert any(count > 1 for *_, count in d.units())  # runs kept as runs


def test_a_page_is_written_without_numpy(tmp_path, corpus_dir) -> None:
    """numpy is not loaded to write a page: its import (BLAS threads spinning included) costs a first call more than the page."""
    src = tmp_path / "run.txt"
    src.write_text(finding5(corpus_dir, "cyberthreat-17"), encoding="utf-8")
    code = ("import sys, harmony_viz as hv; w = hv.replay(sys.argv[1]); w.save_html(sys.argv[2]); w.close(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy'))")
    out = subprocess.run([sys.executable, "-c", code, str(src), str(tmp_path / "page.html")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]" and (tmp_path / "page.html").stat().st_size > 10_000


# ---- payload -----------------------------------------------------------------------

def test_payload_is_compact_for_a_long_real_stream(corpus_dir) -> None:
    ids = long_ids(corpus_dir, 20_000)
    trace = Trace.build(ids, "token")
    meta, columns = trace.to_payload()
    total = len(columns) + len(json.dumps(meta))
    assert total / len(ids) <= 16, f"{total / len(ids):.1f} bytes per token"
    assert meta["n_tokens"] == len(ids) and meta["n_steps"] == len(ids) + 2
    assert {c["name"] for c in meta["columns"]} >= {"tokens", "vocab_ids", "step_ends", "delta.step", "delta.gap", "delta.len", "event.step"}


def test_payload_columns_decode_to_the_trace(enc, xss_ids) -> None:
    for spec in ("token", "chars:5", "server"):
        trace = Trace.build(xss_ids, spec)
        meta, buf = trace.to_payload()
        cols = {c["name"]: _read(buf, c) for c in meta["columns"]}
        assert cols["vocab_ids"][cols["tokens"]].tolist() == xss_ids
        assert cols["step_ends"].tolist() == [s.end for s in trace.steps]
        deltas = [e for s in trace.steps for e in s.events if isinstance(e, ContentDelta)]
        starts = np.cumsum(cols["delta.gap"]) + np.concatenate([[0], np.cumsum(cols["delta.len"])[:-1]])
        assert starts.tolist() == [d.start for d in deltas]
        assert cols["delta.message"].tolist() == [d.message for d in deltas]
        assert cols["delta.step"].tolist() == [s.index for s in trace.steps for e in s.events if isinstance(e, ContentDelta)]
        others = [e for s in trace.steps for e in s.events if not isinstance(e, ContentDelta)]
        assert [meta["event_types"][t] for t in cols["event.type"]] == [type(e).__name__ for e in others]
        assert json.loads(json.dumps(meta)) == meta  # plain JSON, nothing Python-only


def _read(buf: bytes, c: dict) -> np.ndarray:
    dtype = np.dtype("<" + c["dtype"])
    arr = np.frombuffer(buf, dtype=dtype, count=c["length"], offset=c["offset"]).astype(np.int64)
    return np.cumsum(arr) if c["delta"] else arr


# ---- findings placed on the trace --------------------------------------------------

# The stream: a spaced final channel, then a call whose json lacks <|constrain|>.
SPACED_TEXT = ("<|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant<|channel|> final<|message|>Checking.<|end|>"
               '<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>')


def _findings(meta: dict, buf: bytes) -> list[tuple]:
    """The finding columns read back: (step, start, end, code, severity, source, message) each."""
    cols = {c["name"]: _read(buf, c) for c in meta["columns"] if c["name"].startswith("finding.")}
    f = meta["findings"]
    return [(int(st), int(a), int(a + n) if a >= 0 else -1, f["codes"][c], f["severities"][sv], f["sources"][so], f["messages"][m])
            for st, a, n, sv, so, c, m in zip(*(cols[f"finding.{k}"] for k in ("step", "start", "len", "severity", "source", "code", "message")))]


def test_the_scanners_findings_travel_as_columns_by_default(enc) -> None:
    """Without a lens beside it, a trace's payload carries its own diagnostics as findings, each at the step that reported it."""
    ids = enc.encode(SPACED_TEXT, allowed_special="all")
    trace = Trace.build(ids, "every:4")
    meta, buf = trace.to_payload()
    assert _findings(meta, buf) == [(step, d.start, d.end, d.code, d.severity, "scanner", d.message) for step, d in trace.diagnostics]
    assert [f[3] for f in _findings(meta, buf)] == ["bad-channel"]
    assert meta["findings"]["error"] is None and meta["findings"]["sources"] == ["scanner", "lint", "server", "prompt"]


def test_findings_are_placed_on_tokens_for_text_chunkings_too(enc) -> None:
    """A chars trace's spans count characters; its findings mark the tokens those characters are in."""
    from harmony_viz.trace import scanner_findings

    ids = enc.encode(SPACED_TEXT, allowed_special="all")
    by_tokens = {p.code: p.tokens for p in scanner_findings(Trace.build(ids, "token"))}
    for spec in ("chars:5", "server"):
        trace = Trace.build(ids, spec)
        assert {p.code: p.tokens for p in scanner_findings(trace)} == by_tokens
        assert trace.diagnostics[0][1].start != by_tokens["bad-channel"][0]  # it really counted characters


def test_a_lenss_finding_shows_once_its_span_is_fed_and_its_message_ended(enc) -> None:
    from harmony_viz.findings import Finding, Span
    from harmony_viz.trace import merge, place, scanner_findings

    ids = enc.encode(SPACED_TEXT, allowed_special="all")
    trace = Trace.build(ids, "token")
    call = trace.messages[-1]
    header = (call.start, call.header_end)
    f = Finding("constrain-missing", "warning", "no <|constrain|>", Span(*header))
    [placed] = place(trace, [(f, "lint", header)])
    assert placed.step == call.step_ended > header[1]  # the call's header is read long before the lint can judge the call
    [spanless] = place(trace, [(f, "server", None)])
    assert spanless.tokens is None and spanless.step == trace.n_steps - 1
    # a lint that repeats a scanner code on an overlapping span is the scanner's row; exact repeats are one row
    [(_, bad)] = trace.diagnostics
    repeat = Finding(bad.code, bad.severity, "the same, said by a lint", bad.where)
    rows = merge(scanner_findings(trace), place(trace, [(repeat, "lint", (bad.start, bad.end)), (f, "lint", header), (f, "lint", header)]))
    assert [(p.code, p.source) for p in rows] == [("bad-channel", "scanner"), ("constrain-missing", "lint")]


def test_findings_cost_about_twelve_bytes_each(enc) -> None:
    """The columns a finding adds: step, start, length, severity, source, code, message index (messages interned once)."""
    from harmony_viz.findings import Finding, Span
    from harmony_viz.trace import merge, place

    ids = enc.encode(SPACED_TEXT, allowed_special="all") * 200
    trace = Trace.build(ids, "token")
    bare_meta, bare = trace.to_payload(findings=[])
    many = [(Finding("html-escape", "warning", f"entity {i % 7}", Span(i, i + 2)), "lint", (i, i + 2)) for i in range(0, len(ids) - 2, 3)]
    placed = merge([], place(trace, many))
    meta, buf = trace.to_payload(findings=placed)
    per = (len(buf) - len(bare)) / len(placed)
    assert per <= 12, f"{per:.1f} bytes per finding"
    assert len(meta["findings"]["messages"]) == 7 and _findings(meta, buf)[0][3:] == ("html-escape", "warning", "lint", "entity 0")


def test_every_special_token_the_format_uses_has_its_sentence(enc) -> None:
    """One table in Python (tokens.SENTENCES), sent with the payload for the stream's own special tokens."""
    from harmony_viz.tokens import RESERVED_SENTENCE, SENTENCES, SPECIAL_TOKENS, special_by_literal, token_sentence

    used = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|return|>", "<|call|>", "<|endoftext|>", "<|startoftext|>"]
    for literal in used:
        assert SENTENCES[literal] and token_sentence(special_by_literal(literal).id) == SENTENCES[literal]
    assert token_sentence(200005) == "starts the channel name: analysis, commentary or final"
    assert token_sentence(200003).startswith("the content type of a tool call's arguments follows")
    for stop in ("<|end|>", "<|call|>", "<|return|>"):
        assert SENTENCES[stop].startswith("stop token: ") and "turn" in SENTENCES[stop]  # what it means for the turn
    reserved = [t for t in SPECIAL_TOKENS if t.literal.startswith("<|reserved_")]
    assert len(reserved) > 1000 and {token_sentence(t.id) for t in reserved} == {RESERVED_SENTENCE}
    assert all(token_sentence(t.id) for t in SPECIAL_TOKENS) and token_sentence(12194) is None
    ids = enc.encode("".join(used) + "<|reserved_200100|>", allowed_special="all")
    meta, _ = Trace.build(ids, "token").to_payload()
    assert meta["special_info"] == {str(i): {"kind": s.kind, "sentence": token_sentence(i)} for i in sorted(set(ids)) for s in [SPECIAL_TOKENS[i - 199998]]}
    assert meta["visibility"] == {"reasoning": "reasoning", "preamble": "visible", "final": "visible", "tool_call": "call",
                                  "tool_result": "other", "other": "other"}
