"""The conformance suite on disk: the shipped cases, the format's rules and their one-line errors, the schema, the doc."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony_viz.conformance import SCHEMA_PATH, SUITE_DIR, Case, SuiteError, case_from_json, load_suite, read_cases, schema, select
from harmony_viz.scanner import scan
from harmony_viz.tokens import encode, encoding

ROOT = Path(__file__).resolve().parents[1]
STREAMS = ROOT / "harmony_viz" / "data" / "server_lens" / "streams"
DOC = ROOT / "docs" / "conformance.md"
FAMILIES = ("header", "channel", "preamble", "call", "stop", "clean", "catalog", "prompt", "roundtrip", "structured")


@pytest.fixture(scope="module")
def suite() -> list[Case]:
    """The shipped suite, read once."""
    return load_suite()


def _raw_objects() -> list[tuple[str, dict]]:
    """Every shipped case as the JSON object on disk, with its FILE:LINE."""
    out = []
    for path in sorted(SUITE_DIR.iterdir()):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                out.append((f"{path.name}:{n}", json.loads(line)))
    return out


def _minimal(**changes) -> dict:
    base = {"format": 1, "id": "header/x", "kind": "answer", "description": "a case", "tags": ["header"], "provenance": "written for a test",
            "text": "<|channel|>final<|message|>Hi<|return|>"}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not _DROP}


_DROP = object()


# --- the shipped suite -------------------------------------------------------------------------


def test_the_shipped_suite_loads_with_enough_cases_and_unique_ids(suite):
    assert len(suite) >= 60
    ids = [c.id for c in suite]
    assert len(ids) == len(set(ids))
    assert all(c.source.startswith(str(SUITE_DIR)) and re.search(r"\.jsonl:\d+$", c.source) for c in suite)


def test_every_family_has_cases(suite):
    families = {c.family for c in suite}
    assert set(FAMILIES) <= families, set(FAMILIES) - families
    own_kind = ("prompt", "roundtrip", "structured")  # these families are kinds of their own; every other family holds answer cases
    assert all(c.kind == c.family for c in suite if c.family in own_kind)
    assert all(c.kind == "answer" for c in suite if c.family not in own_kind)


def test_every_shipped_case_matches_the_schema():
    jsonschema = pytest.importorskip("jsonschema")  # an independent implementation: the loader itself uses jsonschema-rs
    the_schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(the_schema)
    validator = jsonschema.Draft202012Validator(the_schema)
    objects = _raw_objects()
    assert len(objects) >= 60
    for where, obj in objects:
        errors = [e.message for e in validator.iter_errors(obj)]
        assert not errors, (where, errors)


def test_the_schema_ships_and_is_what_schema_returns():
    assert schema() == json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_entry_of_the_malformed_catalog_is_covered(suite, corpus_dir):
    catalog = corpus_dir / "malformed_catalog.jsonl"
    if not catalog.is_file():
        pytest.skip("../shared/corpus/malformed_catalog.jsonl is not there")
    entries = [json.loads(line) for line in catalog.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(entries) >= 17
    for entry in entries:
        mark = f"malformed catalog entry {entry['id']}:"
        covering = [c for c in suite if mark in c.provenance]
        assert covering, entry["id"]
        assert all(c.provenance.startswith(entry["url"]) for c in covering), entry["id"]


def test_every_zoo_stream_is_a_case_with_its_exact_text(suite):
    files = sorted(STREAMS.glob("*.txt"))
    assert files
    for path in files:
        mark = f"harmony_viz/data/server_lens/streams/{path.name}"
        (case,) = [c for c in suite if mark in c.provenance]
        assert case.text == path.read_text(encoding="utf-8"), path.name  # exact: nothing stripped
        assert case.ids == tuple(encode(case.text))
        assert "zoo" in case.tags


def test_the_seed_001_preambles_are_there(suite):
    seed = [c for c in suite if "vllm-project/vllm/pull/32114" in c.provenance]
    assert len(seed) >= 8
    assert {c.family for c in seed} == {"preamble"}
    names = {c.name for c in suite if c.family == "preamble"}  # the zoo's preamble streams count too
    assert {"then-call", "then-final", "several-then-final", "several-then-call", "cut-off"} <= names


def test_the_prompt_cases_cover_what_the_issue_lists(suite):
    prompts = [c.request for c in suite if c.kind == "prompt"]

    def assistant_calls(req):
        return [m for m in req["messages"] if m["role"] == "assistant" and m.get("tool_calls")]

    def pending(req):
        return req["messages"][-1]["role"] == "tool"

    def has(pred):
        return any(pred(r) for r in prompts)

    assert has(lambda r: pending(r) and any("content" not in m for m in assistant_calls(r)))  # a loop without a preamble
    assert has(lambda r: pending(r) and any(m.get("content") for m in assistant_calls(r)))  # with a preamble
    assert has(lambda r: assistant_calls(r) and not pending(r))  # finished
    assert has(lambda r: r.get("reasoning_effort") == "high")
    assert has(lambda r: r.get("response_format", {}).get("type") == "json_schema")
    assert has(lambda r: any(len(m["tool_calls"]) >= 2 for m in assistant_calls(r)))  # parallel calls
    assert has(lambda r: any(m["role"] == "tool" and isinstance(m["content"], str) and not m["content"].lstrip().startswith(("{", "["))
                             for m in r["messages"]))  # a plain-text tool result
    assert has(lambda r: {"system", "developer"} <= {m["role"] for m in r["messages"]})
    for field in ("reasoning_content", "reasoning"):
        assert has(lambda r, f=field: pending(r) and any(f in m for m in assistant_calls(r))), field


# --- our scanner reads every stream ------------------------------------------------------------


def test_the_scanner_reads_every_stream_and_flags_the_malformed_families(suite):
    answers = [c for c in suite if c.kind == "answer"]
    assert all(c.ids for c in answers)
    for case in answers:
        codes = [d.code for d in scan(list(case.ids), role="assistant").diagnostics]
        if case.family in ("catalog", "header"):
            assert codes, case.id
        if case.family == "clean":
            assert codes == [], (case.id, codes)
    stops = [c for c in answers if c.family == "stop"]
    assert sum(bool(scan(list(c.ids), role="assistant").diagnostics) for c in stops) >= len(stops) - 2


def test_ids_win_over_text_where_both_are_given(suite):
    (case,) = select(suite, "catalog/harmony-pr114-channel-as-text")
    plain = encoding().encode_ordinary("<|channel|>")
    assert case.text is not None and "<|channel|>commentary to=functions.bash" in case.text
    assert tuple(plain) in {tuple(case.ids[i:i + len(plain)]) for i in range(len(case.ids))}
    assert case.ids != tuple(encode(case.text))
    assert "control-token-as-text" in [d.code for d in scan(list(case.ids), role="assistant").diagnostics]


# --- the API ---------------------------------------------------------------------------------


def test_select_takes_fnmatch_patterns_on_the_id_in_suite_order(suite):
    headers = select(suite, "header/*")
    assert headers and all(c.family == "header" for c in headers)
    both = select(suite, ["preamble/then-*", "clean/final-only"])
    assert [c.id for c in both] == [c.id for c in suite if c.id in {x.id for x in both}]
    assert "clean/final-only" in [c.id for c in both] and any(c.id == "preamble/then-call" for c in both)
    assert select(suite, "Header/*") == []  # case-sensitive
    assert select(suite, "no-such/*") == []


def test_a_case_round_trips_through_to_json(suite):
    for case in suite:
        again = case_from_json(json.loads(json.dumps(case.to_json())), case.source)
        assert again == case, case.id
    assert hash(suite[0]) == hash(case_from_json(suite[0].to_json(), suite[0].source))
    assert (suite[0].family, suite[0].name) == tuple(suite[0].id.split("/"))


def test_paths_may_be_folders_json_files_and_jsonl_files(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps(_minimal(id="clean/a")) + "\n\n" + json.dumps(_minimal(id="clean/b")) + "\n", encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(_minimal(id="clean/c"), indent=2), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a case", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.json").write_text(json.dumps(_minimal(id="clean/d")), encoding="utf-8")
    got = load_suite([tmp_path])
    assert [c.id for c in got] == ["clean/a", "clean/b", "clean/c"]  # sorted files, not subfolders, not .txt
    assert [c.source for c in got] == [f"{tmp_path / 'a.jsonl'}:1", f"{tmp_path / 'a.jsonl'}:3", str(tmp_path / "c.json")]
    assert [c.id for c in load_suite(tmp_path / "sub" / "d.json")] == ["clean/d"]  # one path, not in a list
    assert [c.id for c in read_cases(tmp_path / "a.jsonl")] == ["clean/a", "clean/b"]
    assert len(load_suite([SUITE_DIR, tmp_path / "c.json"])) == len(load_suite()) + 1


def test_text_is_kept_exactly_and_an_answer_request_is_optional(tmp_path):
    case = case_from_json(_minimal(text="<|channel|>final<|message|>Hi<|return|>\n"))
    assert case.ids[-1] == encode("\n")[0] and case.ids[:-1] == tuple(encode("<|channel|>final<|message|>Hi<|return|>"))
    assert case.request == {}
    ids_only = case_from_json(_minimal(text=_DROP, ids=[200005, 17196, 200008, 12194, 200002]))
    assert ids_only.text is None and ids_only.ids == (200005, 17196, 200008, 12194, 200002)
    tools_only = case_from_json(_minimal(request={"tools": []}))
    assert tools_only.request == {"tools": []}


def test_the_package_imports_nothing_above_it():
    code = ("import sys, harmony_viz.conformance as c; c.load_suite(); "
            "print(sorted({m for m in sys.modules if m.startswith('harmony_viz.') and m.split('.')[1] not in ('conformance', 'tokens')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


# --- broken case files: one line, naming the file and line ------------------------------------

SURROGATE = '{"format": 1, "id": "header/x", "kind": "answer", "description": "d", "tags": [], "provenance": "p", "text": "\\ud800"}'

# (name, file name, file content, the reason's pattern, whether the schema also refuses the object)
BAD = [
    ("bad-json-line", "bad.jsonl", json.dumps(_minimal(id="clean/ok")) + "\n{\"format\": 1,,}\n", r"bad JSON at column 14: Expecting property name", None),
    ("bad-json-file", "bad.json", '{\n  "format": 1\n  "id": "x/y"\n}', r"bad JSON at line 3 column 3: Expecting ',' delimiter", None),
    ("nan", "bad.jsonl", '{"format": NaN}', r"bad JSON: NaN is not JSON", None),
    ("field-twice", "bad.jsonl", '{"format": 1, "format": 1}', r"bad JSON: field 'format' is given twice", None),
    ("array-in-json", "bad.json", "[]", r"a \.json file holds one case \(an object\), found an array", None),
    ("not-an-object", "bad.jsonl", "[1, 2]", r"a case is a JSON object, found an array", True),
    ("missing-field", "bad.jsonl", json.dumps(_minimal(provenance=_DROP)), r"missing field 'provenance' \(every case has", True),
    ("unknown-field", "bad.jsonl", json.dumps(_minimal(expected={"content": "Hi"})), r"unknown field 'expected' \(a case has format, id,", True),
    ("format-string", "bad.jsonl", json.dumps(_minimal(format="1")), r"field 'format' must be the integer 1, found a string", True),
    ("format-2", "bad.jsonl", json.dumps(_minimal(format=2)), r"format is 2; this reader knows format 1$", True),
    ("id-no-family", "bad.jsonl", json.dumps(_minimal(id="leading-space")), r"id 'leading-space' is not family/name", True),
    ("id-upper", "bad.jsonl", json.dumps(_minimal(id="Header/x")), r"id 'Header/x' is not family/name", True),
    ("id-not-string", "bad.jsonl", json.dumps(_minimal(id=7)), r"field 'id' must be a string, found an integer \(7\)", True),
    ("kind", "bad.jsonl", json.dumps(_minimal(kind="answers")), r"kind is \"answers\"; a case is 'answer'", True),
    ("description-two-lines", "bad.jsonl", json.dumps(_minimal(description="one\ntwo")), r"field 'description' must be one line", True),
    ("tags-string", "bad.jsonl", json.dumps(_minimal(tags="header")), r"field 'tags' must be an array of strings, found a string", True),
    ("tag-twice", "bad.jsonl", json.dumps(_minimal(tags=["stop", "stop"])), r"tag 'stop' is given twice", True),
    ("tag-spaces", "bad.jsonl", json.dumps(_minimal(tags=["tool call"])), r"tag 'tool call' is not a lowercase word", True),
    ("text-not-string", "bad.jsonl", json.dumps(_minimal(text=["<|channel|>"])), r"field 'text' must be a string", True),
    ("text-does-not-encode", "bad.jsonl", SURROGATE, r"text does not encode as o200k_harmony tokens: character 0 is a lone surrogate \('\\ud800'\)", None),
    ("text-empty", "bad.jsonl", json.dumps(_minimal(text="")), r"field 'text' is empty", True),
    ("id-out-of-vocabulary", "bad.jsonl", json.dumps(_minimal(ids=[200005, 300000])), r"ids: token 1 is 300000, outside the o200k_harmony vocabulary 0\.\.201087", True),
    ("id-not-integer", "bad.jsonl", json.dumps(_minimal(ids=[200005, "final"])), r"ids: token 1 is 'final', not an integer id", True),
    ("id-float", "bad.jsonl", json.dumps(_minimal(ids=[200005, 1.5])), r"ids: token 1 is 1\.5, not an integer id", True),
    ("ids-empty", "bad.jsonl", json.dumps(_minimal(ids=[])), r"field 'ids' is empty", True),
    ("answer-no-stream", "bad.jsonl", json.dumps(_minimal(text=_DROP)), r"an answer case has no stream: give 'text'", True),
    ("prompt-no-request", "bad.jsonl", json.dumps(_minimal(kind="prompt", text=_DROP, id="prompt/x")), r"a prompt case needs request\.messages", True),
    ("prompt-no-messages", "bad.jsonl", json.dumps(_minimal(kind="prompt", text=_DROP, id="prompt/x", request={"tools": []})), r"a prompt case needs request\.messages", True),
    ("prompt-with-stream", "bad.jsonl", json.dumps(_minimal(kind="prompt", id="prompt/x", request={"messages": [{"role": "user", "content": "Hi"}]})),
     r"a prompt case has no stream: drop 'text' and 'ids'", True),
    ("request-not-object", "bad.jsonl", json.dumps(_minimal(request=[{"role": "user"}])), r"field 'request' must be an object", True),
    ("messages-empty", "bad.jsonl", json.dumps(_minimal(request={"messages": []})), r"request\.messages is empty", True),
    ("message-no-role", "bad.jsonl", json.dumps(_minimal(request={"messages": [{"content": "Hi"}]})), r"request\.messages\[0\] has no role", True),
    ("tools-not-list", "bad.jsonl", json.dumps(_minimal(request={"tools": {"type": "function"}})), r"request\.tools must be an array of tool objects", True),
    ("schema-backstop", "bad.jsonl", json.dumps(_minimal(request={"reasoning_effort": 3})), r"request\.reasoning_effort does not match schema\.json: 3 is not of type", True),
    ("not-utf8", "bad.jsonl", b'{"format": 1, "description": "caf\xe9"}', r"is not UTF-8 text \(byte 33\)", None),
    ("wrong-suffix", "bad.txt", json.dumps(_minimal()), r"is neither a \.json file \(one case\) nor a \.jsonl file", None),
]


@pytest.mark.parametrize(("name", "filename", "content", "reason", "schema_refuses"), BAD, ids=[b[0] for b in BAD])
def test_each_broken_case_file_is_one_line_naming_file_and_line(tmp_path, name, filename, content, reason, schema_refuses):
    path = tmp_path / filename
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(SuiteError) as info:
        load_suite([path])
    message = str(info.value)
    assert "\n" not in message
    line = len(content.splitlines()) if filename.endswith(".jsonl") and not isinstance(content, bytes) else None
    source = f"{path}:{line}" if line else str(path)
    assert info.value.source == source
    assert message.startswith(f"{source}: "), message
    assert re.search(reason, info.value.reason), message
    if schema_refuses is not None:  # the shipped schema agrees with the loader
        jsonschema = pytest.importorskip("jsonschema")
        assert not jsonschema.Draft202012Validator(schema()).is_valid(json.loads(content.splitlines()[-1]))


def test_a_duplicate_id_names_both_places(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps(_minimal(id="stop/same")) + "\n", encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(_minimal(id="stop/same")), encoding="utf-8")
    with pytest.raises(SuiteError, match=r"^.*b\.json: duplicate id 'stop/same' \(first at .*a\.jsonl:1\)$"):
        load_suite([tmp_path])
    with pytest.raises(SuiteError, match=r"zoo\.jsonl:1: duplicate id '[a-z/-]+' \(first at .*zoo\.jsonl:1\)$"):
        load_suite([SUITE_DIR, SUITE_DIR / "zoo.jsonl"])


def test_paths_that_are_not_there_or_hold_no_case(tmp_path):
    with pytest.raises(SuiteError, match=r"^.*missing\.jsonl: no such file or folder$"):
        load_suite([tmp_path / "missing.jsonl"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SuiteError, match=r"^.*empty: holds no \.json or \.jsonl case file$"):
        load_suite([tmp_path / "empty"])


def test_a_valid_case_passes_the_python_jsonschema_too():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(schema())
    assert validator.is_valid(_minimal())
    assert validator.is_valid(_minimal(kind="prompt", id="prompt/x", text=_DROP, request={"messages": [{"role": "user", "content": "Hi"}]}))


# --- the format's page: its examples are cases --------------------------------------------------


def test_the_cases_written_in_the_doc_load(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    cases = [b for b in blocks if isinstance(b, dict) and b.get("format") == 1]
    assert {c["kind"] for c in cases} == {"answer", "prompt"}
    (tmp_path / "doc.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")  # one case a line, as the doc says
    (tmp_path / "one.json").write_text(json.dumps(cases[0], indent=2), encoding="utf-8")
    loaded = load_suite([tmp_path / "doc.jsonl"])
    assert [c.kind for c in loaded] == [c["kind"] for c in cases]
    assert load_suite([tmp_path / "one.json"])[0].ids == loaded[0].ids
    # its ids do not clash with the shipped suite's, and the doc's answer case is what it says
    assert len(load_suite([SUITE_DIR, tmp_path / "doc.jsonl"])) == len(load_suite()) + len(cases)
    assert "bad-channel" in [d.code for d in scan(list(loaded[0].ids), role="assistant").diagnostics]


def test_the_doc_keeps_the_headings_the_command_fills_and_names_every_family():
    text = DOC.read_text(encoding="utf-8")
    assert "\n## Running the suite in CI\n" in text and "\n## Known divergences\n" in text
    for family in FAMILIES:
        assert f"| `{family}` |" in text, family
    for path in sorted(SUITE_DIR.iterdir()):
        assert f"`{path.name}`" in text, path.name
    tags = {t for c in load_suite() for t in c.tags}
    assert {t for t in tags if f"`{t}`" not in text} == set()  # every tag the suite uses is named


def test_the_runner_reports_and_page_live_in_the_conformance_package_and_the_server_lens_points_there() -> None:
    import harmony_viz.conformance as cf
    import harmony_viz.servers as servers

    for name in ("run_suite", "junit_xml", "conformance_page", "read_known", "Target", "MergeError", "MATRIX_CLASSES"):
        assert getattr(cf, name).__module__.startswith("harmony_viz.conformance.") if callable(getattr(cf, name)) else getattr(cf, name)
        with pytest.raises(AttributeError, match=rf"^harmony_viz\.servers has no attribute '{name}'; it lives in harmony_viz\.conformance\.{name}$"):
            getattr(servers, name)
        assert name not in servers.__all__ and name in cf.__all__
