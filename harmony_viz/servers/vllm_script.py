"""A vLLM v1 logits processor that makes a request emit exactly the token ids it is given.

Start vLLM with ``--logits-processors harmony_viz.servers.vllm_script:ScriptedStream`` and
send ``extra_body={"vllm_xargs": {"script": [ids...]}}``: the n-th generated token is then
``script[n]``. Requests without ``script`` are left alone. With ``max_tokens = len(script)``
the server's returned token ids equal the script (unless a stop token inside it ends the
request early), so what vLLM's parsers make of any stream can be watched.

Only vllm, torch and the standard library are imported here: vLLM's venv loads this file
from the package folder on ``PYTHONPATH`` without harmony_viz's dependencies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from vllm.v1.sample.logits_processor import AdapterLogitsProcessor

SCRIPT_KEY = "script"


def _script_of(params: Any) -> list[int] | None:
    extra = getattr(params, "extra_args", None) or {}
    script = extra.get(SCRIPT_KEY)
    if script is None:
        return None
    if not isinstance(script, (list, tuple)) or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in script):
        raise ValueError(f"vllm_xargs.{SCRIPT_KEY} must be a list of token ids (non-negative integers)")
    return [int(t) for t in script]


class ScriptedStream(AdapterLogitsProcessor):
    """Forces ``vllm_xargs.script`` token by token; past its end the model's own logits are used."""

    @classmethod
    def validate_params(cls, sampling_params: Any) -> None:
        _script_of(sampling_params)  # a bad script is the client's error: HTTP 400

    def is_argmax_invariant(self) -> bool:
        # It changes which token wins, so vLLM must call it even for greedy sampling.
        return False

    def new_req_logits_processor(self, params: Any) -> Callable[[list[int], torch.Tensor], torch.Tensor] | None:
        script = _script_of(params)
        if script is None:
            return None

        def force(output_ids: list[int], logits: torch.Tensor) -> torch.Tensor:
            n = len(output_ids)
            if n >= len(script) or script[n] >= logits.shape[-1]:
                return logits
            forced = torch.full_like(logits, float("-inf"))
            forced[script[n]] = 0.0
            return forced

        return force
