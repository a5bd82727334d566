"""The docs site builds with no warning, shows the pictures the tests make, and the README stays a short door into it.

The site is built once per module with the real mkdocs (``mkdocs build --strict``, as .ci/run
does), and the checks read the built pages.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_MAX_LINES = 250

# Each picture a test makes, and the page (docs/NAME.md) it illustrates.
PICTURES = {
    "replay.png": "index",
    "notebook_01.png": "notebooks",
    "notebook_02.png": "notebooks",
    "notebook_03.png": "notebooks",
    "notebook_04.png": "notebooks",
    "images/replay-findings.png": "replay",
    "images/marimo-replay.png": "replay",
    "images/replay-jupyterlab-dark.png": "replay",
    "images/replay-static.png": "replay",
    "images/replay-server-fates.png": "server-lens",
    "images/conformance-matrix.png": "conformance",
}

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages() -> list[str]:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(item: Any) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, dict):
            return [p for v in item.values() for p in walk(v)]
        return [p for v in item for p in walk(v)]

    return walk(config["nav"])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _page(site: Path, name: str) -> Path:
    return site / ("index.html" if name == "index" else f"{name}/index.html")


def _images(page: Path) -> set[Path]:
    """The files the page's <img> tags load, resolved."""
    srcs = re.findall(r'<img[^>]*\ssrc="([^"]+)"', page.read_text(encoding="utf-8"))
    return {(page.parent / s).resolve() for s in srcs if "://" not in s}


def test_the_site_builds_with_every_page_of_the_nav(site: Path) -> None:
    for md in _nav_pages():
        assert _page(site, md.removesuffix(".md")).is_file(), md
    # every page in docs/ is in the nav, but the provenance note of the shipped reports
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages - set(_nav_pages()) == {"conformance/reports/PROVENANCE.md"}


def test_each_picture_the_tests_make_is_on_the_page_it_illustrates(site: Path) -> None:
    made = {p.relative_to(DOCS).as_posix() for p in [*DOCS.glob("*.png"), *DOCS.glob("images/*.png")]}
    assert made == set(PICTURES), "a new picture needs its page in PICTURES (and on that page)"
    for picture, page in PICTURES.items():
        shown = _images(_page(site, page))
        assert (site / picture).resolve() in shown, (picture, page)
        assert (site / picture).is_file()


def test_the_command_line_page_has_every_command_and_flag(site: Path) -> None:
    from harmony_viz.cli import build_parser

    html = _page(site, "cli").read_text(encoding="utf-8")
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    for name, sub in commands.choices.items():
        assert f"harmony-viz {name}" in html, name
        for action in sub._actions:
            for flag in action.option_strings:
                assert flag in html, (name, flag)


def test_the_api_page_is_written_from_the_docstrings(site: Path) -> None:
    from harmony_viz.scanner import scan

    html = _page(site, "api").read_text(encoding="utf-8")
    for anchor in ("harmony_viz.scanner.scan", "harmony_viz.projections.chat_completion", "harmony_viz.render.render_conversation", "harmony_viz.inputs.read"):
        assert f'id="{anchor}"' in html, anchor
    first = (scan.__doc__ or "").strip().splitlines()[0]
    assert first and first.split("``")[0][:40] in html
    # doctest examples are shown as code, not read as Markdown links
    assert "&gt;&gt;&gt;" in html and "Could not find cross-reference" not in html


def test_the_notebooks_travel_with_the_site(site: Path) -> None:
    html = _page(site, "notebooks").read_text(encoding="utf-8")
    for nb in sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "notebooks").glob("*.py")]):
        copied = site / "_repo" / "notebooks" / nb.name
        assert copied.read_bytes() == nb.read_bytes(), nb.name
        assert f'href="../_repo/notebooks/{nb.name}"' in html, nb.name


# -- without a build -------------------------------------------------------------------------------


