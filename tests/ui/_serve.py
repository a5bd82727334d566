"""A local server process for the browser tests (JupyterLab, Notebook 7, marimo): started, awaited, stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def serving(cmd: list[str], *, cwd: Path, env: dict[str, str], log: Path, ready_url: str, what: str, own_group: bool = False) -> Iterator[None]:
    """Run ``cmd`` (output to ``log``) until ``ready_url`` answers, within 90 s; stop it when the block ends.

    ``own_group``: the server gets a session of its own, and stopping the group stops what it started
    too (marimo's kernel); otherwise the process alone is stopped."""
    out = open(log, "w")
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=own_group)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(ready_url, timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{what} did not start; log:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.5)
        yield
    finally:
        _stop(proc, own_group)
        out.close()


@contextmanager
def jupyter(app: str, root: Path, port: int, what: str) -> Iterator[str]:
    """``jupyter lab`` or ``jupyter notebook`` (``app``) on 127.0.0.1:``port``, no token, the app exposed as
    ``window.jupyterapp``, serving ``root`` and keeping its settings there; yields its url."""
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"), "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
           "JUPYTER_RUNTIME_DIR": str(root / ".runtime")}  # fmt: skip
    expose = {"lab": "LabApp", "notebook": "JupyterNotebookApp"}[app]
    cmd = [sys.executable, "-m", "jupyter", app, "--allow-root", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.token=", "--ServerApp.password=", f"--{expose}.expose_app_in_browser=True",
           f"--ServerApp.root_dir={root}", "--ServerApp.disable_check_xsrf=True"]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with serving(cmd, cwd=root, env=env, log=root / f"{app}.log", ready_url=f"{url}/api/status", what=what):
        yield url


def _stop(proc: subprocess.Popen, own_group: bool) -> None:
    if own_group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        if own_group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait()
