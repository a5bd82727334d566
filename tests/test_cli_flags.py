"""The command line's flags mean one thing each: -o a file, --tools a TOOLS.json, --role one declaration."""

from __future__ import annotations

import argparse

import pytest

from harmony_viz.cli import build_parser, main

TEXT = "<|start|>assistant<|channel|>final<|message|>Hi<|return|>"


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _options(flag: str) -> dict[str, argparse.Action]:
    return {name: a for name, p in _commands().items() for a in p._actions if flag in a.option_strings}


def test_dash_o_always_names_an_output_file():
    found = _options("-o")
    assert set(found) == {"html", "demo", "record", "capture"}
    for name, action in found.items():
        assert action.dest == "out" and action.choices is None and "--out" in action.option_strings, name
    # --output is a format in parse only; where it named a file before it is a hidden alias of -o
    for name, action in _options("--output").items():
        if name == "parse":
            assert action.choices and action.dest == "output"
        else:
            assert action.dest == "out" and action.help == argparse.SUPPRESS, name


def test_tools_always_names_a_tools_json():
    found = _options("--tools")
    assert {"parse", "lint", "record"} <= set(found)
    for name, action in found.items():
        assert action.metavar == "TOOLS.json" and action.choices is None, name
    assert "--demo-tools" in _options("--demo-tools")["record"].option_strings


def test_role_is_declared_once():
    found = _options("--role")
    assert {"parse", "lint", "html"} <= set(found)
    assert len({(a.choices, a.default, a.help) for a in found.values()}) == 1


def test_parse_out_is_not_taken_for_output(tmp_path, capsys):
    f = tmp_path / "t.txt"
    f.write_text(TEXT)
    with pytest.raises(SystemExit) as exc:
        main(["parse", str(f), "--out", "chat"])
    assert exc.value.code == 2 and "unrecognized arguments: --out" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["-o", "--out", "--output"])
def test_html_writes_the_file_named_by_each_spelling(flag, tmp_path):
    f = tmp_path / "t.txt"
    f.write_text(TEXT)
    out = tmp_path / f"page{flag}.html"
    assert main(["html", str(f), flag, str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
