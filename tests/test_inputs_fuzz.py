"""The one reader fuzzed over file kinds (issue 32 item 3): whatever a file holds, reading it is the reader's one-line error or a result.

Files of each kind the reader knows (Harmony text, token-id JSON, JSONL, gzipped JSONL,
Parquet, Markdown trials) are made by hypothesis, then broken the ways files break: cut
short, a byte changed, a byte-order mark in front, NUL bytes inside, nested past Python's
recursion limit, under the wrong suffix. Reading one, and then everything a command asks of
what was read (the stream of every run, the runs, the conversation), raises nothing but
``InputError``, whose message is one line that names the file.
"""

from __future__ import annotations

import gzip
import io
import json
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harmony_viz.inputs import InputError, read, read_text

# -- what files hold ---------------------------------------------------------------------------

SPELLINGS = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>", "<|endoftext|>", "<|reserved_200013|>"]
words = st.sampled_from(["user", "assistant", "system", "tool", "analysis", "final", "commentary", " to=functions.f", "json", "Hi", "{", "}", "[", "]", '"', "\n", "\r\n", "\ufeff", "\x00", "é"])
harmony_text = st.lists(st.one_of(st.sampled_from(SPELLINGS), words, st.text(max_size=6)), max_size=30).map("".join)
token_id = st.one_of(st.integers(0, 201087), st.sampled_from([200006, 200008, 200007, 200002, 200012, 199999]), st.integers(-3, 300000))
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=False, allow_infinity=False), harmony_text)
ids_value = st.one_of(st.lists(token_id, max_size=40), st.lists(st.one_of(token_id, json_scalar), max_size=10))
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "developer", "tool", "robot", ""])},
        optional={"content": st.one_of(harmony_text, st.lists(st.fixed_dictionaries({"type": st.sampled_from(["text", "image"]), "text": harmony_text}), max_size=2), st.none()),
                  "channel": st.sampled_from(["analysis", "final", "commentary", "x"]), "recipient": st.sampled_from(["functions.f", "user"]),
                  "tool_calls": st.lists(st.fixed_dictionaries({"id": st.text(max_size=4), "type": st.just("function"), "function": st.fixed_dictionaries({"name": st.text(max_size=4), "arguments": harmony_text})}), max_size=2),
                  "reasoning_content": harmony_text, "tool_call_id": st.text(max_size=4)},
    ),
    max_size=4,
)
run_object = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.text(max_size=6), st.integers()),
        "metadata": st.one_of(st.dictionaries(st.sampled_from(["source", "model", "reasoning_effort", "x"]), json_scalar, max_size=3), json_scalar),
        "text": st.one_of(harmony_text, json_scalar),
        "prompt_token_ids": ids_value,
        "completion_token_ids": ids_value,
        "token_times": st.lists(st.floats(0, 1), max_size=5),
        "logprobs": st.one_of(st.lists(st.floats(-5, 0), max_size=5), json_scalar),
        "output_text": harmony_text,
        "prompt": harmony_text,
        "completion": harmony_text,
        "source": json_scalar,
        "messages": messages,
        "harmony_response_walkthroughs": st.lists(harmony_text, max_size=2),
    },
)
json_value = st.one_of(ids_value, run_object, st.lists(run_object, max_size=3), st.fixed_dictionaries({"messages": messages}), messages, json_scalar)


def deep(value: str, depth: int) -> str:
    return "[" * depth + value + "]" * depth


def _jsonl(lines: list[object]) -> bytes:
    return "\n".join(json.dumps(x, ensure_ascii=False) if not isinstance(x, str) else x for x in lines).encode("utf-8", "surrogatepass")


jsonl_lines = st.lists(st.one_of(run_object, st.just(deep("1", 5000)), st.text(max_size=10)), max_size=5)


def _parquet(rows: list[dict[str, object]]) -> bytes:
    buf = io.BytesIO()
    columns = {"text": [r.get("text") if isinstance(r.get("text"), str) else None for r in rows],
               "completion_token_ids": [[t for t in r.get("completion_token_ids", []) if type(t) is int and 0 <= t < 2**31] if isinstance(r.get("completion_token_ids"), list) else None for r in rows]}
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def _markdown(blocks: list[str]) -> bytes:
    return "".join(f"### Turn {i + 1}\n\n```text\n{b}\n```\n\n" for i, b in enumerate(blocks)).encode("utf-8", "surrogatepass")


