"""The one reader: whatever a command or a notebook verb is handed, read the same way, and said.

``read(x)`` takes a path (``str`` or ``os.PathLike``) to Harmony text, token ids JSON, a
run, a capture, JSONL, Parquet or a Markdown trial; or, in memory, Harmony text (any other
``str``), token ids, a ``Run`` (or several), a conversation (``Conversation``, its JSON
dict, a list of messages), a Chat Completions request, or server-check results. A string
that names an existing file is read as that file; the content of a file or of standard
input decides its kind (``read_text``). The result is an :class:`Input` whose ``said`` line
states the form detected ("read req.json as a Chat Completions request"): the CLI prints
it on stderr, the verbs keep it on their result (``widget.source``).

What each command needs comes from the Input: ``stream()`` the token ids to scan or replay
(with the role and the prompt length when the input says them, and the capture or check
records a page builds its server tab from), ``runs()`` the run records, ``conversation()``
the conversation to render. Anything that cannot be read is an :class:`InputError`, a
ValueError whose message is one line naming the input and what was expected.

The reader only reads: it imports nothing above ``tokens``, ``findings``, ``render`` and
``scanner`` but the run records and run-file shapes below it (``harmony_viz._runfile``,
whose public face is ``harmony_viz.runs``). What a capture means for a page (its server
check, prompt check and diff) is built by the page (``harmony_viz._replay.server_tab``).

>>> inp = read({"messages": [{"role": "user", "content": "Hi"}]})
>>> inp.kind, inp.said
('chat', 'read the dict given as a Chat Completions request')
>>> read([200006, 1428, 200008, 12194, 200007]).stream().ids[:2]
(200006, 1428)
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harmony_viz._runfile import InputError, parse_jsonl_line

if TYPE_CHECKING:
    from harmony_viz._runfile import Run
    from harmony_viz.render import Conversation

__all__ = ["Input", "InputError", "Kind", "Stream", "bad_json", "conversation_form", "file_bytes", "file_text", "json_kind", "parse_jsonl_line", "read", "read_path", "read_text",
           "without_nulls"]

Kind = Literal["text", "ids", "runs", "conversation", "chat", "checks"]
Form = Literal["conversation", "chat"]

# Suffixes that say "this string is a file name", so a mistyped path is an error, not text.
_PATH_SUFFIXES = (".txt", ".json", ".jsonl", ".ndjson", ".md", ".parquet", ".gz", ".harmony")
# Read in batches (they may be large, or binary), as harmony_viz.scale reads them.
_BIG_SUFFIXES = (".parquet", ".jsonl.gz", ".json.gz", ".ndjson.gz")
_WHAT = ("Harmony text, a JSON array of token ids, a run file (.json, .jsonl, .parquet, a Markdown trial), "
         "a capture, conversation JSON or a Chat Completions request")
# What JSON may hold; Harmony text comes from a file that is not JSON.
_JSON_WHAT = ("a JSON array of token ids, a run or an array of runs, a capture, conversation JSON or a Chat Completions request "
              "({\"messages\": [...]}); Harmony text comes from a file that is not JSON")


# -- conversation JSON: Harmony's shape or a Chat Completions request ------------------------------

_HARMONY_KEYS = ("channel", "recipient", "content_type")
_HARMONY_PARTS = ("system_content", "developer_content")
_CHAT_KEYS = ("tool_calls", "tool_call_id", "reasoning", "reasoning_content", "thinking")


def conversation_form(data: Any) -> tuple[Form, str]:
    """``("conversation" | "chat", doubt)``: which JSON form ``{"messages": [...]}`` is, by its shape.

    Harmony JSON (openai-harmony's ``to_json``) when a message carries ``channel``,
    ``recipient`` or ``content_type``, or a ``system_content``/``developer_content`` part; a
    Chat Completions request when a message has string content, ``tool_calls``,
    ``tool_call_id``, ``reasoning``, ``reasoning_content`` or ``thinking``, or the body has
    ``tools`` of ``type: function``. Both or neither: a Chat Completions request, ``doubt``
    saying why (else it is empty), so the caller can say so.

    >>> conversation_form({"messages": [{"role": "user", "content": "Hi"}]})
    ('chat', '')
    >>> conversation_form({"messages": [{"role": "assistant", "channel": "final", "content": [{"type": "text", "text": "Hi"}]}]})
    ('conversation', '')
    >>> conversation_form({"messages": []})
    ('chat', 'nothing in it marks either form')
    """
    messages = data.get("messages") if isinstance(data, Mapping) else data
    messages = [m for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []
    harmony = chat = False
    for m in messages:
        parts = m.get("content")
        if any(k in m for k in _HARMONY_KEYS) or (isinstance(parts, list) and any(isinstance(p, Mapping) and p.get("type") in _HARMONY_PARTS for p in parts)):
            harmony = True
        if isinstance(parts, str) or any(k in m for k in _CHAT_KEYS):
            chat = True
    tools = data.get("tools") if isinstance(data, Mapping) else None
    if isinstance(tools, list) and any(isinstance(t, Mapping) and t.get("type") == "function" for t in tools):
        chat = True
    if harmony != chat:
        return ("conversation" if harmony else "chat"), ""
    return "chat", "it has marks of both forms" if harmony else "nothing in it marks either form"


# -- what was read --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stream:
    """A token stream ready to scan or replay.

    ``role`` is ``"assistant"`` for a completion that follows ``<|start|>assistant``;
    ``prompt_tokens`` is where the prompt ends when the input says so (a run's prompt ids),
    None when it must be read from the messages; ``text`` is the text as given (a scan of it
    counts characters); ``tools`` the tools a request or conversation declared; ``lens`` the
    record the stream came from when it is the server lens's (a capture run, server-check
    results, a prompt check), as read: a page builds its server tab from it
    (``harmony_viz._replay.server_tab``); ``label`` names a run picked from a file of several;
    ``run`` is the run the stream is, recorded or captured (its log-probs travel with a replay).
    """

    ids: tuple[int, ...]
    role: str | None = None
    prompt_tokens: int | None = None
    text: str | None = None
    tools: tuple[Any, ...] | None = None
    lens: Any = None
    label: str = ""
    run: Any = None

    @property
    def source(self) -> str | list[int]:
        """What a scanner is fed: the text as given, else the ids."""
        return self.text if self.text is not None else list(self.ids)


@dataclass(frozen=True, slots=True)
class Input:
    """One input, read: its ``kind``, the value, its ``name`` and the ``form`` detected.

    ``value`` is a ``str`` (text), a tuple of ints (ids), a tuple of ``Run`` (runs), a
    ``Conversation`` (conversation), a request dict (chat) or server-check results (checks).
    """

    kind: Kind
    value: Any
    name: str
    form: str
    note: str = ""
    path: Path | None = None

    @property
    def empty(self) -> bool:
        """True for a stream with no tokens: an empty file, an empty string, ``[]``, a file of no runs."""
        if self.kind == "text":
            return not self.value
        return self.kind in ("ids", "runs") and not self.value

    @property
    def run_count(self) -> int:
        """How many runs ``--run`` / ``run=`` may pick from: a file's runs; any other input is one run."""
        return max(len(self.value), 1) if self.kind == "runs" else 1

    def check_run(self, run: int | None) -> None:
        """InputError unless run number ``run`` (0-based, negative from the end; None: the first) is one this input holds."""
        if run is None:
            return
        n = self.run_count
        if not -n <= run < n:
            ends = "0" if n == 1 else f"0 to {n - 1}"
            back = "-1" if n == 1 else f"-{n} to -1"
            raise InputError(f"{self.name}: run {run} is out of range; it holds {n} run{'' if n == 1 else 's'}: {ends}, or {back} from the end", "bad-run")

    @property
    def said(self) -> str:
        """One line: what was read, as what."""
        return f"read {self.name} as {self.form}" + (f" ({self.note})" if self.note else "")

    def runs(self) -> list[Run]:
        """The input as run records (a stream is one run; a conversation is its rendered stream)."""
        from harmony_viz._runfile import Run, RunMetadata, run_from_text

        where = self.path or Path(self.name if self.name.isidentifier() else self.kind)
        stem = where.stem
        meta = RunMetadata(source=stem, extra={"path": str(self.path)} if self.path is not None else {})
        if self.kind == "runs":
            return list(self.value)
        if self.kind == "text":
            return [run_from_text(self.value, where)]
        if self.kind == "ids":
            return [Run(id=stem, metadata=meta, completion_token_ids=self.value)]
        if self.kind in ("conversation", "chat"):
            from harmony_viz.tokens import encoding

            # A rendered conversation is a whole transcript: text, so no prompt/completion split is claimed.
            return [Run(id=stem, metadata=meta, text=encoding().decode(list(self.stream().ids)))]
        raise InputError(f"{self.name}: server-check results are not runs; pass the captures or streams they came from")

    def stream(self, run: int | None = None) -> Stream:
        """The token stream; for several runs, run number ``run`` (0-based, negative from the end; default 0).

        Any input other than a file of runs is one run: ``run`` may be 0 or -1 only. An empty
        input (see :attr:`empty`) is a stream with no tokens.
        """
        from harmony_viz.tokens import encode

        self.check_run(run)
        if self.kind == "text":
            if not self.value:
                return Stream((), text="")
            return Stream(tuple(encode(self.value)), text=self.value)
        if self.kind == "ids":
            return Stream(self.value)
        if self.kind in ("conversation", "chat"):
            from harmony_viz.render import RenderError, render_conversation

            try:
                ids = render_conversation(self.conversation())
            except RenderError as exc:
                raise InputError(f"{self.name}: {exc}") from None
            tools = self.value.get("tools") if self.kind == "chat" else None
            return Stream(tuple(ids), tools=tuple(tools) if isinstance(tools, list) else None)
        if self.kind == "checks":
            return _checks_stream(self.value, self.name)
        if not self.value:
            return Stream(())  # a file of no runs (an empty JSONL file): nothing to scan
        return _run_stream(self.value, 0 if run is None else run)

    def conversation(self) -> Conversation:
        """The conversation to render (Harmony JSON or a Chat Completions request)."""
        from harmony_viz.render import RenderError, conversation_from_chat

        if self.kind == "conversation":
            return self.value
        if self.kind != "chat":
            raise InputError(f"{self.name}: {self.form}, not a conversation; give Harmony conversation JSON or a Chat Completions request")
        try:
            return conversation_from_chat(dict(self.value))
        except RenderError as exc:
            raise InputError(f"{self.name}: {exc}") from None
        except (TypeError, ValueError, AttributeError) as exc:  # a request of the wrong shape deep inside
            raise InputError(f"{self.name}: not a Chat Completions request ({exc})") from None


def _run_stream(runs: Sequence[Run], index: int) -> Stream:
    from harmony_viz._runfile import is_capture, run_stream

    chosen = runs[index]
    if chosen.load_error is not None:
        raise InputError(chosen.load_error)
    label = f"run {index % len(runs)} of {len(runs)} ({chosen.id})" if len(runs) > 1 else ""
    if is_capture(chosen):
        # The server's prompt (when kept) then its completion; what the server answered is the page's to check.
        prompt = list(chosen.prompt_token_ids)
        ids = (*prompt, *chosen.completion_token_ids)
        return Stream(ids, role=None if prompt else "assistant", prompt_tokens=len(prompt) or None, lens=chosen, label=label, run=chosen)
    ids, prompt, role = run_stream(chosen)
    return Stream(tuple(ids), role=role, prompt_tokens=prompt, label=label, run=chosen)


def _checks_stream(value: Any, name: str) -> Stream:
    """The stream that server-check results (one, or several of one stream) or a prompt check replay.

    A prompt check replays the server's prompt (ours when the server refused); check results
    replay the completion they checked, which follows ``<|start|>assistant``.
    """
    if type(value).__name__ == "PromptCheck":
        ids = value.server if value.server is not None else value.ours
        return Stream(tuple(ids), lens=value)
    results = list(value) if isinstance(value, (list, tuple)) else [value]
    ids = tuple(results[0].token_ids)
    if any(tuple(r.token_ids) != ids for r in results):
        raise InputError(f"{name}: these server-check results are for different streams; replay one stream's results at a time")
    return Stream(ids, role="assistant", lens=value)


# -- reading --------------------------------------------------------------------------------------


def read(source: Any, *, name: str | None = None, form: Form | None = None) -> Input:
    """Read ``source`` once; see the module's doc for the kinds. ``form`` forces how ``{"messages": …}`` JSON is read."""
    if isinstance(source, Input):
        return source
    if isinstance(source, os.PathLike):
        return read_path(source, form=form)
    if isinstance(source, str):
        if _names_file(source):
            return read_path(source, form=form)
        # Text in memory is Harmony text, whatever it looks like (model output may well be JSON).
        return Input("text", source, name or "the text given", _text_form(source))
    if isinstance(source, (bytes, bytearray)):
        raise InputError("bytes are not a token stream; decode them to Harmony text (str) first")
    return _read_object(source, name, form)


def _names_file(text: str) -> bool:
    """A one-line string naming a file: an existing one, or one with a file suffix (then it must exist)."""
    if not text or len(text) > 4096 or "\n" in text or "<|" in text or text != text.strip():
        return False
    try:
        if Path(text).is_file() or (os.sep in text and Path(text).is_dir()):
            return True
    except (OSError, ValueError):  # a name too long for the file system, a NUL: no file, so text
        return False
    if text.lower().endswith(_PATH_SUFFIXES) and " " not in text:
        raise InputError(f"{text}: no such file", "missing")
    return False


def read_path(path: str | os.PathLike[str], *, form: Form | None = None) -> Input:
    """Read the file at ``path``: its suffix, then its content, say what it holds."""
    p = Path(path)
    name = str(path)
    if p.is_dir():
        if (p / "state.json").is_file() or (p / "dataset_dict.json").is_file():
            return _big_runs(p, name, "dataset", "a saved dataset")
        raise InputError(f"{name}: is a folder, expected a file")
    if not p.exists():
        raise InputError(f"{name}: no such file", "missing")
    lower = p.name.lower()
    if lower.endswith(_BIG_SUFFIXES):
        parquet = lower.endswith(".parquet")
        return _big_runs(p, name, "parquet" if parquet else "jsonl.gz", "Parquet" if parquet else "gzipped JSONL")
    return read_text(file_text(p, name), name, path=p, form=form)


def file_bytes(p: Path, name: str) -> bytes:
    """The bytes of the file ``p`` (called ``name`` in messages), none changed; InputError in one line."""
    if p.is_dir():
        raise InputError(f"{name}: is a folder, expected a file")
    if not p.exists():
        raise InputError(f"{name}: no such file", "missing")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror})") from None


