"""The one error type of the render package."""

from __future__ import annotations


class RenderError(ValueError):
    """Input the renderer cannot turn into tokens; the message names the field path and the fix.

    >>> str(RenderError("messages[2].role", "unknown role 'bot'; expected one of user, assistant"))
    "messages[2].role: unknown role 'bot'; expected one of user, assistant"
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else problem)
