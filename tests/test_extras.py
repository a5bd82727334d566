"""Every optional part is one line away (issue 25 item 6).

Each extra is declared in pyproject.toml, each module it brings is named in
``harmony_viz.extras.EXTRA_OF``, and a command that needs a missing one prints one line
naming the extra and exits 2. The commands run in a real venv holding only the base
dependencies (made once from pip's cache and kept under ~/.cache, keyed by the
dependency list), with this checkout on PYTHONPATH.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harmony_viz.extras import EXTRA_OF, MissingExtraError, install_line, missing

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]
TEMPLATE = "{% for m in messages %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>{% endfor %}"
REQUEST = {"messages": [{"role": "user", "content": "Hi"}]}


def _name(requirement: str) -> str:
    """The distribution a requirement names, normalised (``ray[data]>=2.9`` → ``ray``)."""
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


# -- the declarations ----------------------------------------------------------------------------


def test_every_module_an_extra_brings_is_declared_in_that_extra():
    for module, extra in EXTRA_OF.items():
        declared = {_name(r) for r in OPTIONAL[extra]}
        # tokenizers comes with transformers (it is what transformers' fast tokenizers are)
        assert module in declared or (module == "tokenizers" and "transformers" in declared), (module, extra, declared)


def test_dev_installs_every_extra():
    dev = {_name(r) for r in OPTIONAL["dev"]}
    for extra, requirements in OPTIONAL.items():
        assert {_name(r) for r in requirements} <= dev, extra
    assert "build" in dev  # python -m build --wheel


def test_the_templates_extra_holds_what_the_lens_imports():
    assert {_name(r) for r in OPTIONAL["templates"]} == {"jinja2", "transformers"}


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:  # module level only: an import inside a function is lazy
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


# Files that run inside an engine's own Python (vLLM's venv loads it), never in harmony_viz's.
ENGINE_SIDE = frozenset({"harmony_viz/servers/vllm_script.py"})


def test_no_module_imports_an_extra_at_its_top():
    """An extra's module is imported inside the function that needs it, so the rest works without it."""
    offenders = [f"{p.relative_to(ROOT)}: {sorted(_top_level_imports(p) & set(EXTRA_OF))}"
                 for p in sorted((ROOT / "harmony_viz").rglob("*.py"))
                 if _top_level_imports(p) & set(EXTRA_OF) and p.relative_to(ROOT).as_posix() not in ENGINE_SIDE]
    assert offenders == []


# Import names of the base dependencies whose distribution is spelled otherwise.
_DISTRIBUTION = {"json_repair": "json-repair", "jsonschema_rs": "jsonschema-rs"}
# Modules only an engine's own Python imports (vLLM's venv runs vllm_script.py).
_ENGINE_MODULES = frozenset({"vllm"})
# Modules only the program that loads a file imports: pytest loads the plugin (entry point pytest11), so pytest is there.
_HOST_MODULES = {"harmony_viz/pytest_plugin.py": frozenset({"pytest"})}


def test_every_third_party_import_is_a_base_dependency_or_an_extra():
    base = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    stray = set()
    for path in (ROOT / "harmony_viz").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = {node.module.split(".")[0]}
            else:
                continue
            for top in tops - set(sys.stdlib_module_names) - {"harmony_viz"} - _ENGINE_MODULES - _HOST_MODULES.get(path.relative_to(ROOT).as_posix(), frozenset()):
                if _DISTRIBUTION.get(top, top) not in base and top not in EXTRA_OF:
                    stray.add(f"{path.relative_to(ROOT)}: {top}")
    assert sorted(stray) == []


def test_the_error_is_one_line_naming_the_extra():
    exc = missing("jinja2", reason="No module named 'jinja2'")
    assert isinstance(exc, ImportError) and isinstance(exc, MissingExtraError)
    assert (exc.extra, exc.module) == ("templates", "jinja2")
    assert str(exc) == ("the chat-template lens needs 'jinja2', which is not importable (No module named 'jinja2'); "
                        'install with `pip install "harmony-viz[templates]"`')
    assert missing("ray.data").extra == "scale" and install_line("record") == 'pip install "harmony-viz[record]"'
    # transformers is in two extras: the caller says which one it needs
    assert missing("transformers.utils", "templates").extra == "templates" and missing("transformers").extra == "record"


# -- template-check knows a chat template -------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    pytest.importorskip("jinja2")
    pytest.importorskip("transformers")
    (tmp_path / "t.jinja").write_text(TEMPLATE)
    (tmp_path / "req.json").write_text(json.dumps(REQUEST))
    (tmp_path / "notes.txt").write_text("Some notes.\nNot a template at all.\n")
    (tmp_path / "quiet.jinja").write_text("{% for m in messages %}{% endfor %}")
    (tmp_path / "broken.jinja").write_text("{% for m in messages %}")
    return tmp_path


def test_template_check_runs_a_chat_template(cli, files):
    r = cli("template-check", "--template", str(files / "t.jinja"), str(files / "req.json"))
    assert r.rc in (0, 1) and r.out.startswith("conversation 0:")


