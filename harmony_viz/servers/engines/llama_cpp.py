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

import hashlib
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz.servers._client import build_request, root_client
from harmony_viz.servers._launch import MODEL_NAME, LaunchError, Spec, cache_root, ensure_model
from harmony_viz.servers._prompt import PromptUnavailable, ServerPrompt, message_of, post, without_stream
from harmony_viz.servers.engines._engine import Engine, Probe, Replay, plain_body

if TYPE_CHECKING:
    import argparse

STOP_IDS = (200002, 200012)  # <|return|>, <|call|>: llama.cpp's end-of-generation tokens for gpt-oss
NO_TOOLS_NOTE = "tools not sent: llama.cpp refuses a grammar with tools"
# A response_format becomes llama.cpp's own grammar and replaces the forcing one: the answer is then sampled, not replayed.
NO_FORMAT_NOTE = "response_format not sent: llama.cpp would replace the forcing grammar with the format's"
LLAMA_CPP_VERSION = "0.3.36"  # the llama-cpp-python sdist whose vendor/llama.cpp we build (scripts/install-llama-cpp.sh)
LLAMA_INSTALL_HINT = "no llama-server found: run scripts/install-llama-cpp.sh, or pass --llama-server PATH or set HARMONY_VIZ_LLAMA_SERVER"
TEMPLATE_HINT = ("llama-server needs a gpt-oss chat template (the GGUF carries none): pass --chat-template FILE "
                 "or set HARMONY_VIZ_CHAT_TEMPLATE")


def llama_grammar(ids: Sequence[int]) -> str:
    """A GBNF grammar that accepts exactly these token ids, in order (llama.cpp's ``<[id]>`` token terms)."""
    return "root ::= " + " ".join(f"<[{int(t)}]>" for t in ids)


def llama_tree(version: str = LLAMA_CPP_VERSION) -> Path:
    """Where scripts/install-llama-cpp.sh builds ``version``: the llama.cpp tree (``src``) and ``build/bin/llama-server``."""
    return cache_root() / f"llama.cpp-{version}"


def find_llama_server(explicit: str | None = None) -> Path:
    """``explicit`` (``--llama-server``), else ``$HARMONY_VIZ_LLAMA_SERVER``, else the install script's build."""
    for candidate, where in ((explicit, "--llama-server"), (os.environ.get("HARMONY_VIZ_LLAMA_SERVER"), "HARMONY_VIZ_LLAMA_SERVER")):
        if candidate:
            path = Path(candidate)
            if not (path.is_file() and os.access(path, os.X_OK)):
                raise LaunchError(f"{where}={candidate} is not an executable llama-server; {LLAMA_INSTALL_HINT}")
            return path
    built = llama_tree() / "build" / "bin" / "llama-server"
    if built.is_file() and os.access(built, os.X_OK):
        return built
    raise LaunchError(LLAMA_INSTALL_HINT)


def find_chat_template(explicit: str | None = None) -> Path:
    """``explicit`` (``--chat-template``), else ``$HARMONY_VIZ_CHAT_TEMPLATE`` (as the template lens reads it)."""
    candidate = explicit or os.environ.get("HARMONY_VIZ_CHAT_TEMPLATE")
    if not candidate:
        raise LaunchError(TEMPLATE_HINT)
    if not Path(candidate).is_file():
        raise LaunchError(f"{candidate}: no such chat template file; {TEMPLATE_HINT}")
    return Path(candidate)


def tree_of(server: Path) -> Path | None:
    """The tree that built ``server`` when it sits in ``TREE/build/bin/`` (the install script's layout), else None."""
    resolved = server.resolve()
    parents = resolved.parents
    if len(parents) > 2 and parents[0].name == "bin" and parents[1].name == "build":
        return parents[2]
    return None


def tree_key(server: Path) -> str:
    """What names ``server``'s tree in the cache: the version of an install-script folder (``llama.cpp-0.3.17`` → ``0.3.17``),
    else the tree's (or the binary's) folder name and a short hash of its path, so two trees never share a GGUF."""
    tree = tree_of(server)
    if tree is not None and tree.name.startswith("llama.cpp-") and len(tree.name) > len("llama.cpp-"):
        return tree.name[len("llama.cpp-"):]
    where = tree if tree is not None else server.resolve()
    digest = hashlib.sha256(str(where).encode()).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in where.name) or "tree"
    return f"{name}-{digest}"


def gguf_cache_path(server: Path) -> Path:
    """The cached tiny GGUF for the tree behind ``server`` (``tiny-gpt-oss-llama.cpp-KEY.gguf``)."""
    return cache_root() / f"tiny-gpt-oss-llama.cpp-{tree_key(server)}.gguf"


