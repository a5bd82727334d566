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


def test_moved_names_still_work_with_a_warning():
    import pytest

    with pytest.warns(DeprecationWarning, match="harmony_viz.scan moved to harmony_viz.scanner.scan"):
        scan = harmony_viz.scan
    from harmony_viz.scanner import scan as home

    assert scan is home


def test_old_import_paths_work_and_never_shadow_the_verbs():
    """`from harmony_viz.record import …` (today's notebooks) keeps working, and `hv.record` stays the function."""
    code = (
        "import warnings, types; warnings.simplefilter('error', DeprecationWarning)\n"
        "import harmony_viz as hv\n"
        "caught = []\n"
        "for path, name in (('harmony_viz.record', 'make_tiny_model'), ('harmony_viz.lint', 'tools_from_json'), ('harmony_viz.playground', 'PRESETS')):\n"
        "    try:\n"
        "        exec(f'from {path} import {name}')\n"
        "    except DeprecationWarning as w:\n"
        "        caught.append(str(w))\n"
        "warnings.simplefilter('ignore')\n"
        "from harmony_viz.record import make_tiny_model\n"
        "import harmony_viz.lint\n"
        "print(len(caught), callable(hv.record), callable(hv.lint), callable(hv.playground), not isinstance(hv.lint, types.ModuleType))\n"
        "print(make_tiny_model is hv.make_tiny_model)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["3", "True", "True", "True", "True", "True"]


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


def test_every_old_top_level_name_still_resolves():
    import warnings

    assert len(OLD_TOP_LEVEL) == 78  # the 77 the issue counted, and capture
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [name for name in OLD_TOP_LEVEL if getattr(harmony_viz, name, None) is None]
    assert missing == []
