"""Deprecated: use ``harmony_viz.replay(...)`` and ``harmony_viz.ReplayWidget`` (the code lives in ``harmony_viz._replay``)."""

import warnings

from harmony_viz._replay import PRESETS, ReplayWidget, replay

warnings.warn("harmony_viz.widget moved: use harmony_viz.replay(...) and harmony_viz.save_html(...)", DeprecationWarning, stacklevel=2)

__all__ = ["PRESETS", "ReplayWidget", "replay"]
