"""Package-level promises: a light import, the CLI entry points, version agreement with the JS."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import harmony_viz
from harmony_viz.cli import main

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "plotly", "torch", "transformers", "anywidget", "ipywidgets", "openai_harmony")


def test_import_is_light():
    code = "import sys, harmony_viz; print([m for m in %r if m in sys.modules])" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_names_resolve_to_what_their_module_defines():
    import importlib

    assert harmony_viz.__all__ == sorted(harmony_viz.__all__)
    assert len(harmony_viz.__all__) <= 40  # the notebook verbs, not every name (issue 16)
    for name in harmony_viz.__all__:
        if name == "__version__":
            continue
        home = importlib.import_module(harmony_viz._EXPORTS[name])
        assert getattr(harmony_viz, name) is getattr(home, name), name


def test_the_verbs_are_functions_and_the_groups_are_packages():
    import types

    for verb in ("replay", "playground", "record", "lint", "capture", "render_conversation", "load_runs"):
        assert callable(getattr(harmony_viz, verb)) and not isinstance(getattr(harmony_viz, verb), types.ModuleType), verb
    for group in ("scanner", "projections", "render", "tokens", "leak", "runs", "trace", "servers", "templates"):
        assert isinstance(getattr(harmony_viz, group), types.ModuleType), group
    assert harmony_viz.scanner.scan is not None and harmony_viz.projections.chat_completion is not None


def test_a_moved_name_fails_naming_its_home():
    import pytest

    with pytest.raises(AttributeError, match=r"harmony_viz has no attribute 'scan'; it lives in harmony_viz\.scanner\.scan$"):
        harmony_viz.scan  # noqa: B018


def test_old_import_paths_are_gone_and_the_verbs_stay_functions():
    """No alias modules: `harmony_viz.record`, `.lint`, `.playground`, `.widget`, `.html` are not importable; the verbs are functions."""
    code = (
        "import importlib, types\n"
        "import harmony_viz as hv\n"
        "gone = []\n"
        "for path in ('harmony_viz.record', 'harmony_viz.lint', 'harmony_viz.playground', 'harmony_viz.widget', 'harmony_viz.html'):\n"
        "    try:\n"
        "        importlib.import_module(path)\n"
        "    except ModuleNotFoundError:\n"
        "        gone.append(path)\n"
        "print(len(gone), all(callable(f) and not isinstance(f, types.ModuleType) for f in (hv.record, hv.lint, hv.playground)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["5", "True"]


def test_unknown_attribute_is_an_attribute_error():
    try:
        harmony_viz.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_version_flag(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"harmony-viz {harmony_viz.__version__}"


def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "harmony_viz", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == f"harmony-viz {harmony_viz.__version__}"


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: harmony-viz" in capsys.readouterr().err


def test_python_and_js_versions_agree():
    package = json.loads((ROOT / "js" / "package.json").read_text())
    assert package["version"] == harmony_viz.__version__


# Every name the top level exported before issue 16: scripts written against them keep working.
OLD_TOP_LEVEL = (
    "Author ChannelConfig Chunking ContentDelta Conversation DeclaredTool DeveloperContent Diagnostic LeakReport Message MessageEnd "
    "MessageStart Projector ReasoningEffort RenderError RenderOptions ReplayWidget Role Run RunMetadata RunUsage SPECIAL_TOKENS Scanner "
    "SpecialToken SystemContent TextContent ToolCallEnd ToolCallStart ToolDescription ToolNamespaceConfig Trace Usage VocabularyError "
    "analyze_runs capture chat_completion chat_completion_chunks conversation_from_chat declared_tools detect_leak diagnostics_by_code "
    "diagnostics_frame encoding escape escape_json lint lint_prompt load_runs make_tiny_model messages_frame playground project_for_cli "
    "reasoning_share_by reasoning_vs_final record record_batch render_conversation render_conversation_for_completion "
    "render_conversation_for_training render_text repair_reasoning_leak replay response response_events run_usage runs_frame save_html "
    "save_report save_runs scan schema_to_typescript special_by_id special_by_literal token_shares tokens_per_second unescape "
    "unescape_json usage"
).split()


def test_every_old_top_level_name_resolves_or_names_its_home():
    import importlib

    assert len(OLD_TOP_LEVEL) == 78  # the 77 the issue counted, and capture
    moved = []
    for name in OLD_TOP_LEVEL:
        if name in harmony_viz.__all__:
            assert getattr(harmony_viz, name) is not None
            continue
        try:
            getattr(harmony_viz, name)
        except AttributeError as exc:
            home, _, attr = str(exc).rpartition("it lives in ")[2].rpartition(".")
            assert attr == name and getattr(importlib.import_module(home), name) is not None, str(exc)
            moved.append(name)
        else:  # pragma: no cover
            raise AssertionError(f"{name} still resolves at the top level")
    assert len(moved) == 49  # the 49 moved names the issue counted


def _private_imports(path: Path) -> list[tuple[int, str]]:
    """``harmony_viz.X._y`` names a file imports, or passes to a call as a string (``importlib.import_module``, ``traitlets.Instance``)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Call):
            names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if len(parts) > 2 and parts[0] == "harmony_viz" and parts[2].startswith("_") and not parts[2].startswith("__"):
                found.append((node.lineno, ".".join(parts[:3])))
                break
    return found


