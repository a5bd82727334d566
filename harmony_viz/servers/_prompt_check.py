"""``prompt-check``: the prompt a server fed the model for a request, against the prompt the Harmony format gives it.

The server's prompt comes from :func:`~harmony_viz.servers._prompt.server_prompt` (live) or
from a capture's ``prompt_token_ids`` (offline). Ours is our renderer's prompt for the same
request (≡ openai-harmony, for completion), with two facts taken from the server's prompt
since a request carries neither: its date line (whether there is one, and its value) and,
where the request is silent about the effort, the server's default effort. The two token
streams are compared by the template lens's engine (``templates.compare_renders``, the one
code table), the other side named ``server``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.templates import Difference, LensError, compare_renders, difference, read_side, render_ours

_DATE = re.compile(r"^Current date: (.+)$", re.MULTILINE)
_EFFORT = re.compile(r"^Reasoning: (low|medium|high)$", re.MULTILINE)


@dataclass(frozen=True)
class PromptCheck:
    """One request's check: where the prompt came from (``prompt_source``), both token streams and every difference.

    ``error`` is the server's refusal (then ``differences`` holds one ``request-rejected``).
    ``seconds`` is the time the server took to show its prompt (0 offline).
    """

    file: str
    engine: str | None
    prompt_source: str
    differences: tuple[Difference, ...]
    ours: tuple[int, ...] = ()
    server: tuple[int, ...] | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def identical(self) -> bool:
        return self.error is None and not self.differences

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.differences)

    def to_json(self) -> dict[str, Any]:
        """``{file, engine, prompt_source, identical, differences: [{code, severity, message, ours, server, where}], error}``."""
        return {"file": self.file, "engine": self.engine, "prompt_source": self.prompt_source, "identical": self.identical,
                "differences": [d.to_json() for d in self.differences], "error": self.error}


def request_kind(request: Mapping[str, Any]) -> str:
    """``chat`` for a Chat Completions body (messages), ``responses`` for a Responses body (input); LensError otherwise."""
    if isinstance(request, Mapping) and isinstance(request.get("messages"), list):
        return "chat"
    if isinstance(request, Mapping) and isinstance(request.get("input"), (list, str)):
        return "responses"
    raise LensError("expected a Chat Completions request (messages: [...]) or a Responses request (input: [...])")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def responses_of_chat(chat: Mapping[str, Any]) -> dict[str, Any]:
    """A Chat Completions request as Responses input, item by item, as the reference server reads it.

    System and developer text become ``instructions``; an assistant turn becomes its reasoning item
    (``content: [{"type": "reasoning_text"}]``, which the reference reads, not ``summary``), its
    message and its ``function_call`` items; a tool message becomes a ``function_call_output``.
    Tools are flattened, ``reasoning_effort`` is ``reasoning.effort``, ``response_format`` is ``text.format``.
    """
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for m in chat.get("messages") or []:
        role, text = m.get("role"), _text(m.get("content"))
        if role in ("system", "developer"):
            instructions.append(text)
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": m.get("tool_call_id") or "", "output": text})
        elif role == "assistant":
            thought = next((m[k] for k in ("reasoning", "reasoning_content", "thinking") if isinstance(m.get(k), str) and m[k]), None)
            if thought:
                items.append({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": thought}]})
            if text:
                items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                items.append({"type": "function_call", "call_id": call.get("id") or "", "name": fn.get("name") or "", "arguments": fn.get("arguments") or ""})
        else:
            items.append({"type": "message", "role": role or "user", "content": text})
    out: dict[str, Any] = {"input": items}
    if instructions:
        out["instructions"] = "\n".join(instructions)
    tools = [{"type": "function", "name": t["function"]["name"], "description": t["function"].get("description", ""),
              "parameters": t["function"].get("parameters") or {"type": "object", "properties": {}}}
             for t in chat.get("tools") or [] if t.get("type") == "function" and isinstance(t.get("function"), Mapping)]
    if tools:
        out["tools"] = tools
    if chat.get("reasoning_effort"):
        out["reasoning"] = {"effort": chat["reasoning_effort"]}
    if chat.get("response_format"):
        out["text"] = {"format": chat["response_format"]}
    return out


def chat_of_responses(body: Mapping[str, Any]) -> dict[str, Any]:
    """A Responses body as the Chat Completions request it stands for (instructions, input items, function tools, effort)."""
    messages: list[dict[str, Any]] = []
    if isinstance(body.get("instructions"), str):
        messages.append({"role": "developer", "content": body["instructions"]})
    items = body.get("input")
    items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items or [])
    reasoning: list[str] = []

    def assistant() -> dict[str, Any]:
        # reasoning, text and calls of one assistant turn go into one Chat message
        if not messages or messages[-1]["role"] != "assistant" or messages[-1].get("content") and not reasoning:
            messages.append({"role": "assistant", "content": None})
        msg = messages[-1]
        if reasoning:
            msg["reasoning"] = "".join(reasoning)
            reasoning.clear()
        return msg

    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise LensError(f"input[{i}]: expected an object, got {type(item).__name__}")
        kind = item.get("type", "message")
        if kind == "reasoning":
            parts = item.get("content") or item.get("summary") or []
            reasoning.append("".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping)))
        elif kind == "message" and item.get("role") == "assistant":
            assistant()["content"] = _text(item.get("content"))
        elif kind == "message":
            messages.append({"role": item.get("role", "user"), "content": _text(item.get("content"))})
        elif kind == "function_call":
            msg = assistant()
            msg.setdefault("tool_calls", []).append({"id": item.get("call_id"), "type": "function",
                                                     "function": {"name": item.get("name"), "arguments": item.get("arguments", "")}})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": item.get("output", "")})
        else:
            raise LensError(f"input[{i}]: item type {kind!r} cannot be rendered (message, reasoning, function_call, function_call_output)")
    out: dict[str, Any] = {"messages": messages}
    tools = [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters") if k in t}}
             for t in body.get("tools") or [] if isinstance(t, Mapping) and t.get("type") == "function"]
    if tools:
        out["tools"] = tools
    effort = (body.get("reasoning") or {}).get("effort") if isinstance(body.get("reasoning"), Mapping) else None
    if effort is not None:
        out["reasoning_effort"] = effort
    return out


def ours_for(request: Mapping[str, Any], server_ids: Sequence[int]) -> list[int]:
    """Our prompt for ``request``, dated as the server's prompt is, at the server's effort where the request names none."""
    chat = dict(request) if request_kind(request) == "chat" else chat_of_responses(request)
    system = next((m.body for m in read_side(server_ids).messages if m.author == "system"), "")
    date = _DATE.search(system)
    effort = _EFFORT.search(system)
    if chat.get("reasoning_effort") is None and effort is not None:
        chat["reasoning_effort"] = effort.group(1)
    return render_ours(chat, date=date.group(1) if date else None, for_completion=True)


def compare_prompt(request: Mapping[str, Any], server_ids: Sequence[int]) -> tuple[list[int], tuple[Difference, ...]]:
    """Our prompt for ``request`` and every difference from the server's ``server_ids``."""
    ours = ours_for(request, server_ids)
    return ours, compare_renders(ours, server_ids, side="server").differences


