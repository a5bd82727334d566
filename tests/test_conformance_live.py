"""The whole shipped suite through llama.cpp, SGLang's parser and the reference server, against the shipped known divergences.

It holds the round-trip and structured-output families too (each one result an engine: not served
where the engine has no such path).

Every result must be pass, known or not served: a new failure (a regression, or a change in
what an engine does) or a fixed divergence fails this test, as it fails an engine's CI.
The known divergences were written from the real runs of docs/conformance/reports/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _drawn import drawn

from harmony_viz.cli import main
from harmony_viz.conformance import KNOWN_DIR, load_suite

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[1]


def _sglang_or_skip() -> None:
    import _server

    if not (ROOT / ".venv-sglang" / "bin" / "python").is_file():
        _server._unavailable("no SGLang parser venv: run scripts/install-sglang-parser.sh")


def test_the_shipped_known_divergences_are_valid_and_name_real_cases() -> None:
    from harmony_viz.conformance import read_known
    from harmony_viz.servers import engines

    ids = {c.id for c in load_suite()}
    files = sorted(KNOWN_DIR.glob("*.jsonl"))
    assert {f.stem for f in files} == {"llama.cpp", "sglang", "gpt-oss", "vllm"}
    for f in files:
        known = read_known(f)
        assert known, f
        assert {k.engine for k in known.values()} == {f.stem} and f.stem in engines.names()
        assert {k.case for k in known.values()} <= ids
        assert all(k.codes and k.reason for k in known.values())


@pytest.mark.timeout(1200)  # the structured family generates (24 free generations on llama.cpp): the run passes 600 s on a busy 2-core machine
def test_the_whole_suite_holds_against_the_known_divergences(llama_server, gpt_oss_server, tmp_path: Path,  # noqa: ANN001
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    _sglang_or_skip()
    known = tmp_path / "known.jsonl"
    known.write_text("".join(f.read_text() for f in sorted(KNOWN_DIR.glob("*.jsonl"))))
    report, junit, html = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.html"
    rc = main(["conformance", "--llama-cpp", llama_server.url, "--sglang", "--gpt-oss", gpt_oss_server.url, "--known", str(known),
               "--json", str(report), "--junit", str(junit), "--html", str(html)])
    out = capsys.readouterr().out
    got = json.loads(report.read_text())
    bad = [(r["case"], r["engine"], r["api"], r["status"], r["codes"]) for r in got["results"] if r["status"] not in ("pass", "known", "not-served")]
    assert rc == 0 and bad == [], (bad[:20], out[-2000:])
    suite = load_suite()
    n, answers = len(suite), sum(c.kind == "answer" for c in suite)
    # per engine: 4 APIs an answer case; one column any other case (prompt, roundtrip, structured)
    assert got["summary"]["total"] == 3 * (4 * answers + (n - answers))
    by_kind = {k: [r for r in got["results"] if r["kind"] == k] for k in ("roundtrip", "structured")}
    assert {r["api"] for r in by_kind["roundtrip"]} == {"roundtrip"} and {r["api"] for r in by_kind["structured"]} == {"structured"}
    served = {(r["kind"], r["engine"]) for rs in by_kind.values() for r in rs if r["status"] != "not-served"}
    # the round trip through llama.cpp's Chat and the reference server's Responses; structured output through llama.cpp's grammar only
    assert served == {("roundtrip", "llama.cpp"), ("roundtrip", "gpt-oss"), ("structured", "llama.cpp")}
    assert {e["name"] for e in got["engines"]} == {"llama.cpp", "sglang", "gpt-oss"}
    assert all(e["version"] for e in got["engines"])
    assert junit.read_text().count("<testcase ") == got["summary"]["total"]
    assert drawn(html).count('data-hv="case"') == n  # the matrix is drawn by the page's script