# The server lens's own tests still name its private modules; they move to its face with issue 20.
_SERVER_LENS_TESTS: frozenset[str] = frozenset()
# Tests that patch a private function on purpose: the fork check swaps three render rules in to prove they are the whole
# difference; the release check stands in for a venv's finders to build each release's command without installing it.
_PATCHING_TESTS: frozenset[str] = frozenset({"tests/test_fork_conformance.py", "tests/test_engine_versions.py"})


def test_every_package_is_entered_through_its_public_face():
    """No ``harmony_viz.X._y`` import from outside package X, in the package, the tests or the benchmarks."""
    offenders = []
    for path in sorted([*(ROOT / "harmony_viz").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in _private_imports(path):
            package = name.split(".")[1]
            if not rel.startswith(f"harmony_viz/{package}/") and rel not in _SERVER_LENS_TESTS | _PATCHING_TESTS:
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == []


def test_the_face_check_sees_a_private_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from harmony_viz.scanner._events import Diagnostic\nimport harmony_viz.trace._payload\nfrom harmony_viz.scanner import scan\n"
                   "import importlib\nimportlib.import_module('harmony_viz.runs._load')\n")
    assert [(line, name.split(".")[2]) for line, name in _private_imports(bad)] == [(1, "_events"), (2, "_payload"), (5, "_load")]


def _public_api_section() -> str:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return page.split("\n## Public API\n", 1)[1].split("\n## ", 1)[0]


def test_the_docs_public_api_is_dir_of_the_package():
    import re

    rows = [line.split(" | ") for line in _public_api_section().splitlines() if line.startswith("| `")]
    top = {name for cells in rows if not cells[0].startswith("| `hv.") for name in re.findall(r"`(\w+)`", cells[0])}
    groups = {name for cells in rows if cells[0].startswith("| `hv.") for name in re.findall(r"`hv\.(\w+)`", cells[0])}
    public = {name for name in dir(harmony_viz) if not name.startswith("_")}
    assert top | groups == public
    assert top == set(harmony_viz.__all__) - {"__version__"}


def test_the_names_the_docs_give_each_subpackage_are_there():
    import importlib
    import re

    for line in _public_api_section().splitlines():
        if line.startswith("| `hv."):
            first, holds = line.split(" | ")[:2]
            packages = re.findall(r"`hv\.(\w+)`", first)
            for name in re.findall(r"`(\w+)`", holds):
                assert any(hasattr(importlib.import_module(f"harmony_viz.{p}"), name) for p in packages), (packages, name)


# -- the light door (issue 25 item 7) -------------------------------------------------------------

_NO_VOCABULARY = """
import contextlib, io, sys
from harmony_viz.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    codes = [main(argv) for argv in {argvs!r}]
import harmony_viz.tokens as tokens
print(codes, tokens._encoding is None, 'tiktoken' in sys.modules)
"""


def test_commands_that_read_text_build_no_vocabulary(tmp_path):
    """parse and lint of Harmony text scan the text itself: no tiktoken, no o200k (the vocabulary costs ~0.3 s)."""
    src = tmp_path / "s.txt"
    src.write_text("<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|end|>")
    argvs = [["parse", str(src)], ["parse", str(src), "--output", "events", "--chunk-seed", "3"], ["lint", str(src)], ["escape", str(src)]]
    out = subprocess.run([sys.executable, "-c", _NO_VOCABULARY.format(argvs=argvs)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[0,", "0,", "0,", "0]", "True", "False"]
    # a projection counts tokens: then the vocabulary is loaded
    out = subprocess.run([sys.executable, "-c", _NO_VOCABULARY.format(argvs=[["parse", str(src), "--output", "chat"]])], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[0]", "False", "True"]


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_opens_with_use_it_then_develop_and_test():
    readme = _readme()
    heads = [line for line in readme.splitlines() if line.startswith("## ")]
    assert heads[:2] == ["## Use it", "## Develop and test"]
    use = readme.split("\n## Use it\n", 1)[1].split("\n## ", 1)[0]
    assert "pip install -e ." in use and "harmony-viz demo -o demo.html" in use and "npm" in use and "python -m build --wheel" in use
    assert 'pip install "harmony-viz[templates]"' in use


def test_the_readme_install_and_test_lines_are_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    dev = _readme().split("\n## Develop and test\n", 1)[1].split("\n## ", 1)[0]
    install = next(line for line in ci if line.startswith("pip install "))
    assert install in dev and "python -m pytest" in ci and "\npython -m pytest" in dev


def test_the_readme_table_names_each_extra_and_its_commands():
    use = _readme().split("\n## Use it\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in use.splitlines() if line.startswith("| ")]
    table = "\n".join(rows)
    for extra in ("record", "templates", "scale"):
        assert f"`{extra}`" in table, extra
    for command in ("template-check", "html --template", "record", "make-tiny-model", "stats --engine ray", "server-check", "replay-server"):
        assert f"`{command}" in table, command
