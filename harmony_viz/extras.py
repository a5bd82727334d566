"""Lazy access to the optional parts, each with the one line that installs its extra.

Every module an extra brings is named in ``EXTRA_OF`` (``jinja2`` → ``templates``,
``torch`` → ``record``, ``ray`` → ``scale``); :func:`require` imports one or raises
:class:`MissingExtraError`, whose message ends in ``pip install "harmony-viz[EXTRA]"``.

>>> install_line("templates")
'pip install "harmony-viz[templates]"'
>>> EXTRA_OF["jinja2"], EXTRA_OF["torch"], EXTRA_OF["ray"]
('templates', 'record', 'scale')
"""

from __future__ import annotations

import importlib
from types import ModuleType

# The top-level module each extra of pyproject.toml brings, and what it is for (the error says so).
EXTRA_OF: dict[str, str] = {
    "torch": "record",
    "transformers": "record",
    "accelerate": "record",
    "tokenizers": "record",
    "jinja2": "templates",
    "ray": "scale",
    "datasets": "scale",
}
PURPOSE: dict[str, str] = {
    "record": "recording",
    "templates": "the chat-template lens",
    "scale": "runs at scale",
}


def install_line(extra: str) -> str:
    """The command that installs ``extra`` (quoted, so zsh does not read the brackets)."""
    return f'pip install "harmony-viz[{extra}]"'


# What ``record`` said before the hints were per extra; kept for ``harmony_viz._record``.
INSTALL_HINT = f"install with `{install_line('record')}`"


class MissingExtraError(ImportError):
    """A module of an optional extra is not installed; the message (one line) names the extra to install.

    ``extra`` is the extra's name (``templates``), ``module`` the module that failed to import.
    """

    def __init__(self, message: str, *, extra: str = "", module: str = "") -> None:
        super().__init__(message)
        self.extra = extra
        self.module = module


def missing(module: str, extra: str | None = None, *, purpose: str | None = None, reason: str = "") -> MissingExtraError:
    """The error for ``module`` not being importable: what needs it, and the install line of its extra."""
    top = module.split(".")[0]
    extra = extra or EXTRA_OF.get(top, "dev")
    what = purpose or PURPOSE.get(extra, f"the {extra} extra")
    why = f" ({reason})" if reason else ""
    return MissingExtraError(f"{what} needs {top!r}, which is not importable{why}; install with `{install_line(extra)}`", extra=extra, module=top)


def require(module: str, extra: str | None = None, *, purpose: str | None = None) -> ModuleType:
    """Import ``module`` (``torch``, ``jinja2``, ``transformers.utils``…) or raise :class:`MissingExtraError`.

    ``extra`` defaults to the one that brings the module's top-level package (``EXTRA_OF``).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing(module, extra, purpose=purpose, reason=str(exc)) from None


def available(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


__all__ = ["EXTRA_OF", "INSTALL_HINT", "PURPOSE", "MissingExtraError", "available", "install_line", "missing", "require"]
