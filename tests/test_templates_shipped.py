"""The template outputs shipped as data are what the real template renders, and the template is not shipped."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from _templates import real_template

from harmony_viz.templates import render_template, shipped_outputs, shipped_path

PACKAGE = Path(__file__).resolve().parents[1] / "harmony_viz"


def test_shipped_outputs_are_the_real_templates_renders():
    pytest.importorskip("transformers")
    template = real_template()
    outputs = shipped_outputs()
    assert len(outputs) == 41 and outputs[0].name == "example"
    for s in outputs:
        assert render_template(template, s.request, date=s.date, add_generation_prompt=s.for_completion) == s.template_text, s.name


def test_provenance_gives_the_files_checksum():
    digest = hashlib.sha256(shipped_path().read_bytes()).hexdigest()
    provenance = (PACKAGE / "data" / "PROVENANCE.md").read_text()
    assert f"`{digest}`" in provenance and f"{shipped_path().stat().st_size} bytes" in provenance


def test_shipped_comparisons_name_the_templates_habits():
    example = shipped_outputs()[0].compare()
    assert {"constrain-missing", "arguments-double-encoded", "parallel-calls-dropped", "preamble-dropped",
            "tool-result-double-encoded", "analysis-kept"} <= set(example.codes)


def test_the_template_itself_is_not_in_the_package():
    assert not list(PACKAGE.rglob("*.jinja"))
    marker = "render_typescript_type"  # a macro name of the gpt-oss template
    for path in PACKAGE.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".json", ".jsonl", ".md", ".js", ".txt"):
            assert marker not in path.read_text(encoding="utf-8", errors="replace"), path
