"""The text bodies of system and developer messages (identity, reasoning, tools, channels)."""

from __future__ import annotations

from collections.abc import Mapping

from harmony_viz.render._model import DeveloperContent, SystemContent, ToolNamespaceConfig
from harmony_viz.render._options import RenderOptions
from harmony_viz.render._schema_ts import schema_to_typescript

ROUTING_LINE = "Calls to these tools must go to the commentary channel: 'functions'."


def rust_lines(text: str) -> list[str]:
    """``text`` split like Rust's ``str::lines``: on ``\\n`` or ``\\r\\n``, no empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    ended = parts[-1] == ""
    if ended:
        parts.pop()
    # Every part but an unterminated last one was followed by "\n": drop its "\r".
    last = len(parts) - 1
    return [p[:-1] if p.endswith("\r") and (ended or i < last) else p for i, p in enumerate(parts)]


def tools_section(tools: Mapping[str, ToolNamespaceConfig], options: RenderOptions, path: str) -> str:
    """``# Tools`` with one ``## namespace`` block each, namespaces in key order (a BTreeMap)."""
    sections = ["# Tools"]
    for key in sorted(tools):
        ns = tools[key]
        lines = [f"## {ns.name}\n"]
        if ns.description is not None:
            # Without functions the description is prose; with them it becomes comments.
            lines.extend(f"// {line}" if ns.tools else line for line in rust_lines(ns.description))
        if ns.tools:
            lines.append(f"namespace {ns.name} {{\n")
            for i, tool in enumerate(ns.tools):
                lines.extend(f"// {line}" for line in rust_lines(tool.description))
                if tool.parameters is None:
                    lines.append(f"type {tool.name} = () => any;\n")
                else:
                    where = f"{path}.tools.{key}.tools[{i}].parameters"
                    ts = schema_to_typescript(tool.parameters, options=options, path=where)
                    lines.append(f"type {tool.name} = (_: {ts}) => any;\n")
            lines.append(f"}} // namespace {ns.name}")
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def system_text(sys: SystemContent, has_function_tools: bool, options: RenderOptions, path: str) -> str:
    """The body of a system message."""
    sections = []
    top = []
    if sys.model_identity is not None:
        top.append(sys.model_identity)
    if sys.knowledge_cutoff is not None:
        top.append(f"Knowledge cutoff: {sys.knowledge_cutoff}")
    if sys.conversation_start_date is not None:
        top.append(f"Current date: {sys.conversation_start_date}")
    if top:
        sections.append("\n".join(top))
    if sys.reasoning_effort is not None:
        sections.append(f"Reasoning: {sys.reasoning_effort.value.lower()}")
    if sys.tools:
        sections.append(tools_section(sys.tools, options, path))
    cfg = sys.channel_config
    if cfg is not None and cfg.valid_channels:
        header = f"# Valid channels: {', '.join(cfg.valid_channels)}."
        if cfg.channel_required:
            header += " Channel must be included for every message."
        # Only when a developer message declares functions; the reference writes it here,
        # in the system message, even though the functions are declared later.
        if has_function_tools:
            header += "\n" + ROUTING_LINE
        sections.append(header)
    return "\n\n".join(sections)


def developer_text(dev: DeveloperContent, options: RenderOptions, path: str) -> str:
    """The body of a developer message."""
    sections = []
    if dev.instructions is not None:
        sections += ["# Instructions", dev.instructions]
    if dev.tools:
        sections.append(tools_section(dev.tools, options, path))
    return "\n\n".join(sections)
