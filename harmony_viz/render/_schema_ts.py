"""JSON Schema → the TypeScript-like type gpt-oss reads in the developer message.

Follows openai-harmony 0.0.8 branch for branch, quirks included; the fixes are opt-in through
``RenderOptions`` (see ``_options.py``). A schema part the rendering cannot show falls back to
``any``, as in the reference; ``strict_schemas=True`` turns those into RenderError instead.

>>> print(schema_to_typescript({"type": "object", "properties": {"city": {"type": "string"}},
...                             "required": ["city"]}))
{
city: string,
}
"""

from __future__ import annotations

from typing import Any

from harmony_viz.render._errors import RenderError
from harmony_viz.render._options import RenderOptions
from harmony_viz.render._serde import SerdeRangeError, serde_display

__all__ = ["schema_to_typescript"]

_MISSING = object()

# Keywords the rendering shows, or that are annotations with no effect on the type.
_KNOWN_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "items", "enum", "oneOf", "description", "title",
        "examples", "default", "nullable", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
        "uniqueItems", "multipleOf", "$schema", "$id", "$comment", "additionalProperties",
        "deprecated", "readOnly", "writeOnly", "strict",
    }
)  # fmt: skip
_KNOWN_TYPES = frozenset({"object", "string", "number", "integer", "boolean", "array", "null"})


def _get(schema: Any, key: str) -> Any:
    """``schema[key]``, or _MISSING when absent or when the schema is not an object (like serde's ``get``)."""
    if isinstance(schema, dict):
        return schema.get(key, _MISSING)
    return _MISSING


def _is_enum(schema: Any) -> bool:
    enum = _get(schema, "enum")
    return isinstance(enum, list) and len(enum) > 0


def _is_nullable(schema: Any) -> bool:
    return _get(schema, "nullable") is True


