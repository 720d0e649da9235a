"""The @tool decorator: declaring tools from a schema or a pydantic model."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, field_validator

from interlock.tools import (
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolRegistrationError,
    ToolResult,
    tool,
)
from interlock.tools.decorator import EMPTY_ARGS_SCHEMA


def test_tool_turns_a_handler_into_a_tool_with_every_field():
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}

    def check(args: dict[str, Any]) -> list[Any]:
        return []

    @tool(
        name="demo.add",
        title="Add",
        description="Add things.",
        input_schema=schema,
        output_schema={"type": "object"},
        permission=Permission.ALLOW,
        write=True,
        annotations=ToolAnnotations(idempotent=True),
        timeout_s=5,
        card="approval",
        check_args=check,
    )
    def add(args: dict[str, Any], ctx: ToolContext) -> str:
        return "added"

    assert isinstance(add, Tool)
    assert (add.name, add.title, add.description) == ("demo.add", "Add", "Add things.")
    assert add.input_schema == schema and add.input_schema is not schema
    assert add.output_schema == {"type": "object"}
    assert add.permission is Permission.ALLOW
    assert add.write is True
    assert add.annotations == ToolAnnotations(idempotent=True)
    assert (add.timeout_s, add.card, add.check_args) == (5, "approval", check)
    assert add.handler.__name__ == "add"
    assert add.provider_name == ""


def test_tool_defaults_ask_permission_and_no_arguments():
    @tool(name="demo.ping", title="Ping", description="Ping.")
    async def ping(args: dict[str, Any], ctx: ToolContext) -> str:
        return "pong"

    assert ping.permission is Permission.ASK
    assert ping.write is False
    assert ping.annotations == ToolAnnotations()
    assert ping.input_schema == EMPTY_ARGS_SCHEMA
    assert ping.input_schema is not EMPTY_ARGS_SCHEMA


def test_tool_refuses_both_input_schema_and_args_model():
    class Args(BaseModel):
        x: int

    with pytest.raises(ToolRegistrationError, match="give input_schema or args_model, not both"):
        tool(name="demo.x", title="X", description="X.", input_schema={}, args_model=Args)


class Address(BaseModel):
    street: str
    city: str = Field(description="City name")


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]


class Order(BaseModel):
    ship_to: Address = Field(description="Where to send it")
    bill_to: Address | None = None
    extra: list[Address] = []
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    quantity: int = Field(ge=1)

    @field_validator("quantity")
    @classmethod
    def not_thirteen(cls, value: int) -> int:
        if value == 13:
            raise ValueError("13 is unlucky")
        return value


def order_tool() -> Tool:
    @tool(name="shop.order", title="Order", description="Order.", args_model=Order)
    def order(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(text="ordered")

    return order


def test_args_model_schemas_have_every_ref_inlined_and_register(registry):
    order = order_tool()

    text = json.dumps(order.input_schema)
    assert "$ref" not in text and "$defs" not in text and "discriminator" not in text
    assert order.input_schema["properties"]["ship_to"]["description"] == "Where to send it"
    assert order.input_schema["properties"]["ship_to"]["properties"]["city"] == {
        "description": "City name",
        "title": "City",
        "type": "string",
    }
    registry.register(order)


def test_args_model_schemas_validate_nested_models(registry):
    order = registry.register(order_tool())
    good = {"ship_to": {"street": "Main", "city": "X"}, "pet": {"kind": "dog"}, "quantity": 2}

    assert registry.validate_args(order, good) == []
    errors = registry.validate_args(order, {**good, "ship_to": {"street": "Main"}})
    assert [(e.path, e.rule) for e in errors] == [(["ship_to", "city"], "required")]


def test_args_model_validators_run_as_check_args(registry):
    order = registry.register(order_tool())
    args = {"ship_to": {"street": "Main", "city": "X"}, "pet": {"kind": "dog"}, "quantity": 13}

    (error,) = registry.validate_args(order, args)

    assert error.path == ["quantity"]
    assert error.rule == "value_error"
    assert "13 is unlucky" in error.message


def test_args_model_check_runs_before_the_given_check_args(registry):
    class Args(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, value: int) -> int:
            if value % 2:
                raise ValueError("must be even")
            return value

    calls: list[dict[str, Any]] = []

    def check(args: dict[str, Any]) -> list[Any]:
        calls.append(args)
        return []

    @tool(name="demo.n", title="N", description="N.", args_model=Args, check_args=check)
    def handler(args: dict[str, Any], ctx: ToolContext) -> str:
        return "ok"

    registry.register(handler)

    assert [e.rule for e in registry.validate_args(handler, {"n": 3})] == ["value_error"]
    assert calls == []
    assert registry.validate_args(handler, {"n": 4}) == []
    assert calls == [{"n": 4}]


def test_a_recursive_args_model_is_refused():
    class Node(BaseModel):
        children: list[Node] = []

    Node.model_rebuild()

    with pytest.raises(ToolRegistrationError, match="'Node' refers to itself"):
        tool(name="demo.tree", title="Tree", description="Tree.", args_model=Node)
