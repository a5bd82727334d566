"""Rules with levels, cases that cite them, and triaged known divergences (issue 34 items 1-3).

The rules table ships in the package (``conformance/rules.jsonl``); every shipped case cites
rules that exist and has the strictest of their levels, and its stream bears the level out
(a ``must`` answer is a stream our scanner reads with nothing at warning or above, a
``should`` answer has at least one such finding). Reports carry the level (``--json``, JUnit,
the summary per level), old reports take it from the case id. The shipped known files are
triaged: each entry a bug with its upstream link or a drafted report, an intentional choice
with its reason, or research needed; no generic line.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from harmony_viz.cli import main
from harmony_viz.conformance import (
    KNOWN_DIR,
    LEVELS,
    Outcome,
    junit_xml,
    level_rates,
    load_cases,
    load_suite,
    read_known,
    result_level,
    rules,
    rules_by_id,
    stream_codes,
    write_known,
)

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "docs" / "conformance" / "reports"
PACKAGE = ROOT / "harmony_viz" / "conformance"
URL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+")


@pytest.fixture(scope="module")
def suite():  # noqa: ANN201
    return load_suite()


# --- item 1: the rules ---------------------------------------------------------------------

def test_the_rules_ship_numbered_with_a_level_a_text_and_a_source() -> None:
    table = rules()
    assert len(table) >= 15
    assert len({r.id for r in table}) == len(table)
    assert all(re.fullmatch(r"H\d\d", r.id) for r in table)
    assert {r.level for r in table} == set(LEVELS)
    for r in table:
        assert 1 <= r.text.count(". ") + 1 <= 3 and len(r.text) < 400, r.id  # one or two sentences
        assert r.source.strip(), r.id
    # what rests on our choice says so, and why
    assert all("our choice" in r.text for r in table if r.level in ("should", "may"))


def test_rules_prints_json_lines_of_id_level_text_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    got = [json.loads(line) for line in lines]
    assert [list(o) for o in got] == [["id", "level", "text", "source"]] * len(rules())
    assert [o["id"] for o in got] == [r.id for r in rules()]
    assert got[0] == rules()[0].to_json()


# --- item 2: every case cites rules, and the stream bears its level out ---------------------

def test_every_shipped_case_cites_known_rules_and_has_the_strictest_level(suite) -> None:  # noqa: ANN001
    table = rules_by_id()
    for c in suite:
        assert c.rules, c.id
        assert all(r in table for r in c.rules), (c.id, c.rules)
        strictest = next(lv for lv in LEVELS if any(table[r].level == lv for r in c.rules))
        assert c.level == strictest, (c.id, c.level, strictest)
        assert isinstance(c.level, str) and type(c.level) is str


def test_the_stream_bears_the_level_out(suite) -> None:  # noqa: ANN001
    """An answer case at must (or may) is a well-formed stream; one at should carries a finding at warning or above."""
    answers = [c for c in suite if c.kind == "answer"]
    assert answers
    for c in answers:
        codes = stream_codes(c.ids)
        if c.level == "should":
            assert codes, f"{c.id} is should but its stream is well formed"
        else:
            assert not codes, f"{c.id} is {c.level} but the scanner finds {codes}"


def test_the_evidence_is_what_parse_role_assistant_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str], suite) -> None:  # noqa: ANN001
    """stream_codes agrees with the command line: ``parse --role assistant`` on a must case's text says nothing at warning or above."""
    for cid in ("clean/final-only", "header/no-channel"):
        case = next(c for c in suite if c.id == cid)
        path = tmp_path / "s.txt"
        path.write_text(case.text, encoding="utf-8")
        assert main(["parse", str(path), "--role", "assistant"]) == 0
        err = capsys.readouterr().err
        said = bool(re.search(r"\b(warning|error)\b", err))
        assert said == (case.level == "should"), (cid, err)


