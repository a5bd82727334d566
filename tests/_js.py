"""What the JS unit-test harness needs: node and esbuild, and the built test bundles."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[1] / "js"


def node() -> str:
    """The node binary; a skip without node or js/node_modules, a failure in CI where they must be there."""
    found = shutil.which("node")
    if found is None or not (JS / "node_modules" / ".bin" / "esbuild").exists():
        why = "node and js/node_modules are needed (cd js && npm install)"
        if os.environ.get("CI") or os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER"):
            pytest.fail(why + "; CI installs them with the package")
        pytest.skip(why)
    return found


def run_node_tests(test_file: str, env: dict[str, str]) -> str:
    """Build the test bundles, run one node test file with `env` added; its output (asserts it passed)."""
    binary = node()
    build = subprocess.run(["npm", "run", "--silent", "build:test"], check=False, cwd=JS, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([binary, "--test", test_file], check=False, cwd=JS, capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    return out
