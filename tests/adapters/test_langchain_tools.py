"""LangChain tools registered as Interlock tools (issue 9 §4): what is taken over, what must be
stated, and how sync, async, content-and-artifact and failing tools run."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from typing import Annotated, Any

import pytest
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool, ToolException, tool
from pydantic import BaseModel, Field, field_validator

from interlock.adapters import from_langchain
from interlock.settings import Settings
from interlock.skills.loader import MODULE_PREFIX, load_skills
from interlock.tools import (
    Permission,
    ToolContext,
    ToolError,
    ToolRegistrationError,
    ToolRegistry,
    ToolResult,
)


@tool
def get_weather(city: str, days: int = 3) -> str:
    """Get the weather forecast for a city."""
    return f"{city}: sunny for {days} days (thread {threading.get_ident()})"


@tool(response_format="content_and_artifact")
async def search_notes(
    query: str, call_id: Annotated[str, InjectedToolCallId]
) -> tuple[str, dict[str, Any]]:
    """Search the notes."""
    return f"2 notes match {query!r} (call {call_id})", {"ids": [1, 2], "query": query}


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    raise ToolException(f"No file at {path}.")


class Booking(BaseModel):
    room: str = Field(description="Room name.")
    people: int = Field(ge=1, le=20)

    @field_validator("room")
    @classmethod
    def known_room(cls, value: str) -> str:
        if value not in {"oak", "pine"}:
            raise ValueError("unknown room")
        return value


def _book(room: str, people: int) -> str:
    return f"Booked {room} for {people}."


book_room = StructuredTool.from_function(
    func=_book, name="book_room", description="Book a room.", args_schema=Booking
)


class Counter(BaseTool):
    """A BaseTool subclass with its own sync and async runs."""

    name: str = "count_words"
    description: str = "Count the words of a text."

    def _run(self, text: str) -> str:
        return f"{len(text.split())} words (sync)"

    async def _arun(self, text: str) -> str:
        return f"{len(text.split())} words (async)"


def test_name_description_and_args_schema_are_taken_over_and_permission_defaults_to_ask() -> None:
    registry = ToolRegistry()

    registered = registry.register(get_weather, write=False)

    assert registry.get("get_weather") is registered
    assert (registered.name, registered.title) == ("get_weather", "Get weather")
    assert registered.description == "Get the weather forecast for a city."
    assert registered.input_schema == {
        "type": "object",
        "properties": {
            "city": {"title": "City", "type": "string"},
            "days": {"default": 3, "title": "Days", "type": "integer"},
        },
        "required": ["city"],
    }
    assert registered.permission == Permission.ASK
    assert registered.write is False and registered.annotations.read_only is True
    (spec,) = registry.provider_specs([registered])
    assert spec["function"]["name"] == "get_weather"


def test_injected_arguments_are_not_shown_to_the_model() -> None:
    registered = ToolRegistry().register(search_notes, write=False, name="notes.search")

    assert registered.input_schema["properties"] == {"query": {"title": "Query", "type": "string"}}


@pytest.mark.parametrize("write", [None, "yes", 1])
def test_write_must_be_stated_as_true_or_false(write: Any) -> None:
    registry = ToolRegistry()
    options = {} if write is None else {"write": write}

    with pytest.raises(ToolRegistrationError) as caught:
        registry.register(get_weather, **options)

    assert str(caught.value) == (
        "Cannot register tool 'get_weather': a LangChain tool does not say whether it changes "
        "data: state it with write=True (it changes data) or write=False (it only reads)"
    )
    assert len(registry) == 0


def test_options_stated_on_registration_are_applied() -> None:
    registered = ToolRegistry().register(
        delete_file,
        write=True,
        name="files.delete",
        title="Delete a file",
        permission=Permission.ALLOW,
        timeout_s=5,
    )

    assert (registered.name, registered.title, registered.permission) == (
        "files.delete",
        "Delete a file",
        Permission.ALLOW,
    )
    assert registered.write is True and registered.annotations.read_only is False
    assert registered.timeout_s == 5


def test_the_schema_is_checked_by_the_same_rules_as_every_tool() -> None:
    conditional = StructuredTool.from_function(
        func=lambda **kw: "x",
        name="cond",
        description="Conditional.",
        args_schema={
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "if": {"required": ["a"]},
            "then": {"required": ["a"]},
        },
    )

    with pytest.raises(ToolRegistrationError, match="unsupported keyword 'if', 'then' at /"):
        ToolRegistry().register(conditional, write=False)
    with pytest.raises(ToolRegistrationError, match="name must be lowercase"):
        ToolRegistry().register(get_weather, write=False, name="Get.Weather")


def test_options_are_refused_for_an_interlock_tool() -> None:
    plain = from_langchain(get_weather, write=False)

    with pytest.raises(ToolRegistrationError, match="options write are only for a LangChain tool"):
        ToolRegistry().register(plain, write=True)


async def test_a_sync_tool_runs_off_the_event_loop(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    registered = registry.register(get_weather, write=False)

    result = await registry.execute(registered, {"city": "Oslo"}, ctx)

    assert result.text.startswith("Oslo: sunny for 3 days (thread ")
    assert f"(thread {threading.get_ident()})" not in result.text
    assert result.data is None


async def test_an_async_tool_gives_content_and_artifact_and_gets_the_call_id(
    ctx: ToolContext,
) -> None:
    registry = ToolRegistry()
    registered = registry.register(search_notes, write=False, name="notes.search")

    result = await registry.execute(registered, {"query": "milk"}, ctx)

    assert result == ToolResult(
        text="2 notes match 'milk' (call call_1)", data={"ids": [1, 2], "query": "milk"}
    )


async def test_a_base_tool_subclass_runs_its_async_run(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    registered = registry.register(Counter(), write=False)

    result = await registry.execute(registered, {"text": "a b c"}, ctx)

    assert (registered.name, result.text) == ("count_words", "3 words (async)")


async def test_a_tool_exception_is_a_failed_call_with_the_tools_text(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    registered = registry.register(delete_file, write=True)

    with pytest.raises(ToolError) as caught:
        await registry.execute(registered, {"path": "/tmp/x"}, ctx)

    assert (caught.value.code, caught.value.message) == ("failed", "No file at /tmp/x.")


async def test_an_error_handled_by_the_tool_is_a_failed_call_too(ctx: ToolContext) -> None:
    handled = StructuredTool.from_function(
        func=delete_file.func, name="delete_file", description="Delete.", handle_tool_error=True
    )
    registry = ToolRegistry()
    registered = registry.register(handled, write=True)

    with pytest.raises(ToolError) as caught:
        await registry.execute(registered, {"path": "/tmp/y"}, ctx)

    assert (caught.value.code, caught.value.message) == ("failed", "No file at /tmp/y.")


async def test_the_tools_own_validation_refusing_args_is_invalid_args(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    registered = registry.register(book_room, write=True)
    assert registered.input_schema["properties"]["people"] == {
        "maximum": 20,
        "minimum": 1,
        "title": "People",
        "type": "integer",
    }
    assert registry.validate_args(registered, {"room": "oak", "people": 0})[0].rule == "minimum"

    with pytest.raises(ToolError) as caught:
        await registry.execute(registered, {"room": "elm", "people": 2}, ctx)

    assert caught.value.code == "invalid_args"
    assert (
        "room: unknown room" in caught.value.message and "Value error" not in caught.value.message
    )
    ok = await registry.execute(registered, {"room": "oak", "people": 2}, ctx)
    assert ok.text == "Booked oak for 2."


SKILL_MD = """\
---
name: weather
description: Weather.
---
Use the weather tools.
"""


@pytest.fixture
def _forget_weather_module() -> Iterator[None]:
    yield
    sys.modules.pop(f"{MODULE_PREFIX}weather", None)


@pytest.mark.usefixtures("_forget_weather_module")
def test_a_skill_registers_adapted_langchain_tools_and_refuses_bare_ones(tmp_path: Path) -> None:
    for folder, code in (
        (
            "good",
            """
            from langchain_core.tools import tool

            from interlock.adapters import from_langchain


            @tool
            def forecast(city: str) -> str:
                \"\"\"Get the forecast.\"\"\"
                return f"{city}: sunny"


            weather_forecast = from_langchain(forecast, name="weather.forecast", write=False)
            """,
        ),
        (
            "bare",
            """
            from langchain_core.tools import tool


            @tool
            def forecast(city: str) -> str:
                \"\"\"Get the forecast.\"\"\"
                return f"{city}: sunny"
            """,
        ),
    ):
        path = tmp_path / folder / "weather"
        path.mkdir(parents=True)
        (path / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
        (path / "tools.py").write_text(dedent(code).lstrip("\n"), encoding="utf-8")
    settings = Settings(_env_file=None, database_url="sqlite://")  # type: ignore[call-arg]

    good_registry = ToolRegistry()
    (good,) = load_skills(good_registry, [tmp_path / "good"], settings)
    bare_registry = ToolRegistry()
    (bare,) = load_skills(bare_registry, [tmp_path / "bare"], settings)

    assert (good.status, good.tools) == ("loaded", ("weather.forecast",))
    registered = good_registry.get("weather.forecast")
    assert registered is not None and registered.skill == "weather"
    assert (bare.status, len(bare_registry)) == ("failed", 0)
    assert [(p.file.name, p.line, p.reason) for p in bare.problems] == [
        (
            "tools.py",
            4,
            "Cannot register tool 'forecast': a LangChain tool does not say whether it changes "
            "data: state it with write=True (it changes data) or write=False (it only reads): "
            "bind from_langchain(forecast, name=..., write=...) at module level "
            "(interlock.adapters.from_langchain)",
        )
    ]
