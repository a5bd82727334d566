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


def test_public_names_resolve():
    assert harmony_viz.__all__ == sorted(harmony_viz.__all__)
    for name in harmony_viz.__all__:
        assert getattr(harmony_viz, name) is not None, name


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
