"""The conformance suite: token streams and requests that an engine serving gpt-oss must get right, the runner that asks engines, its reports and its matrix page.

Each case is a JSON object of format 1 (``docs/conformance.md`` describes it for people,
``schema.json`` for machines), in a ``.json`` file or one line of a ``.jsonl`` file. The
suite that ships is ``suite/`` beside this file; :func:`load_suite` reads it, or any files
and folders given. A case holds only what cannot be derived from its tokens; the runner
compares an engine with our scanner's reading of them.

Modules, one job each:
- ``_case``: a case read from its JSON, the suite read from files;
- ``_rules``: the format's rules with their levels (``rules.jsonl``), which every case cites;
- ``_records``: the records ``_run`` and ``_known`` share (a result, a known divergence);
- ``_known``: known divergences (``known/`` ships one file an engine), triaged by kind;
- ``_run``: the runner (``run_suite``: every case through every engine and API, a status each);
- ``_roundtrip`` and ``_structured``: the two families the runner hands on (an engine's own answer sent back as
  history; free generation under the engine's own grammar), each a case kind of its own;
- ``_report``: counts, the JSON report, JUnit XML, a failure in words; reading a saved report back;
- ``_page``: the matrix page's data, drawn by the bundle's ``matrix_page.js``; ``_replays``: the replay pages it links to;
- ``_check_suite``: the suite linter (``--check-suite``); ``_site``: the published site (``--merge ... --site``);
- ``_command``: what ``harmony-viz conformance`` does once its arguments are read.

This package sits above the server lens (and the replay page): it asks engines through
``servers``, which imports nothing of it. Only the cases are loaded with the package; the
rest on first use, so reading the suite asks for no engine machinery.

>>> case = next(c for c in load_suite() if c.id == "clean/final-only")
>>> case.family, case.kind, case.ids
('clean', 'answer', (200005, 17196, 200008, 13225, 13, 200002))
"""

from __future__ import annotations

import importlib
from typing import Any

from harmony_viz.conformance._case import FORMAT, KNOWN_DIR, SCHEMA_PATH, SUITE_DIR, Case, SuiteError, case_from_json, load_suite, read_cases, schema, select

_HOMES: dict[str, str] = {
    "Known": "_records", "KNOWN_KINDS": "_records", "KnownError": "_known", "read_known": "_known", "write_known": "_known",
    "PROMPT_API": "_run", "STATUSES": "_records", "EngineRuns": "_run", "NoCaseError": "_run", "Outcome": "_records", "Target": "_run",
    "apis_of": "_run", "exit_status": "_run", "load_cases": "_run", "run_suite": "_run",
    "MergeError": "_report", "check_report": "_report", "conformance_report": "_report", "conformance_summary": "_report",
    "failure_text": "_report", "junit_xml": "_report", "read_report": "_report", "summary_line": "_report",
    "LEVELS": "_rules", "Rule": "_rules", "rules": "_rules", "rules_by_id": "_rules",
    "Problem": "_check_suite", "check_suite": "_check_suite", "check_suite_command": "_check_suite",
    "level_rates": "_report", "result_level": "_report", "write_site": "_site", "SiteError": "_site", "site_data": "_site", "badge_svg": "_site", "page_slug": "_site",
    "stream_codes": "_case", "SHAPES": "_case",
    "ROUNDTRIP_API": "_roundtrip", "expected_prompt": "_roundtrip", "second_request": "_roundtrip",
    "STRUCTURED_API": "_structured", "STRUCTURED_CODES": "_structured", "envelope_codes": "_structured",
    "MATRIX_CLASSES": "_page", "conformance_page": "_page", "version_key": "_page",
    "ReplayPage": "_replays", "replay_pages": "_replays", "with_opener": "_replays",
    "OutputError": "_command", "Outputs": "_command", "merge_reports": "_command", "run_and_report": "_command", "write_replays": "_command",
}

__all__ = sorted(["FORMAT", "KNOWN_DIR", "SCHEMA_PATH", "SUITE_DIR", "Case", "SuiteError", "case_from_json", "load_suite", "read_cases", "schema", "select",
                  *_HOMES])


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'harmony_viz.conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"harmony_viz.conformance.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