def request_rejected(error: str) -> Difference:
    """The finding for a server that refused a valid request: its text kept."""
    return difference("request-rejected", f"the server refused the request: {error.splitlines()[0][:200] if error else ''}", "", error, side="server")


def prompt_check(request: Mapping[str, Any], *, base_url: str | None = None, prompt_ids: Sequence[int] | None = None,
                 engine: str | None = None, model: str | None = None, file: str = "", prompt_source: str = "given prompt ids") -> PromptCheck:
    """Check the prompt a server renders for ``request`` (live at ``base_url``), or the ``prompt_ids`` it fed the model (offline).

    Raises LensError (bad request), ServerError (unreachable) or PromptUnavailable (no way to see the prompt), each one line.
    """
    from harmony_viz.servers._prompt import server_prompt

    kind = request_kind(request)
    if kind == "chat":
        render_ours(request, date=None, for_completion=True)  # a request we cannot render is bad input, before asking any server
    seconds = 0.0
    if prompt_ids is None:
        if base_url is None:
            raise LensError("no prompt to check: give a server (base_url) or the prompt ids it fed the model")
        got = server_prompt(base_url, dict(request), engine=engine, kind=kind, model=model)
        if got.ids is None:
            return PromptCheck(file, engine, got.source, (request_rejected(got.error or ""),), error=got.error, seconds=got.seconds)
        prompt_ids, prompt_source, seconds = got.ids, got.source, got.seconds
    ours, diffs = compare_prompt(request, prompt_ids)
    return PromptCheck(file, engine, prompt_source, diffs, tuple(ours), tuple(prompt_ids), seconds=seconds)


