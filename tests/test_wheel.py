"""A light door (issue 25 item 7b): the wheel holds the built widget and runs where there is no node.

``python -m build --wheel`` makes the wheel (reused from the cache while the files that go
into it are unchanged); it is installed into a fresh venv and ``harmony-viz demo`` runs
there with no node or npm on PATH; the page it writes opens in Chromium without a console
error. A source install without npm and without the built files stops in one line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from test_extras import PYPROJECT, cache_dir, make_venv, venv_python

ROOT = Path(__file__).resolve().parents[1]
STATIC = ("widget.js", "widget.css", "playground.js", "playground.css", "standalone.js", "template_page.js", "matrix_page.js", "matrix_page.css")

pytestmark = pytest.mark.slow


def _wheel_inputs() -> list[Path]:
    """The files a wheel is made from: the package, the widget's sources, the build config (tracked or new, not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z", "--", "harmony_viz", "js", "pyproject.toml", "hatch_build.py", "README.md"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    return sorted(ROOT / p for p in listed if p and (ROOT / p).is_file())


def _tree_key() -> str:
    h = hashlib.sha256()
    for path in _wheel_inputs():
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def wheel() -> Path:
    """The wheel of this tree, built by ``python -m build --wheel`` (or the cached one of the same files)."""
    pytest.importorskip("build", reason="python -m build needs the build package (in the dev extra)")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("the wheel's cache key is read from git")
    out = cache_dir() / f"wheel-{_tree_key()}"
    found = sorted(out.glob("harmony_viz-*.whl"))
    if found:
        return found[-1]
    building = out.with_name(f"{out.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(building), str(ROOT)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        tail = (done.stderr or done.stdout).strip()[-1500:]
        if "Could not find a version" in tail or "No matching distribution" in tail:
            pytest.skip(f"python -m build could not install hatchling: {tail}")
        pytest.fail(f"python -m build --wheel failed:\n{tail}")
    for old in out.parent.glob("wheel-*"):  # one wheel kept: an older tree's goes
        if old.is_dir() and ".building-" not in old.name:
            shutil.rmtree(old, ignore_errors=True)
    building.rename(out)
    return sorted(out.glob("harmony_viz-*.whl"))[-1]


def test_the_wheel_holds_the_built_widget(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        sizes = {n: z.getinfo(n).file_size for n in names}
    for name in STATIC:
        assert f"harmony_viz/static/{name}" in names and sizes[f"harmony_viz/static/{name}"] > 1000, name
    assert "harmony_viz/data/finding5_runs/helpful-1.json" in names  # the demo's bundled runs
    assert not any(n.startswith(("tests/", "js/", "benchmarks/")) for n in names)
    assert wheel.stat().st_size < 5_000_000


def _no_node_path(venv: Path) -> str:
    """PATH of the venv's bin alone: no node, no npm (and nothing else the demo could lean on)."""
    path = str(venv / "bin")
    assert shutil.which("npm", path=path) is None and shutil.which("node", path=path) is None
    return path


@pytest.fixture(scope="module")
def wheel_venv(wheel) -> Path:
    """A fresh venv with the wheel installed (its dependencies from the registry or pip's cache), with no node on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and not (shutil.which("npm", path=p) or shutil.which("node", path=p)))
    return make_venv("venv-wheel", f"{wheel.name}\n{_tree_key()}", [str(wheel)], env=env)


def test_the_wheel_installs_and_the_demo_runs_without_node(wheel_venv, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=_no_node_path(wheel_venv), PYTHONNOUSERSITE="1")
    where = subprocess.run([str(venv_python(wheel_venv)), "-c", "import harmony_viz; print(harmony_viz.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, check=True).stdout.strip()
    assert Path(where).is_relative_to(wheel_venv) and not Path(where).is_relative_to(ROOT)
    done = subprocess.run([str(wheel_venv / "bin" / "harmony-viz"), "demo", "-o", str(tmp_path / "demo.html")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    page = tmp_path / "demo.html"
    assert page.stat().st_size > 10_000 and (tmp_path / "demo-stats.html").is_file()
    _opens_without_console_errors(page)


def _opens_without_console_errors(page_file: Path) -> None:
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("HARMONY_VIZ_REQUIRE_BROWSER=1 but no chromium on PATH; apt-get install chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("console", lambda msg: errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
            page.goto(page_file.as_uri())
            page.wait_for_selector("[data-hv=token]", timeout=30_000)
            tokens = page.locator("[data-hv=token]").count()
        finally:
            browser.close()
    assert errors == []
    assert tokens > 100


def test_a_source_install_without_npm_stops_in_one_line(tmp_path):
    """The tree without its built widget, and no npm: the build hook's one line, not a traceback."""
    hook = ROOT / "hatch_build.py"
    copy = tmp_path / "src"
    copy.mkdir()
    shutil.copy(ROOT / "pyproject.toml", copy)
    shutil.copy(hook, copy)
    (copy / "harmony_viz").mkdir()
    (copy / "harmony_viz" / "__init__.py").write_text("")
    (copy / "js").mkdir()
    shutil.copy(ROOT / "js" / "package.json", copy / "js")
    shutil.copy(ROOT / "README.md", copy)
    pytest.importorskip("build", reason="python -m build needs the build package (in the dev extra)")
    env = {**os.environ, "PATH": os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not shutil.which("npm", path=p))}
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", "dist", "."], capture_output=True, text=True, cwd=copy, env=env, timeout=300)
    said = done.stdout + done.stderr
    assert done.returncode != 0
    ours = [line.strip() for line in said.splitlines() if line.strip().startswith("harmony-viz build:")]
    assert len(ours) == 1, said[-3000:]
    assert ours[0].startswith("harmony-viz build: the widget's JavaScript (harmony_viz/static/widget.js and more) is not built and npm is not on PATH")
    assert "install node and npm" in ours[0] and "python -m build --wheel" in ours[0]
    assert "Traceback" not in said and list((copy / "dist").glob("*.whl")) == []
    assert PYPROJECT["tool"]["hatch"]["build"]["hooks"]["custom"]["path"] == "hatch_build.py"
