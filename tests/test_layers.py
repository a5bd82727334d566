"""The layers (docs/architecture.md, "Layers"): no package imports one above it, the packages form no cycle,
and the reader (``inputs``) imports nothing above ``tokens``, ``findings``, ``render`` and ``scanner``.

Every import of every module counts, read with ``ast``: at the top of a file or inside a
function, ``import x`` and ``from x import y``, relative ones resolved, and each
``importlib.import_module`` of a literal name (``"harmony_viz.x"``, or ``f"harmony_viz.x.{home}"``:
the lazy loaders' edge to their own package). Imports under ``if TYPE_CHECKING:`` are free. A
name computed at run time is not followed (``extras.require`` of a third-party module, the
facade's ``_EXPORTS``, ``findings.registries``' lens registries).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harmony_viz"
FACADE = "harmony_viz"  # the package's own __init__.py: the top layer, named so in the docs

# Edges that go up (importer, imported) with a one-line why each; keep it empty.
ALLOWED_UP: dict[tuple[str, str], str] = {}

# What the reader may import (harmony_viz packages), the whole way down.
READER_BELOW = {"tokens", "findings", "render", "scanner", "_runfile"}

# The strongly connected component the packages made before the reader stopped importing up (issue 26).
OLD_KNOT = {"_lint", "_playground", "_replay", "charts", "inputs", "runs", "scale", "servers", "stats", "templates"}


def layers() -> list[tuple[str, ...]]:
    """The "Layers" list of docs/architecture.md, bottom first: each numbered line's backticked names before its colon."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    found = []
    for line in section.splitlines():
        if re.match(r"\d+\. `", line):
            found.append(tuple(re.findall(r"`([\w.]+)`", line.split(": ", 1)[0])))
    return found


def level_of() -> dict[str, int]:
    return {name: i for i, names in enumerate(layers()) for name in names}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(module: str) -> str:
    """``harmony_viz.x.y`` -> ``x``; the package itself is the facade."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else FACADE


def packages() -> set[str]:
    return {package_of(module_name(p)) for p in PACKAGE.rglob("*.py")} - {FACADE}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, leaving out the body of ``if TYPE_CHECKING:`` (its ``else`` counts)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                yield other
                yield from _walk(other)
            continue
        yield child
        yield from _walk(child)


def _submodule(name: str) -> bool:
    """Whether ``harmony_viz.<name>`` is a module or package (not a name the facade defines)."""
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name / "__init__.py").is_file()


def _literal_module(call: ast.Call) -> str | None:
    """The module a ``import_module(...)`` call names when it is written out: a string, or an f-string's literal head."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "import_module") and not (isinstance(func, ast.Name) and func.id == "import_module"):
        return None
    if not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        head = str(arg.values[0].value)
        return head.rsplit(".", 1)[0] if "." in head else None  # f"harmony_viz.servers.{home}": a module of harmony_viz.servers
    return None