@pytest.mark.parametrize(("name", "why"), [
    ("notes.txt", "it never reads `messages`"),
    ("quiet.jinja", "it renders nothing for a one-message conversation"),
    ("broken.jinja", "(it does not compile as Jinja: "),
])
def test_template_check_says_in_one_line_that_a_file_is_no_chat_template(cli, files, name, why):
    r = cli("template-check", "--template", str(files / name), str(files / "req.json"))
    assert r.rc == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1
    assert r.err.startswith(f"harmony-viz template-check: {files / name}: not a chat template") and why in r.err


def test_html_template_says_so_too(cli, files):
    r = cli("html", "--template", str(files / "notes.txt"), str(files / "req.json"), "-o", str(files / "page.html"))
    assert r.rc == 2 and "not a chat template: it never reads `messages`" in r.err and not (files / "page.html").exists()


# -- the commands in a venv without the extras ---------------------------------------------------


def cache_dir() -> Path:
    base = os.environ.get("HARMONY_VIZ_TEST_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "harmony_viz", "test-venvs")
    return Path(base)


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def make_venv(name: str, key: str, install: list[str], *, env: dict[str, str] | None = None, timeout: int = 600) -> Path:
    """A venv (``name-<hash of key>`` in the cache) with ``pip install *install`` done; reused while the key holds.

    Skips the test when pip cannot install (no registry and nothing cached).
    """
    digest = hashlib.sha256(f"{sys.version}\n{key}".encode()).hexdigest()[:16]
    venv = cache_dir() / f"{name}-{digest}"
    if (venv / ".complete").is_file():
        return venv
    # Made in place (a venv's scripts name its path), marked complete last; a half-made one is made again.
    for old in venv.parent.glob(f"{name}-*"):  # one per name: an older tree's venv goes
        shutil.rmtree(old, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    done = subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check", *install],
                          capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        pytest.skip(f"pip could not make the {name} venv: {done.stderr.strip()[-400:]}")
    (venv / ".complete").write_text(key)
    return venv


@pytest.fixture(scope="session")
def base_venv() -> Path:
    """A venv with only the base dependencies of pyproject.toml: no jinja2, torch, transformers, ray or datasets."""
    deps = sorted(PYPROJECT["project"]["dependencies"])
    return make_venv("venv-base", "\n".join(deps), deps)


def _run_in(venv: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PYTHONPATH=str(ROOT), PYTHONNOUSERSITE="1", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run([str(venv_python(venv)), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_the_base_venv_lacks_every_extra(base_venv, tmp_path):
    code = "import importlib.util as u, harmony_viz; print([m for m in %r if u.find_spec(m)], harmony_viz.__file__)" % (sorted(EXTRA_OF),)
    out = _run_in(base_venv, ["-c", code], tmp_path).stdout.split()
    assert out[0] == "[]" and Path(out[1]).is_relative_to(ROOT)


def _commands(tmp: Path) -> list[tuple[list[str], str]]:
    (tmp / "t.jinja").write_text(TEMPLATE)
    (tmp / "req.json").write_text(json.dumps(REQUEST))
    (tmp / "s.txt").write_text("<|start|>assistant<|channel|>final<|message|>Hi<|end|>")
    return [
        (["template-check", "--template", "t.jinja", "req.json"], "templates"),
        (["template-check", "--model", ".", "req.json"], "templates"),
        (["html", "--template", "t.jinja", "req.json", "-o", "page.html"], "templates"),
        (["record", "--model", "tiny", "--prompt", "hi", "-o", "runs.jsonl"], "record"),
        (["make-tiny-model", "tiny-model"], "record"),
        (["stats", "s.txt", "--engine", "ray", "--parquet", "rows"], "scale"),
    ]


def test_each_command_names_its_missing_extra_in_one_line(base_venv, tmp_path):
    for argv, extra in _commands(tmp_path):
        done = _run_in(base_venv, ["-m", "harmony_viz", *argv], tmp_path)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, (argv, done.stderr[-2000:])
        assert len(lines) == 1 and lines[0].startswith(f"harmony-viz {argv[0]}: "), (argv, done.stderr[-2000:])
        assert f"harmony-viz[{extra}]" in lines[0] and "pip install" in lines[0], (argv, lines)
        if extra == "templates":
            assert lines[0].endswith(f"`{install_line('templates')}`"), lines
    assert not (tmp_path / "page.html").exists() and not (tmp_path / "runs.jsonl").exists()


VERBS = """
import json, sys
import harmony_viz as hv
from harmony_viz.extras import MissingExtraError
from harmony_viz.templates import ChatTemplate, compare
out = {}
w = hv.playground('s.txt', chat_template='t.jinja')
w.diff_layout = 'template'
w.show_diff = True
out['playground'] = w._diff.get('error', '')
try:
    compare(json.load(open('req.json')), ChatTemplate(open('t.jinja').read(), 't.jinja'))
except MissingExtraError as exc:
    out['compare'] = str(exc)
try:
    hv.make_tiny_model('tiny-model')
except MissingExtraError as exc:
    out['make_tiny_model'] = str(exc)
print(json.dumps(out))
"""


def test_the_verbs_raise_a_clear_error_and_the_playground_view_says_it(base_venv, tmp_path):
    _commands(tmp_path)
    done = _run_in(base_venv, ["-c", VERBS], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    hint = install_line("templates")
    assert said["playground"].endswith(f"`{hint}`") and "'jinja2'" in said["playground"]
    assert said["compare"].endswith(f"`{hint}`")
    assert said["make_tiny_model"].endswith(f"`{install_line('record')}`")
