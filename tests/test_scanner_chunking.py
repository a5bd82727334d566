"""Chunk safety: any chunking of a stream yields the same merged events as feeding it whole.

Boundaries are drawn at random and, on purpose, inside control tokens (text) and inside
multi-byte characters split across tokens (ids).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.scanner import ContentDelta, Scanner

# Real cases (see test_scanner.py for their sources), well-formed and malformed.
CASES: list[tuple[str, str | None]] = [
    ("<|start|>system<|message|>You are ChatGPT.<|end|><|start|>user<|message|>Wie heißt 日本の首都? 🤖🧠<|end|>"
     "<|start|>assistant<|channel|>analysis<|message|>User asks: Tokyo. ✓ — naïve café<|end|>"
     "<|start|>assistant<|channel|>final<|message|>東京です 🗼<|return|>", None),
    ('<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"location":"Lima ☀"}<|call|>'
     '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"51F"<|end|>', None),
    ("<|start|>assistant<|channel|>commentary to=assistant<|channel|>commentary?<|end|><|start|>assistant<|channel|>analysis<|message|>x<|end|>", None),
    ('<|start|>assistant<|channel|>final <|constrain|>{"msg":"I will report."}<|end|>', None),
    ("<|start|>assistant<|channel|>analysis<|message|>We reassure them.<|start|>assistant<|channel|>final<|message|>I'm ChatGPT", None),
    ("<|start|>assistant<|channel|>analysis<|message|>Think.<|end|>assistant<|channel|>final<|message|>Hi<|return|>", None),
    ("<|start|>user<|message|>Hi<|end|>Hello there<|start|>assistant<|channel|>final<|message|>Yo<|return|><|end|>", None),
    ("analysisWe need to answer. Nothing else.assistantfinalfour", "assistant"),
    ('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"city": "Ber', "assistant"),
    ('<|channel|>commentary to=functions.f json<|message|>{"a":1}<|call|><|start|>functions.f to=assistant<|channel|>commentary<|message|>"x"<|end|>', "assistant"),
    ("<|start|>assistant<|channel|>––commentary<|message|>a <| b |> c <|chan d<|end|>\n\n<|start|>final<|message|>e<|end|>", None),
    ("<|start|>user<|message|>see <|message|> here<|end|><|end|><|start|>assistant<|channel|>analy", None),
]

_LITERAL = re.compile(r"<\|[a-z]+\|>")


def _inside_literals(text: str) -> list[int]:
    return [i for m in _LITERAL.finditer(text) for i in range(m.start() + 1, m.end())]


def merged(events):
    """Events with adjacent content deltas of one message joined (chunking only splits those)."""
    out = []
    for e in events:
        if type(e) is ContentDelta and out and type(out[-1]) is ContentDelta and out[-1].message == e.message and out[-1].end == e.start:
            p = out[-1]
            out[-1] = ContentDelta(p.message, p.kind, p.text + e.text, p.start, e.end)
        else:
            out.append(e)
    return out


def run(source, cuts, role):
    scanner = Scanner(role=role)
    events = []
    bounds = [0, *sorted(set(cuts)), len(source)]
    for a, b in zip(bounds, bounds[1:]):
        events += scanner.feed(source[a:b])
    events += scanner.flush()
    return merged(events)


@st.composite
def text_chunking(draw):
    text, role = draw(st.sampled_from(CASES))
    inside = _inside_literals(text) or [0]
    cut = st.one_of(st.integers(0, len(text)), st.sampled_from(inside))
    return text, role, draw(st.lists(cut, max_size=30))


@given(text_chunking())
def test_any_text_chunking_gives_the_same_events(case):
    text, role, cuts = case
    assert run(text, cuts, role) == run(text, [], role)


@pytest.fixture(scope="module")
def token_cases(enc):
    """The cases as ids; in one, control tokens are spelled as plain-text tokens."""
    out = [(enc.encode(text, allowed_special="all"), role) for text, role in CASES]
    plain = enc.encode("<|start|>", allowed_special="all") + enc.encode("assistant<|channel|>commentary<|message|>Plan ✓", disallowed_special=()) + enc.encode("<|end|>", allowed_special="all")
    out.append((plain, None))
    return out


def _split_chars(enc, tokens: list[int]) -> list[int]:
    """Indices after tokens that end inside a multi-byte character."""
    out = []
    for i, t in enumerate(tokens):
        if t < 199998:
            try:
                enc.decode_single_token_bytes(t).decode("utf-8")
            except UnicodeDecodeError:
                out.append(i + 1)
    return out


def test_cases_do_split_characters_across_tokens(enc, token_cases):
    assert _split_chars(enc, token_cases[0][0])  # otherwise the property below proves less


@given(st.data())
def test_any_token_chunking_gives_the_same_events(enc, token_cases, data):
    tokens, role = data.draw(st.sampled_from(token_cases))
    splits = _split_chars(enc, tokens) or [0]
    cut = st.one_of(st.integers(0, len(tokens)), st.sampled_from(splits))
    cuts = data.draw(st.lists(cut, max_size=30))
    assert run(tokens, cuts, role) == run(tokens, [], role)


def test_one_token_at_a_time_never_shows_replacement_characters(enc, token_cases):
    tokens, role = token_cases[0]
    events = run(tokens, range(len(tokens)), role)
    text = "".join(e.text for e in events if type(e) is ContentDelta)
    assert "\ufffd" not in text and "🤖🧠" in text and "東京です 🗼" in text


def test_one_unit_at_a_time_on_real_transcripts(corpus_dir, enc):
    from test_scanner_corpus import transcripts

    names = sorted(transcripts(corpus_dir).items())[::9]
    for name, text in names:
        tokens = enc.encode(text, allowed_special="all")
        assert run(tokens, range(len(tokens)), None) == run(tokens, [], None), name
        assert run(text, range(0, len(text), 3), None) == run(text, [], None), name


_PIECES = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>", "<|", "|>",
           "assistant", "user", "tool", "functions.f", " to=", "to=functions.get_weather", "analysis", "commentary", "final",
           "json", " ", "\n\n", "{", '"a": 1', "}", "Hello", "é", "東京", "🤖", "??", "assistantfinal"]


@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.sampled_from([None, "assistant"]), st.lists(st.integers(0, 400), max_size=10))
def test_never_raises_and_spans_stay_sound_on_arbitrary_text(pieces, role, cuts):
    text = "".join(pieces)
    events = run(text, [c for c in cuts if c <= len(text)], role)
    assert events == run(text, [], role)
    owner: dict[int, int] = {}
    open_messages = set()
    for e in events:
        assert 0 <= e.start <= e.end <= len(text)
        if hasattr(e, "message") and type(e).__name__ in ("MessageStart", "ContentDelta", "MessageEnd"):
            for i in range(e.start, e.end):
                assert owner.setdefault(i, e.message) == e.message
            if type(e).__name__ == "MessageStart":
                open_messages.add(e.message)
            elif type(e).__name__ == "MessageEnd":
                open_messages.remove(e.message)
    assert not open_messages  # every message that starts also ends


@given(st.lists(st.one_of(st.integers(0, 201087), st.sampled_from([200002, 200003, 200005, 200006, 200007, 200008, 200012])), max_size=60), st.sampled_from([None, "assistant"]))
def test_never_raises_on_arbitrary_ids(tokens, role):
    events = run(tokens, list(range(0, len(tokens), 2)), role)
    assert events == run(tokens, [], role)
    for e in events:
        assert 0 <= e.start <= e.end <= len(tokens)


@pytest.mark.parametrize(("text", "role"), CASES)
def test_a_run_fed_as_known_fast_tokens_is_each_token_fed_alone(enc, text: str, role: str | None) -> None:
    # Scanner.meet says which ids take the fast path; feed_run(n) over such tokens gives what n one-token feeds give
    ids = enc.encode(text, allowed_special="all")
    distinct = sorted(set(ids))
    fast = dict(zip(distinct, Scanner.meet(distinct, [enc.decode_single_token_bytes(t) for t in distinct])))
    one, run = (Scanner(role=role) if role else Scanner() for _ in range(2))
    expected, got = [], []
    i = 0
    while i < len(ids):
        n = 0
        while run.hot and i + n < len(ids) and fast[ids[i + n]]:
            n += 1
        fed, message, kind = run.feed_run(n)
        assert fed == n
        for t in ids[i : i + n]:
            (delta,) = one.feed([t])  # one delta each, of the token's own text
            expected.append(delta)
            assert delta.text == enc.decode_single_token_bytes(t).decode("utf-8") and (delta.message, delta.kind) == (message, kind)
        got += [ContentDelta(message, kind, enc.decode_single_token_bytes(t).decode("utf-8"), i + j, i + j + 1) for j, t in enumerate(ids[i : i + n])]
        assert run.state() == one.state()
        i += n
        if i < len(ids):
            expected += one.feed([ids[i]])
            got += run.feed([ids[i]])
            i += 1
    assert got == expected and run.flush() == one.flush()


def test_feed_run_feeds_nothing_outside_a_body() -> None:
    s = Scanner()
    assert s.feed_run(3) == (0, -1, "other")
    s.feed([200006, 173781, 200008])  # <|start|>user<|message|>: now in a body
    assert s.hot and s.feed_run(2)[0] == 2 and s.snapshot().position == 5
    s.feed([200007])
    assert not s.hot and s.feed_run(1)[0] == 0 and s.snapshot().position == 6
