"""The dialect's rules for model output (the nine rules of the OMP Harmony guide).

Each rule looks at assistant messages (and tool results that follow them) and reports a
Diagnostic pointing at the header, body or stop token responsible.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from harmony_viz._lint._args import check_arguments
from harmony_viz._lint._codes import diagnostic
from harmony_viz._lint._text import announcement, call_target, fenced_blocks, json_objects, reasoning_signals, recipient_markup
from harmony_viz._lint._tools import DeclaredTool
from harmony_viz.scanner import Diagnostic, Message

BUILTIN_NAMESPACES = ("browser", "container")


def _is_builtin(recipient: str) -> bool:
    return recipient == "python" or recipient.split(".", 1)[0] in BUILTIN_NAMESPACES


def check_output(
    views: Sequence[Message],
    tools: Sequence[DeclaredTool] | None,
    *,
    tools_from_prompt: bool,
    completion: bool,
    hands_over: bool = False,
) -> list[Diagnostic]:
    """All output-rule diagnostics for ``views``.

    ``tools`` None means the declared tools are unknown (a bare completion with no
    ``tools=``): calls are then only checked for form. ``tools_from_prompt`` says whether
    builtins (python, browser) could have been declared too. ``completion`` says that every
    message in ``views`` was written by the model. ``hands_over`` says the stream is a prompt
    ending in ``<|start|>assistant``: no message of it is a completion, and its last turn goes on.
    """
    out: list[Diagnostic] = []
    by_recipient = {t.recipient: t for t in tools or ()}
    for k, view in enumerate(views):
        if view.role != "assistant":
            continue
        if view.is_call:
            out.extend(_check_call(view, tools, by_recipient, tools_from_prompt=tools_from_prompt))
        elif view.kind == "preamble":
            out.extend(_check_preamble(view, views[k + 1 :]))
        if view.is_visible:
            out.extend(_calls_in_text(view, tools))
    out.extend(_tool_results(views, completion=completion))
    out.extend(_announced(views, hands_over=hands_over))
    if not hands_over:  # a prompt's last message is history; the completion has not begun
        out.extend(_stop_token(views))
    return out


def _check_call(
    view: Message,
    tools: Sequence[DeclaredTool] | None,
    by_recipient: dict[str, DeclaredTool],
    *,
    tools_from_prompt: bool,
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    recipient = view.recipient or ""
    tool = by_recipient.get(recipient)
    builtin = _is_builtin(recipient)
    # With the tools unknown only the form is checked; a recipient without a namespace is
    # the scanner's own warning (recipient-without-namespace), not repeated here.
    if tools is not None and tool is None and not (builtin and not tools_from_prompt):
        out.append(diagnostic("undeclared-tool", _undeclared_message(recipient, tools), view.header))
    if recipient.startswith("functions.") and view.channel == "analysis":
        out.append(diagnostic("call-on-analysis", f"call to {recipient} on the analysis channel; function calls go on commentary (only builtins like python and browser belong on analysis)", view.header))
    if view.content_type is not None and view.content_type.strip() == "json":
        out.append(diagnostic("constrain-missing", f"call to {recipient} has content type 'json'; the model writes '<|constrain|>json' (chat templates drop the <|constrain|> token)", view.header))
    if view.terminator not in ("<|call|>", "eos"):  # eos: the stop-token rule speaks for it
        out.append(diagnostic("call-terminator", f"call to {recipient} ends in {view.terminator}, not <|call|>; every call is its own message ending in <|call|>", view.stop))
    if not builtin:
        out.extend(check_arguments(view, tool))
    return out


def _undeclared_message(recipient: str, tools: Sequence[DeclaredTool]) -> str:
    functions = [t.recipient for t in tools if t.namespace == "functions"]
    if not functions:
        return f"call to undeclared tool {recipient!r}: the prompt declares no function tools (a developer message with 'namespace functions {{ … }}')"
    bare = recipient.rsplit(".", 1)[-1]
    if f"functions.{bare}" in functions:
        return f"call to {recipient!r}: the declared tool is functions.{bare}; write to=functions.{bare}"
    unique = list(dict.fromkeys(functions))  # the same nearest: prompts of a transcript declare the same tools again and again
    near = difflib.get_close_matches(recipient, unique, n=1, cutoff=0.6) or difflib.get_close_matches(f"functions.{bare}", unique, n=1, cutoff=0.6)
    hint = f"did you mean {near[0]}? " if near else ""
    return f"call to undeclared tool {recipient!r}; {hint}declared: {', '.join(functions)}"


def _check_preamble(view: Message, later: Sequence[Message]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if view.terminator in ("<|call|>", "<|return|>"):
        out.append(diagnostic("preamble-terminator", f"a preamble (commentary with no recipient) ends in {view.terminator}; it should end in <|end|>, and calls need a recipient", view.stop))
    following = None
    for nxt in later:
        if nxt.role != "assistant":
            break
        if nxt.is_call or nxt.channel == "final":
            following = nxt
            break
    signals = reasoning_signals(view.text)
    answered_without_call = following is not None and not following.is_call
    if signals >= 2 or (answered_without_call and signals >= 1):
        why = "the final answer follows, no tool call" if answered_without_call else "it reads like chain-of-thought"
        out.append(diagnostic("reasoning-on-commentary", f"commentary message {view.index} with no recipient reads like reasoning ({why}); commentary is shown to the user, reasoning belongs on analysis", view.body))
    return out


def _calls_in_text(view: Message, tools: Sequence[DeclaredTool] | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    text = view.text
    if "{" not in text and "to=" not in text:
        return out  # a call written as text, fenced or not, is a JSON object or header markup (most texts hold neither)
    fenced: list[tuple[int, int]] = []
    for start, end, inner in fenced_blocks(text):
        fenced.append((start, end))
        target = None
        for _s, _e, value in json_objects(inner):
            target = call_target(value, tools)
            if target:
                break
        if target is None:
            markup = next(recipient_markup(inner), None)
            target = markup[2] if markup else None
        if target:
            out.append(diagnostic("call-in-fence", f"a call to {target} written inside a code fence in {_where(view)}; the scanner shows it as text and no tool runs; send it as a commentary message to={target} ending in <|call|>", view.span_of(start, end)))
    for start, end, value in json_objects(text):
        if any(a <= start < b for a, b in fenced):
            continue
        target = call_target(value, tools)
        if target:
            out.append(diagnostic("call-in-text", f"a call to {target} written as JSON in {_where(view)}; no tool runs; send it as a commentary message to={target} ending in <|call|>", view.span_of(start, end)))
    for start, end, target in recipient_markup(text):
        if any(a <= start < b for a, b in fenced):
            continue
        out.append(diagnostic("call-in-text", f"header markup 'to={target}' leaked into {_where(view)}; a call is a separate message, not text", view.span_of(start, end)))
    return out


def _where(view: Message) -> str:
    if view.channel == "final":
        return f"the final answer (message {view.index})"
    if view.channel == "commentary":
        return f"a preamble (message {view.index})"
    return f"visible text (message {view.index})"


def _tool_results(views: Sequence[Message], *, completion: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    pending: list[str] = []
    prev: Message | None = None
    for view in views:
        if view.is_call and view.terminator == "<|call|>":
            pending.append(view.recipient or "")
        elif view.is_tool_author and not view.by_assistant:  # a completion's message under no role is the model's reasoning, not a result
            author = view.author
            if completion or (prev is not None and prev.role == "assistant" and prev.terminator != "<|call|>"):
                out.append(diagnostic("fabricated-tool-result", f"message {view.index} is a result from {author} written by the model; only the host writes tool results (stop at <|call|> and wait)", (view.start, view.end)))
            elif author in pending:
                pending.remove(author)
            else:
                out.append(diagnostic("tool-result-without-call", f"result from {author} (message {view.index}) answers no pending call; calls pending: {', '.join(pending) or 'none'}", view.header))
        elif view.role == "user":
            pending.clear()
        prev = view
    return out


def _announced(views: Sequence[Message], *, hands_over: bool) -> list[Diagnostic]:
    """Rule 9: the last visible message of a turn announces a call, and no call follows.

    In a prompt that hands over to the model, the last message's turn goes on: the call may come in the completion.
    """
    out: list[Diagnostic] = []
    for k, view in enumerate(views):
        if not view.is_visible or view.channel not in ("final", "commentary", None):
            continue
        nxt = views[k + 1] if k + 1 < len(views) else None
        if nxt is None and hands_over:
            continue
        if nxt is not None and nxt.role == "assistant":
            continue  # the turn goes on; a call may still come
        if nxt is not None and nxt.is_tool_author:
            continue
        found = announcement(view.text)
        if found:
            phrase = view.text[found[0] : found[1]]
            out.append(diagnostic("announced-no-call", f"message {view.index} announces a tool call ({phrase!r}…) but the turn ends without a <|call|> message; finish the call message before stopping", view.span_of(*found)))
    return out


def _stop_token(views: Sequence[Message]) -> list[Diagnostic]:
    if not views or views[-1].role != "assistant":
        return []
    last = views[-1]
    if last.terminator in ("<|call|>", "<|return|>"):
        return []
    if last.terminator == "eos":
        why = "the stream ends without a stop token (stripped by the server, or cut off at the token limit)"
    else:
        why = f"it ends in {last.terminator}"
    want = "<|call|>" if last.is_call else "<|return|>"
    return [diagnostic("stop-token", f"the completion's last message ({last.index}) should end in {want}; {why}", last.stop)]
