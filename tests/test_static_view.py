"""The replay's static view (issue 35 item 4): the text/html a saved notebook shows where no kernel runs.

Read as a browser would (``html.parser``): every chip of a short stream in order, carrying the
live chips' classes; a long stream's view bounded in chips, messages, findings and bytes;
markup from the model never becomes markup; the widget's mimebundle carries the view beside
its widget view. tests/ui/test_static_view_browser.py opens it in chromium with JavaScript off.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from _replay_streams import XSS_TEXT

from harmony_viz._replay import BOUNDS, Lints, ReplayWidget, static_view, stream_findings
from harmony_viz._static import asset_text
from harmony_viz.data import sample_path
from harmony_viz.inputs import read
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

# Every tag the view writes; anything else would be the model's text taken for markup.
TAGS = {"div", "style", "p", "span", "section", "h3", "pre", "ul", "li", "code", "br"}
# A long stream's view stays under this whatever its length (measured: 261 KB at 90,788 tokens).
MAX_BYTES = 300_000


class Node:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs, self.text = tag, attrs, ""


class Reader(HTMLParser):
    """Every element with its attributes and its own text (children's text not included)."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[Node] = []
        self.open: list[Node] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.nodes.append(node)
        if tag != "br":
            self.open.append(node)

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop().tag != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1].text += data

    def hv(self, name: str) -> list[Node]:
        return [n for n in self.nodes if n.attrs.get("data-hv") == name]


def view_of(ids: list[int], name: str = "x", role: str | None = None) -> tuple[Trace, list, str]:
    trace = Trace.build(ids, "token", role=role)
    findings = stream_findings(trace, Lints().of(trace)[0])
    return trace, findings, static_view(trace, findings, name=name)


def sample_ids(name: str) -> tuple[list[int], str | None]:
    stream = read(sample_path(name)).stream()
    return list(stream.ids), stream.role


def test_a_short_stream_shows_every_chip_in_order_with_the_live_classes() -> None:
    ids, role = sample_ids("finding5_runs/helpful-1.json")
    trace, findings, markup = view_of(ids, "helpful-1.json", role)
    doc = Reader(markup)
    chips = doc.hv("token")
    assert len(chips) == len(ids) == 351
    # the chips' text is the stream's, token by token (a character split over tokens is whole on its first chip)
    assert "".join(c.text for c in chips).replace("‥", "") == trace.unit_text(0, len(ids))
    classes = [set(c.attrs["class"].split()) for c in chips]
    assert all("hv-tok" in c for c in classes)
    assert {"hv-k-reasoning", "hv-k-final", "hv-k-other", "hv-r-assistant", "hv-r-user", "hv-r-system", "hv-special", "hv-header"} <= set().union(*classes)
    # the analysis message's tokens are reasoning chips, the answer's final ones (the scanner's reading, as live)
    analysis = next(m for m in trace.messages if m.channel == "analysis")
    assert all("hv-k-reasoning" in classes[t] and "hv-r-assistant" in classes[t] for t in range(analysis.header_end, analysis.end))
    assert [c.text for c in chips[:3]] == ["<|start|>", "system", "<|message|>"]
    assert "hv-special" in classes[0] and "hv-header" in classes[1]
    # each finding on its chips as the live underline (data-severity: the worst one on the chip)
    marked = {int(i) for i, c in enumerate(chips) if "data-severity" in c.attrs}
    spans = [f.tokens for f in findings if f.tokens is not None and f.tokens[0] < len(ids)]
    assert spans and all(set(range(a, max(b, a + 1))) <= marked for a, b in spans)
    assert not doc.hv("left-out")
    answer = doc.hv("final-answer")
    assert [a.text for a in answer] == [trace.messages[-1].text] and trace.messages[-1].channel == "final"
    assert [(n.attrs["data-code"], n.attrs["data-severity"]) for n in doc.hv("finding")] == [(f.code, f.severity) for f in findings]
    assert len(doc.hv("message")) == len(trace.messages)


def test_the_chips_container_is_named_and_reachable_and_the_legend_names_each_channel() -> None:
    _, _, markup = view_of(encode("<|start|>assistant<|channel|>final<|message|>Hi<|end|>"))
    doc = Reader(markup)
    box = doc.hv("tokens")[0]
    assert box.attrs["role"] == "region" and box.attrs["tabindex"] == "0" and "coloured by channel" in box.attrs["aria-label"]
    legend = doc.hv("legend")[0]
    swatches = [n.attrs["class"] for n in doc.nodes if "hv-swatch" in n.attrs.get("class", "")]
    assert swatches == [f"hv-swatch hv-k-{k}" for k in ("reasoning", "preamble", "final", "tool_call", "tool_result", "other")]
    assert legend is not None and "analysis (reasoning)" in markup


