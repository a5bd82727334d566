"""Bare completions and odd roles (issue 32, item 4).

With ``--role assistant`` (``role="assistant"`` in Python) the input is a completion: none of it is
prompt, and a message under a word that is no role (``<|start|>助手``) is the model's text whose
role is in doubt, so by the one visibility rule it is reasoning, flagged by ``unknown-role``: kept
in the projection, counted as output. Read without ``--role``, a bare completion's
``missing-start`` says to pass it.
"""

from __future__ import annotations

import json

import pytest

from harmony_viz._lint import lint
from harmony_viz._replay import ApiViews
from harmony_viz.projections import chat_completion, response
from harmony_viz.runs import Run, run_usage
from harmony_viz.scanner import scan
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

ANALYSIS = "The user greets; answer in kind."
ANSWER = "你好！有什么可以帮你？"
COMPLETION = f"<|channel|>analysis<|message|>{ANALYSIS}<|end|><|start|>助手<|channel|>final<|message|>{ANSWER}<|return|>"


def _stdin(source: str | list[int]) -> str:
    return source if isinstance(source, str) else json.dumps(source)


@pytest.mark.parametrize("unit", ["text", "ids"])
def test_parse_role_assistant_keeps_an_unknown_roles_text_as_reasoning_and_counts_it_as_output(cli, unit):
    source = COMPLETION if unit == "text" else encode(COMPLETION)
    rc, out, err = cli("parse", "-", "--role", "assistant", "--output", "chat", stdin=_stdin(source))
    assert rc == 0
    chat = json.loads(out)
    message = chat["choices"][0]["message"]
    # reasoning when in doubt: never content, never dropped
    assert message["content"] is None
    assert message["reasoning_content"] == f"{ANALYSIS}\n{ANSWER}"
    assert chat["usage"]["prompt_tokens"] == 0
    assert chat["usage"]["completion_tokens"] == len(encode(COMPLETION))
    assert chat["usage"]["completion_tokens_details"]["reasoning_tokens"] == len(encode(ANALYSIS)) + len(encode(ANSWER))
    assert "warning unknown-role '助手' is not a role" in err and "its text is reasoning (in doubt)" in err
    rc, out, _ = cli("parse", "-", "--role", "assistant", "--output", "responses", stdin=_stdin(source))
    items = json.loads(out)["output"]
    assert [i["type"] for i in items] == ["reasoning", "reasoning"]
    assert json.loads(out)["usage"]["input_tokens"] == 0
    # lint reads it alike: the warning, and no fabricated tool result
    rc, out, _ = cli("lint", "-", "--role", "assistant", stdin=_stdin(source))
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["unknown-role"]


def test_the_python_api_reads_it_alike():
    result = scan(COMPLETION, role="assistant")
    m = result.messages[1]
    # the record stays as openai-harmony writes it (a tool named after the word); its kind is the rule's
    assert (m.role, m.name, m.kind, m.visibility, m.by_assistant) == ("tool", "助手", "reasoning", "reasoning", True)
    (d,) = result.diagnostics
    assert (d.code, d.severity) == ("unknown-role", "warning")
    ids = encode(COMPLETION)
    chat = chat_completion(scan(ids, role="assistant").events)
    assert chat["choices"][0]["message"]["reasoning_content"] == f"{ANALYSIS}\n{ANSWER}"
    assert (chat["usage"]["prompt_tokens"], chat["usage"]["completion_tokens"]) == (0, len(ids))
    assert [i["type"] for i in response(scan(ids, role="assistant").events)["output"]] == ["reasoning", "reasoning"]
    # stats: a completion run's messages are all output, the doubtful one as reasoning
    u = run_usage(Run(id="r", completion_token_ids=tuple(ids)))
    row = u.to_json()
    assert (row["prompt_tokens"], row["completion_tokens"], row["output_messages"]) == (0, len(ids), 2)
    assert row["reasoning_tokens"] == row["output_tokens"] == len(ids)
    # the lints call it no fabricated tool result: it is no tool's
    assert [x.code for x in lint(COMPLETION, role="assistant")] == ["unknown-role"]


def test_the_replay_api_view_keeps_it():
    ids = encode(COMPLETION)
    trace = Trace.build(ids, "token", role="assistant")
    views = ApiViews(trace).at(trace.n_steps - 1)["views"]
    assert views["chat"]["choices"][0]["message"]["reasoning_content"] == f"{ANALYSIS}\n{ANSWER}"
    assert views["chat"]["usage"]["prompt_tokens"] == 0
    cols, meta = ApiViews(trace).page_data()
    # both messages have their place in the turn a saved page rebuilds, and one turn it is
    assert cols["api.position"] == [0, 1] and cols["api.turn"] == [0, 0]
    assert meta["finals"]["chat"]["usage"]["completion_tokens"] == len(ids)


def test_in_a_transcript_the_word_still_names_a_tool():
    result = scan(f"<|start|>user<|message|>Hi<|end|><|start|>助手<|message|>{ANSWER}<|end|>")
    m = result.messages[1]
    assert (m.role, m.name, m.kind) == ("tool", "助手", "tool_result")
    assert "read as the name of a tool replying" in result.diagnostics[0].message


def test_role_assistant_makes_nothing_prompt(cli):
    # a completion that writes a user turn of its own: still none of it is prompt
    text = "<|channel|>final<|message|>Sure.<|end|><|start|>user<|message|>thanks<|end|><|start|>assistant<|channel|>final<|message|>Bye<|return|>"
    rc, out, _ = cli("parse", "-", "--role", "assistant", "--output", "chat", stdin=text)
    usage = json.loads(out)["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (0, len(encode(text)))


@pytest.mark.parametrize("completion", [COMPLETION, "analysis<|message|>Hm.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>",
                                        "Hi there<|return|>"])
def test_missing_start_of_a_bare_completion_says_to_pass_role(cli, completion):
    rc, out, err = cli("parse", "-", stdin=completion)
    (d,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "missing-start"]
    assert d["message"].endswith("pass --role assistant (role='assistant' in Python)")
    assert "pass --role assistant" in err
    # with it, no missing-start at all
    rc, out, _ = cli("parse", "-", "--role", "assistant", stdin=completion)
    assert "missing-start" not in [d["code"] for d in json.loads(out)["diagnostics"]]


def test_a_missing_start_later_in_a_transcript_gives_no_such_hint():
    result = scan("<|start|>user<|message|>a<|end|><|channel|>final<|message|>b<|end|>")
    (d,) = [d for d in result.diagnostics if d.code == "missing-start"]
    assert "--role" not in d.message


def test_stats_of_a_bare_completion_file_has_no_prompt(cli, tmp_path):
    path = tmp_path / "bare.txt"
    path.write_text(COMPLETION, encoding="utf-8")
    rc, out, _ = cli("stats", str(path), "--json")
    (row,) = json.loads(out)
    n = len(encode(COMPLETION))
    assert (row["prompt_tokens"], row["completion_tokens"], row["output_tokens"], row["reasoning_tokens"]) == (0, n, n, n)
    # a whole transcript keeps its split unknown
    path.write_text(f"<|start|>user<|message|>Hi<|end|><|start|>assistant{COMPLETION}", encoding="utf-8")
    (row,) = json.loads(cli("stats", str(path), "--json")[1])
    assert (row["prompt_tokens"], row["completion_tokens"]) == (None, None)
