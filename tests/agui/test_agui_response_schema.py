"""The interrupt's ``responseSchema`` is a JSON Schema a client's form library can use as is:
valid (draft 2020-12), every ``$ref`` resolving inside it, and each offered decision's example
accepted while a wrong one is refused.

Found in QA: a tool whose input schema keeps its nested shapes under ``$defs`` (allowed by the
schema rules, and usual for remote MCP tools made from pydantic models) had its schema copied
under ``oneOf/1/properties/args`` with ``$ref: "#/$defs/..."`` still pointing at the root of
the response schema, where nothing is: every validator and form library failed on it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from interlock.agui.interrupts import interrupt_for
from interlock.engine.client_results import ClientResultIn
from interlock.storage.views import ToolCallOut
from interlock.tools import Tool

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

FLAT = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1}},
    "required": ["text"],
    "additionalProperties": False,
}
WITH_DEFS = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "due": {"$ref": "#/$defs/Due"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
    },
    "required": ["text", "due"],
    "additionalProperties": False,
    "$defs": {
        "Due": {
            "type": "object",
            "properties": {"day": {"type": "string"}, "remind": {"$ref": "#/$defs/Tag"}},
            "required": ["day"],
            "additionalProperties": False,
        },
        "Tag": {"type": "string", "enum": ["home", "work"]},
    },
}
RECURSIVE = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
    "required": ["text"],
    "additionalProperties": False,
}
GOOD = {"text": "buy milk", "due": {"day": "monday", "remind": "home"}, "tags": ["work"]}


def _schema_of(input_schema: dict[str, Any], status: str = "interrupted") -> dict[str, Any]:
    call = ToolCallOut(
        id="call_1",
        message_id=2,
        run_id="run_1",
        name="notes.add",
        title="Add a note",
        permission="ASK",
        status=status,
        proposed_args={"text": "buy milk"},
        created_at=NOW,
    )
    tool = Tool(
        name="notes.add",
        title="Add a note",
        description="Add a note.",
        input_schema=input_schema,
        handler=lambda args, ctx: "ok",
    )
    schema = interrupt_for(call, tool).response_schema
    assert schema is not None
    return schema


@pytest.mark.parametrize(
    ("input_schema", "good", "bad"),
    [
        (FLAT, {"text": "x"}, {"text": ""}),
        (WITH_DEFS, GOOD, {**GOOD, "due": {"day": "monday", "remind": "gym"}}),
        (RECURSIVE, {"text": "a", "children": [{"text": "b"}]}, {"text": "a", "children": [{}]}),
    ],
)
def test_the_response_schema_is_valid_and_its_refs_resolve(
    input_schema: dict[str, Any], good: dict[str, Any], bad: dict[str, Any]
) -> None:
    schema = _schema_of(input_schema)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for payload in (
        {"type": "approve"},
        {"type": "reject"},
        {"type": "reject", "message": "not now"},
        {"type": "edit", "args": good},
    ):
        assert list(validator.iter_errors(payload)) == [], payload
    for payload in (
        {"type": "edit", "args": bad},
        {"type": "edit"},
        {"type": "approve", "args": good},
        {"type": "maybe"},
    ):
        assert not validator.is_valid(payload), payload
    # A sub-schema carries no "$schema" (only a schema resource's root may).
    assert "$schema" not in str(schema["oneOf"])


def test_the_tool_schema_is_not_changed_by_building_the_response_schema() -> None:
    before = repr(WITH_DEFS)
    _schema_of(WITH_DEFS)
    assert repr(WITH_DEFS) == before


def test_a_frontend_calls_response_schema_accepts_what_the_server_accepts() -> None:
    """Found in QA: it was the pydantic model's schema, which took ``{}`` and text with an
    error together (both refused by the server) and showed docstring markup."""
    schema = _schema_of(FLAT, status="awaiting_client")
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    accepted = [
        {"text": "Europe/Paris"},
        {"text": "2 rows", "data": {"rows": [1, 2]}},
        {"error": {"code": "failed", "message": "The page was closed."}},
    ]
    refused = [
        {},
        {"text": "a", "error": {"code": "failed", "message": "b"}},
        {"error": {"code": "oops", "message": "b"}},
        {"error": {"code": "failed", "message": ""}},
        {"error": {"code": "failed", "message": "b"}, "data": 1},
    ]
    for payload in accepted:
        assert validator.is_valid(payload), payload
        ClientResultIn.model_validate(payload)
    for payload in refused:
        assert not validator.is_valid(payload), payload
        with pytest.raises(ValidationError):
            ClientResultIn.model_validate(payload)
    assert "``" not in str(schema)