def test_the_command_line_page_is_generated_not_written() -> None:
    """docs/cli.md holds the marker; every command's section comes from the parsers at build time."""
    from harmony_viz.cli import build_parser

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    hooks = _hooks()
    assert page.count(hooks.MARKER) == 1 and "## `harmony-viz " not in page
    reference = hooks.cli_reference()
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    for name, sub in commands.choices.items():
        assert f"harmony-viz {name}" in reference, name
        assert sub.format_usage().strip() in reference, name
        for action in sub._actions:
            if action.help:
                assert all(flag in reference for flag in action.option_strings), (name, action.option_strings)


def test_doctest_blocks_are_fenced_and_the_rest_kept() -> None:
    from importlib import util

    spec = util.spec_from_file_location("docs_griffe", ROOT / "scripts" / "docs_griffe.py")
    assert spec is not None and spec.loader is not None
    griffe_ext = util.module_from_spec(spec)
    spec.loader.exec_module(griffe_ext)
    text = "Says [a].\n\n    >>> f()[0]\n    ['x', 'y']\n\nAfter."
    assert griffe_ext.fence_doctests(text) == "Says [a].\n\n    ```pycon\n    >>> f()[0]\n    ['x', 'y']\n    ```\n\nAfter."


def _slug(heading: str) -> str:
    """Python-Markdown's toc anchor for a heading."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[-\s]+", "-", text).strip("-")


def _anchors(md: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in md.read_text(encoding="utf-8").splitlines() if re.match(r"#{1,6} ", line)}


def _check_links(page: Path) -> list[str]:
    """Each relative link of a Markdown file that does not resolve to a file (or to a heading of it)."""
    broken = []
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_file():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(target)
    return broken


def test_the_readme_is_short_and_every_link_resolves() -> None:
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES
    assert _check_links(readme) == []


def test_the_readme_links_every_page_and_every_notebook() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = set(_LINK.findall(text))
    for md in _nav_pages():
        assert f"docs/{md}" in links, md
    for nb in sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "notebooks").glob("*.py")]):
        assert f"notebooks/{nb.name}" in links, nb.name
        assert f"../notebooks/{nb.name}" in set(_LINK.findall((DOCS / "notebooks.md").read_text(encoding="utf-8"))), nb.name


def test_the_docs_links_resolve_in_the_repository() -> None:
    """As GitHub shows the pages: every relative link of every page names a file (and a heading) that is there."""
    broken = {page.relative_to(ROOT).as_posix(): _check_links(page) for page in sorted(DOCS.rglob("*.md"))}
    assert {k: v for k, v in broken.items() if v} == {}


def test_the_link_checker_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Top\n\n## Next step\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#next-step) [gone](c.md) [bad anchor](a.md#nowhere) ![pic](x.png) [web](https://example.org/x)")
    assert _check_links(page) == ["c.md", "a.md#nowhere", "x.png"]


# -- the start page's first transcript is what the commands do -------------------------------------------


def _first_transcript_blocks() -> list[str]:
    page = (DOCS / "index.md").read_text(encoding="utf-8")
    section = page.split("\n## Your first transcript\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```text\n(.*?)```", section, re.S)


def test_the_start_page_walkthrough_is_what_the_commands_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from harmony_viz.cli import main

    transcript, shown = _first_transcript_blocks()[:2]
    monkeypatch.chdir(tmp_path)
    Path("c.txt").write_text(transcript.strip("\n"), encoding="utf-8")
    assert main(["parse", "c.txt"]) == 0
    assert capsys.readouterr().err.rstrip("\n").splitlines() == shown.rstrip("\n").splitlines()
    # --role assistant: the same stream is clean, and its chat answer is the page's
    assert main(["parse", "c.txt", "--role", "assistant"]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []
    assert main(["parse", "c.txt", "--role", "assistant", "--output", "chat"]) == 0
    choice = json.loads(capsys.readouterr().out)["choices"][0]
    assert (choice["message"]["content"], choice["message"]["reasoning_content"], choice["finish_reason"]) == ("Hello!", "User wants a greeting.", "stop")
    assert main(["lint", "c.txt", "--role", "assistant", "--strict"]) == 0
    capsys.readouterr()
    assert main(["html", "c.txt", "--role", "assistant", "-o", "c.html"]) == 0
    assert "wrote c.html (17 tokens, 19 steps" in capsys.readouterr().err
