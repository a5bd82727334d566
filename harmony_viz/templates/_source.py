"""Where a chat template comes from: a file, a local model folder, or ``HARMONY_VIZ_CHAT_TEMPLATE``.

The template is read at run time and never shipped: it is what we study, not our code.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "HARMONY_VIZ_CHAT_TEMPLATE"


class TemplateSourceError(ValueError):
    """A template that cannot be found or read; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    """A Jinja chat template's text and where it was read from."""

    source: str
    origin: str


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateSourceError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise TemplateSourceError(f"{path}: cannot read ({exc.strerror})") from None


def load_template(path: str | Path) -> ChatTemplate:
    """The template in a ``.jinja`` file (or a folder: see :func:`template_from_model`)."""
    p = Path(path)
    if p.is_dir():
        return template_from_model(p)
    if not p.exists():
        raise TemplateSourceError(f"{p}: no such file; give a .jinja chat template or a model folder")
    text = _read(p)
    if not text.strip():
        raise TemplateSourceError(f"{p}: the file is empty")
    return ChatTemplate(text, str(p))


def _from_config(path: Path) -> str:
    try:
        config = json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise TemplateSourceError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):
        # Several named templates: the one called "default" is what apply_chat_template uses.
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    if not isinstance(template, str) or not template.strip():
        raise TemplateSourceError(f"{path}: has no chat_template string")
    return template


def template_from_model(folder: str | Path) -> ChatTemplate:
    """The template of a local model folder: ``chat_template.jinja``, else ``chat_template.json``'s or ``tokenizer_config.json``'s."""
    d = Path(folder)
    if not d.is_dir():
        raise TemplateSourceError(f"{d}: not a folder; give a local model folder holding chat_template.jinja or tokenizer_config.json")
    jinja = d / "chat_template.jinja"
    if jinja.is_file():
        return ChatTemplate(_read(jinja), str(jinja))
    # chat_template.json is where some transformers versions save it; tokenizer_config.json the older place.
    for name in ("chat_template.json", "tokenizer_config.json"):
        config = d / name
        if config.is_file():
            return ChatTemplate(_from_config(config), str(config))
    raise TemplateSourceError(f"{d}: holds neither chat_template.jinja nor tokenizer_config.json")


def template_from_env() -> ChatTemplate | None:
    """The template ``HARMONY_VIZ_CHAT_TEMPLATE`` names (a .jinja file or a model folder), or None when unset."""
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return None
    try:
        return load_template(value)
    except TemplateSourceError as exc:
        raise TemplateSourceError(f"{ENV_VAR}: {exc}") from None
