"""Our renderer and scanner against oss-harmony 0.0.11, the fork of openai-harmony that vLLM's Rust path uses.

The fork keeps openai-harmony's import name, so it lives in its own venv (``.venv-oss-harmony``,
made by ``scripts/install-gpt-oss.sh``) and answers through ``tests/_fork.py``, one process for
the whole module. 0.0.8 answers in-process through the very same code (``_fork.Harmony``), so
fork and 0.0.8 are asked identically. The conversations are the ones ``test_render_diff``'s sweep
draws (its strategies, 1,000 of them every run); the transcripts are those of
``test_scanner_corpus``.

Our output must equal 0.0.8's always, and the fork's wherever the fork agrees with 0.0.8. Every
place the two references differ is named: each difference is put under a kind, and every kind
must be in ``KNOWN_DIFFERENCES`` (documented there). The fork renders two header details
differently (recipient after the ``commentary`` channel; ``<|constrain|>`` before every content
type); a render difference only counts as one of those when our renderer, laid out by that
rule (``_fork_layout``), gives the fork's tokens exactly. The parsers do not differ: on the
corpus transcripts and on both references' renderings, strict parse and StreamableParser
answer the same (messages, errors, final state).

The fork must answer in the exact layout we emulate; anything else fails with the cases named.
Skips without ``.venv-oss-harmony`` unless ``HARMONY_VIZ_REQUIRE_SERVER=1`` (CI), where it fails.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import subprocess
import threading
from pathlib import Path

import _fork
import openai_harmony as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_diff import _ours, _outcome, conversations
from test_render_helpers import assert_same_tokens, to_reference
from test_scanner_corpus import _describe, completions, transcripts

from harmony_viz.render import Conversation, DeveloperContent, Message, RenderOptions, Role, ToolDescription, _render, _serde, render_conversation
from harmony_viz.scanner import scan
from harmony_viz.tokens import encoding

ROOT = Path(__file__).resolve().parents[1]
FORK_PYTHON = ROOT / ".venv-oss-harmony" / "bin" / "python"
FORK_SCRIPT = Path(__file__).with_name("_fork.py")
SWEEP = 1000

# Where oss-harmony 0.0.11 and openai-harmony 0.0.8 are known to answer differently: kind → what
# differs. Each is a rendering rule of the fork, which ``_as_fork`` patches into our renderer; a
# case whose fork tokens no set of these rules explains exactly, or a difference of any other
# kind (an error only one side raises, a parse difference), fails the test with its cases named.
KNOWN_DIFFERENCES: dict[str, str] = {
    "recipient after the channel": (
        "a message on the channel 'commentary' with a recipient other than 'all': the fork writes "
        "`<|channel|>commentary to=R` (the layout gpt-oss itself emits for tool calls), 0.0.8 "
        "`to=R<|channel|>commentary` (recipient in the role section); every role, not only the "
        "assistant. On any other channel ('analysis', 'final', anything else) or none, both keep "
        "`to=R` in the role section"
    ),
    "<|constrain|> before every content type": (
        "a content type T that does not start with `<|constrain|>`: the fork writes "
        "` <|constrain|>T` (`json` → ` <|constrain|>json`, `code` → ` <|constrain|>code`, '' → "
        "` <|constrain|>`), 0.0.8 ` T` as given; T that starts with `<|constrain|>` renders the same"
    ),
    "'+' in a float's positive exponent": (
        "a float a tool schema's `// default:` comment shows in exponent form (|x| >= 1e16, and "
        "integers beyond u64, which serde_json reads as floats): the fork writes `1e+16`, "
        "`1.8446744073709552e+19`, 0.0.8 `1e16`, `1.8446744073709552e19` (the fork's newer "
        "serde_json); negative exponents (`1e-7`) and the plain form are the same"
    ),
    "parse: both raise, with different messages": (
        "a stream both references refuse (the strict parse raises in each), with the error worded "
        "differently: they agree that it is malformed and where the stream parser stops; only the "
        "text of the error differs (seen on a few of the generated renderings, not on the corpus)"
    ),
}
_RECIPIENT, _CONSTRAIN, _FLOAT = _RENDER_RULES = tuple(KNOWN_DIFFERENCES)[:3]
# ------------------------------------------------------------------ the fork process


class Fork:
    """``tests/_fork.py`` under the fork's Python: a batch of requests in, their answers out, in order."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        self.proc = subprocess.Popen(
            [str(FORK_PYTHON), str(FORK_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )

    def ask(self, requests: list[dict]) -> list[dict]:
        def write() -> None:
            for req in requests:
                self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()  # a thread: the answers are read while the requests are still going in
        answers = []
        for _ in requests:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"tests/_fork.py ended after {len(answers)} of {len(requests)} answers (rc {self.proc.poll()})")
            answers.append(json.loads(line))
        writer.join()
        return answers

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def fork():
    if not FORK_PYTHON.is_file():
        why = f"{FORK_PYTHON.relative_to(ROOT)} is missing (scripts/install-gpt-oss.sh makes it)"
        if os.environ.get("HARMONY_VIZ_REQUIRE_SERVER") == "1":
            pytest.fail(f"HARMONY_VIZ_REQUIRE_SERVER=1 but {why}", pytrace=False)
        pytest.skip(why)
    proc = Fork()
    try:
        [version] = proc.ask([{"op": "version"}])
        assert version["dists"] == {"oss-harmony": "0.0.11"}, version
        yield proc
    finally:
        proc.close()


