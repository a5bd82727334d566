"""Properties of the chat projection over generated completions, well-formed and malformed (issue 13).

Each generated message gets a unique body, and the test works out independently, from the
header it generated, whether that body must be visible, reasoning or a call. Then:
- no body the rule keeps out of sight is ever a substring of ``content``;
- every body appears in content, reasoning or some call's arguments (nothing dropped);
- ``finish_reason`` is ``tool_calls`` exactly when there are tool calls and the stream was
  not cut off, and ``length`` exactly when it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.projections import chat_completion, chat_completion_chunks
from harmony_viz.scanner import Scanner

GOOD_CHANNELS = ["analysis", "commentary", "final"]
BAD_CHANNELS = [" analysis", " final", "Final", "commentaryanalysis", "thinking", "", "commentary?", "??", "analysys"]
RECIPIENTS = [None, None, None, "assistant", "functions.get_weather", "lookup_order", "crm.lookup", "browser.search", "python"]
BUILTINS = ("browser.", "python", "container.")
TERMINATORS = ["<|end|>", "<|end|>", "<|call|>", "<|return|>"]
# No `|`, so no control token can appear in a body; `<` is there to exercise held-back text.
BODY_ALPHABET = st.sampled_from(list("abc xyz{}\":,.<>\n日é🦜0123"))


@dataclass
class Msg:
    channels: list[str]  # <|channel|> parts as written; [] = no channel at all
    word_channel: bool  # the channel name written without <|channel|>
    recipient: str | None
    recipient_in_role: bool
    spaced_recipient: bool
    body: str
    terminator: str

    def header(self, first: bool) -> str:
        to = ""
        if self.recipient is not None:
            to = f" to = {self.recipient}" if self.spaced_recipient else f" to={self.recipient}"
        role = "" if first else "<|start|>assistant"
        head = role + (to if self.recipient_in_role else "")
        if self.word_channel:
            head += ("" if first and not head else " ") + self.channels[0]
            head += "" if self.recipient_in_role else to
        else:
            for i, part in enumerate(self.channels):
                head += "<|channel|>" + part
                if i == 0 and not self.recipient_in_role:
                    head += to
            if not self.channels and not self.recipient_in_role:
                head += to
        return head + "<|message|>"

    def expected(self) -> str:
        """visible / reasoning / call, computed from what was generated (not from the scanner)."""
        if self.recipient not in (None, "assistant"):
            return "reasoning" if self.recipient.startswith(BUILTINS) else "call"
        if not self.channels:
            return "visible"
        names = [c.strip().lower() for c in self.channels]
        if any(n not in GOOD_CHANNELS or n == "analysis" for n in names):
            return "reasoning"
        if names[-1] == "final":
            return "visible"
        if self.recipient == "assistant" and len(names) == 1:
            return "reasoning"
        return "visible"


@st.composite
def messages(draw, index: int) -> Msg:
    word_channel = draw(st.integers(0, 9)) == 0
    if word_channel:
        channels = [draw(st.sampled_from(GOOD_CHANNELS))]
    else:
        n = draw(st.sampled_from([0, 1, 1, 1, 1, 2]))
        pool = GOOD_CHANNELS * 3 + BAD_CHANNELS
        channels = [draw(st.sampled_from(pool)) for _ in range(n)]
    recipient = draw(st.sampled_from(RECIPIENTS))
    body = f"B{index}q" + draw(st.text(BODY_ALPHABET, max_size=12))
    return Msg(channels, word_channel, recipient, draw(st.booleans()), draw(st.integers(0, 4)) == 0, body, draw(st.sampled_from(TERMINATORS)))


@st.composite
def completions(draw):
    n = draw(st.integers(1, 5))
    msgs = [draw(messages(i)) for i in range(n)]
    cut = draw(st.sampled_from(["none", "none", "body", "header"]))
    parts = []
    for i, m in enumerate(msgs):
        parts.append(m.header(i == 0) + m.body)
        if not (cut == "body" and i == n - 1):
            parts.append(m.terminator)
    if cut == "header":
        parts.append(draw(st.sampled_from(["<|start|>assistant", "<|start|>assistant<|channel|>", "<|start|>assistant<|channel|>ana"])))
    return msgs, "".join(parts), cut


def _steps(text: str, ids: list[int] | None, chunk: int):
    s = Scanner(role="assistant")
    src = text if ids is None else ids
    steps = [s.feed(src[i : i + chunk]) for i in range(0, len(src), chunk)]
    steps.append(s.flush())
    return steps


def _check(msgs: list[Msg], cut: str, steps) -> None:
    events = [e for step in steps for e in step]
    chat = chat_completion(events)
    choice = chat["choices"][0]
    msg = choice["message"]
    content = msg["content"] or ""
    reasoning = msg["reasoning_content"] or ""
    args = [c["function"]["arguments"] for c in msg["tool_calls"] or []]
    # The scanner's own classification agrees with the rule worked out from the generator.
    kinds = [e.kind for e in events if type(e).__name__ == "MessageStart"]
    assert len(kinds) == len(msgs)
    for m, kind in zip(msgs, kinds):
        expected = m.expected()
        got = {"final": "visible", "preamble": "visible", "reasoning": "reasoning", "tool_call": "call"}[kind]
        if m.recipient is not None and m.recipient.startswith(BUILTINS):
            got = "reasoning" if kind == "tool_call" else got
        assert got == expected, (m, kind)
        if expected != "visible":
            assert m.body not in content, ("hidden text shown", m)
        assert m.body in content or m.body in reasoning or any(m.body in a for a in args), ("text dropped", m)
    if cut == "none":
        assert (choice["finish_reason"] == "tool_calls") == bool(msg["tool_calls"])
        assert choice["finish_reason"] in ("stop", "tool_calls")
    else:
        assert choice["finish_reason"] == "length"
    # The stream, joined, says the same.
    chunks = chat_completion_chunks(steps)
    joined = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert joined == content


@given(completions(), st.integers(1, 7))
def test_chat_projection_properties_text(case, chunk):
    msgs, text, cut = case
    _check(msgs, cut, _steps(text, None, chunk))


@given(completions(), st.integers(1, 5))
def test_chat_projection_properties_ids(enc, case, chunk):
    msgs, text, cut = case
    _check(msgs, cut, _steps(text, enc.encode(text, allowed_special="all"), chunk))
