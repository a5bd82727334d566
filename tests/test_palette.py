"""One palette (issue 28 item 6): every page kind draws each kind of content and each role in harmony_viz/palette.json's colours.

Each page is made as its command or verb makes it, and its colours are read from what it
ships: the stylesheet a saved page inlines (each kind's and role's rule resolved through the
variables the build writes from the palette), the stylesheet the playground widget loads,
the plotly figures' JSON of the stats page, the matrix page's own CSS. The demo's two pages
must agree kind by kind. tests/ui/test_palette_drawn.py draws the same pages in chromium and
reads the colours off the chips, cards and legend swatches.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harmony_viz import palette
from harmony_viz.cli import main
from harmony_viz.findings import SEVERITIES
from harmony_viz.scanner import CONTENT_KINDS, STANDARD_ROLES

KINDS = palette.KIND_COLOURS
ROLES = palette.ROLE_COLOURS
ROOT = Path(__file__).resolve().parents[1]


# ---- the table -------------------------------------------------------------------

def test_the_palette_has_one_colour_per_kind_role_severity_and_diff_side() -> None:
    assert tuple(KINDS) == CONTENT_KINDS  # the visibility rule's kinds, in its order
    assert set(ROLES) == set(STANDARD_ROLES) | {"tool"}
    assert set(palette.SEVERITY_COLOURS) == set(SEVERITIES) and set(palette.DIFF_COLOURS) == {"insert", "delete"}
    for table in (KINDS, ROLES, palette.SEVERITY_COLOURS, palette.DIFF_COLOURS):
        assert all(re.fullmatch(r"#[0-9A-F]{6}", c) for c in table.values()), table
    assert len(set(KINDS.values())) == len(KINDS)  # each kind its own colour
    assert palette.KIND_LABELS["reasoning"] == "analysis (reasoning)" and set(palette.KIND_LABELS) == set(KINDS)
    assert palette.PALETTE == json.loads((ROOT / "harmony_viz" / "palette.json").read_text(encoding="utf-8"))


# ---- reading a page's stylesheet ---------------------------------------------------------

def _styles(page_html: str) -> str:
    return "\n".join(re.findall(r"<style>(.*?)</style>", page_html, re.S))


def _rules(css: str) -> list[tuple[list[str], dict[str, str]]]:
    """Top-level rules as (selectors, declarations); @media blocks are left out (the dark mode is not the palette's)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", css)
    out = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        decls = {}
        for decl in body.split(";"):
            name, sep, value = decl.partition(":")
            if sep:
                decls[name.strip()] = value.strip()
        out.append(([s.strip() for s in selectors.split(",")], decls))
    return out


class Sheet:
    """What a stylesheet makes of a selector's ``--hv-c`` (or any property), every var() resolved through the palette's block."""

    def __init__(self, css: str) -> None:
        self.rules = _rules(css)
        self.vars: dict[str, str] = {}
        for selectors, decls in self.rules:
            if ":root" in selectors:
                self.vars.update({k: v for k, v in decls.items() if k.startswith("--")})

    def resolve(self, value: str) -> str:
        for _ in range(5):
            m = re.fullmatch(r"var\((--[\w-]+)(?:,\s*(.+))?\)", value.strip())
            if not m:
                break
            value = self.vars.get(m.group(1)) or m.group(2) or ""
        return value.upper()

    def get(self, selector: str, prop: str = "--hv-c") -> str:
        found = [d[prop] for sels, d in self.rules if selector in sels and prop in d]
        assert found, f"no rule {selector} {{ {prop}: … }}"
        return self.resolve(found[-1])

    def literal_kind_colours(self) -> list[str]:
        """Rules on a kind, role or diff class that set a colour by hand (every one must come through the palette's variables)."""
        bad = []
        for sels, decls in self.rules:
            if any(re.search(r"\.hv-(k|r|pg-d)-", s) for s in sels):
                bad += [f"{', '.join(sels)} {{ {k}: {v} }}" for k, v in decls.items() if re.search(r"#[0-9a-fA-F]{3,8}\b", v)]
        return bad


def _replay_sheet_agrees(sheet: Sheet) -> None:
    assert sheet.literal_kind_colours() == []
    for kind, colour in KINDS.items():
        assert sheet.get(f".hv-by-channel .hv-k-{kind}") == colour, kind
    for kind, colour in KINDS.items():
        if kind != "other":
            assert sheet.get(f".hv-card.hv-k-{kind}") == colour, kind
    for role, colour in ROLES.items():
        assert sheet.get(f".hv-by-role .hv-r-{role}") == colour, role
    assert sheet.get(".hv-tok") == KINDS["other"]  # a chip of no known kind
    for severity, var in (("error", "--hv-error"), ("warning", "--hv-warn"), ("info", "--hv-accent")):
        assert sheet.get(".hv-root", var) == palette.SEVERITY_COLOURS[severity]  # outside JupyterLab (whose theme has its own)


def _diff_sheet_agrees(sheet: Sheet) -> None:
    assert sheet.get(".hv-pg .hv-pg-d-insert") == palette.DIFF_COLOURS["insert"]
    assert sheet.get(".hv-pg .hv-pg-d-delete") == sheet.get(".hv-pg .hv-pg-d-replace") == palette.DIFF_COLOURS["delete"]


# ---- the pages -------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``harmony-viz demo``'s two pages: the replay of a tool-calling run and the stats report."""
    out = tmp_path_factory.mktemp("demo") / "demo.html"
    assert main(["demo", "-o", str(out), "--no-progress"]) == 0
    return out, out.with_name("demo-stats.html")


@pytest.fixture(scope="module")
def prompt_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay of a shipped vLLM capture that kept its prompt: the server tab's prompt diff."""
    from harmony_viz import save_html
    from harmony_viz.servers import lens

    (path,) = [p for p in lens.shipped_prompt_captures("vllm") if p.endswith("/two-step-2.json")]
    return save_html(lens.load_capture(path), tmp_path_factory.mktemp("prompt") / "prompt.html")


@pytest.fixture(scope="module")
def template_page(tmp_path_factory: pytest.TempPathFactory, enc: Any) -> Path:
    """The chat-template page (``html --template``'s) of a diff with inserted, deleted and replaced tokens."""
    from harmony_viz._diffview import diff_json
    from harmony_viz._playground import template_page_html

    ours = enc.encode("<|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant<|channel|>final<|message|>Sunny.<|return|>", allowed_special="all")
    theirs = enc.encode("<|start|>user<|message|>Weather in Lyon?<|end|><|start|>assistant<|message|>Sunny, 20C.<|end|>", allowed_special="all")
    out = tmp_path_factory.mktemp("template") / "template.html"
    out.write_text(template_page_html(diff_json(ours, theirs, [], layout="template", origin="a test template")), encoding="utf-8")
    return out


def _stats_figures(page_html: str) -> list[list[dict[str, Any]]]:
    """The traces of every plotly figure on a stats page (``Plotly.newPlot(id, traces, layout, config)``)."""
    decoder = json.JSONDecoder()
    figures = []
    for m in re.finditer(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*", page_html):
        traces, _ = decoder.raw_decode(page_html, m.end())
        figures.append(traces)
    return figures


def _kind_trace_colours(page_html: str) -> dict[str, str]:
    """Kind -> colour of the figures whose traces are kinds (the stacked shares per run)."""
    out: dict[str, str] = {}
    for traces in _stats_figures(page_html):
        for t in traces:
            if t.get("name") in KINDS and isinstance((t.get("marker") or {}).get("color"), str):
                assert out.setdefault(t["name"], t["marker"]["color"].upper()) == t["marker"]["color"].upper()
    return out


def test_the_replay_page_draws_kinds_and_roles_in_the_palettes_colours(demo) -> None:
    _replay_sheet_agrees(Sheet(_styles(demo[0].read_text(encoding="utf-8"))))


def test_the_playground_draws_kinds_and_roles_in_the_palettes_colours() -> None:
    from harmony_viz._static import asset_text

    sheet = Sheet(asset_text("playground.css"))  # what the widget loads: widget.css and its own rules
    _replay_sheet_agrees(sheet)
    _diff_sheet_agrees(sheet)
    for role, colour in ROLES.items():
        assert sheet.get(f".hv-pg .hv-pg-card.hv-r-{role}") == colour, role


def test_the_template_and_prompt_diffs_draw_in_the_palettes_colours(template_page: Path, prompt_page: Path) -> None:
    for path in (template_page, prompt_page):
        sheet = Sheet(_styles(path.read_text(encoding="utf-8")))
        _replay_sheet_agrees(sheet)
        _diff_sheet_agrees(sheet)


def test_the_stats_charts_draw_each_kind_and_severity_in_the_palettes_colours(demo) -> None:
    from harmony_viz.charts import KIND_COLOURS, SEVERITY_COLOURS, STACK_KINDS

    assert KIND_COLOURS == KINDS and SEVERITY_COLOURS == palette.SEVERITY_COLOURS
    drawn = _kind_trace_colours(demo[1].read_text(encoding="utf-8"))
    assert set(drawn) == set(STACK_KINDS)
    assert drawn == {k: KINDS[k] for k in STACK_KINDS}
    severities = {t["name"]: t["marker"]["color"].upper() for traces in _stats_figures(demo[1].read_text(encoding="utf-8"))
                  for t in traces if t.get("name") in palette.SEVERITY_COLOURS and "marker" in t}
    assert severities and all(palette.SEVERITY_COLOURS[s] == c for s, c in severities.items())


def test_the_demos_two_pages_agree_on_every_kind(demo) -> None:
    replay = Sheet(_styles(demo[0].read_text(encoding="utf-8")))
    stats = _kind_trace_colours(demo[1].read_text(encoding="utf-8"))
    assert stats and {k: replay.get(f".hv-by-channel .hv-k-{k}") for k in stats} == stats


def test_the_matrix_page_keeps_its_status_colours_and_draws_no_channel_of_its_own() -> None:
    from harmony_viz.conformance import conformance_page, read_report

    reports = sorted((ROOT / "docs" / "conformance" / "reports").glob("*.json.gz"))
    if not reports:
        pytest.skip("docs/conformance/reports/ holds no report")
    page_html = conformance_page([read_report(p) for p in reports])
    sheet = Sheet(_styles(page_html))
    assert ".c-pass" in {s for sels, _ in sheet.rules for s in sels}  # its own status colours
    assert sheet.literal_kind_colours() == []  # a kind or role it drew would come through the palette's variables
    assert not re.search(r"\bhv-(k|r)-", page_html)  # and it draws none: a cell is a status, not a channel


def test_the_matrix_page_draws_each_status_and_change_in_the_palettes_colours() -> None:
    from harmony_viz.conformance import MATRIX_CLASSES, conformance_page, read_report

    reports = sorted((ROOT / "docs" / "conformance" / "reports").glob("*.json.gz"))
    if not reports:
        pytest.skip("docs/conformance/reports/ holds no report")
    sheet = Sheet(_styles(conformance_page([read_report(p) for p in reports])))
    assert set(palette.STATUS_COLOURS) == {cls for cls, *_ in MATRIX_CLASSES}  # one entry a cell class
    for status, colours in palette.STATUS_COLOURS.items():
        assert sheet.get(f".c-{status}", "background") == colours["background"], status
        assert sheet.get(f".c-{status}", "color") == colours["text"], status
    for change, colour in palette.CHANGE_COLOURS.items():
        assert sheet.get(f".chg-{change}", "color") == colour, change
    # and no colour of its own: every hex the page's stylesheet holds is the palette's block of variables
    literal = [f"{', '.join(sels)} {{ {k}: {v} }}" for sels, decls in sheet.rules if ":root" not in sels
               for k, v in decls.items() if re.search(r"#[0-9a-fA-F]{3,8}\b", v)]
    assert literal == []
