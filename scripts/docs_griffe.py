"""A griffe extension for the API pages (mkdocs.yml): doctest examples in docstrings shown as code.

The docstrings keep plain doctest blocks (``>>>`` lines and their output, ended by a blank line),
which tests/test_doctests.py runs; Markdown would read their brackets as links, so on the site
each block is fenced as a Python console session.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block wrapped in a ```pycon fence at its own indentation."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.lstrip().startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        block = []
        while i < len(lines) and lines[i].strip():  # a doctest block ends at a blank line
            block.append(lines[i])
            i += 1
        out += [f"{indent}```pycon", *block, f"{indent}```"]
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
