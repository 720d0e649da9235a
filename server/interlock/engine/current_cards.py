"""Pending cards described as things are now, when they are read.

A call's confirmation (its card's sentence, "Delete note #2: “buy milk”") is computed when the
call is proposed and stored with it, so the event stream and the HITL cycle never compute it
again. By the time a person reads a waiting card, note #2 may have been changed or deleted
(by another call, in another conversation, by an MCP client): the card would name the old text
while approving acts on the new. So the routes that read waiting calls (a conversation's
detail, its pending calls, the Approvals view) run the tool's ``confirmation`` again for each
call still waiting for a decision, read-only, and answer with that; nothing is stored.

When the tool can no longer describe the call (its confirmation refuses, e.g. "There is no
note #2."), the card keeps its title and says so instead of the old sentence; a confirmation
that times out or is broken keeps the stored one (the call's own run reports it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from interlock.engine.runner import Engine
from interlock.storage import ToolCallStatus
from interlock.storage.views import ConfirmationOut, ToolCallOut, confirmation_out
from interlock.tools import ToolContext, ToolError
from interlock.tools.hooks import make_confirmation

MAX_AT_ONCE = 8
"""Confirmations computed at the same time for one read (the Approvals view lists up to 500)."""

READ_TIMEOUT_S = 2.0
"""Longest wait, in seconds, for one card's confirmation while a read waits (or the tool's own
timeout when shorter): a confirmation is the developer's code and may be slow, and a page of
cards must not wait for it; a slower one keeps the stored sentence."""

_KEEP_STORED = frozenset({"timeout", "internal"})
"""Error codes of a confirmation that say nothing about the call (it is slow or broken)."""


def waiting_card(call: ToolCallOut) -> bool:
    """Whether ``call`` is a card waiting for a decision, with a stored confirmation."""
    return (
        call.status == ToolCallStatus.interrupted
        and call.decision is None
        and call.confirmation is not None
        and isinstance(call.proposed_args, dict)
    )


async def describe_now(
    engine: Engine, calls: Iterable[tuple[ToolCallOut, str, str]]
) -> dict[str, ConfirmationOut]:
    """Compute the current confirmation of each waiting card among ``calls``.

    Args:
        engine: The engine (registry, database, default timeout).
        calls: ``(call, owner's user id, conversation id)``; calls that are not waiting cards
            (:func:`waiting_card`) or whose tool has no confirmation are skipped.

    Returns:
        ``{call id: confirmation as it reads now}`` for the calls described again.
    """
    todo = [
        (call, owner, conversation)
        for call, owner, conversation in calls
        if waiting_card(call) and _describable(engine, call.name)
    ]
    if not todo:
        return {}
    limit = asyncio.Semaphore(MAX_AT_ONCE)

    async def one(call: ToolCallOut, owner: str, conversation: str) -> ConfirmationOut | None:
        async with limit:
            return await _describe(engine, call, owner, conversation)

    found = await asyncio.gather(*(one(*item) for item in todo))
    return {item[0].id: now for item, now in zip(todo, found, strict=True) if now is not None}


def with_current(call: ToolCallOut, current: dict[str, ConfirmationOut]) -> ToolCallOut:
    """``call`` with its current confirmation from :func:`describe_now`, if it has one."""
    now = current.get(call.id)
    return call if now is None else call.model_copy(update={"confirmation": now})


def _describable(engine: Engine, name: str) -> bool:
    tool = engine.registry.get(name)
    return tool is not None and tool.confirmation is not None


async def _describe(
    engine: Engine, call: ToolCallOut, owner: str, conversation: str
) -> ConfirmationOut | None:
    """The call's confirmation now; None to keep the stored one."""
    tool = engine.registry.get(call.name)
    stored = call.confirmation
    if tool is None or stored is None or not isinstance(call.proposed_args, dict):
        return None
    context = ToolContext(
        user_id=owner,
        conversation_id=conversation,
        tool_call_id=call.id,
        db=engine.db,
        writable=False,
        tool_name=tool.name,
    )
    own = tool.timeout_s if tool.timeout_s is not None else engine.registry.default_timeout_s
    timeout = min(own, READ_TIMEOUT_S)
    try:
        fields = await make_confirmation(tool, call.proposed_args, context, timeout)
    except ToolError as exc:
        if exc.code in _KEEP_STORED:
            return None
        return stored.model_copy(
            update={
                "summary": f"This can no longer be done as proposed: {exc.message}",
                "detail": None,
                "previous": None,
            }
        )
    return confirmation_out(fields, call.status) if fields is not None else None
