"""What follows the stop is not the completion (issue 32, item 1).

Batch generation pads a finished completion with ``<|endoftext|>`` (id 199999) repeated. The
scanner ends the stream at the first one, so every reader agrees: the padding is one ``padding``
finding (info, naming how many tokens), never projected, counted as output, shown as content or
read as a message, and it earns no history lint. Checked on streams built from that description
(text and ids, after <|return|> and after <|call|>) and on every corpus transcript with padding
appended: in ``parse`` (the CLI), ``lint``, ``stats``, the page's findings and the API view.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _payload import finding_columns

from harmony_viz._lint import lint
from harmony_viz._replay import ApiViews, payload
from harmony_viz.runs import Run, run_usage
from harmony_viz.scanner import scan
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

EOT = "<|endoftext|>"
ANSWER = "<|start|>user<|message|>Hi?<|end|><|start|>assistant<|channel|>analysis<|message|>Greet back.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|>"
CALL = ('<|start|>user<|message|>Weather?<|end|><|start|>assistant<|channel|>analysis<|message|>Look it up.<|end|>'
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Lima"}<|call|>')
# Any spelling of a special token: a control spelling shown to a user.
SPELLING = re.compile(r"<\|[A-Za-z0-9_]+\|>")


def padded(text: str, n: int) -> str:
    return text + EOT * n


def _as(source: str, unit: str) -> str | list[int]:
    return encode(source) if unit == "ids" else source


def _chat(cli, source: str | list[int], *args: str) -> dict:
    rc, out, _ = cli("parse", "-", "--output", "chat", *args, stdin=source if isinstance(source, str) else json.dumps(source))
    assert rc == 0
    return json.loads(out)


def _responses(cli, source: str | list[int]) -> dict:
    rc, out, _ = cli("parse", "-", "--output", "responses", stdin=source if isinstance(source, str) else json.dumps(source))
    assert rc == 0
    return json.loads(out)


def _parse_codes(cli, source: str | list[int]) -> list[tuple[str, str]]:
    rc, out, _ = cli("parse", "-", stdin=source if isinstance(source, str) else json.dumps(source))
    assert rc == 0
    return [(d["code"], d["severity"]) for d in json.loads(out)["diagnostics"]]


def _lint_cli_codes(cli, source: str | list[int]) -> list[str]:
    rc, out, _ = cli("lint", "-", stdin=source if isinstance(source, str) else json.dumps(source))
    assert rc in (0, 1)
    return [d["code"] for d in json.loads(out)["diagnostics"]]


def _page(ids: list[int]) -> tuple[list[tuple[str, str, str]], dict, dict]:
    """What the page and the widget show of the stream ``ids``: (source, code, severity) of every row of the Findings
    panel, decoded from the payload as the browser does; the API view at the last step (the widget's); the finals a
    saved page builds its API view from."""
    trace = Trace.build(ids, "token")
    meta, buf = payload(trace)
    cols = finding_columns(meta, buf)
    f = meta["findings"]
    rows = [(f["sources"][so], f["codes"][co], f["severities"][sv]) for so, co, sv in zip(cols.get("source", []), cols.get("code", []), cols.get("severity", []))]
    return rows, ApiViews(trace).at(trace.n_steps - 1)["views"], meta["api"]["finals"]


def _numbers(ids: list[int], prompt: int | None = None) -> dict:
    """The stats row of a run whose stream is ``ids`` (prompt ids then completion when ``prompt`` is given)."""
    if prompt is None:
        run = Run(id="r", completion_token_ids=tuple(ids))
    else:
        run = Run(id="r", prompt_token_ids=tuple(ids[:prompt]), completion_token_ids=tuple(ids[prompt:]))
    row = run_usage(run).to_json()
    return {k: v for k, v in row.items() if k not in ("diagnostics", "errors", "diagnostic_codes")}


def _check_padding_finding(diags, n: int, *, text: str | None = None) -> None:
    (pad,) = [d for d in diags if d.code == "padding"]
    assert pad.severity == "info"
    assert pad.message.startswith(f"{n} token{'s' if n != 1 else ''} of <|endoftext|> padding")
    if text is not None:
        assert text[pad.start : pad.end] == EOT * n


# ------------------------------------------------------------------ streams built from the description


@pytest.mark.parametrize("unit", ["text", "ids"])
@pytest.mark.parametrize("n", [1, 2, 7, 64])
@pytest.mark.parametrize("stream", ["return", "call"])
def test_padding_after_the_stop_is_one_info_finding_and_nothing_else(cli, unit, n, stream):
    base = ANSWER if stream == "return" else CALL
    plain, pad = _as(base, unit), _as(padded(base, n), unit)
    clean, found = scan(plain), scan(pad)
    # the same messages, the same findings but for one padding finding naming how many tokens
    assert found.messages == clean.messages
    assert [d for d in found.diagnostics if d.code != "padding"] == clean.diagnostics
    _check_padding_finding(found.diagnostics, n, text=pad if unit == "text" else None)
    # parse prints it, and lint (the API and the CLI) adds no other finding: no history lint, no stop-token
    assert _parse_codes(cli, pad) == [*_parse_codes(cli, plain), ("padding", "info")]
    assert [d.code for d in lint(pad) if d.code != "padding"] == [d.code for d in lint(plain)]
    assert _lint_cli_codes(cli, pad) == [*_lint_cli_codes(cli, plain), "padding"]
    # the chat and Responses projections: no control spelling, finished as the unpadded stream, same usage
    chat, chat_clean = _chat(cli, pad), _chat(cli, plain)
    assert chat == chat_clean
    message = chat["choices"][0]["message"]
    assert not SPELLING.search(json.dumps(message))
    assert chat["choices"][0]["finish_reason"] == ("stop" if stream == "return" else "tool_calls")
    assert _responses(cli, pad) == _responses(cli, plain)
    assert _responses(cli, pad)["status"] == "completed"


@pytest.mark.parametrize("n", [1, 3, 40])
def test_stats_api_view_and_page_agree_on_padding(n):
    for base in (ANSWER, CALL):
        ids, pad = encode(base), encode(padded(base, n))
        assert _numbers(pad) == _numbers(ids)
        prompt = len(encode(base.split("<|start|>assistant", 1)[0]))
        assert _numbers(pad, prompt) == _numbers(ids, prompt)
        assert _numbers(pad, prompt)["completion_tokens"] == len(ids) - prompt
        (u,) = [run_usage(Run(id="r", completion_token_ids=tuple(pad)))]
        assert [d.code for d in u.diagnostics].count("padding") == 1
        # the API view at the last step (widget), the finals a page builds it from, and the Findings panel:
        # one padding row (info), no reserved-token row per padding token
        page, views, finals = _page(pad)
        page_clean, views_clean, finals_clean = _page(ids)
        assert views == views_clean and finals == finals_clean
        assert finals["chat"]["finish_reason"] == ("stop" if base is ANSWER else "tool_calls") and finals["responses"]["status"] == "completed"
        assert sorted(page) == sorted([*page_clean, ("scanner", "padding", "info")])


def test_endoftext_ends_the_stream_wherever_it_comes():
    # inside an open message: the message ends there, as at the end of the stream (no stop token:
    # eos-in-message), and every reader sees what it sees of the stream without the padding
    text = "<|start|>assistant<|channel|>final<|message|>Hello" + EOT * 3
    for source in (text, encode(text)):
        r = scan(source)
        assert [(m.text, m.terminator) for m in r.messages] == [("Hello", "eos")]
        assert [d.code for d in r.diagnostics] == ["eos-in-message", "padding"]
        assert "where no stop token came before it" in r.diagnostics[-1].message
    from harmony_viz.projections import chat_completion

    cut = text[: -len(EOT) * 3]
    assert chat_completion(scan(encode(text)).events) == chat_completion(scan(encode(cut)).events)
    assert chat_completion(scan(encode(text)).events)["choices"][0]["message"]["content"] == "Hello"
    # more than padding after it: not read, one warning that says how much
    text = ANSWER + EOT + "<|start|>assistant<|channel|>final<|message|>Another sample<|return|>"
    for source in (text, encode(text)):
        r = scan(source)
        assert [m.text for m in r.messages] == [m.text for m in scan(ANSWER).messages]
        (d,) = [d for d in r.diagnostics if d.code == "after-endoftext"]
        assert d.severity == "warning" and "padding" not in [x.code for x in r.diagnostics]
    # whitespace after the padding (a file's last newline) is still padding
    assert [d.code for d in scan(padded(ANSWER, 2) + "\n").diagnostics] == ["padding"]


def test_other_special_spellings_in_text_are_special_tokens_as_in_ids():
    text = "<|start|>assistant<|channel|>final<|message|>a <|startoftext|> b <|reserved_200013|> c<|return|>"
    from_text, from_ids = scan(text), scan(encode(text))
    assert [m.text for m in from_text.messages] == [m.text for m in from_ids.messages] == ["a <|startoftext|> b <|reserved_200013|> c"]
    assert [(d.code, d.message) for d in from_text.diagnostics] == [(d.code, d.message) for d in from_ids.diagnostics]
    assert [d.code for d in from_text.diagnostics] == ["reserved-token", "reserved-token"]
    # not one of the encoding's spellings: plain text, no finding
    assert scan("<|start|>assistant<|channel|>final<|message|><|reserved_5|> <|nope|><|return|>").diagnostics == []


@pytest.mark.parametrize("cut", range(1, 14))
def test_padding_spelling_cut_by_a_chunk_is_still_padding(cut):
    from harmony_viz.scanner import Scanner

    text = padded(ANSWER, 3)
    at = len(ANSWER) + len(EOT) + cut  # the second <|endoftext|> cut in two
    s = Scanner()
    events = s.feed(text[:at]) + s.feed(text[at:]) + s.flush()
    whole = scan(text).events
    assert events == whole


# ------------------------------------------------------------------ every corpus transcript, padded


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> dict[str, str]:
    from test_scanner_corpus import transcripts

    return transcripts(corpus_dir)


def test_every_corpus_transcript_padded_reads_as_without_padding(corpus, cli):
    history = {"return-in-history", "stale-analysis", "stop-token", "text-outside-message", "reserved-token"}
    assert len(corpus) > 150
    for i, (name, text) in enumerate(corpus.items()):
        n = 1 + i % 9
        for unit in ("text", "ids"):
            plain, pad = _as(text, unit), _as(padded(text, n), unit)
            clean, found = scan(plain), scan(pad)
            assert found.messages == clean.messages, name
            _check_padding_finding(found.diagnostics, n)
            linted, linted_clean = [d.code for d in lint(pad)], [d.code for d in lint(plain)]
            assert [c for c in linted if c != "padding"] == linted_clean, name
            assert linted.count("padding") == 1 and not (history & set(linted) - set(linted_clean)), name
        ids, pad_ids = encode(text), encode(padded(text, n))
        chat = _chat(cli, pad_ids)
        assert chat == _chat(cli, ids), name
        message = chat["choices"][0]["message"]
        assert EOT not in json.dumps(message), name
        # a turn that ended at a stop token finishes as a server says (stop, or tool_calls for a call)
        if text.endswith("<|return|>"):
            assert chat["choices"][0]["finish_reason"] == "stop" and not SPELLING.search(message["content"] or ""), name
        assert _numbers(pad_ids) == _numbers(ids), name
        assert _parse_codes(cli, pad_ids) == [*_parse_codes(cli, ids), ("padding", "info")], name


def test_every_corpus_transcript_padded_on_the_page_and_in_the_api_view(corpus):
    for i, (name, text) in enumerate(corpus.items()):
        n = 2 + i % 5
        page, views, finals = _page(encode(padded(text, n)))
        page_clean, views_clean, finals_clean = _page(encode(text))
        assert views == views_clean and finals == finals_clean, name
        assert sorted(page) == sorted([*page_clean, ("scanner", "padding", "info")]), name
