"""The server lens: replay token streams through real engines, capture live servers, compare with our projection.

Engines (``servers/engines/``, one module each, one registry): vLLM (a logits processor forces the
stream), llama.cpp's llama-server (a token-id grammar forces it), SGLang's Harmony parser (its own
code, run offline in a venv of its own) and OpenAI's reference Responses server (its own
``infer_next_token`` hook forces it).

Modules, one job each:
- ``vllm_script``: the vLLM logits processor that forces a request's ``vllm_xargs.script``;
- ``_launch``: ``harmony-viz replay-server`` (start an engine on the tiny model, stop all of it cleanly);
- ``engines/``: one module per engine (``vllm``, ``llama_cpp``, ``sglang``, ``gpt_oss``) behind one protocol,
  and the registry that detection, the CLI's choices and the tables read;
- ``_client``: requests to any OpenAI-compatible server through the official ``openai`` client;
- ``_answer``: a server answer (object, chunks or events) reduced to what is compared;
- ``_compare``: server answer vs our projection, as discrepancy records;
- ``_check``: ``server-check`` for streams and captures; ``_capture``: ``capture``; ``_matrix``: ``matrix``;
- ``sglang_runner`` and ``gpt_oss_app``: scripts run in SGLang's and the reference server's venvs;
- ``_prompt``: the prompt a server rendered; ``_prompt_check``: ``prompt-check``, that prompt against ours;
- ``_view``: the server tab's data; ``lens``: tables, shipped data, a replay server from Python.

The conformance suite's runner, reports and matrix page live a layer above, in ``harmony_viz.conformance``.

Public names are loaded on first use: a vLLM venv imports ``harmony_viz.servers.vllm_script``
from the package folder on ``PYTHONPATH`` without the project's dependencies, so this file
imports nothing itself.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES: dict[str, str] = {
    "APIS": "_client", "Exchange": "_client", "ServerError": "_client", "build_request": "_client", "client_for": "_client", "send": "_client",
    "Answer": "_answer", "answer_of": "_answer",
    "CODES": "_compare", "Discrepancy": "_compare", "compare_stream_final": "_compare",
    "CheckInputError": "_check", "CheckResult": "_check", "check_answer": "_check", "check_captures": "_check", "check_streams": "_check",
    "expected_for": "_check", "format_result": "_check", "read_request": "_check", "read_stream": "_check",
    "capture": "_capture", "capture_of_result": "_capture", "capture_result": "_capture", "ids_from_logprobs": "_capture", "is_capture": "_capture",
    "load_capture": "_capture", "save_capture": "_capture",
    "answer_logprobs": "_capture", "capture_logprobs": "_capture", "logprob_entries": "_capture", "FATES": "_compare", "Fates": "_compare", "fates": "_compare",
    "result_fates": "_view", "result_logprobs": "_view",
    "Engine": "engines", "Probe": "engines", "Replay": "engines", "detect_engine": "engines", "register": "engines", "replay_request": "engines",
    "NO_TOOLS_NOTE": "engines.llama_cpp", "llama_grammar": "engines.llama_cpp", "find_gpt_oss_python": "engines.gpt_oss",
    "check_engine": "_check", "check_ids": "_check", "check_named": "_check", "with_stream_final": "_check", "answer_error": "_check", "not_served": "_check",
    "MatrixCell": "_matrix", "matrix": "_matrix", "matrix_table": "_matrix",
    "SGLANG_RUNNER": "engines.sglang", "SGLangRun": "engines.sglang", "check_sglang": "engines.sglang", "find_sglang_python": "engines.sglang",
    "run_sglang": "engines.sglang", "sglang_answers": "engines.sglang", "sglang_results": "engines.sglang", "sglang_texts": "engines.sglang",
    "LaunchError": "_launch", "converter_for": "_launch", "LlamaSpec": "_launch", "ServerSpec": "_launch", "ensure_gguf": "_launch", "ensure_model": "_launch",
    "find_chat_template": "_launch", "find_llama_server": "_launch", "find_python": "_launch", "llama_tree": "_launch", "serve": "_launch",
    "lens_source": "_view",
    "PromptUnavailable": "_prompt", "ServerPrompt": "_prompt", "server_prompt": "_prompt",
    "PromptCheck": "_prompt_check", "chat_of_responses": "_prompt_check", "responses_of_chat": "_prompt_check", "check_file": "_prompt_check", "check_path": "_prompt_check", "turn_checks": "_prompt_check", "compare_prompt": "_prompt_check",
    "prompt_check": "_prompt_check", "read_prompt_input": "_prompt_check", "request_rejected": "_prompt_check", "capture_prompt_check": "_prompt_check",
}

__all__ = sorted(_HOMES)

# Names that left this face for the conformance package: reading one is an AttributeError that says
# where it lives now (nothing forwards; they are not in __all__).
_MOVED: dict[str, str] = {
    name: "harmony_viz.conformance"
    for name in ("Known", "KnownError", "MATRIX_CLASSES", "MergeError", "Outcome", "Target", "check_report", "conformance_page", "conformance_report",
                 "conformance_summary", "exit_status", "junit_xml", "read_known", "read_report", "replay_pages", "run_suite", "version_key",
                 "with_opener", "write_known")
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        if name in _MOVED:
            raise AttributeError(f"harmony_viz.servers has no attribute {name!r}; it lives in {_MOVED[name]}.{name}")
        raise AttributeError(f"module 'harmony_viz.servers' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"harmony_viz.servers.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
