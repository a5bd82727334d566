"""``RenderOptions``: the defaults reproduce openai-harmony 0.0.8 exactly; each flag fixes one quirk."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RenderOptions"]


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How to render. ``RenderOptions()`` is token-identical to openai-harmony 0.0.8.

    Attributes:
        drop_analysis: the reference's ``auto_drop_analysis`` (default on): when the last
            assistant message is on ``final``, earlier ``analysis`` messages are left out,
            because gpt-oss never sees the reasoning of finished turns.
        drop_analysis_before_last_final: fix for the reference dropping analysis only before
            the *first* ``final`` message (and not at all while a new turn is still
            reasoning; openai/harmony PR #96). When on, every ``analysis`` message before
            the last assistant ``final`` message is dropped, whatever follows it (what vLLM
            does). Needs ``drop_analysis``.
        comment_every_line: fix for multi-line schema titles and descriptions, where the
            reference puts ``//`` before the first line only, so later lines read as code.
            When on, every line gets ``// ``, and descriptions in end-of-line comments
            (``oneOf`` variants) have their line breaks replaced by spaces.
        show_all_examples: fix for non-string ``examples``, which the reference skips,
            leaving a bare ``// Examples:`` when none is a string. When on, every example is
            shown (non-strings as JSON) and the heading only appears above some.
        strict_schemas: raise RenderError for schema parts the TypeScript rendering cannot
            show (keywords such as ``anyOf``, ``allOf``, ``$ref``; unknown types; non-string
            enums; a sub-schema that is not an object) instead of silently rendering ``any``
            or dropping them.

    WARNING: any flag other than the defaults gives tokens the reference does not produce;
    gpt-oss was trained on the reference's layout.
    """

    drop_analysis: bool = True
    drop_analysis_before_last_final: bool = False
    comment_every_line: bool = False
    show_all_examples: bool = False
    strict_schemas: bool = False
