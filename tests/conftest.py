"""Shared fixtures. Fixtures build on each other: encoding → tokens → scanner output → trace → widget."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# One place for the property-test budget: HYPOTHESIS_PROFILE=thorough locally for more.
settings.register_profile("default", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

if "TIKTOKEN_ENCODINGS_BASE" not in os.environ and (SHARED / "vocab" / "o200k_base.tiktoken").is_file():
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(SHARED / "vocab")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder (corpus, seeds, vocab)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the checkout")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    """The real gpt-oss transcripts in ../shared/corpus."""
    return shared_dir / "corpus"


@pytest.fixture(scope="session")
def enc():
    """The o200k_harmony encoding, loaded once."""
    from harmony_viz.tokens import encoding

    return encoding()


@pytest.fixture(scope="session")
def reference_encoding():
    """openai-harmony's encoding, the oracle for differential tests."""
    import openai_harmony

    return openai_harmony.load_harmony_encoding(openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)


# ---- the replay servers (tests marked `server`; see tests/_server.py) ----
@pytest.fixture(scope="session")
def replay_server(tmp_path_factory: pytest.TempPathFactory):
    """One vLLM replay server for the session: its base URL is ``.url``; stopped with SIGTERM at the end."""
    import _server

    server = _server.start(tmp_path_factory.mktemp("vllm") / "server.log", "vllm")
    yield server
    _server.stop(server)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory):
    """One llama.cpp replay server for the session (the tiny GGUF, the gpt-oss template); stopped with SIGTERM at the end."""
    import _server

    server = _server.start(tmp_path_factory.mktemp("llama") / "server.log", "llama.cpp")
    yield server
    _server.stop(server)


@pytest.fixture(scope="session")
def gpt_oss_server(tmp_path_factory: pytest.TempPathFactory):
    """One reference Responses server (gpt-oss 0.0.9, forced by our infer_next_token) for the session; stopped with SIGTERM at the end."""
    import _server

    server = _server.start(tmp_path_factory.mktemp("gpt-oss") / "server.log", "gpt-oss")
    yield server
    _server.stop(server)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The SIGTERM test stops the shared replay server: run it right after the last other server
    # test, so vLLM (which polls a core while idle) does not idle through the rest of the session.
    stoppers = [i for i in items if i.get_closest_marker("stops_server")]
    rest = [i for i in items if not i.get_closest_marker("stops_server")]
    last = max((k for k, i in enumerate(rest) if i.get_closest_marker("server")), default=len(rest) - 1)
    items[:] = rest[: last + 1] + stoppers + rest[last + 1 :]


class CLIResult(tuple):
    """``(rc, out, err)`` of one ``harmony-viz`` run in-process."""

    __slots__ = ()

    @property
    def rc(self) -> int:
        return self[0]

    @property
    def out(self) -> str:
        return self[1]

    @property
    def err(self) -> str:
        return self[2]


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run ``harmony-viz ARGS…`` in-process: ``cli("parse", "-", stdin="…")`` → CLIResult(rc, out, err)."""
    import io

    from harmony_viz.cli import main

    def run(*argv: str, stdin: str | None = None) -> CLIResult:
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        capsys.readouterr()  # what an earlier step printed is not this run's output
        try:
            rc = main(list(argv))
        except SystemExit as exc:  # argparse's own usage errors
            rc = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        return CLIResult((rc, out, err))

    return run


@pytest.fixture(scope="module")
def torch_one_thread():
    """One torch thread: on a shared 2-core machine, two threads contend and run 5x slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
