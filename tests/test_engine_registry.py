"""The engine registry: one room per engine, and everything else reads it (no server needed)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from _lens import REQUEST, STREAMS

from harmony_viz.cli import main
from harmony_viz.servers import engines, matrix, matrix_table
from harmony_viz.servers.core import check_answer

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("vllm", "llama.cpp", "sglang", "gpt-oss")


def test_the_four_engines_are_registered_in_order() -> None:
    assert engines.names()[:4] == NAMES
    assert [e.flag for e in engines.engines()][:4] == ["--vllm", "--llama-cpp", "--sglang", "--gpt-oss"]
    assert engines.get("gpt-oss").apis == ("responses", "responses-stream")
    with pytest.raises(ValueError, match="known engines: vllm, llama.cpp, sglang, gpt-oss"):
        engines.get("tgi")


def test_the_docs_engine_table_is_the_registrys() -> None:
    page = (ROOT / "docs" / "server-lens.md").read_text()
    block = re.search(r"<!-- engine-table -->\n(.*?)\n<!-- /engine-table -->", page, re.S)
    assert block is not None and block.group(1) == engines.engine_table(), "regenerate: python -c 'from harmony_viz.servers import engines; print(engines.engine_table())'"


def test_no_engine_name_is_compared_outside_the_engine_modules() -> None:
    compared = re.compile(r"""(==|!=|\bin)\s*[\(\[\{]?\s*["'](vllm|llama\.cpp|sglang|gpt-oss)["']|["'](vllm|llama\.cpp|sglang|gpt-oss)["']\s*(==|!=)""")
    offenders = []
    for path in sorted((ROOT / "harmony_viz").rglob("*.py")):
        if "servers/engines" in path.as_posix():
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if compared.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize("command", ["server-check", "prompt-check", "replay-server"])
def test_the_cli_engine_choices_come_from_the_registry(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    usage = capsys.readouterr().out
    choices = re.search(r"--engine \{([^}]*)\}", usage)
    assert choices is not None
    got = choices.group(1).split(",")
    want = {"server-check": ["auto", *NAMES], "prompt-check": ["auto", "vllm", "llama.cpp", "gpt-oss"],
            "replay-server": ["vllm", "llama.cpp", "gpt-oss"]}[command]
    assert got == want


class Echo(engines.Engine):
    """A toy engine that answers every stream with our own projection: registered in one place, nowhere else."""

    name = "echo"
    label = "Echo 1"
    apis = ("chat", "responses")
    offline = True
    install = "nothing"

    def check_offline(self, named: Sequence[tuple[str, Sequence[int]]], *, request: dict[str, Any], apis: Sequence[str], options: Any) -> Iterator[Any]:
        from dataclasses import replace

        from harmony_viz.servers.core import expected_for

        for name, ids in named:
            for api in apis:
                r = check_answer(name, api, ids, expected_for(api, ids, request.get("tools")), tools=request.get("tools"))
                yield replace(r, engine=self.name, engine_version="1")


@pytest.fixture
def echo() -> Iterator[engines.Engine]:
    engine = engines.register(Echo())
    yield engine
    engines.unregister("echo")


def test_a_toy_engine_registers_in_one_place_and_shows_in_matrix(echo, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    streams = [str(STREAMS / "seed-001.txt"), str(STREAMS / "clean-final.txt")]
    cells = matrix(streams, echo=True)
    assert {(c.engine, c.api) for c in cells} == {("echo", "chat"), ("echo", "responses")}
    assert all(c.summary == "ok" for c in cells), [c.summary for c in cells]
    assert matrix_table(cells).splitlines()[0].split() == ["stream", "echo", "chat", "echo", "responses"]
    # The CLI reads the registry too: the engine's flag exists, and its unserved APIs are "not served".
    assert main(["matrix", "--echo", "--request", str(REQUEST), *streams]) == 0
    assert "echo chat" in capsys.readouterr().out
    assert main(["server-check", "--engine", "echo", "--api", "all", streams[0]]) == 0
    out = capsys.readouterr().out
    assert "echo chat-stream" in out and "not served" in out and "echo does not serve the chat-stream API" in out
    assert "echo" in engines.engine_table()


def test_a_toy_engine_is_gone_once_unregistered() -> None:
    assert "echo" not in engines.names()


def test_detection_asks_each_endpoint_once_and_knows_nothing_of_a_dead_port() -> None:
    probe = engines.Probe("http://127.0.0.1:9/v1", timeout=1)
    assert not any(e.detect(probe) for e in engines.engines() if not e.offline)
    assert set(probe._seen) == {"/version", "/props", "/harmony_viz/info", "/openapi.json"}
