"""One conformance case, read from its JSON object, and the suite of them read from files.

A case is one JSON object, format 1 (``docs/conformance.md``, ``schema.json``): a token stream
that follows ``<|start|>assistant`` (an ``answer`` case) or a request alone (a ``prompt``
case). It holds no expected answer: what the tokens mean is the scanner's and the
visibility rule's to say. Every way a case file can be wrong is a :class:`SuiteError` of one
line, ``FILE[:LINE]: what is wrong``.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

FORMAT = 1
PACKAGE_DIR = Path(__file__).resolve().parent
SCHEMA_PATH = PACKAGE_DIR / "schema.json"
SUITE_DIR = PACKAGE_DIR / "suite"
KNOWN_DIR = PACKAGE_DIR / "known"  # the divergences measured on the shipped suite, one JSON-lines file an engine

Kind = Literal["answer", "prompt", "roundtrip", "structured"]
KINDS: tuple[Kind, ...] = ("answer", "prompt", "roundtrip", "structured")
FIELDS = ("format", "id", "kind", "description", "tags", "provenance", "rules", "level", "text", "ids", "request", "shape", "then", "seeds")
# How a round-trip case's client sends the engine's answer back (``_roundtrip``): Chat with the reasoning under
# either field or none, Responses output items with their reasoning_text or with a summary only, or the stored response.
SHAPES = ("chat-reasoning_content", "chat-reasoning", "chat-no-reasoning", "responses-reasoning_text", "responses-summary", "previous-response-id")
REQUIRED = ("format", "id", "kind", "description", "tags", "provenance")

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9._-]*")
TAG_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]*")
RULE_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
FAILING = ("warning", "error")  # a stream's findings at these severities make it malformed (the level's evidence)


class SuiteError(ValueError):
    """A case file that cannot be used: one line, ``FILE[:LINE]: what is wrong`` (``source`` is ``FILE[:LINE]``)."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = " ".join(reason.split())  # one line, whatever the reason quoted
        super().__init__(f"{source}: {self.reason}")


@dataclass(frozen=True)
class Case:
    """One case of the suite.

    ``ids`` is the stream after ``<|start|>assistant`` (the ``ids`` field, else ``text``
    encoded with special tokens); None for a prompt case. ``text`` is the text as written,
    or None. ``request`` is the Chat Completions body (``{}`` when an answer case gives none:
    the runner sends its default request). ``source`` is ``FILE`` or ``FILE:LINE``.

    ``rules`` are the ids of the rules it tests (``rules.jsonl``); ``level`` is ``must``,
    ``should`` or ``may``: as given, else the strictest of its rules, else what its stream
    shows (an answer whose stream has a finding of warning or above is ``should``, any
    other case ``must``).
    """

    id: str
    kind: Kind
    description: str
    tags: tuple[str, ...]
    provenance: str
    ids: tuple[int, ...] | None
    request: dict[str, Any] = field(hash=False)
    source: str
    text: str | None = None
    rules: tuple[str, ...] = ()
    level: str = "must"
    shape: str | None = None  # a roundtrip case's client shape (SHAPES)
    then: tuple[dict[str, Any], ...] = field(default=(), hash=False)  # a roundtrip case's messages after the answer (user, tool)
    seeds: tuple[int, ...] = ()  # a structured case's sampling seeds (empty: the runner's)

    @property
    def family(self) -> str:
        """What the id says before its ``/``: ``header`` for ``header/leading-space-channel``."""
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        """What the id says after its ``/``: ``leading-space-channel`` for ``header/leading-space-channel``."""
        return self.id.split("/", 1)[1]

    def to_json(self) -> dict[str, Any]:
        """The case as a format-1 object (both ``text`` and ``ids`` when it has both; ids win on reading)."""
        out: dict[str, Any] = {"format": FORMAT, "id": self.id, "kind": self.kind, "description": self.description,
                               "tags": list(self.tags), "provenance": self.provenance}
        if self.rules:
            out["rules"] = list(self.rules)
        out["level"] = self.level
        if self.text is not None:
            out["text"] = self.text
        if self.ids is not None:
            out["ids"] = list(self.ids)
        if self.request:
            out["request"] = self.request
        if self.shape is not None:
            out["shape"] = self.shape
        if self.then:
            out["then"] = list(self.then)
        if self.seeds:
            out["seeds"] = list(self.seeds)
        return out


# --- one object -> one Case ---------------------------------------------------------------

_JSON_TYPES = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"), (list, "an array"), (dict, "an object"))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for cls, name in _JSON_TYPES:
        if isinstance(value, cls):
            return name
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _string(obj: Mapping[str, Any], key: str, source: str, *, one_line: bool = False) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise SuiteError(source, f"field {key!r} must be a string, found {_json_type(value)} ({_show(value)})")
    if not value.strip():
        raise SuiteError(source, f"field {key!r} is empty")
    if one_line and ("\n" in value or "\r" in value):
        raise SuiteError(source, f"field {key!r} must be one line (it holds a line break)")
    return value


