"""The replay follows the host's theme (issue 35 item 3): JupyterLab's light and dark themes, a saved page's dark scheme.

In a real JupyterLab, switched between "JupyterLab Light" and "JupyterLab Dark", the widget's
root and panels take the theme's own backgrounds (--jp-layout-color0/1); every drawn chip's text
keeps WCAG AA's 4.5:1 against its chip in every colour mode the stream offers (channel, role,
server, surprise), computed from the chips' computed colours (each background composited over
what lies under it, as the screen shows it); the findings' underlines keep 3:1 (non-text
contrast) against their chips. A saved page opened with ``prefers-color-scheme: dark`` is held
to the same. Also writes docs/images/replay-jupyterlab-dark.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _lab import lab_notebook
from test_accessibility import AXE, FAULTY, audit
from test_palette import demo  # noqa: F401  (harmony-viz demo's two pages, made as there)

from harmony_viz.servers import lens

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PICTURE = ROOT / "docs" / "images" / "replay-jupyterlab-dark.png"
ALTERNATIVES = lens.DATA / "alternatives" / "seed-001.llama.cpp.chat.json"  # fates and log-probs: all four colour modes
THEMES = ("JupyterLab Light", "JupyterLab Dark")
AA_TEXT = 4.5
AA_NON_TEXT = 3.0

# Colours as the screen shows them: computed colours parsed (rgb(), rgba(), color(srgb …) as color-mix gives them),
# a background composited over the backgrounds under it, text over its background; WCAG's relative luminance.
_COLOUR_JS = r"""
const parse = (c) => {
  if (c === 'transparent') return [0, 0, 0, 0];
  let m = c.match(/^rgba?\(([^)]+)\)$/);
  if (m) { const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1]; }
  m = c.match(/^color\(srgb ([^)]+)\)$/);
  if (m) { const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
  throw new Error('a colour this test cannot read: ' + c);
};
const over = (top, bottom) => {
  const a = top[3] + bottom[3] * (1 - top[3]);
  return a === 0 ? [0, 0, 0, 0] : [0, 1, 2].map(i => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
};
const backdrop = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  return layers.reverse().reduce((acc, l) => over(l, acc), [1, 1, 1, 1]);
};
const lum = (c) => { const f = v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""

CHIP_CONTRAST = "(root) => {" + _COLOUR_JS + r"""
  return [...root.querySelectorAll('[data-hv=token]')].map(chip => {
    const bg = backdrop(chip), fg = over(parse(getComputedStyle(chip).color), bg);
    return [+chip.dataset.i, chip.className, Math.round(ratio(fg, bg) * 100) / 100];
  });
}"""

# a finding's underline is drawn in the chip's --hv-u-<severity> (widget.css): that colour against the chip it underlines
UNDERLINE_CONTRAST = "(root) => {" + _COLOUR_JS + r"""
  const probe = document.createElement('span');
  document.body.appendChild(probe);
  const line = (chip) => {
    probe.style.color = getComputedStyle(chip).getPropertyValue({ error: '--hv-u-error', warning: '--hv-u-warn', info: '--hv-u-info' }[chip.dataset.severity]);
    return parse(getComputedStyle(probe).color);
  };
  const out = [...root.querySelectorAll('[data-hv=token][data-severity]')].map(chip =>
    [+chip.dataset.i, chip.dataset.severity, Math.round(ratio(over(line(chip), backdrop(chip)), backdrop(chip)) * 100) / 100]);
  probe.remove();
  return out;
}"""

THEME_BG = "(v) => { const p = document.createElement('div'); p.style.background = `var(${v})`; document.body.appendChild(p); const c = getComputedStyle(p).backgroundColor; p.remove(); return c; }"


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab) -> Iterator[Any]:
    """A JupyterLab tab with three replays: a capture with fates and log-probs, a faulty stream, the demo's run."""
    cells = [
        f"from harmony_viz import replay\nalt = replay({str(ALTERNATIVES)!r}, step=-1)\nalt",
        f"faulty = replay({FAULTY!r}, step=-1)\nfaulty",
        "from harmony_viz.cli import replay_tokens\nshot = replay(replay_tokens(), step=-1)\nshot",
    ]
    ready = "() => document.querySelectorAll('.hv-root').length === 3 && [...document.querySelectorAll('.hv-root')].every(r => r.querySelector('[data-hv=token]'))"
    gen = lab_notebook(browser, jupyter_lab, "hv_themes.ipynb", cells, ready=ready, viewport=(1500, 1300))
    page = next(gen)
    try:
        yield page
    finally:
        _set_theme(page, THEMES[0])  # the JupyterLab is shared: leave it in its light theme
        next(gen, None)


