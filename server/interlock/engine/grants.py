"""Grants ("don't ask again") applied to calls as they are proposed.

A proposed ``ASK`` call covered by a live grant skips its card: it stays ``pending`` (and
runs like an ``ALLOW`` call), its record names the grant (``tool_calls.grant_id``), the
audit log records it as ``allowed`` by ``policy:<grant id>``, and the grant counts one use,
all in the transaction that stores the call. The record's channel is ``system`` for a chat's
call and ``mcp`` for a call from an MCP client (whose name the call carries).
"""

from __future__ import annotations

from sqlmodel import Session

from interlock.audit import Channel, record_allowed
from interlock.employees import Employee
from interlock.permissions import find_grant, use_grant
from interlock.permissions.grants import needs_others
from interlock.storage import ToolCall
from interlock.tools import Tool


def apply_grant(
    session: Session,
    call: ToolCall,
    tool: Tool,
    permission: str,
    *,
    user_id: str,
    employee: Employee,
    channel: Channel = Channel.system,
) -> str | None:
    """Let ``call`` run under a live grant when one covers it.

    Args:
        session: The transaction storing the call.
        call: The new call (not yet interrupted), its ``proposed_args`` checked.
        tool: Its tool.
        permission: Its effective level (only ``ASK`` can be covered).
        user_id: The conversation's owner.
        employee: The conversation's employee (a tool that needs an approver or several
            approvals under it is never covered).
        channel: The audit record's channel: ``system`` (a chat's call) or ``mcp`` (a call
            from an MCP client).

    Returns:
        The grant's id (also set as ``call.grant_id``), or None: the call asks as usual.
    """
    if permission != "ASK" or needs_others(tool, employee):
        return None
    grant = find_grant(
        session,
        user_id=user_id,
        employee=employee.slug,
        conversation_id=call.conversation_id,
        tool=tool,
        permission=permission,
        args=call.proposed_args,
    )
    if grant is None or not use_grant(session, grant):
        return None
    call.grant_id = grant.id
    session.add(call)
    record_allowed(session, call, decider=f"policy:{grant.id}", channel=channel)
    return grant.id
