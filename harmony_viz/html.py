"""Deprecated: use ``harmony_viz.save_html(...)`` (the code lives in ``harmony_viz._replay``)."""

import warnings

from harmony_viz._replay import page_html, save_html

warnings.warn("harmony_viz.html moved: use harmony_viz.replay(...) and harmony_viz.save_html(...)", DeprecationWarning, stacklevel=2)

__all__ = ["page_html", "save_html"]
