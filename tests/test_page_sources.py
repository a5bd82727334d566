"""Pages are TypeScript and CSS in js/, never strings in Python (issue 33 item 3).

Every string literal of the package (f-strings' literal parts too) is read with ``ast``: none
opens a ``<style>`` or an attribute-less ``<script>`` with text of its own after it (a page
inlines a built bundle there, ``asset_text(...)``, through a placeholder), and none writes a
``style="..."`` attribute.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "harmony_viz"
RULE = re.compile(r"<style[^>]*>\s*[^\s<]|<script>\s*[^\s<]|\bstyle=\\?[\"']")


def literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant, an f-string's literal parts each on their own."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
    return out


def offenders(source: str, name: str) -> list[str]:
    return [f"{name}:{line}: {text[:80]!r}" for line, text in literals(source) if RULE.search(text)]


def test_no_page_css_rule_or_script_is_a_python_string() -> None:
    found = [o for path in sorted(PACKAGE.rglob("*.py")) for o in offenders(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))]
    assert found == []


def test_the_reader_finds_a_rule_a_script_and_a_style_attribute() -> None:
    source = ('a = "<style>body{margin:0}</style>"\n'
              'b = f"<style>{css}</style><script>{js}</script>"\n'
              "c = '<script>(function(){go()})()</script>'\n"
              'd = f"<h3 style=\\"margin:0\\">{t}</h3>"\n'
              'e = "<script type=\\"application/json\\" id=\\"hv-data\\">"\n')
    assert [o.split(":")[1] for o in offenders(source, "x")] == ["1", "3", "4"]
