"""Render and parse with oss-harmony 0.0.11 (the fork of openai-harmony that vLLM's Rust path uses).

Run with the fork's own venv (``.venv-oss-harmony/bin/python tests/_fork.py``): the fork has
openai-harmony's import name, so it cannot live beside 0.0.8. Standard library and
``openai_harmony`` only; never harmony_viz. One JSON request a line on stdin, one JSON answer a
line on stdout, in order, so one process serves a whole batch:

    {"op": "render", "conversation": {...}, "next": "assistant" | null, "config": {...}, "mode": ...}
        -> {"ids": [...]} | {"error": "..."}
        ``conversation`` is openai_harmony's Conversation JSON (``Conversation.to_json()``);
        ``mode`` is "conversation" (the default), "completion" (``next`` is the role to render
        for, "assistant" by default) or "training"; a ``next`` given without ``mode`` means
        "completion". ``config`` is RenderConversationConfig's fields (auto_drop_analysis, True
        by default).
    {"op": "parse", "ids": [...], "role": "assistant" | null}
        -> {"messages": [...], "stream": S} | {"error": "...", "stream": S}
        ``messages``: ``parse_messages_from_completion_tokens(ids, role, strict=True)`` as JSON;
        S: the same tokens fed one by one to a strict StreamableParser, then ``process_eos``:
        {"messages": [...], "state": {...}, "error": "..." | null, "at": index | null}, where
        ``at`` is the token (len(ids) for the end of stream) that raised and the messages and
        state are those the parser held then.
    {"op": "version"} -> {"dists": {"oss-harmony": "0.0.11"}, "python": "3.12.x"}

Anything else (a bad request) answers {"error": "..."} and the loop goes on.
"""

from __future__ import annotations

import json
import sys


def _fail(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _guard(fn):
    """fn()'s value, or the exception it raised (a Rust panic is a BaseException in PyO3)."""
    try:
        return fn(), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - the fork's failure is the answer
        return None, exc


def _messages(msgs) -> list[dict]:
    return [json.loads(m.to_json()) for m in msgs]


class Harmony:
    """The requests above answered by one openai_harmony module (the fork here; 0.0.8 in the tests)."""

    def __init__(self, oh, enc=None) -> None:
        self.oh = oh
        self.enc = enc if enc is not None else oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)

    def render(self, req: dict) -> dict:
        # The JSON goes to the Rust renderer as it is, which is what HarmonyEncoding.render_* do
        # with ``conversation.to_json()``. Not through Conversation.from_json: that is lossy (a
        # system message's missing knowledge_cutoff comes back as pydantic's default "2024-06").
        inner = self.enc._inner
        conv = json.dumps(req["conversation"])
        config = {"auto_drop_analysis": True, **(req.get("config") or {})}
        mode = req.get("mode") or ("completion" if req.get("next") else "conversation")
        if mode == "completion":
            ids = inner.render_conversation_for_completion(conversation_json=conv, next_turn_role=req.get("next") or "assistant", config=config)
        elif mode == "training":
            ids = inner.render_conversation_for_training(conversation_json=conv, config=config)
        elif mode == "conversation":
            ids = inner.render_conversation(conversation_json=conv, config=config)
        else:
            raise ValueError(f"unknown mode {mode!r}")
        return {"ids": list(ids)}

    def parse(self, req: dict) -> dict:
        oh, enc = self.oh, self.enc
        ids = [int(t) for t in req["ids"]]
        role = None if req.get("role") is None else oh.Role(req["role"])
        out: dict = {}
        msgs, exc = _guard(lambda: enc.parse_messages_from_completion_tokens(ids, role, strict=True))
        if exc is None:
            out["messages"] = _messages(msgs)
        else:
            out["error"] = _fail(exc)
        parser = oh.StreamableParser(enc, role)
        error = at = None
        for i, token in enumerate([*ids, None]):
            _, exc = _guard(lambda: parser.process_eos() if token is None else parser.process(token))
            if exc is not None:
                error, at = _fail(exc), i
                break
        out["stream"] = {"messages": _messages(parser.messages), "state": parser.state_data, "error": error, "at": at}
        return out

    def version(self, req: dict) -> dict:
        """Which distribution provides ``openai_harmony`` here: oss-harmony (the fork) or openai-harmony."""
        import importlib.metadata

        found = {}
        for dist in ("oss-harmony", "openai-harmony"):
            try:
                found[dist] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:
                pass
        return {"dists": found, "python": sys.version.split()[0]}

    def answer(self, req: dict) -> dict:
        """One request's answer; a failure (a bad request included) is ``{"error": ...}``."""
        ops = {"render": self.render, "parse": self.parse, "version": self.version}
        answer, exc = _guard(lambda: ops[req["op"]](req))
        return {"error": _fail(exc)} if exc is not None else answer


def main() -> int:
    import openai_harmony

    harmony = Harmony(openai_harmony)
    for line in sys.stdin:
        if not line.strip():
            continue
        req, exc = _guard(lambda: json.loads(line))
        answer = {"error": _fail(exc)} if exc is not None else harmony.answer(req)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
