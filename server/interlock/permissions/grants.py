"""Remembered approvals ("don't ask again"): making, matching, using and revoking grants.

A grant lets calls of one tool run without a card for one person: in one conversation
(``scope="conversation"``) or in all their conversations with one employee
(``scope="employee"``), optionally only with the exact args it was made for. It acts only on
a tool whose level is ``ASK`` (never on ``DENY``, never on question tools), lasts at most
:data:`MAX_GRANT_DAYS`, and is void once the tool's schema or level changes (the hash of both
is stored in it). Rejects are never remembered: only approve and edit decisions make grants.
All times are the server's clock.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from interlock.approvals.policy import rule_for
from interlock.employees import Employee
from interlock.errors import BadRequest
from interlock.permissions.levels import effective_permission
from interlock.storage import Conversation, Grant
from interlock.storage.lookup import by_id
from interlock.storage.models import as_utc, utcnow
from interlock.storage.write_behind import execute
from interlock.tools import Tool, ToolRegistry, is_question
from interlock.tools.schema import args_refused

MAX_GRANT_DAYS = 30
"""The longest a grant may last, in days."""

GrantScope = Literal["conversation", "employee"]


def canonical_args(args: Any) -> str:
    """Return the canonical JSON of ``args`` (sorted keys, no spaces): equal args, equal text."""
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def schema_hash(tool: Tool, permission: str) -> str:
    """SHA-256 (hex) of what a grant was given for: the tool's name, schema, level and kind."""
    basis = {
        "name": tool.name,
        "input_schema": tool.input_schema,
        "permission": permission,
        "write": tool.write,
    }
    return hashlib.sha256(canonical_args(basis).encode()).hexdigest()


def grant_state(grant: Grant, registry: ToolRegistry, employee: Employee | None) -> str | None:
    """Return None while ``grant`` can cover calls, else why not (a sentence for a person).

    Revocation and expiry are not checked here (the listing leaves those grants out).
    """
    tool = registry.get(grant.tool)
    if tool is None:
        return "The tool is no longer installed."
    if employee is None:
        return "The employee no longer exists."
    permission = effective_permission(tool, employee)
    if permission != "ASK":
        return (
            "The tool is not allowed for this employee any more."
            if permission == "DENY"
            else "The tool now runs without asking."
        )
    if schema_hash(tool, permission) != grant.schema_hash:
        return "The tool changed since this was granted; it will ask again."
    if needs_others(tool, employee):
        return "The tool now needs an approver's decision; it will ask."
    return None


def needs_others(tool: Tool, employee: Employee) -> bool:
    """True when a call of ``tool`` needs someone besides its owner (an approver, or more than
    one approval): a grant, the owner's own choice, never covers such a tool."""
    rule = rule_for(tool, employee, default_timeout_s=1.0)  # the timeout plays no part here
    return rule.require_approver or rule.approvals_required > 1


def check_expiry(expires_at: datetime, *, now: datetime | None = None) -> datetime:
    """Return ``expires_at`` as UTC if it lies in the future and at most 30 days ahead.

    Raises:
        BadRequest: ``invalid_expiry``.
    """
    now = now or utcnow()
    when = as_utc(expires_at)
    if when <= now:
        raise BadRequest("The expiry is in the past; pick a time ahead.", code="invalid_expiry")
    if when > now + timedelta(days=MAX_GRANT_DAYS):
        raise BadRequest(f"A grant lasts at most {MAX_GRANT_DAYS} days.", code="invalid_expiry")
    return when