def file_text(p: Path, name: str) -> str:
    """The UTF-8 text of the file ``p`` (called ``name`` in messages); InputError in one line."""
    data = file_bytes(p, name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})", "not-utf8") from None


def bad_json(name: str, exc: json.JSONDecodeError) -> InputError:
    """The one wording for JSON that does not parse: its line and column."""
    return InputError(f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", "bad-json")


def read_text(text: str, name: str, *, path: Path | None = None, form: Form | None = None) -> Input:
    """Read ``text`` (a file's or standard input's content) named ``name``: its content decides the kind.

    A UTF-8 byte-order mark at the start is skipped: an editor's mark, no part of the stream.
    """
    text = text.removeprefix(BOM)
    try:
        return _read_text(text, name, path, form)
    except RecursionError:  # JSON nested past Python's recursion limit, met by json or by a shape's reader
        raise _too_deep(name) from None


BOM = "\ufeff"


def _too_deep(name: str) -> InputError:
    return InputError(f"{name}: JSON nested too deep to read (more levels than Python's recursion limit, {sys.getrecursionlimit()})", "bad-json")


def _read_text(text: str, name: str, path: Path | None, form: Form | None) -> Input:
    from harmony_viz._runfile import is_markdown_trial, runs_from_jsonl, runs_from_markdown

    where = path or Path(name if name and "/" not in name and " " not in name else "stdin")
    suffix = path.suffix.lower() if path is not None else ""
    if not text:  # an empty file, of any suffix, is a stream with no tokens
        return Input("text", text, name, "Harmony text (empty)", path=path)
    if suffix in (".jsonl", ".ndjson"):
        return _runs(runs_from_jsonl(text, where), name, "JSONL", path)
    if is_markdown_trial(text):
        return _runs(runs_from_markdown(text, where), name, "a Markdown trial", path)
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        if suffix == ".json" and stripped:
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                pass  # not JSON at all: Harmony text, whatever the file is called
            else:
                raise _no_known_shape(value, name)
        return Input("text", text, name, _text_form(text), path=path)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and _is_jsonl(text):
            return _runs(runs_from_jsonl(text, where), name, "JSONL", path)
        if suffix == ".json" or "<|" not in text:
            raise bad_json(name, exc) from None
        return Input("text", text, name, "Harmony text", path=path)  # Harmony text that starts with a bracket
    return _read_json(value, name, where, path, form)


def _is_jsonl(text: str) -> bool:
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines)


