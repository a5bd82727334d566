"""The structured-output family (``structured/*``): the engine generates under its own grammar, and the stream must still be Harmony.

A case is a request with a ``response_format`` (``json_object``, ``json_schema``) or a
``tool_choice`` that forces a call (``required``, a named function), maybe with strict
function schemas. Nothing is forced: the engine samples the tiny random model under the
grammar it builds for the request, once per seed, and returns the token ids (``capture``).
Whatever the random model writes inside the envelope passes; the envelope is checked: a
header with a channel before the JSON, the JSON on the final channel, a call with its
recipient (the named one), the stop token that ends the last message, and no finding of the
scanner at warning or above. A stream cut off by ``max_tokens`` is judged as the prefix it is; one cut
inside a header as that header closed there by ``<|message|>`` (what the grammar let it write so far).

The random model never ends an analysis by chance (one token in 200,000): a ``logit_bias`` on
``<|end|>`` stands in for a trained model's ending it, so the stream reaches the JSON or the
call; every other token is the engine's sampler under its own grammar.

An engine with no generation here (SGLang's parser runs offline; the reference server's only
generation is the forcing hook, with no grammar) is ``not-served``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harmony_viz.conformance._case import Case
from harmony_viz.conformance._records import FAILING, Known, KnownKey, Outcome, status_of
from harmony_viz.findings import Codes, Finding, read_codes

STRUCTURED_API = "structured"  # the API column of a structured case: Chat Completions, generated freely
SEEDS = (1, 2, 3)
MAX_TOKENS = 64
END_BIAS = {"200007": 20}  # <|end|>: see the module's docstring
DEFAULT_USER = {"role": "user", "content": "What is the weather in Paris? Answer in JSON."}
CALL, RETURN, MESSAGE, START = 200012, 200002, 200008, 200006
# What a cut stream cannot help: the end-of-stream findings of a prefix.
CUT_CODES = frozenset({"eos-in-header", "eos-in-message", "call-incomplete", "call-cut-off"})
HEADER_CODES = frozenset({"bad-channel", "header-junk", "call-on-analysis"})  # what a cut header shows once closed where it was cut

STRUCTURED_CODES: Codes = read_codes(Path(__file__).with_name("structured_codes.json"))  # code -> (severity, what it means)


@dataclass(frozen=True)
class Generation:
    """One seed's generation: the ids the engine returned, how it finished, its error, and the codes the envelope gives."""

    seed: int
    ids: tuple[int, ...]
    finish_reason: str | None
    error: str | None
    codes: tuple[str, ...]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        from harmony_viz.tokens import encoding

        return {"seed": self.seed, "finish_reason": self.finish_reason, "error": self.error, "codes": list(self.codes),
                "token_ids": list(self.ids), "text": encoding().decode(list(self.ids)) if self.ids else ""}


@dataclass(frozen=True)
class StructuredCheck:
    """A structured case through one engine: every seed's generation, and the findings that decide it (one per code and seed)."""

    file: str
    engine: str
    generations: tuple[Generation, ...]
    discrepancies: tuple[Finding, ...]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "engine": self.engine, "generations": [g.to_json() for g in self.generations],
                "discrepancies": [{"code": d.code, "severity": d.severity, "message": d.message} for d in self.discrepancies]}


def _wants(request: Mapping[str, Any]) -> tuple[bool, str | None, bool]:
    """(JSON on the final channel, the named function or None, a call forced)."""
    fmt = request.get("response_format") or {}
    choice = request.get("tool_choice")
    named = ((choice.get("function") or {}).get("name") if isinstance(choice, Mapping) else None)
    return fmt.get("type") in ("json_object", "json_schema"), named, choice == "required" or named is not None


def envelope_codes(ids: Sequence[int], finish_reason: str | None, request: Mapping[str, Any]) -> tuple[str, ...]:
    """The codes of a generated completion (after ``<|start|>assistant``): the scanner's at warning or above, and the envelope's."""
    from harmony_viz.scanner import scan

    ended = bool(ids) and ids[-1] in (CALL, RETURN)
    cut = not ended
    found = scan(list(ids), role="assistant")
    codes = {d.code for d in found.diagnostics if d.severity in FAILING and not (cut and d.code in CUT_CODES)}
    if cut and "eos-in-header" in {d.code for d in found.diagnostics}:
        # cut inside a header: its channel as the grammar let it be written so far, the header closed there by <|message|>
        closed = scan([*ids, MESSAGE], role="assistant")
        last_start = max((i for i, t in enumerate(ids) if t == START), default=0)
        codes |= {d.code for d in closed.diagnostics if d.code in HEADER_CODES and d.start >= last_start}
    msgs = found.messages
    wants_json, named, forced_call = _wants(request)
    if (msgs and msgs[0].channel is None) or (ended and not msgs):
        codes.add("no-channel-header")
    for m in msgs:
        if wants_json and m.channel == "final" and m.terminator not in (None, "eos"):
            try:
                json.loads(m.text)
            except ValueError:
                codes.add("final-not-json")
    if ended and msgs:
        last = msgs[-1]
        if wants_json and last.channel != "final":
            codes.add("json-not-final")
        if forced_call and last.kind != "tool_call":
            codes.add("call-missing")
        if named and last.kind == "tool_call" and last.recipient != f"functions.{named}":
            codes.add("call-wrong-function")
        if (last.kind == "tool_call") != (ids[-1] == CALL):
            codes.add("stop-token-wrong")
    return tuple(sorted(codes))


