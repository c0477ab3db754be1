"""Pure-Python parts of constrained decoding: no model needed."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("smol_model_llamacpp")

from smol_model_llamacpp.structured import (
    complete_truncated_json,
    normalize_response_format,
    schema_of_response_format,
)

THOUGHT_AND_CODE = {
    "type": "object",
    "properties": {"thought": {"type": "string"}, "code": {"type": "string"}},
    "required": ["thought", "code"],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"thought": "add them", "code": "print(1',
        '{"thought": "add them", "code": "x = \\"a',
        '{"thought": "esc \\',
        '{"thought": "uni \\u00',
        '{"thought": "ok", ',
        '{"thought": "ok", "co',
        '{"thought": "ok", "code":',
        '{"thought": "ok", "code": "a"',
        '{"thought": [1, 2, {"x": tr',
        "{",
        "",
        "garbage",
    ],
)
def test_truncated_json_always_parses_with_required_keys(text: str) -> None:
    completed = complete_truncated_json(text, THOUGHT_AND_CODE)
    value = json.loads(completed)
    assert {"thought", "code"} <= set(value)


def test_truncated_json_keeps_what_was_written() -> None:
    value = json.loads(complete_truncated_json('{"thought": "add", "code": "print(1 + ', THOUGHT_AND_CODE))
    assert value == {"thought": "add", "code": "print(1 + "}


def test_valid_json_is_returned_unchanged() -> None:
    text = '{"thought": "t", "code": "c"}'
    assert complete_truncated_json(text, THOUGHT_AND_CODE) == text


def test_response_format_shapes() -> None:
    wrapped = {"type": "json_schema", "json_schema": {"name": "X", "schema": THOUGHT_AND_CODE}}
    assert schema_of_response_format(wrapped) == THOUGHT_AND_CODE
    assert schema_of_response_format({"type": "json_object"}) == {}
    assert schema_of_response_format({"type": "text"}) is None
    assert schema_of_response_format(None) is None
    assert normalize_response_format(THOUGHT_AND_CODE)["json_schema"]["schema"] == THOUGHT_AND_CODE
    assert normalize_response_format({"type": "json_object"}) == {"type": "json_object"}
    with pytest.raises(ValueError, match="Unsupported response_format"):
        schema_of_response_format({"type": "yaml"})


@pytest.mark.parametrize(
    "text",
    [
        '{"thought": "a\\\\',  # an escaped backslash, then cut
        '{"thought": "a\\"b',  # an escaped quote inside the string
        '{"thought": "ok", "code": "c", "n": -',
        '{"thought": "ok", "code": "c", "n": 1.',
        '{"thought": "ok", "code": "c", "flag": fa',
        '{"thought": "ok", "code": "c", "list": [1, ',
        '  {"thought": "ok"',
    ],
)
def test_completion_is_a_pure_suffix(text: str) -> None:
    from smol_model_llamacpp.structured import json_completion_suffix

    suffix = json_completion_suffix(text, THOUGHT_AND_CODE)
    assert suffix is not None
    value = json.loads(text + suffix)
    assert {"thought", "code"} <= set(value)


@pytest.mark.parametrize(
    "text",
    ['{"thought": "t", "co', '{"thought": "t", "code"', '{"thought": "t", "code": ', '{"thought": "t",\n  '],
)
def test_dangling_keys_get_values_of_their_type(text: str) -> None:
    assert json.loads(complete_truncated_json(text, THOUGHT_AND_CODE)) == {"thought": "t", "code": ""}