def _set_theme(page: Any, theme: str) -> None:
    page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })", theme)
    page.wait_for_function("(theme) => document.body.dataset.jpThemeName === theme", arg=theme, timeout=30_000)
    # the theme's stylesheet is in once its variables are: the layout colour a light theme and a dark one disagree on
    light = theme == THEMES[0]
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{str(light).lower()}' && "
                           "getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim() !== ''", timeout=30_000)
    page.wait_for_timeout(300)  # one frame for the new variables to reach every element


def _modes(root: Any) -> list[str]:
    return root.locator("[data-hv=colour] option").evaluate_all("os => os.map(o => o.value)")


def _low_contrast(root: Any, limit: float) -> list[Any]:
    chips = root.evaluate(CHIP_CONTRAST)
    assert chips, "no chip drawn"
    return [c for c in chips if c[2] < limit]


@pytest.mark.parametrize("theme", THEMES)
def test_the_widget_follows_the_jupyterlab_theme(lab_page: Any, theme: str) -> None:
    page = lab_page
    _set_theme(page, theme)
    layout0, layout1 = page.evaluate(THEME_BG, "--jp-layout-color0"), page.evaluate(THEME_BG, "--jp-layout-color1")
    roots = page.locator(".hv-root")
    for r in range(roots.count()):
        root = roots.nth(r)
        # the panels take the theme's own backgrounds
        assert root.evaluate("e => getComputedStyle(e).backgroundColor") == layout0
        panels = root.locator(".hv-panel").evaluate_all("ps => ps.map(p => getComputedStyle(p).backgroundColor)")
        assert panels and set(panels) == {layout1}, (theme, panels, layout1)
    is_dark = page.evaluate(f"() => {{ {_COLOUR_JS} return lum(parse(getComputedStyle(document.querySelector('.hv-panel')).backgroundColor)) < 0.1; }}")
    assert is_dark == (theme == THEMES[1])
    # chip text keeps 4.5:1 on its chip in every colour mode
    alt = roots.nth(0)
    assert _modes(alt) == ["channel", "role", "server", "surprise"]
    low: dict[str, list[Any]] = {}
    for r in range(roots.count()):
        root = roots.nth(r)
        for mode in _modes(root):
            root.locator("[data-hv=colour]").select_option(mode)
            if bad := _low_contrast(root, AA_TEXT):
                low[f"widget {r} {mode}"] = bad[:5]
        root.locator("[data-hv=colour]").select_option("channel")
    assert low == {}, json.dumps(low)[:3000]
    # the chips of an early step (most not fed yet, drawn muted) too
    alt.locator("[data-hv=first]").click()
    alt.locator("[data-hv=next]").click()
    assert alt.locator("[data-hv=token].hv-dim").count() > 10
    assert _low_contrast(alt, AA_TEXT) == []
    alt.locator("[data-hv=last]").click()
    # the findings' underlines stay visible on their chips
    underlined = roots.nth(1).evaluate(UNDERLINE_CONTRAST)
    assert {sev for _, sev, _ in underlined} >= {"error", "warning"}
    assert [u for u in underlined if u[2] < AA_NON_TEXT] == []
    # and axe finds nothing serious in the widget (its panels' text, the findings' severities) in this theme
    if AXE.is_file():
        assert {r: audit(page, AXE, ".hv-root", r) for r in range(roots.count())} == {r: {} for r in range(roots.count())}


def test_picture_of_the_replay_in_jupyterlab_dark(lab_page: Any) -> None:
    """docs/images/replay-jupyterlab-dark.png: the demo's tool-calling run at its end, in JupyterLab's dark theme."""
    page = lab_page
    _set_theme(page, THEMES[1])
    shot = page.locator(".hv-root").nth(2)
    size = page.viewport_size
    # a window tall enough for the whole widget, centred in the notebook: clear of its toolbar and the status bar
    page.set_viewport_size({"width": size["width"], "height": 2400})
    try:
        page.wait_for_timeout(300)
        shot.evaluate("e => e.scrollIntoView({ block: 'center' })")
        page.mouse.move(0, 0)
        PICTURE.parent.mkdir(parents=True, exist_ok=True)
        shot.screenshot(path=str(PICTURE))
    finally:
        page.set_viewport_size(size)
    assert PICTURE.stat().st_size > 20_000


def test_a_saved_page_follows_a_dark_colour_scheme(browser, demo: tuple[Path, Path]) -> None:  # noqa: F811
    replay, _ = demo
    context = browser.new_context(viewport={"width": 1400, "height": 950}, color_scheme="dark")
    page = context.new_page()
    try:
        page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
        page.goto(replay.as_uri())
        page.wait_for_selector("[data-hv=token]")
        root = page.locator(".hv-root")
        assert page.evaluate(f"() => {{ {_COLOUR_JS} return lum(backdrop(document.querySelector('.hv-panel'))); }}") < 0.1
        for mode in _modes(root):
            root.locator("[data-hv=colour]").select_option(mode)
            assert _low_contrast(root, AA_TEXT) == [], mode
    finally:
        context.close()