def _finding(code: str, seed: int, detail: str = "") -> Finding:
    from harmony_viz.scanner import DIAGNOSTIC_CODES

    severity, meaning = STRUCTURED_CODES.get(code) or DIAGNOSTIC_CODES.get(code) or ("error", code)
    return Finding(code, severity, f"seed {seed}: {meaning}" + (f" ({detail})" if detail else ""))  # type: ignore[arg-type]


def _envelope(code: str) -> str:
    """A generation's code as the result counts it: the scanner's findings are one envelope code (which ones a random model
    hits varies with the seed and the prompt's date line; that the grammar let one through does not)."""
    return code if code in STRUCTURED_CODES else "stream-not-harmony"


def _detail(code: str, g: Generation) -> str:
    if code == "server-error":
        return (g.error or "").splitlines()[0][:200]
    if code == "stream-not-harmony":
        return ", ".join(x for x in g.codes if x not in STRUCTURED_CODES)
    return ""


def generate(case: Case, url: str, engine: str, seed: int, *, timeout: float) -> Generation:
    """One free generation of the case's request at ``seed`` (temperature 1, ``END_BIAS``), and its codes."""
    from harmony_viz.servers import capture

    body = {**case.request, "messages": list(case.request.get("messages") or [DEFAULT_USER]), "seed": seed, "temperature": 1.0,
            "logit_bias": {**END_BIAS, **(case.request.get("logit_bias") or {})}}
    t0 = time.perf_counter()
    run = capture(url, request=body, api="chat", max_tokens=MAX_TOKENS, timeout=timeout, engine=engine)
    server = run.metadata.extra["server"]
    final = server.get("final") or {}
    finish = ((final.get("choices") or [{}])[0] or {}).get("finish_reason") if isinstance(final, Mapping) else None
    ids = tuple(run.completion_token_ids)
    error = server.get("error")
    codes = ("server-error",) if error else envelope_codes(ids, finish, case.request)
    return Generation(seed, ids, finish, error, codes, time.perf_counter() - t0)


def structured_outcomes(cases: Sequence[Case], engine: str, url: str | None, known: Mapping[KnownKey, Known], *,
                        timeout: float = 120.0) -> list[Outcome]:
    """Every structured case through one engine, each seed generated freely; an unreachable server raises ServerError."""
    from harmony_viz.servers import engines

    found = engines.get(engine)
    if found.offline or url is None:
        return [Outcome(case=c, engine=found.name, api=STRUCTURED_API, status="not-served",
                        reason=f"{found.name} runs offline: its parser alone generates nothing") for c in cases]
    version = found.version(engines.Probe(url))
    if "chat" not in found.apis:
        return [Outcome(case=c, engine=found.name, api=STRUCTURED_API, status="not-served", engine_version=version,
                        reason=f"{found.name} serves no Chat Completions API: no response_format or tool_choice grammar to generate under")
                for c in cases]
    out = []
    for c in cases:
        t0 = time.perf_counter()
        gens = tuple(generate(c, url, found.name, s, timeout=timeout) for s in (c.seeds or SEEDS))
        findings = tuple(_finding(code, g.seed, _detail(code, g)) for g in gens for code in sorted({_envelope(x) for x in g.codes}))
        check = StructuredCheck(c.id, found.name, gens, findings, sum(g.seconds for g in gens))
        codes = tuple(sorted({f.code for f in findings}))
        status, reason, link, kind = status_of(codes, known.get((c.id, found.name, STRUCTURED_API)))
        out.append(Outcome(case=c, engine=found.name, api=STRUCTURED_API, status=status, codes=codes, engine_version=version, check=check,
                           reason=reason, link=link, known_kind=kind, server_seconds=time.perf_counter() - t0))
    return out
