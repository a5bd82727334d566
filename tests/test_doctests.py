"""Every ``>>>`` example in the package runs and holds (the docs are tested, not just written)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import harmony_viz

# Modules that only import inside a vLLM venv (the logits processor vLLM loads by name).
_NEEDS_VLLM = {"harmony_viz.servers.vllm_script"}


def _modules() -> list[str]:
    names = [harmony_viz.__name__]
    for info in pkgutil.walk_packages(harmony_viz.__path__, prefix="harmony_viz."):
        if info.name not in _NEEDS_VLLM and not info.name.endswith("__main__"):
            names.append(info.name)
    return sorted(names)


def test_every_docstring_example_runs():
    attempted = 0
    failures = []
    for name in _modules():
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False, report=False)
        attempted += result.attempted
        if result.failed:
            failures.append(f"{name}: {result.failed} of {result.attempted} failed")
    assert not failures, "; ".join(failures)
    assert attempted >= 60  # about 30 modules carry examples