def _read_json(value: Any, name: str, where: Path, path: Path | None, form: Form | None) -> Input:
    from harmony_viz._runfile import is_capture, runs_from_json

    if isinstance(value, list) and not value:
        return Input("ids", (), name, "token ids (empty)", path=path)  # a server that stops at once returns exactly this
    if not isinstance(value, (list, Mapping)):
        raise _no_known_shape(value, name)
    if isinstance(value, list) and not all(isinstance(x, Mapping) for x in value):
        return Input("ids", _ids(value, name), name, "token ids", path=path)  # the id check names the first bad entry
    if _is_messages(value) or (isinstance(value, Mapping) and isinstance(value.get("messages"), list) and not _is_run_object(value)):
        return _conversation(value if isinstance(value, Mapping) else {"messages": value}, name, form, path)
    if form is not None:
        raise InputError(f"{name}: JSON without a 'messages' list; expected a conversation or a Chat Completions request")
    runs = runs_from_json(value, where)
    errors = [r.load_error for r in runs if r.load_error is not None]
    if isinstance(value, Mapping) and len(runs) == 1 and any(d.code == "load.unknown-shape" for d in runs[0].diagnostics):
        raise _no_known_shape(value, name)
    if isinstance(value, list) and runs and all(any(d.code == "load.unknown-shape" for d in r.diagnostics) for r in runs):
        raise InputError(f"{name}: a JSON array of objects of no known shape (the first is {json_kind(value[0])}); expected {_JSON_WHAT}", "unknown-shape")
    if runs and len(errors) == len(runs):
        raise InputError(errors[0])
    if len(runs) == 1 and is_capture(runs[0]):
        return Input("runs", tuple(runs), name, "a capture", path=path)
    return _runs(runs, name, "JSON", path)


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: ``JSON null``, ``a JSON string``, ``a JSON object with keys a, b``…

    >>> json_kind(None), json_kind("hi"), json_kind(2.5), json_kind(True), json_kind({"foo": 1}), json_kind({})
    ('JSON null', 'a JSON string', 'a JSON number', 'a JSON boolean', 'a JSON object with keys foo', 'an empty JSON object')
    """
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return "a JSON boolean"
    if isinstance(value, (int, float)):
        return "a JSON number"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, Mapping):
        keys = sorted(map(str, value))
        if not keys:
            return "an empty JSON object"
        return "a JSON object with keys " + ", ".join(keys[:8]) + (", …" if len(keys) > 8 else "")
    return "a JSON array"


def without_nulls(value: Any) -> Any:
    """A JSON value without its null fields, at every depth, as a client writes it: Parquet gives every struct
    field of a column to every row (null where the row had none), and a server's answer sends unset fields as null.

    >>> without_nulls({"a": None, "b": [{"c": None, "d": 1}], "e": 0})
    {'b': [{'d': 1}], 'e': 0}
    """
    if isinstance(value, Mapping):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def _no_known_shape(value: Any, name: str) -> InputError:
    return InputError(f"{name}: {json_kind(value)}, of no known shape; expected {_JSON_WHAT}", "unknown-shape")


def _is_messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(m, Mapping) and "role" in m for m in value)


def _is_run_object(value: Mapping[str, Any]) -> bool:
    # A run record may keep the request's messages beside its tokens or text.
    return any(k in value for k in ("prompt_token_ids", "completion_token_ids", "text", "prefill_text", "output_text", "completion"))


def _conversation(data: Mapping[str, Any], name: str, form: Form | None, path: Path | None) -> Input:
    doubt = ""
    if form is None:
        form, doubt = conversation_form(data)
    if form == "chat":
        note = f"{doubt}; --from harmony reads it as Harmony conversation JSON" if doubt else ""
        return Input("chat", dict(data), name, "a Chat Completions request", note=note, path=path)
    from harmony_viz.render import Conversation, RenderError

    try:
        conv = Conversation.from_dict(data)
    except RenderError as exc:
        raise InputError(f"{name}: {exc}") from None
    return Input("conversation", conv, name, "Harmony conversation JSON", path=path)


def _ids(value: Sequence[Any], name: str) -> tuple[int, ...]:
    from harmony_viz.tokens import check_ids

    try:
        return tuple(check_ids(value))
    except ValueError as exc:
        raise InputError(f"{name}: {exc}", "bad-token-ids") from None


def _runs(runs: Sequence[Run], name: str, container: str, path: Path | None) -> Input:
    count = f"{len(runs)} run" + ("" if len(runs) == 1 else "s")
    return Input("runs", tuple(runs), name, container, note=count, path=path)


def _big_runs(path: Path, name: str, kind: str, container: str) -> Input:
    from harmony_viz._runfile import read_big

    try:
        runs = read_big(str(path), kind)
    except InputError as exc:  # the batch reader names the file and what is wrong
        raise InputError(str(exc).replace(str(path), name, 1), exc.reason) from None
    except (ImportError, ValueError, OSError) as exc:
        raise InputError(f"{name}: {exc}") from None
    return _runs(runs, name, container, path)


def _read_object(source: Any, name: str | None, form: Form | None) -> Input:
    """In-memory values: ids, runs, conversations, requests, server-check results."""
    from harmony_viz._runfile import Run, is_capture
    from harmony_viz.render import Conversation, Message

    label = name or f"the {type(source).__name__} given"
    if isinstance(source, Run):
        return Input("runs", (source,), label, "a capture" if is_capture(source) else "a run")
    if isinstance(source, Conversation):
        return Input("conversation", source, label, "a Conversation")
    if isinstance(source, Sequence) and source and all(isinstance(m, Message) for m in source):
        return Input("conversation", Conversation(tuple(source)), label, "a list of Messages")
    if type(source).__name__ == "ndarray":
        if source.ndim != 1 or source.dtype.kind not in "iu":
            raise InputError(f"an array must be 1-D integer token ids, got {source.dtype} of shape {source.shape}")
        return Input("ids", _ids(source.tolist(), label), label, "token ids")
    if type(source).__name__ == "PromptCheck":
        return Input("checks", source, label, "a prompt check")
    if type(source).__name__ == "CheckResult" or (isinstance(source, (list, tuple)) and source and all(type(r).__name__ == "CheckResult" for r in source)):
        return Input("checks", source, label, "server-check results")
    if isinstance(source, Sequence) and source and all(isinstance(r, Run) for r in source):
        return _runs(source, label, "runs", None)
    if isinstance(source, Sequence) and not isinstance(source, str) and all(_is_int(t) for t in source):
        # empty too: a stream with no tokens (a live replay starts so)
        return Input("ids", _ids(list(source), label), label, "token ids" if source else "token ids (empty)")
    if isinstance(source, Mapping) or _is_messages(source):
        return _read_json(source, label, Path(label), None, form)
    if isinstance(source, Sequence) and source and all(isinstance(m, Mapping) for m in source):
        return _read_json(list(source), label, Path(label), None, form)
    raise InputError(f"cannot read a {type(source).__name__}; pass {_WHAT}, or a Run, token ids, a Conversation or server-check results")


def _text_form(text: str) -> str:
    return "Harmony text" if text.strip() else "Harmony text (empty)" if not text else "Harmony text (whitespace only)"


def _is_int(value: Any) -> bool:
    return hasattr(value, "__index__") and not isinstance(value, bool)
