"""The frontend bundles built into ``harmony_viz/static/`` (one place finds them and says how to build them)."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).parent / "static"


def asset(name: str) -> Path:
    """The path of bundle ``name`` (``widget.js``, ``playground.css``…); FileNotFoundError says how to build it."""
    path = STATIC / name
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: the frontend is built on install; run `npm install && npm run build` in js/ "
            "(or `pip install -e .` again)"
        )
    return path


def asset_text(name: str) -> str:
    """The text of bundle ``name``, for pages that inline it."""
    return asset(name).read_text(encoding="utf-8")
