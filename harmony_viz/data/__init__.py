"""The bundled sample of real gpt-oss runs (see ``PROVENANCE.md`` beside this file).

>>> from harmony_viz.data import sample_paths
>>> [p.name for p in sample_paths()][:2]
['findings-rag.json', 'findings-tournament.json']
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["SAMPLE_FILES", "sample_path", "sample_paths"]

# In the order the demo and the stats report list them.
SAMPLE_FILES: tuple[str, ...] = (
    "findings-rag.json",
    "findings-tournament.json",
    "finding5_runs/helpful-1.json",
    "finding5_runs/helpful-47.json",
    "finding5_runs/cyberthreat-17.json",
    "finding5_runs/cyberthreat-24.json",
    "rft_outputs.jsonl",
    "tool_calling/cities_3_cot_true_trial-1.md",
    "tool_calling/cities_10_cot_false_trial-2.md",
    "tool_calling/cities_15_cot_false_trial-15.md",
)


def sample_path(name: str) -> Path:
    """The path of one bundled file, e.g. ``sample_path("findings-rag.json")``."""
    if name not in SAMPLE_FILES and name != "PROVENANCE.md":
        raise KeyError(f"no bundled sample {name!r}; known: {', '.join(SAMPLE_FILES)}")
    # The package is installed as plain files (wheel or editable), so a real path exists.
    return Path(str(resources.files(__name__).joinpath(name)))


def sample_paths() -> list[Path]:
    """Every bundled run file, in a fixed order."""
    return [sample_path(name) for name in SAMPLE_FILES]