def read_prompt_input(path: str) -> tuple[dict[str, Any], Any]:
    """``(request, capture run or None)`` from a REQUEST.json (Chat Completions or Responses body) or a CAPTURE.json; LensError in one line."""
    from harmony_viz.servers._capture import load_capture
    from harmony_viz.servers._check import CheckInputError, read_json

    try:
        body = read_json(path)
    except CheckInputError as exc:
        raise LensError(str(exc)) from None
    if isinstance(body, dict) and ("messages" in body or "input" in body):
        request_kind(body)
        return body, None
    try:
        run = load_capture(path)
    except ValueError:
        raise LensError(f"{path}: neither a request body (messages or input) nor a capture") from None
    request = run.metadata.extra["server"].get("request") or {}
    return request, run


def capture_prompt_check(run: Any, name: str) -> PromptCheck | None:
    """The prompt check of a capture run, offline from the prompt ids it kept (None when it kept none)."""
    if not run.prompt_token_ids:
        return None
    server = run.metadata.extra["server"]
    return prompt_check(server.get("request") or {}, prompt_ids=run.prompt_token_ids, engine=server.get("engine"), file=name,
                        prompt_source=f"capture of {server.get('base_url')}: {server.get('prompt_source') or 'prompt_token_ids'}")


def _turn_prompt(turn: Mapping[str, Any]) -> list[int] | None:
    ids = next((c["prompt_token_ids"] for c in turn.get("chunks") or [] if isinstance(c.get("prompt_token_ids"), list)), None)
    return list(ids) if ids is not None else None


def turn_checks(run: Any, name: str = "") -> list[PromptCheck]:
    """A tool loop recorded through a server (``record --server``), turn by turn.

    The prompt the server fed the model at turn k+1 must carry turn k exactly as the model wrote
    it (its analysis, its call with ``<|constrain|>``) followed by the tool results: ours is turn
    k's prompt, the model's tokens of turn k, and what the server put after the last call (the
    tool results and ``<|start|>assistant``); the server's is the prompt it returned.
    """
    from harmony_viz.servers._answer import answer_of
    from harmony_viz.tokens import CALL

    turns = (run.metadata.extra or {}).get("server_turns") or []
    out = []
    for k in range(1, len(turns)):
        before, seen = _turn_prompt(turns[k - 1]), _turn_prompt(turns[k])
        wrote = answer_of("chat-stream", turns[k - 1].get("chunks") or []).token_ids
        if before is None or seen is None or wrote is None:
            continue  # a server that returned no ids: nothing to hold the prompt against
        have = before + list(wrote)
        calls = [i for i, t in enumerate(seen) if t == CALL and i >= len(before)]
        ours = have + seen[calls[-1] + 1:] if calls else have + seen[len(have):]
        diffs = compare_renders(ours, seen, side="server").differences
        engine = turns[k].get("engine")
        out.append(PromptCheck(f"{name or run.id} turn {k + 1}", engine, "prompt_token_ids of a recorded turn", diffs, tuple(ours), tuple(seen)))
    return out


def check_path(path: str, *, base_url: str | None = None, engine: str | None = None, model: str | None = None) -> list[PromptCheck]:
    """prompt-check for one file: a request, a capture, or runs recorded through a server (one check per later turn)."""
    try:
        return [check_file(path, base_url=base_url, engine=engine, model=model)]
    except LensError as exc:
        if "neither a request body" not in str(exc):
            raise
        from harmony_viz.runs import load_runs

        try:
            runs = [r for r in load_runs(path) if (r.metadata.extra or {}).get("server_turns")]
        except (OSError, ValueError):
            runs = []
        if not runs:
            raise LensError(f"{path}: neither a request body (messages or input), a capture, nor runs recorded through a server (record --server)") from None
        return [c for r in runs for c in turn_checks(r, f"{path} {r.id}")]


def check_file(path: str, *, base_url: str | None = None, engine: str | None = None, model: str | None = None) -> PromptCheck:
    """prompt-check for one file: a request (live, needs ``base_url``) or a capture (offline from its prompt ids, else live)."""
    request, run = read_prompt_input(path)
    if run is not None:
        checked = capture_prompt_check(run, path)
        if checked is not None:
            return checked
        if base_url is None:
            from harmony_viz.servers._prompt import PromptUnavailable

            raise PromptUnavailable(f"{path}: the capture holds no prompt ids (its server returned none); give --base-url to ask a server")
    if base_url is None:
        raise LensError(f"{path}: a request needs --base-url (the server whose prompt is checked)")
    from harmony_viz.servers.engines import detect_engine

    engine = engine or detect_engine(base_url)
    return prompt_check(request, base_url=base_url, engine=engine, model=model, file=path)

