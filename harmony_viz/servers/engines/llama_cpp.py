"""llama.cpp's llama-server (built by ``scripts/install-llama-cpp.sh``): a grammar of token ids forces the stream.

- Forcing: a GBNF grammar of token terms (``root ::= <[id]> …``) forces every id but a final stop
  token, which ``logit_bias`` pushes (inside a grammar it fails with HTTP 500). A stop token inside
  the stream ends generation there, so a replay goes up to the first one, and says so.
- A grammar is refused when tools are declared, so a replay sends none, and says so in its notes; a
  ``response_format`` would replace the grammar with its own, so a replay sends none either.
- Ids back: ``logprobs`` (Chat Completions: each token's ``id``).
- Prompt: ``/apply-template`` (its chat template's text), then ``/tokenize`` with special tokens parsed.
- Detected by ``/props`` (its build info).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import build_request
from harmony_viz.servers.engines import Engine, Probe, Replay, plain_body, register

if TYPE_CHECKING:
    import argparse

    from harmony_viz.servers._prompt import ServerPrompt

STOP_IDS = (200002, 200012)  # <|return|>, <|call|>: llama.cpp's end-of-generation tokens for gpt-oss
NO_TOOLS_NOTE = "tools not sent: llama.cpp refuses a grammar with tools"
# A response_format becomes llama.cpp's own grammar and replaces the forcing one: the answer is then sampled, not replayed.
NO_FORMAT_NOTE = "response_format not sent: llama.cpp would replace the forcing grammar with the format's"


def llama_grammar(ids: Sequence[int]) -> str:
    """A GBNF grammar that accepts exactly these token ids, in order (llama.cpp's ``<[id]>`` token terms)."""
    return "root ::= " + " ".join(f"<[{int(t)}]>" for t in ids)


class LlamaCpp(Engine):
    name = "llama.cpp"
    label = "llama.cpp"
    default_port = 8080
    install = "`scripts/install-llama-cpp.sh` (llama-server from llama-cpp-python 0.3.36's tree, cached)"
    forcing = "a grammar of token ids (`<[id]>` terms), `logit_bias` for a final stop token"
    ids_back = "`logprobs` (chat; streamed only for tokens that make a delta)"
    prompt_via = "`/apply-template` + `/tokenize` (chat only)"
    request_fields = "tools and response_format withheld (a grammar is refused with tools, replaced by a format's); replays stop at the first stop token"

    def detect(self, probe: Probe) -> bool:
        props = probe.get("/props")
        return props is not None and ("build_info" in props or "default_generation_settings" in props)

    def version(self, probe: Probe) -> str | None:
        """Its build from ``/props``; a tree built from llama-cpp-python's sdist says only ``b0-unknown``, and then
        the replay server's GGUF, cached per tree (``tiny-gpt-oss-llama.cpp-TREE.gguf``), names the tree: its version is the tree's."""
        props = probe.get("/props") or {}
        build = str(props.get("build_info") or "")
        if build in ("", "b0-unknown"):
            served = re.search(r"tiny-gpt-oss-llama\.cpp-([^/]+)\.gguf$", str(props.get("model_path") or ""))
            if served:
                return served.group(1)
        return build or None

    def replay(self, api: str, body: dict[str, Any], ids: Sequence[int], *, model: str) -> Replay:
        notes = []
        forced = list(ids)
        first_stop = next((k for k, t in enumerate(ids) if t in STOP_IDS), None)
        if first_stop is not None and first_stop < len(ids) - 1:
            forced = forced[: first_stop + 1]
            notes.append(f"replayed up to its first stop token (token {first_stop + 1} of {len(ids)}): llama.cpp cannot force a stop token inside a grammar")
        withheld = bool(body.get("tools"))
        if withheld:
            notes.append(NO_TOOLS_NOTE)
        if body.get("response_format"):
            notes.append(NO_FORMAT_NOTE)
        plain = plain_body(body, ("tools", "tool_choice", "parallel_tool_calls", "response_format"))
        request = build_request(api, plain, model=model, max_tokens=len(forced), script=None, token_ids=False)
        request["temperature"] = 0  # the grammar decides every token; a trivial sampler keeps a replay the same each time
        grammar_ids, bias = (forced[:-1], {str(forced[-1]): 100}) if forced and forced[-1] in STOP_IDS else (forced, {})
        extra: dict[str, Any] = dict(request.pop("extra_body", {}))
        if grammar_ids:
            extra["grammar"] = llama_grammar(grammar_ids)
        if api.startswith("chat"):
            request["logprobs"] = True  # each generated token's id comes back in logprobs.content[].id
            request["top_logprobs"] = 1  # not the 20 alternatives per token llama.cpp sends by default (0 sends no logprobs at all)
            if bias:
                request["logit_bias"] = bias
        elif bias:
            extra["logit_bias"] = bias
        request["extra_body"] = extra
        return Replay(tuple(forced), request, tuple(notes), withheld)

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        from harmony_viz.servers._client import root_client
        from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt, message_of, post, without_stream

        source = "llama.cpp /apply-template + /tokenize"
        if kind != "chat":
            raise PromptUnavailable(f"{base_url}: llama.cpp shows only a Chat Completions prompt (/apply-template); send a Chat Completions request")
        client = root_client(base_url)
        status, body = post(client, "/apply-template", without_stream(request))
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            return ServerPrompt(None, source, f"{status}: {message_of(body)}")
        status, tokens = post(client, "/tokenize", {"content": body["prompt"], "add_special": False, "parse_special": True})
        if status != 200 or not isinstance(tokens, dict) or not isinstance(tokens.get("tokens"), list):
            return ServerPrompt(None, source, f"{status}: {message_of(tokens)}")
        return ServerPrompt(tuple(int(t) for t in tokens["tokens"]), source)

    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "replay-server":
            parser.add_argument("--chat-template", metavar="FILE", help="llama.cpp: the gpt-oss Jinja chat template (default: $HARMONY_VIZ_CHAT_TEMPLATE)")
            parser.add_argument("--llama-server", metavar="PATH", help="llama.cpp: the llama-server binary (default: $HARMONY_VIZ_LLAMA_SERVER, else scripts/install-llama-cpp.sh's build)")
            parser.add_argument("--gguf", metavar="FILE", help="llama.cpp: the tiny model as a GGUF (default: converted once into a user cache folder)")

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> Any:
        from pathlib import Path

        from harmony_viz.servers._launch import LlamaSpec, ensure_gguf, find_chat_template, find_llama_server

        server = find_llama_server(options.get("llama_server"))
        template = find_chat_template(options.get("chat_template"))
        gguf = options.get("gguf")
        return LlamaSpec(server, ensure_gguf(Path(gguf) if gguf else None, server), template, host, port)


register(LlamaCpp())