def test_at_least_thirty_cases_at_must_and_thirty_below(suite) -> None:  # noqa: ANN001
    count = Counter(c.level for c in suite)
    assert count["must"] >= 30
    assert count["should"] + count["may"] >= 30


def test_level_selects_cases_and_a_case_without_rules_takes_its_level_from_its_stream(tmp_path: Path) -> None:
    musts = load_cases(None, None, ["must"])
    assert musts and all(c.level == "must" for c in musts)
    assert {c.level for c in load_cases(None, None, ["should", "may"])} == {"should", "may"}
    base = {"format": 1, "kind": "answer", "description": "d", "tags": [], "provenance": "a test"}
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps({**base, **o}) for o in (
        {"id": "x/clean", "text": "<|channel|>final<|message|>Hi.<|return|>"},
        {"id": "x/broken", "text": "<|channel|> final<|message|>Hi.<|return|>"},
        {"id": "x/cited", "text": "<|channel|> final<|message|>Hi.<|return|>", "rules": ["H40"]},
    )) + "\n", encoding="utf-8")
    assert [(c.id, c.level) for c in load_suite(tmp_path)] == [("x/clean", "must"), ("x/broken", "should"), ("x/cited", "may")]


def _outcome(case_id: str, status: str, engine: str = "llama.cpp", codes: tuple[str, ...] = (), known_kind: str = "") -> Outcome:
    case = next(c for c in load_suite() if c.id == case_id)
    return Outcome(case=case, engine=engine, api="chat", status=status, codes=codes, engine_version="1.0", known_kind=known_kind)


def test_results_junit_and_the_summary_carry_the_level() -> None:
    outs = [_outcome("clean/final-only", "pass"), _outcome("header/no-channel", "fail", codes=("text-dropped",), known_kind="bug"),
            _outcome("stop/final-ended-by-end", "pass"), _outcome("clean/analysis-then-final", "not-served")]
    js = [o.to_json() for o in outs]
    assert [r["level"] for r in js] == ["must", "should", "may", "must"]
    assert js[1]["known_kind"] == "bug" and js[1]["rules"] == ["H31"]
    rates = level_rates(outs)["llama.cpp"]
    assert rates["must"] == {"passing": 1, "served": 1, "rate": 1.0}  # not served is not counted
    assert rates["should"] == {"passing": 0, "served": 1, "rate": 0.0}
    root = ET.fromstring(junit_xml(outs).split("\n", 1)[1])
    props = [{p.get("name"): p.get("value") for p in tc.iter("property")} for tc in root.iter("testcase")]
    assert [p["level"] for p in props] == ["must", "should", "may", "must"]
    assert props[1]["rules"] == "H31" and props[1]["known_kind"] == "bug"


def test_an_old_report_takes_each_level_from_the_case_id() -> None:
    """The shipped reports predate levels: their results have no "level"; reading them, the shipped case's level is used."""
    report = json.loads(gzip.decompress((REPORTS / "llama.cpp-0.3.36.json.gz").read_bytes()))
    levels = {c.id: c.level for c in load_suite()}
    assert all(r["level"] == levels[r["case"]] for r in report["results"])  # the shipped reports are made with levels now
    report["results"] = [{k: v for k, v in r.items() if k != "level"} for r in report["results"]]  # as a report from before levels
    assert all(result_level(r) == levels[r["case"]] for r in report["results"])
    assert result_level({"case": "no/such-case"}) == ""
    rates = level_rates(report["results"])["llama.cpp"]
    assert set(rates) == set(LEVELS)
    assert sum(r["served"] for r in rates.values()) == sum(1 for r in report["results"] if r["status"] != "not-served")


# --- item 3: the known divergences are triaged -----------------------------------------------

def _known_lines() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(KNOWN_DIR.glob("*.jsonl")):
        out += [(f"{path.name}:{n}", json.loads(line)) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.strip()]
    return out


