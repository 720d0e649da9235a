"""Running a tool's ``check`` and ``confirmation`` (declared with ``@tool(check=, confirmation=)``).

Both run on the server with the call's context before any card is shown (``check`` also right
before the handler). A sync function runs in a worker thread, an async one on the event loop,
each within the tool's timeout. A :class:`ToolError` passes through unchanged (the call fails
with its code); anything else a bug in the tool, reported as ``internal`` with a clear message
(the exception text stays in the log: it may hold internals).
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import anyio.to_thread

from interlock.text import clean_text, reveal_hidden
from interlock.tools.base import Confirmation, Tool, ToolContext, ToolError

logger = logging.getLogger(__name__)

MAX_TITLE_CHARS = 200
MAX_SUMMARY_CHARS = 2_000
MAX_ACTION_LABEL_CHARS = 40
MAX_DETAIL_CHARS = 200_000
"""Longest ``detail`` and ``previous`` kept on a card; longer text is cut with a note."""


async def run_check(tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout_s: float) -> None:
    """Run ``tool.check(args, ctx)`` when the tool declares one.

    Raises:
        ToolError: The check's own refusal unchanged; ``timeout`` past ``timeout_s`` seconds;
            ``internal`` when the check raises anything else.
    """
    if tool.check is None:
        return
    await _run(tool, tool.check, "check", args, ctx, timeout_s)


async def make_confirmation(
    tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout_s: float
) -> dict[str, Any] | None:
    """Run ``tool.confirmation(args, ctx)``; return it as a storable dict (None without one).

    Text is cleaned (NUL, lone surrogates) and bounded: title 200, summary 2,000, action
    label 40 characters (cut with "…"); in these three a bidirectional override or embedding,
    which would reorder the sentence around a quoted value, reads ``[U+202E]`` and a control
    character ``[U+001B]`` (:func:`interlock.text.reveal_hidden`). ``detail`` and
    ``previous`` are bounded to 200,000 characters (cut with a note). The text is data: clients show it as text, never as
    HTML.

    Returns:
        ``{"title", "summary", "action_label", "detail", "previous", "undo"}`` or None;
        ``undo`` (bounded and revealed as the summary) joins the summary only on cards of
        calls that may still run or ran (:func:`interlock.storage.views.confirmation_out`).

    Raises:
        ToolError: The function's own :class:`ToolError`; ``timeout``; ``internal`` when it
            raises anything else or returns something other than a :class:`Confirmation`
            with non-empty text fields.
    """
    if tool.confirmation is None:
        return None
    out = await _run(tool, tool.confirmation, "confirmation", args, ctx, timeout_s)
    if not isinstance(out, Confirmation):
        raise _bug(tool, "confirmation", f"returned {type(out).__name__}, not a Confirmation")
    fields: dict[str, Any] = {}
    for name, limit in (
        ("title", MAX_TITLE_CHARS),
        ("summary", MAX_SUMMARY_CHARS),
        ("action_label", MAX_ACTION_LABEL_CHARS),
    ):
        value = getattr(out, name)
        if not isinstance(value, str) or not value.strip():
            raise _bug(tool, "confirmation", f"returned an empty or non-text {name}")
        value = reveal_hidden(clean_text(value.strip()))
        fields[name] = value if len(value) <= limit else value[: limit - 1] + "…"
    undo = out.undo
    if undo is not None and not isinstance(undo, str):
        raise _bug(tool, "confirmation", "returned a non-text undo")
    undo = reveal_hidden(clean_text(undo.strip())) if undo and undo.strip() else None
    fields["undo"] = (
        undo
        if undo is None or len(undo) <= MAX_SUMMARY_CHARS
        else undo[: MAX_SUMMARY_CHARS - 1] + "…"
    )
    for name in ("detail", "previous"):
        value = getattr(out, name)
        if value is not None and not isinstance(value, str):
            raise _bug(tool, "confirmation", f"returned a non-text {name}")
        fields[name] = None if value is None else _bounded(clean_text(value))
    return fields


def _bounded(text: str) -> str:
    if len(text) <= MAX_DETAIL_CHARS:
        return text
    return (
        f"{text[:MAX_DETAIL_CHARS]}\n\n[Cut: showing the first {MAX_DETAIL_CHARS:,} of "
        f"{len(text):,} characters.]"
    )


async def _run(
    tool: Tool,
    fn: Callable[..., Any],
    what: str,
    args: dict[str, Any],
    ctx: ToolContext,
    timeout_s: float,
) -> Any:
    try:
        with anyio.fail_after(timeout_s):
            if inspect.iscoroutinefunction(fn):
                return await fn(copy.deepcopy(args), ctx)
            out = await anyio.to_thread.run_sync(
                partial(fn, copy.deepcopy(args), ctx), abandon_on_cancel=True
            )
            if inspect.isawaitable(out):
                out = await out
            return out
    except ToolError:
        raise
    except TimeoutError:
        raise ToolError(
            "timeout",
            f"The tool {tool.display_name} took longer than {timeout_s:g} seconds to prepare "
            "this request, so it was not shown or run.",
        ) from None
    except Exception as exc:
        logger.warning("%s of tool %r raised", what, tool.name, exc_info=True)
        raise _bug(tool, what, "failed unexpectedly") from exc


def _bug(tool: Tool, what: str, problem: str) -> ToolError:
    """The ``internal`` error of a broken ``check`` or ``confirmation`` (``what``): the
    person reads that the tool failed; which hook and how (``problem``) go to the log."""
    logger.warning("The %s of tool %r %s", what, tool.name, problem)
    return ToolError(
        "internal",
        f"The tool {tool.display_name} could not prepare this request, so it was not shown or "
        "run. This is a bug in the tool; the server log has the details.",
    )
