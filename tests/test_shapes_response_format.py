"""A Chat request's response_format sent to a Responses server: the shape the Responses API's own types accept."""

from __future__ import annotations

import pydantic
import pytest
from openai.types.responses import ResponseFormatTextJSONSchemaConfig

from harmony_viz.servers.core import responses_of_chat

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"], "additionalProperties": False}


def test_a_json_schema_format_is_flattened_as_responses_takes_it() -> None:
    chat = {"messages": [{"role": "user", "content": "What is 2+2?"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": SCHEMA}}}
    fmt = responses_of_chat(chat)["text"]["format"]
    got = ResponseFormatTextJSONSchemaConfig.model_validate(fmt)
    assert (got.type, got.name, got.strict, got.schema_) == ("json_schema", "answer", True, SCHEMA)
    with pytest.raises(pydantic.ValidationError):  # the Chat shape, as it was sent before: name and schema nested
        ResponseFormatTextJSONSchemaConfig.model_validate(chat["response_format"])


def test_a_json_object_format_goes_as_it_is() -> None:
    chat = {"messages": [{"role": "user", "content": "Answer in JSON."}], "response_format": {"type": "json_object"}}
    assert responses_of_chat(chat)["text"] == {"format": {"type": "json_object"}}