@pytest.fixture(scope="module")
def v008(reference_encoding) -> _fork.Harmony:
    """openai-harmony 0.0.8 (this Python's), asked through the fork's code."""
    return _fork.Harmony(oh, reference_encoding)


def _kinds(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{kind}: {len(cases)} case(s), e.g. {cases[:3]}" for kind, cases in sorted(found.items()))


def _assert_known(found: dict[str, list[str]]) -> None:
    unknown = {kind: cases for kind, cases in found.items() if kind not in KNOWN_DIFFERENCES}
    assert not unknown, f"oss-harmony 0.0.11 and openai-harmony 0.0.8 differ in undocumented ways:\n{_kinds(unknown)}"


# ------------------------------------------------------------------ render: the sweep's conversations


@pytest.fixture(scope="module")
def drawn() -> list[tuple]:
    """1,000 (conversation, mode, drop) drawn from test_render_diff's strategies, as its sweep draws them."""
    cases: list[tuple] = []

    @settings(max_examples=SWEEP, database=None)
    @given(conv=conversations, mode=st.sampled_from(["conversation", "completion", "training"]), drop=st.booleans())
    def draw(conv, mode, drop):
        cases.append((conv, mode, drop))

    draw()
    return cases


def _render_request(conv, mode: str, drop: bool) -> dict:
    req = {"op": "render", "conversation": json.loads(to_reference(conv).to_json()), "config": {"auto_drop_analysis": drop}}
    req["mode"] = mode
    req["next"] = "assistant" if mode == "completion" else None
    return req


def _fork_layout(rules: frozenset[str]):
    """``render_message`` laying out the header as the fork does, by the rules named (KNOWN_DIFFERENCES)."""
    original = _render.render_message
    encode = encoding().encode_ordinary

    def render_message(msg: Message, **kwargs) -> list[int]:
        ct = msg.content_type
        if _CONSTRAIN in rules and ct is not None and not ct.startswith("<|constrain|>"):
            msg = dataclasses.replace(msg, content_type="<|constrain|>" + ct)
        out = original(msg, **kwargs)
        if _RECIPIENT in rules and msg.recipient not in (None, "all") and msg.channel == "commentary":
            # [START] role(:name) | " to=R" | CHANNEL channel | content type, MESSAGE, ...: swap the middle two.
            a = 1 + len(encode(msg.author.name if msg.author.role is Role.TOOL else msg.author.role.value))
            if msg.author.role is not Role.TOOL and msg.author.name is not None:
                a += len(encode(f":{msg.author.name}"))
            b = a + len(encode(f" to={msg.recipient}"))
            c = b + 1 + len(encode(msg.channel))
            out = out[:a] + out[b:c] + out[a:b] + out[c:]
        return out

    return render_message


def _fork_float(original):
    """serde_json's float form as the fork writes it: a '+' before a positive exponent."""
    return lambda x: re.sub(r"e(?=\d)", "e+", original(x))


def _as_fork(conv, mode: str, drop: bool, rules: frozenset[str]) -> list[int] | None:
    """Our render with the fork's rules (KNOWN_DIFFERENCES) patched in; None where it raises."""
    saved = _render.render_message, _serde._ryu
    _render.render_message = _fork_layout(rules)
    if _FLOAT in rules:
        _serde._ryu = _fork_float(saved[1])
    try:
        return _outcome(lambda: _ours(conv, mode, RenderOptions(drop_analysis=drop)))[0]
    finally:
        _render.render_message, _serde._ryu = saved


_RULE_SETS = [frozenset(s) for n in range(1, len(_RENDER_RULES) + 1) for s in itertools.combinations(_RENDER_RULES, n)]


def _where(ref: dict, frk: dict, enc) -> str:
    """Where two render answers part, decoded: a few tokens before the first difference on."""
    if "ids" not in ref or "ids" not in frk:
        return f"0.0.8 {ref.get('error', 'renders')} / fork {frk.get('error', 'renders')}"
    a, b = ref["ids"], frk["ids"]
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at token {i}: 0.0.8 {enc.decode(a[max(0, i - 4) : i + 8])!r} / fork {enc.decode(b[max(0, i - 4) : i + 8])!r}"


def _render_kind(case: tuple, ref: dict, frk: dict) -> str | None:
    """The kind of difference between two render answers, or None when they agree.

    A token difference is named by the smallest set of the fork's rules (KNOWN_DIFFERENCES)
    that, patched into our renderer, gives the fork's tokens exactly.
    """
    if ref == frk:
        return None
    if "error" in ref and "error" in frk:
        return "render: both raise, with different messages"
    if "error" in ref:
        return "render: only 0.0.8 raises"
    if "error" in frk:
        return "render: only the fork raises"
    for rules in _RULE_SETS:
        if _as_fork(*case, rules) == frk["ids"]:
            return " + ".join(r for r in _RENDER_RULES if r in rules)
    return "render: different tokens, not explained by the known rules"


@pytest.fixture(scope="module")
def rendered(fork, v008, drawn) -> list[dict]:
    """Each drawn case with its request and the answers of 0.0.8 and of the fork (one batch)."""
    requests = [_render_request(*case) for case in drawn]
    return [{"case": case, "request": req, "v008": v008.answer(req), "fork": frk} for case, req, frk in zip(drawn, requests, fork.ask(requests))]


def test_render_matches_the_fork_on_the_generated_conversations(rendered, enc):
    assert len(rendered) >= SWEEP
    found: dict[str, list[str]] = {}
    raised = same = 0
    for i, r in enumerate(rendered):
        (conv, mode, drop), ref, frk = r["case"], r["v008"], r["fork"]
        ours, our_err = _outcome(lambda: _ours(conv, mode, RenderOptions(drop_analysis=drop)))
        # Ours equals 0.0.8's, always (test_render_diff checks the same on its own draws).
        assert (our_err is None) == ("error" not in ref), f"case {i} ({mode}): ours {our_err!r}; 0.0.8 {ref.get('error')}"
        if our_err is None:
            assert_same_tokens(ours, ref["ids"], enc)
        else:
            raised += 1
        kind = _render_kind((conv, mode, drop), ref, frk)
        if kind is None:
            # The fork agrees with 0.0.8, hence with us: the same tokens, or both raise the same error.
            same += 1
            if our_err is None:
                assert_same_tokens(ours, frk["ids"], enc)
            continue
        # Otherwise our renderer, laid out by the rules the kind names, gave the fork's tokens exactly.
        for rule in kind.split(" + "):
            found.setdefault(rule, []).append(f"case {i} ({mode}, drop={drop}): {_where(ref, frk, enc)}")
    differ = len(rendered) - same
    print(
        f"\nfork render: {len(rendered)} generated conversations; {same} the same as 0.0.8 and ours ({raised} of them raise in all three), "
        f"{differ} differ:\n{_kinds(found) or 'none'}"
    )
    _assert_known(found)


# ------------------------------------------------------------------ parse: the shipped transcripts


@pytest.fixture(scope="module")
def parse_cases(corpus_dir: Path, enc) -> dict[str, dict]:
    """Every transcript (full, role None), the aldehir turns without display separators, the finding5 completions (as assistant)."""
    cases: dict[str, dict] = {}
    for name, text in transcripts(corpus_dir).items():
        cases[name] = {"op": "parse", "ids": enc.encode(text, allowed_special="all"), "role": None}
        if name.startswith("aldehir/"):
            joined = re.sub(r"(<\|(?:end|call|return)\|>)\n\n(?=<\|start\|>)", r"\1", text).rstrip("\n")
            cases[name + "/joined"] = {"op": "parse", "ids": enc.encode(joined, allowed_special="all"), "role": None}
    for name, (_, completion) in completions(corpus_dir).items():
        cases[f"completion/{name}"] = {"op": "parse", "ids": enc.encode(completion, allowed_special="all"), "role": "assistant"}
    return cases


def _parse_kind(ref: dict, frk: dict) -> str | None:
    if ref == frk:
        return None
    if ("error" in ref) != ("error" in frk):
        return "parse: only " + ("0.0.8" if "error" in ref else "the fork") + " raises"
    if ref.get("messages") != frk.get("messages"):
        return "parse: different messages"
    if ref.get("error") != frk.get("error"):
        return "parse: both raise, with different messages"
    if (ref["stream"]["error"] is None) != (frk["stream"]["error"] is None) or ref["stream"]["at"] != frk["stream"]["at"]:
        return "stream: raises at a different token"
    if ref["stream"]["messages"] != frk["stream"]["messages"]:
        return "stream: different messages"
    if ref["stream"]["error"] != frk["stream"]["error"]:
        return "stream: different error message"
    return "stream: different state"


def test_scanner_matches_the_fork_on_the_shipped_transcripts(parse_cases, fork, v008):
    names = list(parse_cases)
    fork_answers = dict(zip(names, fork.ask([parse_cases[n] for n in names])))
    found: dict[str, list[str]] = {}
    agreed = raised = 0
    for name in names:
        req, frk = parse_cases[name], fork_answers[name]
        ref = v008.answer(req)
        kind = _parse_kind(ref, frk)
        if kind is not None:
            found.setdefault(kind, []).append(name)
        result = scan(req["ids"], role=req["role"])
        if "error" in frk:
            raised += 1
            if name.startswith(("findings-", "finding5/", "completion/")):  # broken turns (test_scanner_corpus)
                assert any(d.severity == "error" for d in result.diagnostics), f"{name}: the fork raises ({frk['error']}), we report no error"
            continue
        agreed += 1
        ours = [m.to_json() for m in result.messages]
        assert ours == frk["messages"], f"{name}: {_describe(ours, frk['messages'])}"
        assert not [d for d in result.diagnostics if d.severity == "error"], name
        # The streaming pass ends where the strict parse does.
        assert frk["stream"]["error"] is None and frk["stream"]["messages"] == frk["messages"], name
    assert len(names) >= 220 and agreed >= 150 and raised >= 11, (len(names), agreed, raised)
    print(f"\nfork parse: {len(names)} token streams, {agreed} parsed strictly (ours = fork), {raised} raise; differences: {_kinds(found) or 'none'}")
    _assert_known(found)


# ------------------------------------------------------------------ parse: the renderings


def test_fork_and_0_0_8_parse_both_layouts_alike(rendered, fork, v008):
    """Both references' renderings (0.0.8's layout and the fork's) read back by both parsers: the same answers."""
    requests = [
        {"op": "parse", "ids": r[side]["ids"], "role": None}
        for r in rendered
        if r["case"][1] != "completion"  # a completion prompt ends inside a header
        for side in ("v008", "fork")
        if "ids" in r[side]
    ]
    found: dict[str, list[str]] = {}
    for i, (req, frk) in enumerate(zip(requests, fork.ask(requests))):
        kind = _parse_kind(v008.answer(req), frk)
        if kind is not None:
            found.setdefault(kind, []).append(f"stream {i}")
    assert len(requests) >= SWEEP
    print(f"\nfork parse of the renderings: {len(requests)} token streams; differences: {_kinds(found) or 'none'}")
    _assert_known(found)


# ------------------------------------------------------------------ each known difference, on its own


def _one_rule_cases() -> dict[str, Conversation]:
    tool = ToolDescription("f", "d", {"type": "object", "properties": {"n": {"type": "number", "default": 1e16}}})
    call = Message.from_role_and_content(Role.ASSISTANT, '{"n": 1}').with_channel("commentary").with_recipient("functions.f")
    return {
        _RECIPIENT: Conversation.from_messages([call]),
        _CONSTRAIN: Conversation.from_messages([Message.from_role_and_content(Role.ASSISTANT, "{}").with_channel("final").with_content_type("json")]),
        _FLOAT: Conversation.from_messages([Message.from_role_and_content(Role.DEVELOPER, DeveloperContent().with_function_tools([tool]))]),
    }


def test_each_known_difference_shows_on_a_case_of_its_own(fork, v008, enc):
    """The sweep meets some rules rarely (a float default >= 1e16): each gets a fixed case every run."""
    cases = _one_rule_cases()
    assert set(cases) == set(_RENDER_RULES)  # the render rules; the parse difference is only in an error's words
    requests = [_render_request(conv, "conversation", True) for conv in cases.values()]
    for (rule, conv), req, frk in zip(cases.items(), requests, fork.ask(requests)):
        ref = v008.answer(req)
        assert_same_tokens(render_conversation(conv), ref["ids"], enc)
        assert _render_kind((conv, "conversation", True), ref, frk) == rule, f"{rule}: 0.0.8 {enc.decode(ref['ids'])!r} / fork {enc.decode(frk['ids'])!r}"