def _tags(value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SuiteError(source, f"field 'tags' must be an array of strings, found {_json_type(value)} ({_show(value)})")
    for i, tag in enumerate(value):
        if not isinstance(tag, str):
            raise SuiteError(source, f"tags[{i}] must be a string, found {_json_type(tag)} ({_show(tag)})")
        if not TAG_PATTERN.fullmatch(tag):
            raise SuiteError(source, f"tag {tag!r} is not a lowercase word (letters, digits, '-', '_'), e.g. 'preamble'")
    dupes = sorted({t for t in value if value.count(t) > 1})
    if dupes:
        raise SuiteError(source, f"tag {dupes[0]!r} is given twice")
    return tuple(value)


def _request(value: Any, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SuiteError(source, f"field 'request' must be an object (a Chat Completions body), found {_json_type(value)} ({_show(value)})")
    messages = value.get("messages")
    if "messages" in value:
        if not isinstance(messages, list):
            raise SuiteError(source, f"request.messages must be an array of messages, found {_json_type(messages)}")
        if not messages:
            raise SuiteError(source, "request.messages is empty; leave it out for the default request, or give the messages")
        for i, m in enumerate(messages):
            if not isinstance(m, dict):
                raise SuiteError(source, f"request.messages[{i}] must be an object, found {_json_type(m)} ({_show(m)})")
            if not isinstance(m.get("role"), str):
                raise SuiteError(source, f"request.messages[{i}] has no role (a string: system, developer, user, assistant or tool)")
    tools = value.get("tools")
    if "tools" in value:
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            raise SuiteError(source, f"request.tools must be an array of tool objects, found {_show(tools)}")
    return value


def _rules(value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise SuiteError(source, f"field 'rules' must be a non-empty array of rule ids (e.g. [\"H05\"]), found {_show(value)}")
    for i, rule in enumerate(value):
        if not isinstance(rule, str) or not RULE_PATTERN.fullmatch(rule):
            raise SuiteError(source, f"rules[{i}] must be a rule id (a string like 'H05'), found {_show(rule)}")
    if len(set(value)) != len(value):
        raise SuiteError(source, f"rule {sorted({r for r in value if value.count(r) > 1})[0]!r} is given twice")
    return tuple(value)


def stream_codes(ids: Sequence[int]) -> tuple[str, ...]:
    """The codes of the scanner's findings at warning or above on a completion (after ``<|start|>assistant``): a level's evidence."""
    from harmony_viz.scanner import Scanner, assemble

    scanner = Scanner(role="assistant")
    events = [*scanner.feed(list(ids)), *scanner.flush()]
    return tuple(sorted({d.code for d in assemble(events).diagnostics if d.severity in FAILING}))


def _level(obj: Mapping[str, Any], rules: tuple[str, ...], kind: str, ids: tuple[int, ...] | None, source: str) -> str:
    from harmony_viz.conformance._rules import LEVELS, level_of_rules

    if "level" in obj:
        if obj["level"] not in LEVELS:
            raise SuiteError(source, f"level is {_show(obj['level'])}; a level is one of {', '.join(LEVELS)}")
        return str(obj["level"])
    found = level_of_rules(rules)
    if found is not None:
        return found
    return "should" if kind == "answer" and ids is not None and stream_codes(ids) else "must"


def _kind_fields(obj: Mapping[str, Any], kind: str, has_stream: bool, request: Mapping[str, Any], source: str) -> None:
    """What a roundtrip case (a stream, a shape, what follows) and a structured case (a request with a format or a tool choice) need."""
    if kind != "roundtrip" and any(k in obj for k in ("shape", "then")):
        raise SuiteError(source, "'shape' and 'then' belong to a roundtrip case")
    if kind != "structured" and "seeds" in obj:
        raise SuiteError(source, "'seeds' belongs to a structured case")
    if kind == "roundtrip":
        if not has_stream:
            raise SuiteError(source, "a roundtrip case needs the answer's stream: give 'text' or 'ids'")
        if obj.get("shape") not in SHAPES:
            raise SuiteError(source, f"shape is {_show(obj.get('shape'))}; a roundtrip case's shape is one of {', '.join(SHAPES)}")
        then = obj.get("then")
        if not isinstance(then, list) or not then or not all(isinstance(m, dict) and m.get("role") in ("user", "tool") for m in then):
            raise SuiteError(source, "a roundtrip case needs 'then': the user or tool messages sent after the answer")
    if kind == "structured":
        if has_stream:
            raise SuiteError(source, "a structured case has no stream (the engine generates it): drop 'text' and 'ids'")
        if not request.get("response_format") and request.get("tool_choice") in (None, "auto", "none"):
            raise SuiteError(source, "a structured case's request has a response_format, or a tool_choice that forces a call")
        seeds = obj.get("seeds", [1])
        if not isinstance(seeds, list) or not seeds or not all(type(x) is int for x in seeds):
            raise SuiteError(source, f"field 'seeds' must be a non-empty array of integers, found {_show(seeds)}")


def _stream(make: Callable[[], list[int]], field: str, failed: str, source: str) -> tuple[int, ...]:
    """The token ids ``make`` gives for ``field``: its ValueError (``failed``, with ``{}`` for the reason) and an empty
    stream each stop with one line naming ``source``."""
    try:
        ids = make()
    except ValueError as exc:
        raise SuiteError(source, failed.format(exc)) from None
    if not ids:
        raise SuiteError(source, f"field '{field}' is empty: a stream has at least one token")
    return tuple(ids)


def _ids(value: Any, source: str) -> tuple[int, ...]:
    from harmony_viz.tokens import check_ids

    if not isinstance(value, list):
        raise SuiteError(source, f"field 'ids' must be an array of token ids, found {_json_type(value)} ({_show(value)})")
    return _stream(lambda: check_ids(value), "ids", "ids: {}", source)


def _encode(text: str, source: str) -> tuple[int, ...]:
    from harmony_viz.tokens import encode

    try:
        text.encode("utf-8")  # tiktoken would quietly turn a lone surrogate into U+FFFD: the stream would not be the text
    except UnicodeEncodeError as exc:
        raise SuiteError(source, f"text does not encode as o200k_harmony tokens: character {exc.start} is a lone surrogate "
                                 f"({ascii(text[exc.start])}), which is not UTF-8") from None
    return _stream(lambda: encode(text), "text", "text does not encode as o200k_harmony tokens ({})", source)


def case_from_json(obj: Any, source: str = "<case>") -> Case:
    """The :class:`Case` that JSON object ``obj`` describes; SuiteError (one line, naming ``source``) when it is not one.

    Checked in this order: an object; no unknown and no missing field; each field's type (ids
    in the vocabulary, through ``tokens.check_ids``); the kind's rule (an answer case has a
    stream, a prompt case has ``request.messages`` and no stream); then the whole object
    against ``schema.json``; last, that the text encodes (checked even where ids win).
    """
    if not isinstance(obj, dict):
        raise SuiteError(source, f"a case is a JSON object, found {_json_type(obj)} ({_show(obj)})")
    unknown = [k for k in obj if k not in FIELDS]
    if unknown:
        raise SuiteError(source, f"unknown field {unknown[0]!r} (a case has {', '.join(FIELDS)})")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise SuiteError(source, f"missing field {missing[0]!r} (every case has {', '.join(REQUIRED)})")
    fmt = obj["format"]
    if type(fmt) is not int:
        raise SuiteError(source, f"field 'format' must be the integer 1, found {_json_type(fmt)} ({_show(fmt)})")
    if fmt != FORMAT:
        raise SuiteError(source, f"format is {fmt}; this reader knows format {FORMAT}")
    case_id = _string(obj, "id", source)
    if not ID_PATTERN.fullmatch(case_id):
        raise SuiteError(source, f"id {case_id!r} is not family/name (lowercase letters, digits, '-', '_'; the name may hold '.'), "
                                 "e.g. 'header/leading-space-channel'")
    kind = obj["kind"]
    if kind not in KINDS:
        raise SuiteError(source, f"kind is {_show(kind)}; a case is 'answer' (a stream), 'prompt' (a request alone), "
                                 "'roundtrip' (a stream sent back as history) or 'structured' (a request the engine generates for)")
    description = _string(obj, "description", source, one_line=True)
    tags = _tags(obj["tags"], source)
    provenance = _string(obj, "provenance", source)
    text = obj.get("text")
    if "text" in obj and not isinstance(text, str):
        raise SuiteError(source, f"field 'text' must be a string (Harmony text), found {_json_type(text)} ({_show(text)})")
    if text == "":
        raise SuiteError(source, "field 'text' is empty: a stream has at least one token")
    given_ids = _ids(obj["ids"], source) if "ids" in obj else None
    request = _request(obj["request"], source) if "request" in obj else {}
    rules = _rules(obj["rules"], source) if "rules" in obj else ()
    if kind == "answer" and text is None and given_ids is None:
        raise SuiteError(source, "an answer case has no stream: give 'text' (Harmony text after <|start|>assistant) or 'ids'")
    if kind == "prompt":
        if "messages" not in request:
            raise SuiteError(source, "a prompt case needs request.messages (the conversation the engine renders)")
        if text is not None or given_ids is not None:
            raise SuiteError(source, "a prompt case has no stream: drop 'text' and 'ids' (or make it an answer case)")
    _kind_fields(obj, kind, text is not None or given_ids is not None, request, source)
    _check_schema(obj, source)
    ids: tuple[int, ...] | None = None
    if kind in ("answer", "roundtrip"):
        encoded = _encode(text, source) if text is not None else None  # text is checked even where ids win
        ids = given_ids if given_ids is not None else encoded
    return Case(id=case_id, kind=kind, description=description, tags=tags, provenance=provenance, ids=ids, request=request, source=source,
                text=text, rules=rules, level=_level(obj, rules, kind, ids, source), shape=obj.get("shape"), then=tuple(obj.get("then") or ()),
                seeds=tuple(obj.get("seeds") or ()))


# --- the schema, the authority behind the checks above ------------------------------------

_validator: Any = None


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one case, as shipped in ``schema.json``."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _check_schema(obj: Mapping[str, Any], source: str) -> None:
    # jsonschema-rs (a base dependency, as for lint): the checks above give the readable
    # message; anything they let through that the schema refuses is said here, in its words.
    global _validator
    if _validator is None:
        import jsonschema_rs

        _validator = jsonschema_rs.validator_for(schema())
    errors = sorted(_validator.iter_errors(obj), key=lambda e: [str(p) for p in e.instance_path])
    if errors:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in errors[0].instance_path).lstrip(".") or "the case"
        raise SuiteError(source, f"{where} does not match schema.json: {errors[0].message}")


# --- files and folders ----------------------------------------------------------------------


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"field {key!r} is given twice")
        out[key] = value
    return out


def _loads(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)


def _file_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SuiteError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SuiteError(str(path), f"is not UTF-8 text (byte {exc.start})") from None


def read_cases(path: str | Path) -> list[Case]:
    """The cases of one ``.json`` file (one case) or ``.jsonl`` file (one case a line; blank lines are skipped)."""
    path = Path(path)
    text = _file_text(path)
    if path.suffix == ".json":
        try:
            obj = _loads(text)
        except json.JSONDecodeError as exc:
            raise SuiteError(str(path), f"bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        except ValueError as exc:
            raise SuiteError(str(path), f"bad JSON: {exc}") from None
        if isinstance(obj, list):
            raise SuiteError(str(path), "a .json file holds one case (an object), found an array; write one case a line in a .jsonl file")
        return [case_from_json(obj, str(path))]
    if path.suffix != ".jsonl":
        raise SuiteError(str(path), "is neither a .json file (one case) nor a .jsonl file (one case a line)")
    cases = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        source = f"{path}:{n}"
        try:
            obj = _loads(line)
        except json.JSONDecodeError as exc:
            raise SuiteError(source, f"bad JSON at column {exc.colno}: {exc.msg} (a .jsonl file holds one case a line)") from None
        except ValueError as exc:
            raise SuiteError(source, f"bad JSON: {exc}") from None
        cases.append(case_from_json(obj, source))
    return cases


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
        if not found:
            raise SuiteError(str(path), "holds no .json or .jsonl case file")
        return found
    if not path.exists():
        raise SuiteError(str(path), "no such file or folder")
    return [path]


def load_suite(paths: Sequence[str | Path] | str | Path | None = None) -> list[Case]:
    """Every case of ``paths``, in order; None reads the shipped suite (``harmony_viz/conformance/suite/``).

    A path is a folder (each ``*.json`` and ``*.jsonl`` in it, by name, not its subfolders), a
    ``.json`` file (one case) or a ``.jsonl`` file (one case a line). An id given twice across
    everything read is a SuiteError naming both places.
    """
    if paths is None:
        paths = [SUITE_DIR]
    elif isinstance(paths, (str, Path)):
        paths = [paths]
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for given in paths:
        for file in _files(Path(given)):
            for case in read_cases(file):
                if case.id in seen:
                    raise SuiteError(case.source, f"duplicate id {case.id!r} (first at {seen[case.id]})")
                seen[case.id] = case.source
                cases.append(case)
    return cases


def select(cases: Iterable[Case], pattern: str | Sequence[str]) -> list[Case]:
    """The cases whose id matches ``pattern`` (fnmatch, case-sensitive), or any of several patterns, in order.

    >>> from harmony_viz.conformance import load_suite
    >>> [c.id for c in select(load_suite(), "header/*-channel")][:2]
    ['header/capitalised-channel', 'header/doubled-channel']
    """
    patterns = [pattern] if isinstance(pattern, str) else list(pattern)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]
