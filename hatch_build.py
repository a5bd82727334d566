"""Build hook: the widget's JavaScript (js/ → harmony_viz/static) for wheels, sdists and editable installs.

With npm on PATH it runs ``npm install`` (when js/node_modules is missing or older than the
lock file) and ``npm run build``, every time, as the files may have changed. Without npm it
uses the built files when they are all there (an sdist carries them), and otherwise stops
with one line that says what is missing and how to install without node: from a wheel.
``HARMONY_VIZ_SKIP_JS=1`` uses the built files even with npm on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# What `npm run build` writes; the package needs every one of them.
TARGETS = ("widget.js", "widget.css", "playground.js", "playground.css", "standalone.js", "template_page.js", "open_at.js", "matrix_page.js", "matrix_page.css", "replay_page.css", "template_page.css", "stats_page.css", "static_view.css")


def _stop(message: str) -> None:
    """One line on stderr and exit status 1: no traceback for a missing tool."""
    print(f"harmony-viz build: {message}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def _stale(node_modules: Path, js: Path) -> bool:
    stamp = node_modules / ".package-lock.json"  # npm writes it on every install
    if not stamp.is_file():
        return True
    lock = js / "package-lock.json"
    newest = max(p.stat().st_mtime for p in (js / "package.json", lock) if p.is_file())
    return stamp.stat().st_mtime < newest


class WidgetBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        js, static = root / "js", root / "harmony_viz" / "static"
        missing = [name for name in TARGETS if not (static / name).is_file()]
        npm = shutil.which("npm")
        skip = os.environ.get("HARMONY_VIZ_SKIP_JS", "") not in ("", "0")
        if npm is None or skip or not (js / "package.json").is_file():
            if not missing:
                return  # built already (an sdist, or a checkout built before): nothing to do
            why = "npm is not on PATH" if npm is None else "HARMONY_VIZ_SKIP_JS is set" if skip else "js/package.json is missing"
            _stop(f"the widget's JavaScript (harmony_viz/static/{missing[0]}{' and more' if len(missing) > 1 else ''}) is not built and {why}; "
                  "install node and npm (e.g. `apt-get install nodejs npm`) and retry, or install a wheel: "
                  "`python -m build --wheel` on a machine with npm, then `pip install dist/harmony_viz-*.whl`")
        try:
            if _stale(js / "node_modules", js):
                subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=js, check=True)
            subprocess.run([npm, "run", "build"], cwd=js, check=True)
        except subprocess.CalledProcessError as exc:
            _stop(f"`{' '.join(Path(a).name if i == 0 else a for i, a in enumerate(exc.cmd))}` in js/ failed (exit {exc.returncode}); its output is above")
        missing = [name for name in TARGETS if not (static / name).is_file()]
        if missing:
            _stop(f"`npm run build` did not write harmony_viz/static/{', '.join(missing)}")
