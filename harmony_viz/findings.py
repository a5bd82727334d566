"""Findings: what every lens reports, in one shape, ``(code, severity, message, where)``.

The scanner's and the lints' diagnostics, the template lens's differences and the server
lens's discrepancies are all :class:`Finding` records. ``where`` is a :class:`Span` of one
stream, or :class:`Sides`, a span on each side of a comparison (None on a side that has
nothing there). Each lens keeps one registry of its codes, code -> (severity, meaning), as data:
a JSON file beside its modules that :func:`read_codes` loads (one format, checked on load);
:func:`code_table` writes a registry as a docs page's table, and no code means two things
across registries.

This module imports nothing from the package: the scanner, the first reader, uses it.

>>> f = Finding("bad-channel", "error", "junk channel", Span(3, 5))
>>> f.where.start, f.severity
(3, 'error')
>>> print(code_table({"bad-channel": ("error", "the channel is not `analysis`|`final`")}))
| code | severity | what it means |
|---|---|---|
| `bad-channel` | error | the channel is not `analysis`\\|`final` |
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple, Union

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

# What a span counts: tokens when the stream was token ids, characters when it was text.
Unit = Literal["tokens", "chars"]

# A lens's registry: code -> (severity, what it means).
Codes = Mapping[str, tuple[Severity, str]]

# Every lens's registry, by lens: where it lives (imported on demand: this module stays first in the flow).
REGISTRIES: dict[str, str] = {
    "scanner": "harmony_viz.scanner:DIAGNOSTIC_CODES",
    "lint": "harmony_viz._lint:CODES",
    "templates": "harmony_viz.templates:CODES",
    "servers": "harmony_viz.servers.core:CODES",
}


class Span(NamedTuple):
    """``[start, end)`` in one stream, counted in the stream's unit (a pair: it unpacks as one)."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Sides:
    """A span on each side of a comparison (ours, and the template's or the server's); None where that side has nothing."""

    ours: Span | None
    theirs: Span | None


Where = Union[Span, Sides, None]


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of a lens: a stable ``code`` from its registry, how bad, what happened, and where."""

    code: str
    severity: Severity
    message: str
    where: Where = None


def with_article(word: str) -> str:
    """``word`` after "a" or "an", as its first letter sounds: a role name in a finding's sentence.

    >>> with_article("assistant"), with_article("user"), with_article("")
    ('an assistant', 'a user', 'a ')
    """
    return ("an " if word[:1].lower() in ("a", "e", "i", "o") else "a ") + word


def code_table(codes: Codes) -> str:
    """The registry as a Markdown table (code, severity, meaning), in registry order; ``|`` escaped."""
    rows = ["| code | severity | what it means |", "|---|---|---|"]
    rows += [f"| `{code}` | {severity} | {meaning.replace('|', chr(92) + '|')} |" for code, (severity, meaning) in codes.items()]
    return "\n".join(rows)


def read_codes(path: Path) -> dict[str, tuple[Severity, str]]:
    """A lens's registry from its JSON file, ``{"code": ["severity", "what it means"], ...}``, in the file's order.

    A row that is not such a pair, or a severity outside :data:`SEVERITIES`, stops with one line naming the file and the code.
    """
    table: dict[str, tuple[Severity, str]] = {}
    for code, row in json.loads(path.read_text(encoding="utf-8")).items():
        if not (isinstance(row, list) and len(row) == 2 and row[0] in SEVERITIES and isinstance(row[1], str)):
            raise ValueError(f"{path.name}: {code!r} is not [severity, meaning] with a severity of {', '.join(SEVERITIES)}: {row!r}")
        table[code] = (row[0], row[1])
    return table


def registries() -> dict[str, Codes]:
    """Every lens's registry, imported."""
    out: dict[str, Codes] = {}
    for lens, home in REGISTRIES.items():
        module, _, name = home.partition(":")
        out[lens] = getattr(importlib.import_module(module), name)
    return out


# A generated table in a docs page: <!-- codes: LENS --> … <!-- /codes -->.
_README_TABLE = re.compile(r"(<!-- codes: (\w+) -->\n)(?:(?!<!--)[\s\S])*(<!-- /codes -->)")


def readme_tables(text: str) -> str:
    """``text`` with every generated code table written anew from its registry."""
    tables = registries()
    return _README_TABLE.sub(lambda m: m.group(1) + code_table(tables[m.group(2)]) + "\n" + m.group(3), text)


if __name__ == "__main__":  # python -m harmony_viz.findings docs/*.md: rewrite the pages' code tables
    for name in sys.argv[1:]:
        path = Path(name)
        path.write_text(readme_tables(path.read_text(encoding="utf-8")), encoding="utf-8")