class _Renderer:
    def __init__(self, options: RenderOptions) -> None:
        self.opts = options

    # -- comments ---------------------------------------------------------------

    def above(self, indent: str, text: str) -> str:
        """A comment line above a property. The reference prefixes only the first line."""
        if self.opts.comment_every_line:
            return "".join(f"{indent}// {line}\n" for line in text.split("\n"))
        return f"{indent}// {text}\n"

    def trailing(self, text: str) -> str:
        """Text for an end-of-line comment; with the fix, line breaks become spaces."""
        return text.replace("\n", " ") if self.opts.comment_every_line else text

    def default_comment(self, schema: Any, default: Any, *, bare_enum_string: bool) -> str:
        """``default: …`` as the reference writes it.

        A string default is quoted without escaping; for an enum, property-level comments
        leave it unquoted while oneOf variants print it as JSON (two different branches).
        """
        if isinstance(default, str) and not _is_enum(schema):
            return f'default: "{default}"'
        if isinstance(default, str) and bare_enum_string:
            return f"default: {default}"
        return f"default: {serde_display(default)}"

    # -- strict mode -----------------------------------------------------------

    def check(self, schema: Any, path: str) -> None:
        if not self.opts.strict_schemas:
            return
        if not isinstance(schema, dict):
            raise RenderError(path, f"expected a schema object, got {serde_display(schema)}; it would render as `any`")
        for key in schema:
            if key not in _KNOWN_KEYWORDS:
                raise RenderError(
                    f"{path}.{key}",
                    "this keyword cannot be shown in the TypeScript rendering and would be dropped; "
                    "rewrite it with type/properties/items/enum/oneOf or pass strict_schemas=False",
                )
        kind = schema.get("type", _MISSING)
        kinds = kind if isinstance(kind, list) else [] if kind is _MISSING else [kind]
        for k in kinds:
            if k not in _KNOWN_TYPES:
                raise RenderError(f"{path}.type", f"unknown type {serde_display(k)}; expected one of {', '.join(sorted(_KNOWN_TYPES))}")
        enum = schema.get("enum", _MISSING)
        if enum is not _MISSING and (kind != "string" or not all(isinstance(v, str) for v in enum)):
            raise RenderError(f"{path}.enum", "only string enums on a string type can be shown; other enums are dropped")

    # -- the walk ----------------------------------------------------------------

    def typed(self, schema: Any, indent: str, path: str) -> str:
        """The type of ``schema``, ``| null`` added when it is nullable and does not say so."""
        type_str = self.render(schema, indent, path)
        return type_str + " | null" if _is_nullable(schema) and "null" not in type_str else type_str

    def variant(self, variant: Any, indent: str, path: str, *, describe: bool, bare_enum_string: bool) -> str:
        """One ``oneOf`` variant after its ``|``: its type, then its description (when ``describe``) and default as a comment."""
        type_str = self.typed(variant, indent + "   ", path)
        comments = []
        desc = _get(variant, "description")
        if describe and isinstance(desc, str):
            comments.append(self.trailing(desc))
        default = _get(variant, "default")
        if default is not _MISSING:
            comments.append(self.default_comment(variant, default, bare_enum_string=bare_enum_string))
        return type_str + (" // " + " ".join(comments) if comments else "")

    def render(self, schema: Any, indent: str, path: str) -> str:
        self.check(schema, path)
        one_of = _get(schema, "oneOf")
        if isinstance(one_of, list):
            return "".join(f"\n{indent} | " + self.variant(v, indent, f"{path}.oneOf[{i}]", describe=True, bare_enum_string=False)
                           for i, v in enumerate(one_of))  # fmt: skip

        kind = _get(schema, "type")
        if isinstance(kind, list):
            names = ["number" if k == "integer" else k for k in kind if isinstance(k, str)]
            if names:
                return " | ".join(names)
        if not isinstance(kind, str):
            return "any"
        if kind == "object":
            return self.object(schema, indent, path)
        if kind == "string":
            enum = _get(schema, "enum")
            if isinstance(enum, list):
                names = [f'"{v}"' for v in enum if isinstance(v, str)]
                if names:
                    return " | ".join(names)
            return "string"
        if kind in ("number", "integer"):
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind == "array":
            items = _get(schema, "items")
            if items is _MISSING:
                return "Array<any>"
            return self.render(items, indent, f"{path}.items") + "[]"
        return "any"

    def object(self, schema: dict[str, Any], indent: str, path: str) -> str:
        out = []
        desc = _get(schema, "description")
        if isinstance(desc, str):
            out.append(self.above(indent, desc))
        out.append("{\n")
        props = _get(schema, "properties")
        if isinstance(props, dict):
            req = _get(schema, "required")
            required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
            for key, val in props.items():
                out.append(self.property(key, val, key in required, indent, f"{path}.properties.{key}"))
        out.append(f"{indent}}}")
        return "".join(out)

    def property(self, key: str, val: Any, required: bool, indent: str, path: str) -> str:
        out = []
        mark = "" if required else "?"
        title = _get(val, "title")
        if isinstance(title, str):
            out.append(self.above(indent, title) + f"{indent}//\n")
        has_one_of = _get(val, "oneOf") is not _MISSING
        desc = _get(val, "description")
        if not has_one_of and isinstance(desc, str):
            out.append(self.above(indent, desc))
        examples = _get(val, "examples")
        if isinstance(examples, list) and examples:
            shown = [f'"{ex}"' if isinstance(ex, str) else serde_display(ex) for ex in examples
                     if isinstance(ex, str) or self.opts.show_all_examples]  # fmt: skip
            # The reference prints the heading even when no example is a string.
            if shown or not self.opts.show_all_examples:
                out.append(f"{indent}// Examples:\n")
                out.extend(f"{indent}// - {ex}\n" for ex in shown)

        one_of = _get(val, "oneOf")
        if isinstance(one_of, list):
            prop_desc = desc if isinstance(desc, str) else None
            first_desc = _get(one_of[0], "description") if one_of else _MISSING
            skip_prop_desc = prop_desc is not None and first_desc == prop_desc
            desc_above = False
            if not skip_prop_desc and prop_desc is not None:
                out.append(self.above(indent, prop_desc))
                desc_above = True
            default = _get(val, "default")
            if default is not _MISSING:
                out.append(f"{indent}// {self.default_comment(val, default, bare_enum_string=True)}\n")
            out.append(f"{indent}{key}{mark}:\n")
            for i, variant in enumerate(one_of):
                # a variant's description that repeats the property's, or stands above it already, is not said again
                describe = not (i == 0 and desc_above) and _get(variant, "description") != prop_desc
                out.append(f"{indent} | " + self.variant(variant, indent, f"{path}.oneOf[{i}]", describe=describe, bare_enum_string=True) + "\n")
            out.append(f"{indent},\n")
            return "".join(out)

        out.append(f"{indent}{key}{mark}: " + self.typed(val, indent + "    ", path) + ",")
        if not has_one_of:
            default = _get(val, "default")
            if default is not _MISSING:
                out.append(" // " + self.default_comment(val, default, bare_enum_string=True))
        out.append("\n")
        return "".join(out)


def schema_to_typescript(
    schema: dict[str, Any], *, indent: str = "", options: RenderOptions | None = None, path: str = "parameters"
) -> str:
    """The TypeScript type the developer message shows for the JSON Schema ``schema``.

    ``path`` names the schema in errors (only ``strict_schemas=True`` raises).
    """
    try:
        return _Renderer(options or RenderOptions()).render(schema, indent, path)
    except SerdeRangeError:
        # serde_json overflows to infinity reading such a number, so the reference refuses the input.
        raise RenderError(path, "holds a number too close to the float limit for openai-harmony to read; round it") from None
