"""Our streams have the shapes real servers send (issue 36): fields and JSON kinds, event type by event type.

Held against the shipped captures (``harmony_viz/data/server_lens/captures``) of vLLM 0.32
(``chat-stream``, ``responses-stream``) and of OpenAI's gpt-oss reference server
(``responses-stream``). Each captured chunk or event is read into its fields, nested ones by
path, each with the kinds of JSON value it held (null, boolean, number, string, object, array),
and grouped by event type (with the item's or part's type for events that carry one; for Chat,
the chunks that carry choices and the usage chunk). An array's elements are read at ``path[]``,
or at ``path[TYPE]`` when they say their type (``response.output[message].content[output_text].text``).
Our projection of the same tokens with the same request tools is read alike (Chat with
``reasoning_field="reasoning"``, as vLLM 0.32 names it). Every field one side has and the other
has not, every field whose kinds differ and every event type the server sends that we never do
must be named below with the reason, and every named difference must still be there. An event
type our stream of the captured tokens lacks is looked for in streams that make it
(:data:`COVERING`): the zoo's tokens do not make every kind of call in our projection.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import harmony_viz
from harmony_viz.projections import chat_completion_chunks, response_events
from harmony_viz.scanner import Scanner
from harmony_viz.tokens import encode

CAPTURES = Path(harmony_viz.__file__).parent / "data" / "server_lens" / "captures"
APIS = {"vllm": ("chat-stream", "responses-stream"), "gpt-oss": ("responses-stream",)}
# The subtrees that are a request's data, not the server's shape: a tool's JSON schema.
OPAQUE = ("response.tools[function].parameters",)
# Streams whose projection makes calls the captured tokens do not make in ours (vLLM's MCP call
# there is a doubled header we read as reasoning): an MCP call, cut off or finished.
COVERING = [
    '<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant<|channel|>commentary to=crm.lookup<|message|>{"id": 7}<|call|>',
]

Shapes = dict[str, dict[str, set[str]]]  # event key -> field path -> kinds

# Why each named difference is there.
PYTHON = ("vLLM makes a python call a code_interpreter_call; the projection keeps builtin calls (python, container) as reasoning "
          "by the one visibility rule, a difference the server lens reports")
ECHO = ("a projection has no request: the request's parameters a server echoes (optional in the SDK's Response) are left out, "
        "and temperature and top_p are null, which the SDK reads as the defaults")
VLLM_OWN = ("vLLM's own extension, not in the SDK's types (input_messages and output_messages: asked for by the capture's "
            "enable_response_messages)")
VLLM_NULL = ("an optional field vLLM writes as null and the reference server leaves out; we leave it out too (the SDK reads "
             "absent and null alike)")
VLLM_LOGPROBS = ("vLLM writes logprobs [] while it streams a part and null once the part is done; we write [] from first to "
                 "last (no logprobs were asked for)")
VLLM_SLIP = "vLLM copies the event's own output_index and sequence_number (-1) into the item; not item fields in the SDK's types"
VLLM_MCP = ("vLLM reads the doubled header `commentary to=assistant<|channel|>analysis` as an MCP call to 'assistant'; we read "
            "it as reasoning (the visibility rule). Our MCP items are held to vLLM's in output_item.added and .done (COVERING)")
REASONING_NULL = ("vLLM announces a reasoning item with content null, the reference server with []: we send [], the type the "
                  "item ends with, so a client appends its part to it as it does for a message")
REF_PART = ("the reference server's own part: annotations null and a status the SDK's ResponseOutputText has not; we send the "
            "SDK's part, as vLLM does")
REF_STATUS = "the reference server gives a message a null status and a reasoning item none; we follow vLLM"
TOKEN_IDS = "vLLM's return_token_ids extension (prompt and chunk ids), asked for by the capture to learn the ids"

R = "responses-stream"
# (engine, api, event key, field path, why); "*" in a key or path stands for any run of characters, "" for the whole event.
NAMED: list[tuple[str, str, str, str, str]] = [
    # vLLM 0.32, Responses
    ("vllm", R, "response.code_interpreter_call*", "", PYTHON),
    ("vllm", R, "response.output_item.* code_interpreter_call", "", PYTHON),
    *(("vllm", R, "response.*", f"response.{f}", ECHO) for f in (
        "background", "frequency_penalty", "presence_penalty", "max_output_tokens", "max_tool_calls", "previous_response_id",
        "prompt", "reasoning", "service_tier", "text", "top_logprobs", "truncation", "user", "temperature", "top_p")),
    *(("vllm", R, "response.*", f"response.{f}", VLLM_OWN) for f in (
        "kv_transfer_params", "ec_transfer_params", "input_messages*", "output_messages*", "usage.*_per_turn*",
        "usage.output_tokens_details.tool_output_tokens")),
    ("vllm", R, "response.*", "response.error", "vLLM leaves error out; the SDK's Response has it and the reference server sends null, as we do"),
    ("vllm", R, "response.*", "response.metadata", "vLLM sends null, the reference server {}: we follow the reference server"),
    ("vllm", R, "response.completed", "response.incomplete_details*", "vLLM closes a cut-off response with response.completed "
     "(status incomplete); we send response.incomplete, the SDK's ResponseIncompleteEvent, as the API does"),
    ("vllm", R, "response.completed", "response.output[mcp_call]*", VLLM_MCP),
    ("vllm", R, "response.completed", "response.output[reasoning].status", "vLLM leaves a finished reasoning item's status null "
     "in the closing response, though its own output_item.done says completed, as ours do"),
    *(("vllm", R, key, path, VLLM_NULL) for key, path in (
        ("response.*", "response.output[message].phase"), ("response.output_item.* message", "item.phase"),
        ("response.*", "response.output[reasoning].encrypted_content"), ("response.output_item.* reasoning", "item.encrypted_content"),
        ("response.*", "response.output[function_call].async"), ("response.output_item.* function_call", "item.async"),
        ("response.*", "response.output[function_call].caller"), ("response.output_item.* function_call", "item.caller"),
        ("response.*", "response.output[function_call].namespace"), ("response.output_item.* function_call", "item.namespace"),
        ("response.output_item.* mcp_call", "item.approval_request_id"), ("response.*", "response.tools[function].allowed_callers"),
        ("response.*", "response.tools[function].async"), ("response.*", "response.tools[function].defer_loading"),
        ("response.*", "response.tools[function].output_schema"))),
    ("vllm", R, "response.content_part.done output_text", "part.logprobs", VLLM_LOGPROBS),
    ("vllm", R, "response.output_item.done message", "item.content[output_text].logprobs", VLLM_LOGPROBS),
    ("vllm", R, "response.completed", "response.output[message].content[output_text].logprobs", VLLM_LOGPROBS),
    ("vllm", R, "response.output_item.done function_call", "item.output_index", VLLM_SLIP),
    ("vllm", R, "response.output_item.done function_call", "item.sequence_number", VLLM_SLIP),
    ("vllm", R, "response.output_item.added reasoning", "item.content", REASONING_NULL),
    # the gpt-oss reference server, Responses
    *(("gpt-oss", R, "response.*", f"response.{f}", ECHO) for f in (
        "background", "max_output_tokens", "max_tool_calls", "previous_response_id", "text*", "temperature", "top_p")),
    ("gpt-oss", R, "response.*", "response.tools*", "the reference server echoes no tools; we echo the request's, as vLLM does"),
    ("gpt-oss", R, "response.completed", "response.usage.*_details*", "the reference server counts no token details; we send "
     "vLLM's (the reasoning tokens are what the server lens checks)"),
    ("gpt-oss", R, "response.content_part.* output_text", "part.annotations", REF_PART),
    ("gpt-oss", R, "response.content_part.* output_text", "part.status", REF_PART),
    ("gpt-oss", R, "response.output_item.done message", "item.content[output_text].status", REF_PART),
    ("gpt-oss", R, "response.completed", "response.output[message].content[output_text].status", REF_PART),
    ("gpt-oss", R, "response.content_part.* output_text", "part.logprobs", "the reference server leaves logprobs out; vLLM and we send []"),
    ("gpt-oss", R, "response.output_item.done message", "item.content[output_text].logprobs", "the same: no logprobs"),
    ("gpt-oss", R, "response.completed", "response.output[message].content[output_text].logprobs", "the same: no logprobs"),
    ("gpt-oss", R, "response.output_item.* message", "item.status", REF_STATUS),
    ("gpt-oss", R, "response.output_item.* reasoning", "item.status", REF_STATUS),
    ("gpt-oss", R, "response.completed", "response.output[reasoning].status", REF_STATUS),
    # vLLM 0.32, Chat Completions
    ("vllm", "chat-stream", "chunk", "prompt_*", TOKEN_IDS),
    ("vllm", "chat-stream", "chunk", "choices[].token_ids*", TOKEN_IDS),
    ("vllm", "chat-stream", "chunk", "choices[].stop_reason", "vLLM's own field: the stop token's id"),
    ("vllm", "chat-stream", "usage chunk", "system_fingerprint", "optional in the SDK's type; a projection has no system to fingerprint"),
]


def kind(value: Any) -> str:
    """A JSON value's kind (JSON has one number type: 0 and 0.0 are alike)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array"