def converter_for(server: Path) -> Path:
    """The ``convert_hf_to_gguf.py`` of the tree that built ``server`` (``TREE/build/bin/llama-server``: in ``TREE/src`` or in a
    llama.cpp checkout ``TREE`` itself), else the install script's."""
    own = tree_of(server)
    # TREE/src (the install script's layout), TREE itself (a llama.cpp checkout built in TREE/build), the install script's.
    for tree in (own / "src" if own is not None else None, own, llama_tree() / "src"):
        if tree is not None and (tree / "convert_hf_to_gguf.py").is_file():
            return tree / "convert_hf_to_gguf.py"
    raise LaunchError(f"no convert_hf_to_gguf.py beside {server}; pass --gguf FILE or run scripts/install-llama-cpp.sh")


def ensure_gguf(gguf: Path | None, server: Path) -> Path:
    """The tiny model as a GGUF: ``gguf``, else the cached one of ``server``'s tree, made when missing.

    It is converted by that tree's own converter; when that fails (an older tree's converter may not
    read today's transformers config) and the install script's tree has another, that one converts
    it, and the fallback is said on stderr and kept beside the GGUF (``….gguf.txt``, the provenance).
    """
    from harmony_viz.tiny import make_gguf

    if gguf is not None:
        if not gguf.is_file():
            raise LaunchError(f"{gguf}: no such GGUF file")
        return gguf
    out = gguf_cache_path(server)
    if out.is_file():
        return out
    own = converter_for(server)
    converters = [own]
    default = llama_tree() / "src" / "convert_hf_to_gguf.py"
    if default.is_file() and default.resolve() != own.resolve():
        converters.append(default)
    failures: list[str] = []
    for converter in converters:
        try:
            make_gguf(ensure_model(None), out, converter=converter)
        except RuntimeError as exc:
            failures.append(f"{converter}: {str(exc).splitlines()[-1] if str(exc).strip() else exc}")
            continue
        note = f"converted by {converter}\nfor the llama-server {server}\n"
        if failures:
            note += "".join(f"after this converter failed: {f}\n" for f in failures)
            print(f"harmony-viz: {failures[0]}; the GGUF for {server} is converted by {converter} instead "
                  f"(noted in {out.name}.txt)", file=sys.stderr)
        try:
            out.with_name(out.name + ".txt").write_text(note, encoding="utf-8")
        except OSError:
            pass
        return out
    raise LaunchError(f"no converter could make the tiny GGUF: {'; '.join(failures)}")


@dataclass(frozen=True)
class LlamaSpec(Spec):
    """llama-server on the tiny GGUF with the gpt-oss template (``--jinja``); one slot, one thread."""

    server: Path
    gguf: Path
    template: Path
    host: str = "127.0.0.1"
    port: int = 8080

    def command(self) -> list[str]:
        return [str(self.server), "-m", str(self.gguf), "--host", self.host, "--port", str(self.port), "-c", "4096", "-t", "1",
                "--jinja", "--chat-template-file", str(self.template), "--alias", MODEL_NAME, "--no-webui"]


class LlamaCpp(Engine):
    name = "llama.cpp"
    label = "llama.cpp"
    default_port = 8080
    option_flags = {"chat_template": "--chat-template", "llama_server": "--llama-server", "gguf": "--gguf"}
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
        return Replay(ids=tuple(forced), request=request, notes=tuple(notes), tools_withheld=withheld)

    def prompt(self, base_url: str, request: dict[str, Any], *, kind: str, model: str) -> ServerPrompt:
        source = "llama.cpp /apply-template + /tokenize"
        if kind != "chat":
            raise PromptUnavailable(f"{base_url}: llama.cpp shows only a Chat Completions prompt (/apply-template); send a Chat Completions request")
        client = root_client(base_url)
        status, body = post(client, "/apply-template", without_stream(request))
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            return ServerPrompt(ids=None, source=source, error=f"{status}: {message_of(body)}")
        status, tokens = post(client, "/tokenize", {"content": body["prompt"], "add_special": False, "parse_special": True})
        if status != 200 or not isinstance(tokens, dict) or not isinstance(tokens.get("tokens"), list):
            return ServerPrompt(ids=None, source=source, error=f"{status}: {message_of(tokens)}")
        return ServerPrompt(ids=tuple(int(t) for t in tokens["tokens"]), source=source)

    def add_arguments(self, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "replay-server":
            parser.add_argument("--chat-template", metavar="FILE", help="llama.cpp: the gpt-oss Jinja chat template (default: $HARMONY_VIZ_CHAT_TEMPLATE)")
            parser.add_argument("--llama-server", metavar="PATH", help="llama.cpp: the llama-server binary (default: $HARMONY_VIZ_LLAMA_SERVER, else scripts/install-llama-cpp.sh's build)")
            parser.add_argument("--gguf", metavar="FILE", help="llama.cpp: the tiny model as a GGUF (default: converted once into a user cache folder)")

    def find(self, explicit: str | None = None) -> str:
        return str(find_llama_server(explicit))

    def launch(self, options: Mapping[str, Any], *, host: str, port: int) -> LlamaSpec:
        server = find_llama_server(options.get("llama_server"))
        template = find_chat_template(options.get("chat_template"))
        gguf = options.get("gguf")
        return LlamaSpec(server=server, gguf=ensure_gguf(Path(gguf) if gguf else None, server), template=template, host=host, port=port)


ENGINE = LlamaCpp()