def create_grant(
    session: Session,
    *,
    registry: ToolRegistry,
    employee: Employee,
    user_id: str,
    tool_name: str,
    scope: GrantScope,
    conversation: Conversation | None,
    args: dict[str, Any] | None,
    expires_at: datetime,
    source_call_id: str | None = None,
    actions_on: bool = True,
    now: datetime | None = None,
) -> Grant:
    """Check and stage a new grant in the caller's transaction (flushed, not committed).

    Args:
        session: Open session.
        registry: Tool registry.
        employee: The employee the grant is for (the conversation's, for conversation scope).
        user_id: The person; ``conversation`` must already be checked to be theirs.
        tool_name: Registered tool name.
        scope: ``conversation`` (needs ``conversation``) or ``employee``.
        conversation: The conversation of a conversation-scoped grant.
        args: Exact args to narrow the grant to, or None for any args.
        expires_at: End of the grant (server clock), at most :data:`MAX_GRANT_DAYS` ahead.
        source_call_id: The call whose decision made the grant, if any.
        actions_on: The person's "AI actions" switch for the employee.
        now: The creation time the expiry was computed from (server clock; default now).

    Raises:
        BadRequest: ``unknown_tool``; ``cannot_remember`` (a question tool, a tool that
            needs an approver or several approvals, or a tool that does not ask:
            ``details.permission``); ``invalid_args`` (``details.errors``);
            ``invalid_expiry``; ``invalid_request`` (scope without its conversation).
    """
    tool = registry.get(tool_name)
    if tool is None:
        raise BadRequest(f"There is no tool {tool_name!r}.", code="unknown_tool")
    if is_question(tool):
        raise BadRequest(
            f"{tool.title} asks the person a question; answers cannot be remembered.",
            code="cannot_remember",
        )
    if needs_others(tool, employee):
        raise BadRequest(
            f"{tool.title} needs an approver or several approvals for {employee.name}; "
            "it cannot run without asking.",
            code="cannot_remember",
        )
    permission = effective_permission(tool, employee, actions_on=actions_on)
    if permission != "ASK":
        message = (
            f"{tool.title} is not allowed for {employee.name}; a grant cannot allow it."
            if permission == "DENY"
            else f"{tool.title} already runs without asking for {employee.name}."
        )
        raise BadRequest(message, code="cannot_remember", details={"permission": permission})
    if args is not None:
        errors = registry.validate_args(tool, args)
        if errors:
            raise args_refused(
                f"These details cannot be remembered for {tool.display_name}:",
                tool.input_schema,
                errors,
            )
    if scope == "conversation" and conversation is None:
        raise BadRequest("A conversation grant needs its conversation.")
    now = now or utcnow()
    grant = Grant(
        user_id=user_id,
        employee=employee.slug,
        tool=tool.name,
        scope=scope,
        conversation_id=conversation.id if scope == "conversation" and conversation else None,
        args=args,
        args_key=canonical_args(args) if args is not None else None,
        schema_hash=schema_hash(tool, permission),
        source_call_id=source_call_id,
        created_at=now,
        expires_at=check_expiry(expires_at, now=now),
    )
    session.add(grant)
    session.flush()
    return grant


_UNREVOKED = sa_select(
    col(Grant.id),
    col(Grant.scope),
    col(Grant.conversation_id),
    col(Grant.args_key),
    col(Grant.schema_hash),
    col(Grant.created_at),
    col(Grant.expires_at),
).where(
    col(Grant.user_id) == bindparam("user_id"),
    col(Grant.employee) == bindparam("employee"),
    col(Grant.tool) == bindparam("tool"),
    col(Grant.revoked_at).is_(None),
)
"""The matching columns of a person's unrevoked grants of one tool under one employee (a
prebuilt Core select: every ``ASK`` proposal reads it, and mostly finds none)."""


def find_grant(
    session: Session,
    *,
    user_id: str,
    employee: str,
    conversation_id: str,
    tool: Tool,
    permission: str,
    args: Any,
) -> Grant | None:
    """Return the live grant covering this call, the narrowest first, or None.

    Only ``ASK`` calls of non-question tools can be covered; the grant must be unrevoked,
    unexpired, made under the tool's current schema hash, scoped to this conversation or to
    the employee, and (when narrowed) made for exactly these args. The tool's schema hash and
    the args' canonical JSON are computed only when some unrevoked grant exists; only the
    chosen grant is loaded as an object.
    """
    if permission != "ASK" or is_question(tool):
        return None
    candidates = execute(
        session, _UNREVOKED, {"user_id": user_id, "employee": employee, "tool": tool.name}
    ).rows
    if not candidates:
        return None
    now = utcnow()
    current = schema_hash(tool, permission)
    key = canonical_args(args)
    live = [
        g
        for g in candidates
        if as_utc(g.expires_at) > now
        and g.schema_hash == current
        and (g.scope == "employee" or g.conversation_id == conversation_id)
        and (g.args_key is None or g.args_key == key)
    ]
    if not live:
        return None
    live.sort(
        key=lambda g: (g.args_key is None, g.scope == "employee", -as_utc(g.created_at).timestamp())
    )
    return by_id(session, Grant, live[0].id)


def use_grant(session: Session, grant: Grant) -> bool:
    """Count one use of ``grant`` unless it was revoked meanwhile; True when counted.

    A compare-and-set on ``revoked_at``: a revoke that commits first wins, and the call then
    asks as usual.
    """
    result = session.exec(  # type: ignore[call-overload]
        update(Grant)
        .where(col(Grant.id) == grant.id, col(Grant.revoked_at).is_(None))
        .values(uses=col(Grant.uses) + 1, last_used_at=utcnow())
    )
    return bool(result.rowcount == 1)


def live_grants(session: Session, user_id: str) -> list[Grant]:
    """Return ``user_id``'s unrevoked, unexpired grants, newest first."""
    now = utcnow()
    rows = session.exec(
        select(Grant)
        .where(Grant.user_id == user_id, col(Grant.revoked_at).is_(None))
        .order_by(col(Grant.created_at).desc())
    ).all()
    return [g for g in rows if as_utc(g.expires_at) > now]


def revoke_grant(session: Session, user_id: str, grant_id: str) -> Grant | None:
    """Revoke ``user_id``'s grant ``grant_id`` (idempotent); None when not theirs or unknown.

    The caller commits; the next call of the tool asks again.
    """
    grant = session.get(Grant, grant_id)
    if grant is None or grant.user_id != user_id:
        return None
    if grant.revoked_at is None:
        grant.revoked_at = utcnow()
        session.add(grant)
        session.flush()
    return grant