def test_every_shipped_divergence_is_triaged_with_a_reason_of_its_own() -> None:
    lines = _known_lines()
    assert len(lines) > 500
    for where, o in lines:
        assert o["kind"] in ("bug", "intentional", "research-needed"), where
        assert not o["reason"].startswith(("what ", "recorded by")), where  # not the measuring line alone
        if o["kind"] == "bug":
            assert URL.fullmatch(o["link"]) or len(o.get("draft", "")) > 80, where
        if o["link"]:
            assert URL.fullmatch(o["link"]), (where, o["link"])
    kinds = Counter((o["engine"], o["kind"]) for _, o in lines)
    assert all(kinds[(e, "bug")] for e in ("llama.cpp", "sglang", "gpt-oss", "vllm"))
    assert kinds[("llama.cpp", "intentional")] and kinds[("gpt-oss", "intentional")]
    # the reasons differ by what they are about: no one line covers most of an engine's entries
    for engine in ("llama.cpp", "sglang", "gpt-oss", "vllm"):
        reasons = Counter(o["reason"].split("; measured on")[0] for _, o in lines if o["engine"] == engine)
        assert len(reasons) >= 5, engine
    for path in sorted(KNOWN_DIR.glob("*.jsonl")):
        assert read_known(path)  # and the reader takes them


def test_write_known_writes_research_needed(tmp_path: Path) -> None:
    out = tmp_path / "k.jsonl"
    n = write_known([_outcome("header/no-channel", "fail", codes=("text-dropped",)), _outcome("clean/final-only", "pass")], out)
    assert n == 1
    got = read_known(out)
    assert [k.kind for k in got.values()] == ["research-needed"]


def test_a_known_file_with_an_unknown_kind_is_one_line(tmp_path: Path) -> None:
    from harmony_viz.conformance import KnownError

    path = tmp_path / "k.jsonl"
    path.write_text(json.dumps({"case": "a/b", "engine": "e", "api": "chat", "codes": [], "kind": "wontfix"}) + "\n", encoding="utf-8")
    with pytest.raises(KnownError, match=r"k\.jsonl:1: kind is \"wontfix\"; a divergence is one of bug, intentional, research-needed"):
        read_known(path)


# --- the shared records sit below _run and _known ---------------------------------------------

def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_known_and_run_do_not_import_each_other() -> None:
    """Outcome and Known live in _records, below both (TYPE_CHECKING imports counted too: no cycle at all)."""
    assert "harmony_viz.conformance._run" not in _imports(PACKAGE / "_known.py")
    assert "harmony_viz.conformance._known" not in _imports(PACKAGE / "_run.py")
    records = _imports(PACKAGE / "_records.py")
    assert not {"harmony_viz.conformance._run", "harmony_viz.conformance._known"} & records


# --- the pytest plugin: the level selects, as a flag and as a keyword (collection only: no engine is asked) -------

def test_the_plugin_selects_by_level_and_keeps_its_node_ids(pytester: pytest.Pytester) -> None:
    base = ("--harmony-conformance", "--harmony-sglang", "--harmony-select", "header/*", "--harmony-select", "clean/final-only",
            "--co", "-q", "-p", "no:cacheprovider")

    def ids(*more: str) -> list[str]:
        result = pytester.runpytest_subprocess(*base, *more)
        assert result.ret == 0, result.stderr.str()
        return [line for line in result.stdout.lines if line.startswith(("header/", "clean/"))]

    levels = {c.id: c.level for c in load_suite()}
    every = ids()
    assert "clean/final-only[sglang-chat]" in every and "header/no-channel[sglang-responses]" in every  # family/name[engine-api], as before
    assert ids("--harmony-level", "must") == [i for i in every if levels[i.split("[")[0]] == "must"] == [
        "clean/final-only[sglang-chat]", "clean/final-only[sglang-chat-stream]", "clean/final-only[sglang-responses]", "clean/final-only[sglang-responses-stream]"]
    should = [i for i in every if levels[i.split("[")[0]] == "should"]
    assert should and ids("--harmony-level", "should") == should
    assert ids("-k", "should") == should  # the level is a keyword too
