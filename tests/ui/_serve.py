"""A local server process for the browser tests (JupyterLab, Notebook 7, marimo): started, awaited, stopped."""

from __future__ import annotations

import os
import signal
import subprocess
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