files = st.one_of(
    st.tuples(st.just(".txt"), harmony_text.map(lambda t: t.encode("utf-8", "surrogatepass"))),
    st.tuples(st.sampled_from([".json", ".txt"]), json_value.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass"))),
    st.tuples(st.sampled_from([".json", ".jsonl"]), st.sampled_from([900, 1100, 100_000]).map(lambda d: deep("200006", d).encode())),
    st.tuples(st.sampled_from([".json", ".jsonl"]), st.sampled_from([900, 1100, 100_000]).map(lambda d: ('{"text": ' * d + '"x"' + "}" * d).encode())),
    st.tuples(st.sampled_from([".jsonl", ".ndjson"]), jsonl_lines.map(_jsonl)),
    st.tuples(st.sampled_from([".jsonl.gz", ".json.gz"]), jsonl_lines.map(lambda lines: gzip.compress(_jsonl(lines)))),
    st.tuples(st.just(".parquet"), st.lists(run_object, max_size=4).map(_parquet)),
    st.tuples(st.sampled_from([".md", ".txt"]), st.lists(harmony_text, min_size=1, max_size=3).map(_markdown)),
    st.tuples(st.sampled_from([".txt", ".json", ".jsonl", ".jsonl.gz", ".parquet", ".md"]), st.binary(max_size=64)),
)


@st.composite
def broken_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A file of some kind, then broken the ways files break (or left whole)."""
    suffix, data = draw(files)
    how = draw(st.sampled_from(["whole", "cut", "byte", "bom", "nul", "suffix"]))
    if how == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif how == "byte" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
    elif how == "bom":
        data = b"\xef\xbb\xbf" + data
    elif how == "nul":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\x00" + data[at:]
    elif how == "suffix":
        suffix = draw(st.sampled_from([".txt", ".json", ".jsonl", ".jsonl.gz", ".parquet", ".md", ".harmony", ""]))
    return suffix, data


def everything_a_command_asks(found) -> None:  # noqa: ANN001
    """What parse, lint, html, render and stats ask of what was read."""
    for run in range(found.run_count):
        found.stream(run)
    if found.kind != "checks":
        found.runs()
    if found.kind in ("conversation", "chat"):
        found.conversation()


def _read_file(suffix: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            everything_a_command_asks(read(path))
        except InputError as exc:
            message = str(exc)
            assert "\n" not in message and message, message
            assert str(path) in message or path.stem in message, message
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return
        try:  # the same content from standard input
            everything_a_command_asks(read_text(text, "standard input"))
        except InputError as exc:
            assert "\n" not in str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(broken_files())
def test_reading_any_file_is_a_result_or_the_readers_one_line_error(file: tuple[str, bytes]) -> None:
    _read_file(*file)


def test_the_kinds_the_issue_names_are_each_one_line(tmp_path: Path) -> None:
    """issue 32: deeply nested JSON, truncated and corrupt gzip and Parquet: InputError naming the file and what is wrong."""
    good = _jsonl([{"id": f"r{i}", "text": "<|start|>assistant<|channel|>final<|message|>Hi<|return|>"} for i in range(40)])
    table = _parquet([{"text": "<|start|>user<|message|>Hi<|end|>"}] * 50)
    cases = {
        "deep.json": (deep("200006", 100_000).encode(), "JSON nested too deep to read"),
        "deep-object.json": (('{"a": ' * 100_000 + "1" + "}" * 100_000).encode(), "JSON nested too deep to read"),
        "cut.jsonl.gz": (gzip.compress(good)[:-30], "truncated gzip"),
        "corrupt.jsonl.gz": (gzip.compress(good)[:12] + b"\xff" * 40, "corrupt gzip data"),
        "plain.jsonl.gz": (good, "not a gzip file"),
        "cut.parquet": (table[: len(table) // 2], "not a readable Parquet file, truncated or corrupt"),
        "corrupt.parquet": (b"PAR1" + b"\x07" * 64 + b"PAR1", "not a readable Parquet file, truncated or corrupt"),
    }
    for name, (data, what) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        try:
            everything_a_command_asks(read(path))
        except InputError as exc:
            assert str(exc).startswith(f"{path}: {what}") and "\n" not in str(exc), str(exc)
        else:
            raise AssertionError(f"{name} was read")


def test_a_byte_order_mark_is_skipped_with_no_finding(tmp_path: Path) -> None:
    from harmony_viz.scanner import scan

    text = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    for name, body in (("bom.txt", text), ("bom.json", json.dumps([200006, 1428, 200008, 12194, 200007]))):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + body.encode())
        found = read(path)
        plain = read_text(body, name)
        assert (found.kind, found.value) == (plain.kind, plain.value)
    found = read(tmp_path / "bom.txt")
    assert found.value == text and "\ufeff" not in found.stream().text
    assert scan(found.stream().source).diagnostics == scan(text).diagnostics
    assert read_text("\ufeff" + text, "standard input").value == text


def test_nul_bytes_are_text() -> None:
    found = read_text("<|start|>user<|message|>a\x00b<|end|>", "standard input")
    assert found.kind == "text" and "\x00" in found.stream().text


def test_a_string_too_long_for_a_file_name_is_text() -> None:
    assert read("a" * 300).kind == "text"
