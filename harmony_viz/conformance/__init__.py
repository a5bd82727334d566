"""The conformance suite: token streams and requests that an engine serving gpt-oss must get right.

Each case is a JSON object of format 1 (``docs/conformance.md`` describes it for people,
``schema.json`` for machines), in a ``.json`` file or one line of a ``.jsonl`` file. The
suite that ships is ``suite/`` beside this file; :func:`load_suite` reads it, or any files
and folders given. A case holds only what cannot be derived from its tokens; the runner
compares an engine with our scanner's reading of them.

This package sits below ``servers``: it imports ``tokens`` and nothing else of the package.

>>> case = next(c for c in load_suite() if c.id == "clean/final-only")
>>> case.family, case.kind, case.ids
('clean', 'answer', (200005, 17196, 200008, 13225, 13, 200002))
"""

from harmony_viz.conformance._case import FORMAT, KNOWN_DIR, SCHEMA_PATH, SUITE_DIR, Case, SuiteError, case_from_json, load_suite, read_cases, schema, select

__all__ = ["FORMAT", "KNOWN_DIR", "SCHEMA_PATH", "SUITE_DIR", "Case", "SuiteError", "case_from_json", "load_suite", "read_cases", "schema", "select"]
