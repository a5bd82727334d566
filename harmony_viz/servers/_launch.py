"""Start a replay server (an engine's :class:`Spec`, made by its module in ``engines/``) and stop all of it cleanly; find an engine's Python.

The engine runs in our process group (so a terminal's Ctrl-C reaches it too); vLLM forks
engine workers. On SIGINT/SIGTERM every descendant, found through /proc, is stopped before we
exit, whatever process group it sits in; and the engine is told by the kernel to die with us
(PR_SET_PDEATHSIG), so even a SIGKILL of the command leaves no server behind.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harmony_viz.servers._client import httpx_module, root_client

MODEL_NAME = "tiny"  # the name every replay server serves the tiny model under


class LaunchError(RuntimeError):
    """An engine could not be found or did not come up; the message says why, in one line."""


class Spec:
    """A replay server to start (each engine's module makes its own): ``command()``, ``environment()``, and where it answers."""

    host: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)  # TIKTOKEN_ENCODINGS_BASE passes through: openai-harmony reads it


def imports(python: str, module: str) -> bool:
    """Whether ``python`` can import ``module`` (a quick spec lookup, not a full import)."""
    code = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({module!r}) else 1)"
    try:
        return subprocess.run([python, "-c", code], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def package_version(python: str, *distributions: str) -> str | None:
    """The version ``python`` has installed of the first of ``distributions`` it has (``importlib.metadata``), else None."""
    code = ("import importlib.metadata as m, sys\n"
            "for d in sys.argv[1:]:\n"
            "    try:\n        print(m.version(d)); break\n"
            "    except m.PackageNotFoundError:\n        pass\n")
    try:
        proc = subprocess.run([python, "-c", code, *distributions], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = proc.stdout.strip()
    return out.splitlines()[0] if proc.returncode == 0 and out else None


def find_venv_python(explicit: str | None, *, flag: str, env: str, module: str, venv: Path, hint: str) -> str:
    """An engine's own Python: ``explicit`` (the option ``flag``), else ``$env``, else ``venv/bin/python``; each must import ``module``."""
    for candidate, where in ((explicit, flag), (os.environ.get(env), env)):
        if candidate:
            if not imports(candidate, module):
                raise LaunchError(f"{where}={candidate} cannot import {module}; {hint}")
            return candidate
    default = venv / "bin" / "python"
    if default.is_file() and imports(str(default), module):
        return str(default)
    raise LaunchError(hint)


def cache_root() -> Path:
    """``$HARMONY_VIZ_CACHE``, else ``$XDG_CACHE_HOME/harmony_viz``, else ``~/.cache/harmony_viz`` (as the install scripts)."""
    explicit = os.environ.get("HARMONY_VIZ_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "harmony_viz"


def default_model_dir(*, tied: bool = True) -> Path:
    """The cache folder of the tiny model vLLM serves; the untied copy (older releases) has its own."""
    return cache_root() / ("tiny-gpt-oss-vllm" if tied else "tiny-gpt-oss-vllm-untied")


def ensure_model(folder: Path | None, *, tied: bool = True) -> Path:
    """The tiny servable model in ``folder`` (the cache folder when None), made when missing (untied: ``tied=False``)."""
    from harmony_viz.tiny import make_tiny_model

    folder = folder or default_model_dir(tied=tied)
    if (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file():
        return folder
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise LaunchError(f"{folder} exists but holds no servable model (config.json and tokenizer.json); pick a new --model-dir")
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    make_tiny_model(tmp, tied=tied)
    try:
        tmp.rename(folder)  # atomic: a parallel maker never sees half a model
    except OSError:
        if not (folder / "config.json").is_file():
            raise
    return folder


def _die_with_parent() -> None:
    """In the child, before exec: the kernel sends it SIGTERM when we die (Linux), so no server outlives a SIGKILLed command."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children first found first), from /proc; empty elsewhere."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop_tree(proc: subprocess.Popen[bytes], grace: float = 20.0) -> None:
    """SIGTERM vLLM and its workers, wait ``grace`` seconds, then SIGKILL whatever is left."""
    family = [proc.pid, *descendants(proc.pid)]
    for pid in family:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        proc.poll()
        if not any(_alive(p) for p in family):
            break
        time.sleep(0.2)
    for pid in family + descendants(proc.pid):
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    proc.wait()


def wait_healthy(spec: Spec, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll ``/health`` until it answers 200; raise if vLLM exits or ``timeout`` passes."""
    import openai

    httpx = httpx_module()
    client = root_client(spec.base_url, timeout=5.0)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LaunchError(f"{spec.command()[0]} exited with status {proc.returncode} before it was ready (its log is above)")
        try:
            if client.get("/health", cast_to=httpx.Response).status_code == 200:
                return
        except (openai.APIError, httpx.HTTPError):
            pass
        time.sleep(0.25)  # a quarter second: the reference server is up in about one
    raise LaunchError(f"the server did not answer {str(client.base_url).rstrip('/')}/health within {timeout:.0f} s")


def serve(spec: Spec, *, timeout: float = 600.0, log: int | None = None) -> int:
    """Run the engine until SIGINT/SIGTERM; print the base URL once it is healthy. Returns the exit status."""
    stopping = []

    def on_signal(signum: int, _frame: object) -> None:
        stopping.append(signum)
        raise KeyboardInterrupt

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    proc = subprocess.Popen(spec.command(), env=spec.environment(), stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent,
                            stdout=log if log is not None else sys.stderr.fileno(), stderr=subprocess.STDOUT)
    try:
        wait_healthy(spec, proc, timeout)
        print(spec.base_url, flush=True)
        while proc.poll() is None:
            time.sleep(0.5)
        raise LaunchError(f"the server exited with status {proc.returncode} while serving")
    except KeyboardInterrupt:
        return 0
    finally:
        # Signals are ignored while stopping, so a second Ctrl-C cannot leave workers behind.
        for s in old:
            signal.signal(s, signal.SIG_IGN)
        if proc.poll() is None or descendants(proc.pid):
            stop_tree(proc)
        for s, handler in old.items():
            signal.signal(s, handler)
