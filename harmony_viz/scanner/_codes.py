"""Every diagnostic the scanner emits: its stable code, severity and meaning (one table, for docs and tools)."""

from __future__ import annotations

from harmony_viz.findings import Codes

# The findings whose span begins where <|endoftext|> ended the stream: a reader counts nothing from there.
END_OF_TEXT_CODES: frozenset[str] = frozenset({"padding", "after-endoftext"})

# code -> (severity, meaning). error: the stream breaks the format and was repaired;
# warning: parseable but suspicious; info: a note.
DIAGNOSTIC_CODES: Codes = {
    "after-endoftext": ("warning", "<|endoftext|> ends the stream and more than padding follows it; what follows is not read"),
    "bad-channel": ("error", "the channel is not exactly analysis, commentary or final (junk, `?`, empty, glued, misspelt, spaced or capitalised); unless it normalises to a channel name, its text is reasoning"),
    "bad-role": ("error", "no role after <|start|>, or a channel name where the role goes; read as assistant"),
    "channel-without-token": ("error", "a channel name written without <|channel|> (`analysis<|message|>`); read as that channel"),
    "call-cut-off": ("warning", "a tool call ends at end of stream with complete arguments (servers often strip <|call|>)"),
    "call-ended-by-end": ("warning", "a tool call ended by <|end|> instead of <|call|>"),
    "call-ended-by-return": ("error", "a tool call ended by <|return|> instead of <|call|>"),
    "call-incomplete": ("error", "the stream ends inside a tool call whose arguments are not complete JSON"),
    "call-on-analysis": ("warning", "a functions.* call on the analysis channel (expected commentary)"),
    "call-without-recipient": ("warning", "<|call|> ends a message that has no recipient"),
    "continues-after-call": ("error", "a completion goes on after <|call|>: a fabricated tool result"),
    "control-in-body": ("error", "<|message|> or <|constrain|> inside a message body; kept as text"),
    "control-token-as-text": ("warning", "a control token spelled as plain-text tokens in a token stream; read as the control token"),
    "control-tokens-stripped": ("error", "control tokens were stripped (analysis…assistantfinal…); messages rebuilt from the channel names"),
    "duplicate-channel": ("error", "a second <|channel|> in one header; the first valid channel is kept, and the text is reasoning unless every part is commentary or final"),
    "empty-header": ("info", "role='assistant' was given but the stream opens its own message with <|start|>"),
    "eos-in-header": ("error", "the stream ends inside a header; text after the header fields is read as the body, and a header with none makes no message"),
    "eos-in-message": ("info", "the stream ends inside a message body (no stop token)"),
    "header-junk": ("error", "unexpected words in a header (extra tokens, a second recipient, <|constrain|> with no type); ignored"),
    "missing-channel": ("warning", "an assistant message without <|channel|>; read as final (servers re-render history like this)"),
    "missing-end": ("error", "<|start|> (or <|channel|>) inside an open message: <|end|> is missing; the message ends there"),
    "missing-message": ("error", "a stop token or <|start|> ends a header before <|message|>; the rest of the header is read as the body"),
    "missing-start": ("error", "a header, or text then a stop token, with no <|start|> (a dropped token or the plain word `assistant`)"),
    "padding": ("info", "<|endoftext|> padding after the stream's end (batch generation pads finished completions): one finding a stream, naming how many tokens; never read as output"),
    "recipient-format": ("warning", "a recipient written with spaces or quotes (`to = \"functions.x\"`); read normalised"),
    "recipient-is-assistant": ("warning", "to=assistant on an assistant message; not a tool call (a lone commentary header so addressed is reasoning)"),
    "recipient-without-namespace": ("warning", "a recipient with no namespace (reported as written; functions. is not added)"),
    "reserved-token": ("warning", "a reserved special token; read as its literal text"),
    "text-outside-message": ("error", "text between messages; read as a message without header"),
    "unexpected-stop": ("error", "a stop token where a message start was expected; ignored"),
    "unknown-role": ("warning", "a role that is none of system, developer, user, assistant, tool (no namespace, no recipient); read as a tool's name, or in a completion (role='assistant') as the model's reasoning"),
    "whitespace-outside-message": ("info", "whitespace between messages (a display separator); ignored"),
}