def _statements(path: Path, module: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, names) for each import in the file: ``import x`` is (x, []), ``from x import a, b`` is (x, [a, b])
    with a relative ``x`` resolved, and ``import_module("x")`` is (x, [])."""
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in _walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*here[: len(here) - node.level + 1], *([node.module] if node.module else [])])
            yield node.lineno, base, [a.name for a in node.names]
        elif isinstance(node, ast.Call) and (named := _literal_module(node)):
            yield node.lineno, named, []


def _ours(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [(line, t) for line, t in found if t == FACADE or t.startswith(FACADE + ".")]


def imports_of(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    """(line, imported module) for every harmony_viz import in the file at ``path`` (named ``module``)."""
    found: list[tuple[int, str]] = []
    for line, base, names in _statements(path, module or module_name(path)):
        if base == FACADE and names:
            # ``from harmony_viz import tokens`` imports the module; ``__version__`` is the root's own constant,
            # and Python runs the root before any module of it: no edge. Any other name is the facade's.
            found += [(line, f"{FACADE}.{name}" if _submodule(name) else FACADE) for name in names if name != "__version__"]
        else:
            found.append((line, base))
    return _ours(found)


def edges() -> dict[tuple[str, str], list[str]]:
    """Package -> package edges (no self-edges), each with the places that make it."""
    out: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        source = package_of(module)
        for line, target in imports_of(path, module):
            imported = package_of(target)
            if imported != source:
                out.setdefault((source, imported), []).append(f"{path.relative_to(ROOT)}:{line}")
    return out


def components(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


def graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {p: set() for p in [*packages(), FACADE]}
    for source, target in edges():
        out.setdefault(source, set()).add(target)
        out.setdefault(target, set())
    return out


# -- the tests -----------------------------------------------------------------------------------


def test_the_layers_name_every_package_once():
    named = [name for line in layers() for name in line]
    assert len(named) == len(set(named)), "a package is on two lines of the Layers list"
    assert set(named) == packages() | {FACADE}, "docs/architecture.md's Layers list and the packages differ"


def test_no_package_imports_one_above_it_or_beside_it():
    level = level_of()
    offenders = []
    for (source, target), where in sorted(edges().items()):
        if source not in level or target not in level:
            offenders.append(f"{source} imports {target}, and one of them is not in the Layers list: {where[0]}")
        elif level[target] >= level[source] and (source, target) not in ALLOWED_UP:
            side = "beside" if level[target] == level[source] else "above"
            offenders.append(f"{source} imports {target}, {side} it: {', '.join(where[:3])}")
    assert offenders == []


def test_the_allowed_edges_still_exist():
    assert set(ALLOWED_UP) <= set(edges()), "an allowed upward edge is gone: drop it from ALLOWED_UP"


def test_the_packages_form_no_cycle():
    knots = [sorted(c) for c in components(graph()) if len(c) > 1]
    assert knots == []
    assert not any(OLD_KNOT <= set(c) for c in components(graph()))


def test_the_reader_imports_nothing_above_tokens_findings_render_and_scanner():
    g = graph()
    direct = g["inputs"]
    assert direct <= READER_BELOW, f"inputs imports {sorted(direct - READER_BELOW)}"
    reached, todo = set(), ["inputs"]
    while todo:  # and nothing it imports does either, the whole way down
        for p in g[todo.pop()] - reached:
            reached.add(p)
            todo.append(p)
    assert reached <= READER_BELOW, f"below inputs, {sorted(reached - READER_BELOW)} are reached"
    assert g["_runfile"] <= {"tokens", "findings", "render", "scanner"}


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "harmony_viz" / "demo"
    pkg.mkdir(parents=True)
    source = pkg / "mod.py"
    source.write_text(
        "from __future__ import annotations\n"
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "import harmony_viz.tokens\n"                      # 4
        "from harmony_viz.scanner import scan\n"           # 5
        "from harmony_viz import render, __version__\n"    # 6: render is a module; __version__ no edge
        "from . import _other\n"                           # 7: harmony_viz.demo
        "from .._lint import lint\n"                       # 8: harmony_viz._lint
        "if TYPE_CHECKING:\n"
        "    from harmony_viz.servers import CheckResult\n"
        "else:\n"
        "    import harmony_viz.stats\n"                   # 12
        "def f():\n"
        "    from harmony_viz.inputs import read\n"        # 14
        "    importlib.import_module('harmony_viz.charts')\n"  # 15
        "    return importlib.import_module(f'harmony_viz.trace.{f}')\n"  # 16
        "def g(name):\n"
        "    return importlib.import_module(name)\n"       # not followed
    )
    found = imports_of(source, "harmony_viz.demo.mod")
    assert found == [(4, "harmony_viz.tokens"), (5, "harmony_viz.scanner"), (6, "harmony_viz.render"), (7, "harmony_viz.demo"),
                     (8, "harmony_viz._lint"), (12, "harmony_viz.stats"), (14, "harmony_viz.inputs"), (15, "harmony_viz.charts"),
                     (16, "harmony_viz.trace")]


def test_the_cycle_finder_finds_a_cycle():
    assert sorted(map(sorted, components({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}))) == [["a", "b", "c"], ["d"]]


def test_conformance_sits_above_the_server_lens_and_the_server_lens_imports_none_of_it():
    level = level_of()
    assert level["conformance"] > level["servers"] and level["conformance"] > level["_replay"]
    assert ("servers", "conformance") not in edges() and ("conformance", "servers") in edges()
    assert not any(p.name.startswith("_conformance") for p in (PACKAGE / "servers").rglob("*.py")), "a conformance module is back in servers/"


# -- module cycles -------------------------------------------------------------------------------


def module_imports(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    """(line, imported module) like :func:`imports_of`, but ``from pkg import name`` names ``pkg.name`` when it is a
    submodule of ``pkg`` (else ``pkg``, its ``__init__.py``), for every package, not only the root."""
    found: list[tuple[int, str]] = []
    for line, base, names in _statements(path, module or module_name(path)):
        folder = ROOT.joinpath(*base.split("."))
        for name in names or [None]:
            if name is None:
                found.append((line, base))
            elif name == "__version__" and base == FACADE:
                continue  # the root's own constant: Python runs the root before any module of it
            elif (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file():
                found.append((line, f"{base}.{name}"))
            else:
                found.append((line, base))
    return _ours(found)


def module_graph() -> dict[str, set[str]]:
    """Module -> the harmony_viz modules it imports (no self-edges); a package is its ``__init__.py``."""
    known = {module_name(p) for p in PACKAGE.rglob("*.py")}
    out: dict[str, set[str]] = {m: set() for m in known}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        for _line, target in module_imports(path, module):
            while target not in known and "." in target:  # ``import harmony_viz.x.y`` of a name that is no module
                target = target.rsplit(".", 1)[0]
            if target != module:
                out[module].add(target)
    return out


def test_the_modules_form_no_cycle():
    cycles = [" <-> ".join(sorted(c)) for c in components(module_graph()) if len(c) > 1]
    assert cycles == [], "import cycles between modules:\n" + "\n".join(cycles)


def test_the_module_reader_points_from_imports_at_submodules(tmp_path):
    found = module_imports(PACKAGE / "render" / "__init__.py")
    assert all(t.startswith("harmony_viz.") for _line, t in found)
    source = tmp_path / "mod.py"
    source.write_text(
        "from harmony_viz.render import _json, render_conversation\n"  # a submodule, and a name of the package
        "from harmony_viz import tokens, __version__\n"
    )
    assert module_imports(source, "harmony_viz.demo.mod") == [(1, "harmony_viz.render._json"), (1, "harmony_viz.render"),
                                                              (2, "harmony_viz.tokens")]
