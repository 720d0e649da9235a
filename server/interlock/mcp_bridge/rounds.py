"""Asking in the MCP client on 2026-07-28 connections: the approval as an input round.

A connection of that era has no way for the server to send a request to the client in the
middle of a call (no session, one exchange per request). A call that needs a decision there
answers at once with an ``input_required`` result holding one form elicitation (the same
question as :func:`interlock.mcp_bridge.gate.approval_question`), keyed
``interlock.approval.<call id>``; the client asks its person and sends the call again with the
answer, which becomes the person's decision (channel ``mcp``) before the call waits for its
outcome as usual. The web client can decide meanwhile: the first answer wins, and a late one is
dropped. The key names the call, not a secret: the answer is only taken for a call of the same
person, tool and args, and deciding goes through the same checks as any decision.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from interlock.audit import Channel
from interlock.engine import DecisionIn, Engine, decide
from interlock.errors import InterlockError
from interlock.storage.views import ToolCallOut

log = logging.getLogger(__name__)

KEY_PREFIX = "interlock.approval."
"""Input request key of a call's approval question: this prefix and the call's id."""


def approval_round(
    call: ToolCallOut, question: str, schema: dict[str, Any]
) -> types.InputRequiredResult:
    """The ``input_required`` answer asking the client's person about ``call``."""
    return types.InputRequiredResult(
        input_requests={
            KEY_PREFIX + call.id: types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=question, requested_schema=schema)  # type: ignore[arg-type]
            )
        }
    )


def answer_in(responses: Mapping[str, Any] | None) -> tuple[str, types.ElicitResult] | None:
    """``(call id, answer)`` when a retried call carries the answer to an approval question."""
    for key, value in (responses or {}).items():
        if key.startswith(KEY_PREFIX) and isinstance(value, types.ElicitResult):
            return key[len(KEY_PREFIX) :], value
    return None


async def decide_from_answer(
    engine: Engine, user_id: str, call_id: str, answer: types.ElicitResult
) -> None:
    """Make the client's answer the person's decision: yes approves, no rejects (with the
    reason given); a dismissed question decides nothing. A decision already taken elsewhere
    wins (this one is then refused and dropped)."""
    content = answer.content or {}
    if answer.action == "accept" and content.get("approve") is True:
        body = DecisionIn(type="approve")
    elif answer.action in ("accept", "decline"):
        reason = content.get("reason")
        body = DecisionIn(type="reject", message=str(reason)[:2000] if reason else None)
    else:
        return
    try:
        await decide(engine, user_id, call_id, body, channel=Channel.mcp)
    except InterlockError as exc:
        log.info("answer from the MCP client on call %s not taken: %s", call_id, exc.code)
