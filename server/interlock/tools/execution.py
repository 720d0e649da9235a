"""Running a tool call: timeout, async or threaded handler, result checks and cutting.

:meth:`interlock.tools.ToolRegistry.execute` is built from these steps:

1. :func:`run_handler` runs the handler within the timeout (an async handler on the event loop,
   a sync one in a worker thread) and turns any exception but :class:`ToolError` into
   ``failed`` (or ``timeout``);
2. :func:`check_result` normalizes the return value to a :class:`ToolResult` and checks its
   data (JSON, then the tool's ``output_schema``);
3. :func:`cut_text` cuts a long result text, with a note saying how much was cut, and
   :func:`cap_data` drops data whose JSON is longer than the same limit, with a note.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, cast

import anyio
import anyio.to_thread

from interlock.text import clean_json, clean_text
from interlock.tools.base import Tool, ToolContext, ToolError, ToolResult
from interlock.tools.schema import field_errors

# Execution logs under the registry's logger name, as it did when this code lived there.
logger = logging.getLogger("interlock.tools.registry")

_BROKEN_RESULT = (
    "The tool {tool} gave back a result in a form it should not, so the result was discarded. "
    "This is a bug in the tool; the server log has the details."
)
"""What the person reads when a tool's result is not a ``ToolResult``, not JSON, or breaks
its output schema (which rule is logged, and in the error's ``details``)."""


class ToolTimedOut(ToolError):
    """``timeout``: a tool past its timeout. A sync handler's thread cannot be stopped and
    runs on: ``still_running`` then gives what it returns after all (the registry's
    :class:`ToolResult`, or raises :class:`ToolError`); None for a cancelled async handler."""

    def __init__(self, tool: Tool, timeout_s: float, still_running: Any = None) -> None:
        late = f"The tool {tool.display_name} did not finish within {timeout_s:g} seconds"
        if still_running is None:
            super().__init__(
                "timeout", f"{late}.", hint="Try again later, or with a smaller request."
            )
        else:  # what it does may still happen: asking again may do it twice
            super().__init__(
                "timeout",
                f"{late} and is still running, so it may still happen.",
                hint="Do not run it again unless the person asks: it may still finish.",
            )
        self.still_running: asyncio.Future[Any] | None = still_running


def retrieved(future: asyncio.Future[Any]) -> asyncio.Future[Any]:
    """``future``, whose exception is marked retrieved when nobody awaits it (no log noise)."""
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
    return future


async def run_handler(
    tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout_s: float
) -> object:
    """Run the tool's handler on a deep copy of ``args`` within ``timeout_s`` seconds.

    Args:
        tool: The tool to run.
        args: Validated arguments.
        ctx: The call's context.
        timeout_s: Seconds the call may take.

    Returns:
        Whatever the handler returned (awaited when it is a coroutine).

    Raises:
        ToolTimedOut: ``timeout`` past ``timeout_s`` seconds (a sync handler's thread runs on:
            its ``still_running`` gives what it returns); the handler's own :class:`ToolError`
            unchanged; ``failed`` when the handler raises anything else.
    """
    if _is_async(tool.handler):
        try:
            with anyio.fail_after(timeout_s):
                return await _call(tool, copy.deepcopy(args), ctx)
        except TimeoutError:
            raise ToolTimedOut(tool, timeout_s) from None
    thread = retrieved(asyncio.ensure_future(_call(tool, copy.deepcopy(args), ctx)))
    try:
        with anyio.fail_after(timeout_s):
            return await asyncio.shield(thread)
    except TimeoutError:
        raise ToolTimedOut(tool, timeout_s, thread) from None


async def _call(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> object:
    """Run the handler; turn any exception but ToolError (and cancellation) into ``failed``."""
    handler = tool.handler
    try:
        if _is_async(handler):
            return await cast(Awaitable[object], handler(args, ctx))
        out: object = await anyio.to_thread.run_sync(
            partial(handler, args, ctx), abandon_on_cancel=True
        )
        if inspect.isawaitable(out):  # a sync callable that returned a coroutine
            out = await out
        return out
    except ToolError:
        raise
    except Exception as exc:
        logger.warning("Tool %r raised %s", tool.name, type(exc).__name__, exc_info=True)
        # The exception text may hold internals (SQL, paths, secrets): logged, not shown.
        raise ToolError(
            "failed",
            f"The tool {tool.display_name} failed unexpectedly; the server log has the details.",
        ) from exc


def check_result(
    tool: Tool, raw: object, output_validator: Callable[[dict[str, Any]], Any]
) -> ToolResult:
    """Normalize a handler's return value and check its data.

    Args:
        tool: The tool that returned ``raw``.
        raw: The handler's return value.
        output_validator: Returns the validator for the tool's ``output_schema`` (given that
            schema); called only when the tool has one.

    Returns:
        A new :class:`ToolResult` (a ``str`` return becomes ``ToolResult(text)``), not cut yet.

    Raises:
        ToolError: ``failed`` when ``raw`` is neither ``ToolResult`` nor ``str`` or its data is
            not JSON; ``invalid_output`` when the data does not match ``output_schema`` (the
            message and ``details`` name where, never the value).
    """
    if isinstance(raw, str):
        result = ToolResult(text=clean_text(raw))
    elif isinstance(raw, ToolResult) and isinstance(raw.text, str):
        result = ToolResult(text=clean_text(raw.text), data=clean_json(raw.data))
    else:
        logger.warning("Tool %r returned %s, not ToolResult or str", tool.name, type(raw).__name__)
        raise ToolError("failed", _BROKEN_RESULT.format(tool=tool.display_name))
    if result.data is not None:
        try:
            json.dumps(result.data, allow_nan=False)
        except (TypeError, ValueError) as exc:
            logger.warning("Tool %r returned data that is not JSON: %s", tool.name, exc)
            raise ToolError("failed", _BROKEN_RESULT.format(tool=tool.display_name)) from None
    if tool.output_schema is not None:
        validator = output_validator(tool.output_schema)
        errors = field_errors(validator, result.data)
        if errors:
            # jsonschema's messages quote the offending value: keep them (and the data)
            # out of the error, which reaches the model and the card.
            first = errors[0]
            where = "/".join(str(p) for p in first.path) or "(root)"
            logger.warning(
                "Tool %r output does not match its output schema at %s (rule %s)",
                tool.name,
                where,
                first.rule,
            )
            raise ToolError(
                "invalid_output",
                _BROKEN_RESULT.format(tool=tool.display_name),
                details=[{"path": list(e.path), "rule": e.rule} for e in errors],
            )
    return result


def cut_text(text: str, limit: int) -> str:
    """Return ``text``, or its first ``limit`` characters plus a note saying what was kept.

    Args:
        text: A result text.
        limit: Most characters kept (the registry's ``max_result_chars``).

    Returns:
        ``text`` unchanged when short enough; else the head and
        ``"\\n\\n[Result cut: showing the first {kept:,} of {total:,} characters; {cut:,}
        cut.]"``; for text of several lines the note also says which lines were kept
        (``lines 1 to 1,024 of 200,000, the last one partly``).
    """
    total = len(text)
    if total <= limit:
        return text
    head = text[:limit]
    lines = ""
    total_lines = text.count("\n") + 1
    if total_lines > 1:
        shown = head.count("\n") + 1
        partly = "" if text[limit - 1] == "\n" else ", the last one partly"
        lines = f" (lines 1 to {shown:,} of {total_lines:,}{partly})"
    return (
        f"{head}\n\n[Result cut: showing the first {limit:,} of {total:,} characters"
        f"{lines}; {total - limit:,} cut.]"
    )


def cap_data(result: ToolResult, limit: int) -> ToolResult:
    """Drop ``result.data`` when its JSON is longer than ``limit`` characters, saying so.

    Data cannot be cut the way text is (half a JSON value is not a value), so data over the
    limit is dropped and a note is added to the text: the call's card and event stay small
    (20 MB of data would otherwise be a 20 MB event, replayed on every reconnect).

    Args:
        result: A checked result (:func:`check_result`); changed in place.
        limit: Most characters of data kept (the registry's ``max_result_chars``).

    Returns:
        ``result``, with ``data`` None and the text ending with
        ``"\n\n[Result data dropped: {size:,} characters of data; the limit is {limit:,}.]"``
        when the data was over the limit.
    """
    if result.data is None:
        return result
    size = len(json.dumps(result.data, ensure_ascii=False, separators=(",", ":")))
    if size > limit:
        logger.warning("Dropped %d characters of tool result data (limit %d)", size, limit)
        result.data = None
        result.text += (
            f"\n\n[Result data dropped: {size:,} characters of data; the limit is {limit:,}.]"
        )
    return result


def runs_in_thread(tool: Tool) -> bool:
    """Whether the tool's handler runs in a worker thread (a sync handler): it cannot be
    stopped once started, and runs on when its caller is cancelled."""
    return not _is_async(tool.handler)


def _is_async(handler: object) -> bool:
    """True for ``async def`` functions (also behind ``functools.partial``) and async callables."""
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        type(handler).__call__
    )
