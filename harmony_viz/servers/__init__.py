"""The server lens: replay token streams through real engines, capture live servers, compare with our projection.

Engines (``servers/engines/``, one module each, one registry): vLLM (a logits processor forces the
stream), llama.cpp's llama-server (a token-id grammar forces it), SGLang's Harmony parser (its own
code, run offline in a venv of its own) and OpenAI's reference Responses server (its own
``infer_next_token`` hook forces it).

Tiers, imports one way (down):
- ``core/``: the pure parts every command shares: the check's record and verdict, request shapes,
  the answer reduced and compared, log-probs, the capture file (its own face: ``servers.core``);
- ``_client`` (requests through the official ``openai`` client), ``_prompt`` (what seeing a server's
  prompt shares), ``_launch`` (start a replay server and stop all of it; find an engine's Python);
- ``engines/``: the protocol (``_engine``), one module per engine with everything it needs to start
  (spec, finders, template, GGUF), and the registry that detection, the CLI and the tables read;
- the commands: ``_check`` (``server-check``), ``_capture`` (``capture``), ``_prompt_check``
  (``prompt-check``), ``_matrix`` (``matrix``); ``_view``: the server tab's data; ``lens``: tables,
  shipped data and a replay server from Python (its own face);
- ``vllm_script``, ``sglang_runner`` and ``gpt_oss_app``: scripts run in the engines' own venvs.

The conformance suite's runner, reports and matrix page live a layer above, in ``harmony_viz.conformance``.

Public names are loaded on first use: a vLLM venv imports ``harmony_viz.servers.vllm_script``
from the package folder on ``PYTHONPATH`` without the project's dependencies, so this file
imports nothing itself.
"""

from __future__ import annotations

import importlib
from typing import Any

# What a user or another package calls, by the module it lives in.
_HOMES: dict[str, str] = {
    "APIS": "core", "CheckInputError": "core", "CheckResult": "core", "PromptCheck": "core", "ServerError": "core", "answer_of": "core",
    "format_result": "core", "load_capture": "core", "read_request": "core", "save_capture": "core",
    "build_request": "_client", "client_for": "_client", "send": "_client",
    "LaunchError": "_launch", "serve": "_launch", "PromptUnavailable": "_prompt",
    "capture": "_capture", "check_captures": "_check", "check_engine": "_check", "check_named": "_check", "check_streams": "_check",
    "check_file": "_prompt_check", "check_path": "_prompt_check", "prompt_check": "_prompt_check", "server_prompt": "_prompt_check",
    "matrix": "_matrix", "matrix_table": "_matrix", "lens_logprobs": "_view", "lens_source": "_view",
}

__all__ = sorted(_HOMES)

_CORE = "harmony_viz.servers.core"
_LLAMA = "harmony_viz.servers.engines.llama_cpp"
_SGLANG = "harmony_viz.servers.engines.sglang"
# Names that left this face: reading one is an AttributeError that says where it lives now (nothing
# forwards; they are not in __all__).
_MOVED: dict[str, str] = {
    **{name: "harmony_viz.conformance" for name in (
        "Known", "KnownError", "MATRIX_CLASSES", "MergeError", "Outcome", "Target", "check_report", "conformance_page", "conformance_report",
        "conformance_summary", "exit_status", "junit_xml", "read_known", "read_report", "replay_pages", "run_suite", "version_key",
        "with_opener", "write_known")},
    **{name: _CORE for name in (
        "CODES", "Discrepancy", "FATES", "answer_logprobs", "capture_logprobs", "capture_result", "chat_of_responses", "check_answer",
        "compare_prompt", "compare_stream_final", "expected_for", "ids_from_logprobs", "is_capture", "read_stream", "request_rejected",
        "responses_of_chat", "result_fates", "turn_checks", "with_stream_final", "MatrixCell")},
    **{name: _LLAMA for name in ("NO_TOOLS_NOTE", "llama_grammar", "LlamaSpec", "converter_for", "ensure_gguf", "find_chat_template",
                                 "find_llama_server", "llama_tree")},
    **{name: _SGLANG for name in ("SGLANG_RUNNER", "SGLangRun", "check_sglang", "find_sglang_python", "run_sglang", "sglang_results",
                                  "sglang_texts")},
    **{name: "harmony_viz.servers.engines" for name in ("Engine", "Probe", "Replay", "detect_engine", "register", "replay_request")},
    "find_gpt_oss_python": "harmony_viz.servers.engines.gpt_oss", "find_python": "harmony_viz.servers.engines.vllm",
    "ensure_model": "harmony_viz.servers.engines.vllm",
}
_MOVED_AS: dict[str, str] = {  # names renamed or folded into another: where to look now
    "ServerSpec": "harmony_viz.servers.engines.vllm.VllmSpec", "ServerPrompt": "harmony_viz.servers.server_prompt (its result)",
    "capture_of_result": "harmony_viz.servers.check_engine (save_captures=)", "Fates": f"{_CORE}.result_fates (its result)",
    "fates": f"{_CORE}.result_fates", "result_logprobs": "harmony_viz.servers.lens_logprobs",
    "answer_error": f"{_CORE}.check_answer (its error)", "not_served": "harmony_viz.servers.check_engine (its served=False results)",
    "logprob_entries": f"{_CORE}.ids_from_logprobs", "Answer": f"{_CORE}.answer_of (its result)",
    "Exchange": "harmony_viz.servers.send (its result)", "check_ids": "harmony_viz.servers.check_named",
    "read_prompt_input": "harmony_viz.servers.check_path", "capture_prompt_check": f"{_CORE}.capture_result (its prompt)",
    "sglang_answers": f"{_SGLANG}.sglang_results (the checks of its answers)",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(importlib.import_module(f"harmony_viz.servers.{home}"), name)
        globals()[name] = value
        return value
    where = _MOVED_AS.get(name) or (f"{_MOVED[name]}.{name}" if name in _MOVED else None)
    if where is None:
        raise AttributeError(f"module 'harmony_viz.servers' has no attribute {name!r}")
    raise AttributeError(f"harmony_viz.servers has no attribute {name!r}; it lives in {where}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
