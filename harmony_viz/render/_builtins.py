"""The builtin tool namespaces (``browser``, ``python``) word for word as gpt-oss was trained on them.

The texts must match openai-harmony 0.0.8 to the byte; tests compare them with the reference. Each namespace is
written in the reference's JSON shape; ``ToolNamespaceConfig.browser()``/``.python()`` build the model from it.
"""

from __future__ import annotations

from typing import Any

_BROWSER_DESCRIPTION = "\n".join(
    [
        "Tool for browsing.",
        "The `cursor` appears in brackets before each browsing display: `[{cursor}]`.",
        "Cite information from the tool using the following format:",
        "`\u3010{cursor}\u2020L{line_start}(-L{line_end})?\u3011`, for example: "
        "`\u30106\u2020L9-L11\u3011` or `\u30108\u2020L3\u3011`.",
        "Do not quote more than 10 words directly from the tool output.",
        "sources=web (default: web)",
    ]
)

_OPEN_DESCRIPTION = "\n".join(
    [
        "Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, "
        "showing `num_lines` lines.",
        "Valid link ids are displayed with the formatting: `\u3010{id}\u2020.*\u3011`.",
        "If `cursor` is not provided, the most recent page is implied.",
        "If `id` is a string, it is treated as a fully qualified URL associated with `source`.",
        "If `loc` is not provided, the viewport will be positioned at the beginning of the document "
        "or centered on the most relevant passage, if available.",
        "Use this function without `id` to scroll to a new location of an opened page.",
    ]
)

_PYTHON_DESCRIPTION = (
    "Use this tool to execute Python code in your chain of thought. The code will not be shown "
    "to the user. This tool should be used for internal reasoning, but not for code that is "
    "intended to be visible to the user (e.g. when creating plots, tables, or files).\n\n"
    "When you send a message containing Python code to python, it will be executed in a "
    "stateful Jupyter notebook environment. python will respond with the output of the "
    "execution or time out after 120.0 seconds. The drive at '/mnt/data' can be used to save "
    "and persist user files. Internet access for this session is UNKNOWN. Depends on the cluster."
)


def _tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": parameters}


def _number(default: int) -> dict[str, object]:
    return {"type": "number", "default": default}


def browser_spec() -> dict[str, Any]:
    """The ``browser`` namespace: search, open, find."""
    search = _tool(
        "search",
        "Searches for information related to `query` and displays `topn` results.",
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "topn": _number(10), "source": {"type": "string"}},
            "required": ["query"],
        },
    )
    open_ = _tool(
        "open",
        _OPEN_DESCRIPTION,
        {
            "type": "object",
            "properties": {
                "id": {"type": ["number", "string"], "default": -1},
                "cursor": _number(-1),
                "loc": _number(-1),
                "num_lines": _number(-1),
                "view_source": {"type": "boolean", "default": False},
                "source": {"type": "string"},
            },
        },
    )
    find = _tool(
        "find",
        "Finds exact matches of `pattern` in the current page, or the page given by `cursor`.",
        {
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "cursor": _number(-1)},
            "required": ["pattern"],
        },
    )
    return {"name": "browser", "description": _BROWSER_DESCRIPTION, "tools": [search, open_, find]}


def python_spec() -> dict[str, Any]:
    """The ``python`` namespace: a stateful Jupyter kernel, no declared functions."""
    return {"name": "python", "description": _PYTHON_DESCRIPTION, "tools": []}
