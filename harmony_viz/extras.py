"""Lazy access to the ``record`` extra (torch, transformers), with the install hint."""

from __future__ import annotations

import importlib
from types import ModuleType

INSTALL_HINT = "install with `pip install harmony-viz[record]`"


class MissingExtraError(ImportError):
    """torch or transformers is not installed; the message says how to install them."""


def require(module: str) -> ModuleType:
    """Import ``module`` (``torch``, ``transformers``…) or raise with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingExtraError(f"recording needs {top!r}, which is not importable ({exc}); {INSTALL_HINT}") from None
