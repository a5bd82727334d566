"""The notebooks on the light install: 01-03 need nothing past ``pip install -e .`` and Jupyter, and every table renders.

- Every Markdown table of every notebook renders as a table in nbconvert's Markdown (mistune,
  what ``jupyter nbconvert --to html`` uses), with the columns its delimiter row declares and
  no escape showing (an unescaped ``<|end|>`` in a cell breaks the table; an escaped pipe
  inside backticks shows its backslash).
- Notebooks 01-03 import only what the base dependencies of pyproject.toml bring (each import's
  top-level module mapped to its distribution by importlib.metadata, the base requirements
  followed to their own requirements).
- Executed with nbclient in a venv made with the base dependencies and a kernel alone (this
  checkout on its PYTHONPATH, as ``pip install -e .`` puts it), they run to the end (slow:
  the venv is made once from pip's cache and kept, as tests/test_extras.py keeps its own).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LIGHT = ("01_harmony_tour.ipynb", "02_diagnose_parser_bugs.ipynb", "03_real_runs.ipynb")
BASE = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]

_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _tables(markdown: str) -> list[tuple[int, int]]:
    """Each table-looking block (a row of pipes over a delimiter row): its column count and row count."""
    lines = markdown.splitlines()
    found = []
    for i in range(1, len(lines)):
        if _DELIMITER.match(lines[i]) and "|" in lines[i] and "|" in lines[i - 1]:
            columns = len(lines[i].strip().strip("|").split("|"))
            rows = 0
            while i + 1 + rows < len(lines) and lines[i + 1 + rows].strip().startswith("|"):
                rows += 1
            found.append((columns, rows))
    return found


def _rendered_tables(markdown: str) -> list[list[list[str]]]:
    """The tables nbconvert's Markdown renders: per table, per row (header first), the cells' text."""
    from bs4 import BeautifulSoup
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    soup = BeautifulSoup(markdown2html_mistune(markdown), "html.parser")
    return [[[cell.get_text() for cell in tr.find_all(["th", "td"])] for tr in table.find_all("tr")] for table in soup.find_all("table")]


def _markdown_cells(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_markdown_table_renders_as_a_table(path: Path) -> None:
    for source in _markdown_cells(path):
        expected = _tables(source)
        rendered = _rendered_tables(source)
        assert len(rendered) == len(expected), (path.name, source[:200])
        for (columns, rows), table in zip(expected, rendered):
            assert len(table) == rows + 1 and all(len(row) == columns for row in table), (path.name, table)
            shown = [cell for row in table for cell in row]
            assert not any("\\|" in cell for cell in shown), (path.name, shown)


def test_the_table_check_sees_a_broken_table() -> None:
    broken = "| token | id |\n|---|---|\n| `<|end|>` | 200007 |\n"
    assert _tables(broken) == [(2, 1)] and _rendered_tables(broken) == []
    escaped_in_code = "| token | id |\n|---|---|\n| `<\\|end\\|>` | 200007 |\n"
    assert _rendered_tables(escaped_in_code) == [[["token", "id"], ["<\\|end\\|>", "200007"]]]
    right = "| token | id |\n|---|---|\n| <\\|end\\|> | 200007 |\n"
    assert _rendered_tables(right) == [[["token", "id"], ["<|end|>", "200007"]]]


# -- imports -------------------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    """The top-level modules a notebook's code cells import (magics and shell lines left out)."""
    names: set[str] = set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[str]) -> set[str]:
    """The distributions a list of requirements brings, followed through their own (installed) requirements."""
    todo = [Requirement(r) for r in requirements]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _canonical(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in md.requires(req.name) or []]
        except md.PackageNotFoundError:
            pass
        for extra in req.extras:  # what a requirement's extras add (their markers name the extra)
            todo += [Requirement(r.split(";")[0]) for r in md.requires(req.name) or [] if f"extra == \"{extra}\"" in r or f"extra == '{extra}'" in r]
    return seen


def _unprovided(modules: set[str]) -> list[str]:
    provided = _closure(BASE)
    by_module = md.packages_distributions()
    out = []
    for module in sorted(modules - set(sys.stdlib_module_names) - {"harmony_viz"}):
        distributions = {_canonical(d) for d in by_module.get(module, [])}
        if not distributions & provided:
            out.append(f"{module} ({', '.join(sorted(distributions)) or 'not installed'})")
    return out


@pytest.mark.parametrize("name", LIGHT)
def test_the_light_notebooks_import_only_the_base_install(name: str) -> None:
    modules = _imports(ROOT / "notebooks" / name)
    assert "harmony_viz" in modules
    assert _unprovided(modules) == []


def test_the_import_check_sees_an_extra() -> None:
    assert "openai-harmony" in _closure(BASE)  # the oracle is a base dependency
    assert _unprovided({"jinja2", "torch", "pandas", "IPython", "json"}) == [f"{m} ({d})" for m, d in (("jinja2", "jinja2"), ("torch", "torch"))]


# -- executed in a venv of the base dependencies and a kernel -----------------------------------------


@pytest.fixture(scope="module")
def light_kernel(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str]]:
    """A kernel spec in a venv of the base dependencies plus ipykernel; its name and the environment to start it in."""
    from test_extras import make_venv, venv_python

    install = sorted(BASE) + ["ipykernel"]
    venv = make_venv("venv-notebooks", "\n".join(install), install, timeout=900)
    python = venv_python(venv)
    spec_dir = venv / "share" / "jupyter"
    if not (spec_dir / "kernels" / "harmony-viz-light").is_dir():
        subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "harmony-viz-light"], check=True, capture_output=True, timeout=120)
    tmp = tmp_path_factory.mktemp("light-notebooks")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PYTHONPATH=str(ROOT), PYTHONNOUSERSITE="1", JUPYTER_PATH=str(spec_dir), TMPDIR=str(tmp), CUDA_VISIBLE_DEVICES="", HF_HUB_OFFLINE="1")
    return "harmony-viz-light", env


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT)
def test_the_light_notebooks_run_on_the_base_install(name: str, light_kernel: tuple[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    from nbclient import NotebookClient

    kernel, env = light_kernel
    for key in list(os.environ):
        if key not in env:
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name=kernel, resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert errors == []
    # the kernel was the venv's: the extras are not importable there
    check = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import importlib.util as u, sys; print(sys.prefix, [m for m in ('jinja2', 'torch', 'transformers') if u.find_spec(m)])")])
    NotebookClient(check, timeout=60, kernel_name=kernel).execute()
    prefix, missing = check.cells[0].outputs[0]["text"].split(" ", 1)
    assert Path(prefix).name.startswith("venv-notebooks") and missing.strip() == "[]"