def read_shape(obj: dict[str, Any], into: dict[str, set[str]], prefix: str = "") -> None:
    """Each field of ``obj`` by path, with the kinds its values had (an array's elements at ``path[]``)."""
    for name, value in obj.items():
        path = prefix + name
        into[path].add(kind(value))
        if path in OPAQUE:
            continue
        if isinstance(value, dict):
            read_shape(value, into, path + ".")
        elif isinstance(value, list):
            for element in value:
                if isinstance(element, dict):
                    # an element that says its type (an output item, a content part, a tool) is compared with its own kind
                    typed = element.get("type") if isinstance(element.get("type"), str) else ""
                    read_shape(element, into, f"{path}[{typed}].")
                else:
                    into[path + "[]"].add(kind(element))


def event_key(obj: dict[str, Any]) -> str:
    """A Responses event's type (with its item's or part's type), or which Chat chunk."""
    if "type" not in obj:
        return "chunk" if obj["choices"] else "usage chunk"
    for carried in ("item", "part"):
        if isinstance(obj.get(carried), dict):
            return f"{obj['type']} {obj[carried]['type']}"
    return str(obj["type"])


def _ours(api: str, ids: list[int], tools: Any) -> list[dict[str, Any]]:
    scanner = Scanner(role="assistant")
    steps = [scanner.feed([t]) for t in ids]  # a token a step, as the servers stream
    steps.append(scanner.flush())
    if api == "chat-stream":
        return chat_completion_chunks(steps, tools=tools, reasoning_field="reasoning")
    return response_events(steps, tools=tools)


