"""Who may decide a call: the conversation's owner, or one of the employee's approvers.

Approvers are listed on the employee (``approvers``: user names, or ``group:<name>`` for every
member of a group, see :mod:`interlock.storage.groups`). Anyone else is told the call does not
exist (404), so a call's existence is never revealed. The list is read at decision time:
removing an approver takes effect on the next decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from sqlmodel import Session, col, select

from interlock.employees import Employee
from interlock.employees.spec import GROUP_PREFIX
from interlock.storage import (
    Conversation,
    Decision,
    GroupMember,
    Message,
    ToolCall,
    ToolCallStatus,
    User,
)
from interlock.storage.users import same_names

Role = Literal["owner", "approver"]


def _split(approvers: Iterable[str]) -> tuple[set[str], set[str]]:
    names, groups = set(), set()
    for entry in approvers:
        if entry.startswith(GROUP_PREFIX):
            groups.add(entry.removeprefix(GROUP_PREFIX))
        else:
            names.add(entry)
    return names, groups


def is_approver(session: Session, user: User, employee: Employee | None) -> bool:
    """True when ``user`` is named in ``employee.approvers`` or is in a group named there."""
    if employee is None or not employee.approvers:
        return False
    names, groups = _split(employee.approvers)
    if same_names([user.name], names):  # "ANN" names ann: user names ignore case
        return True
    if not groups:
        return False
    member = session.exec(
        select(GroupMember.user_id).where(
            GroupMember.user_id == user.id, col(GroupMember.group).in_(sorted(groups))
        )
    ).first()
    return member is not None


def decider_role(
    session: Session, user_id: str, conversation: Conversation, employee: Employee | None
) -> Role | None:
    """Return how user ``user_id`` may decide calls of ``conversation``: ``owner``,
    ``approver``, or None (not at all)."""
    if conversation.owner_id == user_id:
        return "owner"
    if employee is None or not employee.approvers:
        return None
    user = session.get(User, user_id)
    return "approver" if user is not None and is_approver(session, user, employee) else None


def employees_approved_by(session: Session, user: User, employees: Iterable[Employee]) -> list[str]:
    """Return the slugs of the employees whose approvers include ``user``."""
    groups = set(
        session.exec(select(GroupMember.group).where(GroupMember.user_id == user.id)).all()
    )
    slugs = []
    for employee in employees:
        names, wanted = _split(employee.approvers)
        if same_names([user.name], names) or groups & wanted:
            slugs.append(employee.slug)
    return slugs


def waiting_for_approver(
    session: Session, user: User, employees: Iterable[Employee], limit: int
) -> list[tuple[ToolCall, Conversation, str, str]]:
    """Calls waiting in other people's conversations of the employees ``user`` approves.

    Only what a decision needs is returned with each call: its conversation row (for ids and
    the employee; callers must not show its title), the owner's name and the text of the
    assistant message that proposed the call, nothing else of the conversation.

    Returns:
        ``(call, conversation, owner name, proposing message text)``, newest first, at most
        ``limit``.
    """
    slugs = employees_approved_by(session, user, employees)
    if not slugs:
        return []
    rows = session.exec(
        select(ToolCall, Conversation, User.name, Message.content)
        .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
        .join(Message, col(Message.id) == col(ToolCall.message_id))
        .outerjoin(User, col(User.id) == col(Conversation.owner_id))
        .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
        .where(
            col(Conversation.employee).in_(slugs),
            col(Conversation.owner_id) != user.id,
            col(ToolCall.status) == ToolCallStatus.interrupted,
            col(Decision.id).is_(None),
        )
        .order_by(col(ToolCall.created_at).desc(), col(ToolCall.index))
        .limit(limit)
    ).all()
    return [(call, conv, owner or "someone", text) for call, conv, owner, text in rows]