def test_a_long_stream_is_bounded_in_chips_messages_findings_and_bytes() -> None:
    ids: list[int] = []
    rag = read(sample_path("findings-rag.json"))
    for r in range(rag.run_count):
        ids += rag.stream(r).ids
        if len(ids) > 30_000:
            break
    trace, findings, markup = view_of(ids, "long")
    n = len(ids)
    doc = Reader(markup)
    chips = doc.hv("token")
    assert len(chips) == BOUNDS.chips < n
    half = BOUNDS.chips // 2
    # the first and the last half of the bound, and one line saying how many were left out between them
    texts = [trace.unit_text(t, t + 1) for t in (*range(half), *range(n - half, n))]
    assert [c.text for c in chips] == [t if len(t) <= BOUNDS.chip_chars else t[: BOUNDS.chip_chars - 1] + "…" for t in texts]
    gap = doc.hv("left-out")
    assert len(gap) == 1 and int(gap[0].attrs["data-count"]) == n - BOUNDS.chips and f"{n - BOUNDS.chips:,} tokens left out" in gap[0].text
    assert len(trace.messages) > BOUNDS.messages and len(doc.hv("message")) == BOUNDS.messages and doc.hv("messages-left-out")
    assert len(doc.hv("finding")) == min(len(findings), BOUNDS.findings)
    assert all(len(n.text) <= BOUNDS.message_chars for n in doc.nodes if "hv-card-body" in n.attrs.get("class", ""))
    assert doc.hv("cut"), "some message of the long stream is longer than the bound and says so"
    assert len(markup.encode()) < MAX_BYTES


@pytest.mark.parametrize("bound", [10, 11])
def test_a_stream_just_past_a_small_bound_leaves_out_what_it_says(bound: int) -> None:
    from dataclasses import replace

    ids = encode("<|start|>user<|message|>" + "one two three four five six seven eight nine ten " * 3 + "<|end|>")
    trace = Trace.build(ids, "token")
    doc = Reader(static_view(trace, [], bounds=replace(BOUNDS, chips=bound)))
    half = bound // 2
    assert len(doc.hv("token")) == 2 * half
    assert int(doc.hv("left-out")[0].attrs["data-count"]) == len(ids) - 2 * half


def test_model_text_never_becomes_markup() -> None:
    _, _, markup = view_of(encode(XSS_TEXT))
    doc = Reader(markup)
    assert {n.tag for n in doc.nodes} <= TAGS
    assert not any(k.startswith("on") for n in doc.nodes for k in n.attrs)
    assert "<script" not in markup.lower() and "&lt;script&gt;" in markup
    # the characters split over tokens (日本, the parrot) are whole on their first chip
    assert "🦜" in "".join(c.text for c in doc.hv("token"))


def test_the_stylesheet_is_the_built_one_and_covers_every_chip_class() -> None:
    ids, role = sample_ids("tool_calling/cities_3_cot_true_trial-1.md")
    _, _, markup = view_of(ids, role=role)
    doc = Reader(markup)
    styles = [n for n in doc.nodes if n.tag == "style"]
    css = asset_text("static_view.css")
    assert len(styles) == 1 and styles[0].text == css
    used = {c for n in doc.hv("token") for c in n.attrs["class"].split()}
    assert {c for c in used if not re.search(rf"\.{re.escape(c)}\b", css)} == set()
    # self-contained: nothing fetched (no link, no src, no url() but data:)
    assert not any(k in ("href", "src") for n in doc.nodes for k in n.attrs)
    assert all(u.startswith(("data:", "'data:", '"data:')) for u in re.findall(r"url\(([^)]*)\)", css))


def test_the_widget_bundle_carries_the_static_view_beside_its_widget_view() -> None:
    ids, role = sample_ids("finding5_runs/helpful-1.json")
    w = ReplayWidget(ids, "every:4", role=role, name="helpful-1.json")
    data, _meta = w._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    doc = Reader(data["text/html"])
    assert doc.hv("static-view")[0].attrs["data-tokens"] == "351" and len(doc.hv("token")) == 351
    assert "helpful-1.json" in data["text/html"]
    w.close()


def test_a_text_chunking_draws_the_same_chips() -> None:
    # a text chunking's spans are characters: each chip still takes the message its first character is in
    ids, role = sample_ids("finding5_runs/helpful-1.json")
    chips = {}
    for chunking in ("token", "chars:16"):
        trace = Trace.build(ids, chunking, role=role)
        chips[chunking] = [(n.attrs["class"], n.text) for n in Reader(static_view(trace, [])).hv("token")]
    assert chips["token"] == chips["chars:16"] and len(chips["token"]) == len(ids)
