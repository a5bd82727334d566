"""The suite linter (``conformance --check-suite``): every problem of a suite's files, each one line ``FILE:LINE: what``.

What the reader refuses (the schema, a field's type, a stream that does not encode) is said as
the reader says it, once a line. Past the reader, each case is held to what a run takes for
granted: an id used once across every file checked, rules that the table knows (``--rules``),
a level that is the strictest of its rules and that its stream bears out (a ``must`` or
``may`` answer is a well-formed stream, a ``should`` answer has a finding of warning or
above), and a request our renderer turns into a Harmony prompt.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from harmony_viz.conformance._case import Case, SuiteError, _file_text, _files, _loads, case_from_json, stream_codes
from harmony_viz.conformance._rules import level_of_rules, rules_by_id

DEFAULT_USER = {"role": "user", "content": "Hello."}  # what an answer case without messages is asked with (the runner's default request)


@dataclass(frozen=True)
class Problem:
    """One problem of a suite: where (``FILE`` or ``FILE:LINE``) and what, in one line."""

    source: str
    what: str

    def __str__(self) -> str:
        return f"{self.source}: {self.what}"


def _render_problem(request: dict[str, Any]) -> str | None:
    from harmony_viz.render import RenderError, conversation_from_chat, render_conversation_for_completion

    body = dict(request) if "messages" in request else {**request, "messages": [DEFAULT_USER]}
    try:
        render_conversation_for_completion(conversation_from_chat(body))
    except RenderError as exc:
        return f"the request cannot be rendered as a Harmony prompt: {' '.join(str(exc).split())}"
    except (ValueError, TypeError, KeyError) as exc:  # a shape the renderer does not name: still one line
        return f"the request cannot be rendered as a Harmony prompt: {type(exc).__name__}: {' '.join(str(exc).split())}"
    return None


def case_problems(obj: dict[str, Any], case: Case) -> list[str]:
    """What is wrong with a case the reader took: its rules, its level, its stream's evidence, its request."""
    out = []
    table = rules_by_id()
    if "rules" not in obj:
        out.append("no 'rules': cite the ids of the rules the case tests (harmony-viz conformance --rules lists them)")
    unknown = [r for r in case.rules if r not in table]
    out += [f"rule {r!r} is not a known rule (harmony-viz conformance --rules lists them)" for r in unknown]
    expected = level_of_rules(case.rules)
    if "level" in obj and expected is not None and case.level != expected:  # left out, the level is the strictest of the rules
        strict = next(r for r in case.rules if r in table and table[r].level == expected)
        out.append(f"level is {case.level!r}, but the strictest of its rules is {expected!r} ({strict})")
    if case.kind == "answer" and case.ids is not None:
        codes = stream_codes(case.ids)
        if case.level in ("must", "may") and codes:
            out.append(f"level {case.level!r} is for a well-formed stream, but the scanner finds {', '.join(codes)} in it "
                       "(cite the should rule its recovery rests on)")
        elif case.level == "should" and not codes:
            out.append("level 'should' is for recovery from malformed output, but the scanner finds nothing at warning or above in its stream "
                       "(a well-formed stream is must or may)")
    if case.request or case.kind == "prompt":
        problem = _render_problem(case.request)
        if problem:
            out.append(problem)
    return out


def _lines(path: Path) -> list[tuple[str, str]]:
    """(source, text) of each case in a file: ``FILE:LINE`` for each line of a .jsonl file, ``FILE`` for a .json file."""
    text = _file_text(path)
    if path.suffix == ".json":
        return [(str(path), text)]
    if path.suffix != ".jsonl":
        raise SuiteError(str(path), "is neither a .json file (one case) nor a .jsonl file (one case a line)")
    return [(f"{path}:{n}", line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def check_suite(paths: Sequence[str | Path]) -> tuple[list[Problem], int]:
    """Every problem of the case files at ``paths`` (folders, .json, .jsonl files), in file and line order; and the number of cases read."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    n = 0
    for given in paths:
        try:
            files = _files(Path(given))
        except SuiteError as exc:
            problems.append(Problem(exc.source, exc.reason))
            continue
        for file in files:
            try:
                lines = _lines(file)
            except SuiteError as exc:
                problems.append(Problem(exc.source, exc.reason))
                continue
            for source, text in lines:
                n += 1
                try:
                    obj = _loads(text)
                except json.JSONDecodeError as exc:
                    problems.append(Problem(source, f"bad JSON at column {exc.colno}: {exc.msg}"))
                    continue
                except ValueError as exc:
                    problems.append(Problem(source, f"bad JSON: {exc}"))
                    continue
                try:
                    case = case_from_json(obj, source)
                except SuiteError as exc:
                    problems.append(Problem(exc.source, exc.reason))
                    continue
                if case.id in seen:
                    problems.append(Problem(source, f"duplicate id {case.id!r} (first at {seen[case.id]})"))
                else:
                    seen[case.id] = source
                problems += [Problem(source, what) for what in case_problems(obj, case)]
    return problems, n


def check_suite_command(paths: Sequence[str | Path], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``conformance --check-suite``: each problem one line on ``err``, exit 2; a count on ``out`` and exit 0 when there is none."""
    out, err = out or sys.stdout, err or sys.stderr
    problems, n = check_suite(paths)
    for p in problems:
        print(str(p), file=err)
    if problems:
        print(f"harmony-viz conformance: {len(problems)} problem(s) in {n} case(s)", file=err)
        return 2
    print(f"{n} case(s) checked: no problem", file=out)
    return 0
