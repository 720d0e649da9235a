"""ToolRegistry.execute: sync and async handlers, timeouts, failures, result checks, cutting."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from interlock.tools import ToolContext, ToolError, ToolRegistry, ToolResult

RELEASE_TIMEOUT_S = 10.0
BROKEN_RESULT = (
    "The tool “Echo” gave back a result in a form it should not, so the result was discarded. "
    "This is a bug in the tool; the server log has the details."
)


async def test_a_sync_handler_runs_in_a_worker_thread_and_a_str_becomes_text(
    registry, make_tool, ctx
):
    threads: list[int] = []

    def handler(args: dict[str, Any], context: ToolContext) -> str:
        threads.append(threading.get_ident())
        return f"hello {args['text']} from {context.user_id}"

    tool = registry.register(make_tool(handler=handler))

    result = await registry.execute(tool, {"text": "world"}, ctx)

    assert result == ToolResult(text="hello world from user_1", data=None)
    assert threads and threads[0] != threading.get_ident()


async def test_an_async_handler_runs_on_the_event_loop(registry, make_tool, ctx):
    async def handler(args: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(text="done", data={"call": context.tool_call_id})

    tool = registry.register(make_tool(handler=handler))

    result = await registry.execute(tool, {}, ctx)

    assert result == ToolResult(text="done", data={"call": "call_1"})


async def test_the_handler_gets_a_copy_of_the_args(registry, make_tool, ctx):
    def handler(args: dict[str, Any], context: ToolContext) -> str:
        args["items"].append("changed")
        return "ok"

    tool = registry.register(make_tool(handler=handler))
    args = {"items": ["original"]}

    await registry.execute(tool, args, ctx)

    assert args == {"items": ["original"]}


async def test_an_async_handler_past_its_timeout_fails_with_timeout(registry, make_tool, ctx):
    never = asyncio.Event()

    async def handler(args: dict[str, Any], context: ToolContext) -> str:
        await never.wait()
        return "unreachable"

    tool = registry.register(make_tool(handler=handler, timeout_s=0.05))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "timeout"
    assert caught.value.message == "The tool “Echo” did not finish within 0.05 seconds."


async def test_the_registry_default_timeout_applies_when_the_tool_has_none(make_tool, ctx):
    registry = ToolRegistry(default_timeout_s=0.05)
    never = asyncio.Event()

    async def handler(args: dict[str, Any], context: ToolContext) -> str:
        await never.wait()
        return "unreachable"

    tool = registry.register(make_tool(handler=handler))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "timeout"


async def test_a_sync_handler_past_its_timeout_fails_with_timeout(registry, make_tool, ctx):
    release = threading.Event()

    def handler(args: dict[str, Any], context: ToolContext) -> str:
        release.wait(RELEASE_TIMEOUT_S)
        return "late"

    tool = registry.register(make_tool(handler=handler, timeout_s=0.05))

    try:
        with pytest.raises(ToolError) as caught:
            await registry.execute(tool, {}, ctx)
    finally:
        release.set()

    assert caught.value.code == "timeout"
    # Its thread cannot be stopped: the person is told it may still happen, and what it
    # returns after all is not thrown away.
    assert caught.value.message == (
        "The tool “Echo” did not finish within 0.05 seconds and is still running, "
        "so it may still happen."
    )
    still_running = getattr(caught.value, "still_running", None)
    assert still_running is not None
    async with asyncio.timeout(RELEASE_TIMEOUT_S):
        late = await still_running
    assert late.text == "late"


async def test_a_tool_error_from_the_handler_passes_through(registry, make_tool, ctx):
    raised = ToolError("not_found", "There is no note #3.", hint="List the notes.")

    def handler(args: dict[str, Any], context: ToolContext) -> str:
        raise raised

    tool = registry.register(make_tool(handler=handler))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value is raised


@pytest.mark.parametrize("is_async", [False, True])
async def test_any_other_exception_becomes_failed_with_its_type_and_text(
    registry, make_tool, ctx, is_async
):
    def sync_handler(args: dict[str, Any], context: ToolContext) -> str:
        raise ValueError("boom")

    async def async_handler(args: dict[str, Any], context: ToolContext) -> str:
        raise ValueError("boom")

    tool = registry.register(make_tool(handler=async_handler if is_async else sync_handler))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "failed"
    assert caught.value.message == (
        "The tool “Echo” failed unexpectedly; the server log has the details."
    )
    assert isinstance(caught.value.__cause__, ValueError)


async def test_a_timeout_error_raised_by_the_handler_itself_is_failed_not_timeout(
    registry, make_tool, ctx
):
    async def handler(args: dict[str, Any], context: ToolContext) -> str:
        raise TimeoutError("upstream timed out")

    tool = registry.register(make_tool(handler=handler))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "failed"
    assert caught.value.message.endswith("failed unexpectedly; the server log has the details.")
    assert isinstance(caught.value.__cause__, TimeoutError)


@pytest.mark.parametrize("returned", [None, 42, {"text": "x"}, ToolResult(text=5)])
async def test_a_return_that_is_not_a_result_or_text_fails(registry, make_tool, ctx, returned):
    tool = registry.register(make_tool(handler=lambda args, context: returned))

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "failed"
    assert caught.value.message == BROKEN_RESULT


async def test_data_that_is_not_json_fails(registry, make_tool, ctx):
    tool = registry.register(
        make_tool(handler=lambda args, context: ToolResult(text="x", data={"when": object()}))
    )

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "failed"
    assert caught.value.message == BROKEN_RESULT


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}},
    "required": ["id"],
}


async def test_data_matching_the_output_schema_is_returned(registry, make_tool, ctx):
    tool = registry.register(
        make_tool(
            output_schema=OUTPUT_SCHEMA,
            handler=lambda args, context: ToolResult(text="ok", data={"id": 3}),
        )
    )

    assert (await registry.execute(tool, {}, ctx)).data == {"id": 3}


async def test_data_not_matching_the_output_schema_is_invalid_output_without_the_data(
    registry, make_tool, ctx
):
    tool = registry.register(
        make_tool(
            output_schema=OUTPUT_SCHEMA,
            handler=lambda args, context: ToolResult(text="secret text", data={"id": "three"}),
        )
    )

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "invalid_output"
    assert caught.value.message == BROKEN_RESULT
    assert caught.value.details == [{"path": ["id"], "rule": "type"}]
    everything = f"{caught.value.message} {caught.value.hint} {caught.value.details}"
    assert "three" not in everything
    assert "secret text" not in everything


async def test_long_text_is_cut_with_a_note_giving_the_full_size(make_tool, ctx):
    registry = ToolRegistry(max_result_chars=100)
    text = "a" * 100 + "b" * 4900
    tool = registry.register(make_tool(handler=lambda args, context: text))

    result = await registry.execute(tool, {}, ctx)

    assert result.text == (
        "a" * 100 + "\n\n[Result cut: showing the first 100 of 5,000 characters; 4,900 cut.]"
    )
    assert result.full_text == text


async def test_a_cut_note_on_many_lines_says_which_lines_were_kept(make_tool, ctx):
    registry = ToolRegistry(max_result_chars=25)
    text = "".join(f"line {n}\n" for n in range(1, 1001))  # "line 1\n" is 7 characters
    tool = registry.register(make_tool(handler=lambda args, context: text))

    result = await registry.execute(tool, {}, ctx)

    assert result.text.endswith(
        f"[Result cut: showing the first 25 of {len(text):,} characters "
        "(lines 1 to 4 of 1,001, the last one partly); "
        f"{len(text) - 25:,} cut.]"
    )
    assert result.full_text == text


async def test_the_default_limit_keeps_60000_characters(registry, make_tool, ctx):
    tool = registry.register(
        make_tool(handler=lambda args, context: ToolResult(text="x" * 5_000_000, data=[1]))
    )

    result = await registry.execute(tool, {}, ctx)

    assert result.text.startswith("x" * 60_000 + "\n\n")
    assert result.text.endswith(
        "[Result cut: showing the first 60,000 of 5,000,000 characters; 4,940,000 cut.]"
    )
    assert result.data == [1]
    assert result.full_text is not None and len(result.full_text) == 5_000_000


async def test_text_exactly_at_the_limit_is_kept_whole(make_tool, ctx):
    registry = ToolRegistry(max_result_chars=10)
    tool = registry.register(make_tool(handler=lambda args, context: "0123456789"))

    assert (await registry.execute(tool, {}, ctx)).text == "0123456789"


async def test_an_object_with_an_async_call_method_runs_as_an_async_handler(
    registry, make_tool, ctx
):
    class Handler:
        async def __call__(self, args: dict[str, Any], context: ToolContext) -> str:
            return f"loop thread: {threading.get_ident() == loop_thread}"

    loop_thread = threading.get_ident()
    tool = registry.register(make_tool(handler=Handler()))

    assert (await registry.execute(tool, {}, ctx)).text == "loop thread: True"
