"""Sizes the house keeps (issue 33): no Python file in harmony_viz/ over 600 lines, no function over 80,
no TypeScript file of the bundle (js/*.ts, js/src/) over 450. Each offender is named with its size."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harmony_viz"
JS = ROOT / "js"

MAX_PYTHON_FILE = 600
MAX_FUNCTION = 80
MAX_TYPESCRIPT_FILE = 450


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def long_functions(path: Path, limit: int = MAX_FUNCTION) -> list[tuple[int, str, int]]:
    """(line, name, lines) of each function or method in ``path`` longer than ``limit``, decorators included.

    A nested function counts on its own, and inside the function that holds it."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            size = (node.end_lineno or node.lineno) - first + 1
            if size > limit:
                out.append((node.lineno, node.name, size))
    return out


def test_no_python_file_is_over_600_lines():
    big = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sorted(PACKAGE.rglob("*.py")) if (n := _lines(p)) > MAX_PYTHON_FILE]
    assert big == [], "Python files over 600 lines:\n" + "\n".join(big)


def test_no_function_is_over_80_lines():
    long = [f"{p.relative_to(ROOT)}:{line} {name} ({size} lines)" for p in sorted(PACKAGE.rglob("*.py")) for line, name, size in long_functions(p)]
    assert long == [], "functions over 80 lines:\n" + "\n".join(long)


def test_no_typescript_file_is_over_450_lines():
    sources = sorted({*JS.glob("*.ts"), *(JS / "src").rglob("*.ts")})
    assert sources, "no TypeScript found in js/"
    big = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sources if (n := _lines(p)) > MAX_TYPESCRIPT_FILE]
    assert big == [], "TypeScript files over 450 lines:\n" + "\n".join(big)


def test_the_function_measure_counts_decorators_and_nested_functions(tmp_path):
    source = tmp_path / "mod.py"
    inner = "\n".join(f"        x{i} = {i}" for i in range(4))
    source.write_text(f"import functools\n\n\n@functools.cache\ndef outer():\n    def inner():\n{inner}\n    return inner\n")
    assert long_functions(source, limit=5) == [(5, "outer", 8)]
    assert long_functions(source, limit=4) == [(5, "outer", 8), (6, "inner", 5)]
