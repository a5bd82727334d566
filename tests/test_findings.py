"""One finding shape for every lens, one registry of codes per lens, the docs pages' tables written from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from harmony_viz.findings import SEVERITIES, Finding, Sides, Span, code_table, read_codes, readme_tables, registries

ROOT = Path(__file__).resolve().parents[1]


def test_every_lens_record_is_a_finding():
    from harmony_viz.scanner import Diagnostic, scan
    from harmony_viz.templates import Difference

    d = scan("<|start|>assistant<|channel|>junk<|message|>x<|end|>").diagnostics[0]
    assert isinstance(d, Diagnostic) and isinstance(d, Finding) and isinstance(d.where, Span)
    assert issubclass(Difference, Finding)
    assert [f for f in Finding.__dataclass_fields__] == ["code", "severity", "message", "where"]
    for record in (Diagnostic, Difference):
        assert list(record.__dataclass_fields__)[:4] == ["code", "severity", "message", "where"], record


def test_every_registry_gives_a_severity_and_a_meaning():
    for lens, codes in registries().items():
        assert codes, lens
        for code, (severity, meaning) in codes.items():
            assert severity in SEVERITIES and meaning.strip(), (lens, code)


def test_no_code_means_two_things():
    seen: dict[str, tuple[str, tuple[str, str]]] = {}
    clashes = []
    for lens, codes in registries().items():
        for code, entry in codes.items():
            if code in seen and seen[code][1] != entry:
                clashes.append(f"{code}: {seen[code][0]} {seen[code][1]} vs {lens} {entry}")
            seen.setdefault(code, (lens, entry))
    assert clashes == []


def test_a_registry_file_is_read_in_order_and_a_bad_row_is_one_line(tmp_path):
    good = tmp_path / "codes.json"
    good.write_text('{"z-last": ["info", "written first"], "a-first": ["error", "written second"]}', encoding="utf-8")
    assert list(read_codes(good).items()) == [("z-last", ("info", "written first")), ("a-first", ("error", "written second"))]
    for row in ('["fatal", "no such severity"]', '["error"]', '"error: a string"', '["warning", 3]'):
        bad = tmp_path / "bad.json"
        bad.write_text('{"ok": ["info", "fine"], "broken": ' + row + "}", encoding="utf-8")
        with pytest.raises(ValueError, match=r"^bad\.json: 'broken' is not \[severity, meaning\]") as caught:
            read_codes(bad)
        assert "\n" not in str(caught.value)


# The page that holds each lens's code table (the prompt lens shares the template lens's codes).
CODE_PAGES = {"scanner": "scan-and-lint.md", "lint": "scan-and-lint.md", "templates": "templates.md", "servers": "server-lens.md"}


def test_the_docs_tables_are_written_from_the_registries():
    assert set(CODE_PAGES) == set(registries())
    for lens, page in CODE_PAGES.items():
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert text.count(f"<!-- codes: {lens} -->") == 1, (lens, page)
    for page in sorted(set(CODE_PAGES.values())):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert readme_tables(text) == text, f"run: python -m harmony_viz.findings docs/{page}"


def test_a_stale_table_is_rewritten():
    stale = "x\n<!-- codes: templates -->\n| code | what |\n|---|---|\n| `constrain-missing` | old |\n<!-- /codes -->\ny\n"
    from harmony_viz.templates import CODES

    assert readme_tables(stale) == f"x\n<!-- codes: templates -->\n{code_table(CODES)}\n<!-- /codes -->\ny\n"


def test_a_difference_has_a_span_on_each_side():
    from harmony_viz.templates import shipped_outputs

    result = shipped_outputs()[0].compare()  # the notebook's example, against the shipped template render
    sided = [d for d in result.differences if d.where is not None]
    assert sided and all(isinstance(d.where, Sides) for d in sided)
    assert any(d.where.ours is not None and d.where.theirs is not None for d in sided)
    for d in sided:
        if d.where.ours is not None and d.code not in ("date-varies", "schema-text", "whitespace"):
            assert result.ours.quote(d.where.ours.start, d.where.ours.end) == d.ours, d.code


def test_a_role_in_a_sentence_takes_a_or_an():
    """issue 32: "read as a assistant message" -> "an assistant message", wherever a role name is put in a sentence."""
    import pytest

    from harmony_viz import render
    from harmony_viz.findings import with_article
    from harmony_viz.scanner import scan

    assert [with_article(w) for w in ("assistant", "user", "system", "developer", "tool", "analysis")] == [
        "an assistant", "a user", "a system", "a developer", "a tool", "an analysis"]
    messages = [d.message for d in scan("hello<|start|>user<|message|>x<|end|>").diagnostics]
    assert any("read as an assistant message" in m for m in messages) and not any(" a assistant" in m for m in messages)
    conv = render.Conversation.from_messages([render.Message.from_role_and_content(render.Role.ASSISTANT, render.SystemContent.new())])
    with pytest.raises(render.RenderError, match="not in an assistant message"):
        render.render_conversation(conv)