def shapes(engine: str, api: str) -> tuple[Shapes, Shapes, int]:
    """(the server's shapes, ours, how many captures) over the engine's captures of ``api``."""
    theirs: Shapes = defaultdict(lambda: defaultdict(set))
    ours: Shapes = defaultdict(lambda: defaultdict(set))
    paths = sorted(CAPTURES.glob(f"{engine}/*.{api}.json"))
    for path in paths:
        capture = json.loads(path.read_text(encoding="utf-8"))
        server = capture["metadata"]["server"]
        for obj in server["chunks"] or ():
            read_shape(obj, theirs[event_key(obj)])
        for obj in _ours(api, capture["completion_token_ids"], server["request"].get("tools")):
            read_shape(obj, ours[event_key(obj)])
    missing = set(theirs) - set(ours)
    for text in COVERING:
        for obj in _ours(api, encode(text), None):
            if event_key(obj) in missing:
                read_shape(obj, ours[event_key(obj)])
    return theirs, ours, len(paths)


def differences(theirs: Shapes, ours: Shapes) -> list[tuple[str, str, str]]:
    """(event key, field path, what differs) for every event type the server sends."""
    out = []
    for key, fields in theirs.items():
        if key not in ours:
            out.append((key, "", "we never send it"))
            continue
        for path in sorted(set(fields) | set(ours[key])):
            a, b = sorted(fields.get(path, ())), sorted(ours[key].get(path, ()))
            if a != b:
                out.append((key, path, f"server {a or 'absent'}, ours {b or 'absent'}"))
    return out


def _matches(pattern: str, text: str) -> bool:
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), text) is not None


def test_our_streams_have_the_shapes_vllm_and_the_reference_server_send() -> None:
    used: set[int] = set()
    unnamed = []
    compared = 0
    for engine, apis in APIS.items():
        for api in apis:
            theirs, ours, n = shapes(engine, api)
            assert n >= 10, (engine, api)
            compared += sum(len(fields) for fields in theirs.values())
            for key, path, what in differences(theirs, ours):
                hits = [i for i, (e, a, k, p, _) in enumerate(NAMED) if (e, a) == (engine, api) and _matches(k, key) and _matches(p, path)]
                used.update(hits)
                if not hits:
                    unnamed.append(f"{engine} {api} {key} :: {path or '(the event)'}: {what}")
    stale = [f"{e} {a} {k} :: {p}" for i, (e, a, k, p, _) in enumerate(NAMED) if i not in used]
    assert compared > 300
    assert not unnamed, "differences no one named:\n" + "\n".join(unnamed)
    assert not stale, "named differences that are gone:\n" + "\n".join(stale)


def test_an_item_announced_with_its_part_is_a_difference() -> None:
    """The test above sees the defect it was written for: a message announced with its part in it."""
    theirs, ours, _ = shapes("vllm", "responses-stream")
    path = "item.content[output_text].text"
    ours["response.output_item.added message"][path].add("string")
    assert ("response.output_item.added message", path, "server absent, ours ['string']") in differences(theirs, ours)
    assert not any(_matches(k, "response.output_item.added message") and _matches(p, path) for _, _, k, p, _ in NAMED)
