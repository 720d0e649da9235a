"""The loop guard: a call the person already declined is not put to them again.

A proposed call identical (same tool, same canonical args) to one ``rejected`` or ``expired``
earlier in the conversation is closed at once as ``rejected`` by ``policy:repeat``, unless the
person asked for it again since: a user message after the declined call that mentions the
tool (its name, its title, its action word such as "add" for ``notes.add``, or a word of the
same kind such as "remove" for ``notes.delete``: :data:`ACTION_WORDS`) or a value of the
declined call's arguments ("note 36" for ``{"id": 36}``) resets the guard for that call. The
guard is against the model looping, not against the person: whatever words the model took
as a request for the call, the guard should too, so it errs on the side of asking again.
Two such repeats in one run end the run with ``repeated_rejected_call``.

Calls from MCP clients (:mod:`interlock.engine.outside`) have no turns and no user messages,
so their scope is the caller's: an MCP call identical to one the person *rejected* (an
``expired`` call was never decided: it is asked again) is refused only when both came in the
same MCP session (``Mcp-Session-Id``; a 2026-era client has none, then the same client name
stands for it) and the rejection is less than ``mcp_repeat_window_s`` old (10 minutes).
A new session, or a later call, puts it to the person again. Calls the guard itself refused
do not count, so an agent retrying does not stretch the window.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, or_
from sqlmodel import Session, col, func, select

from interlock.errors import InterlockError
from interlock.storage import Message, MessageRole, ToolCall, ToolCallStatus
from interlock.storage.models import as_utc
from interlock.storage.write_behind import execute
from interlock.tools import Tool

REPEAT_ERROR_CODE = "repeated"
"""Error code of a call closed by the guard (its status is ``rejected``)."""
MAX_REPEATS_PER_RUN = 2
DECLINED_STATUSES = (ToolCallStatus.rejected.value, "expired")


def canonical_args(args: Any) -> str:
    """Return ``args`` as canonical JSON (sorted keys, no spaces), for comparing calls."""
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


ACTION_WORDS: tuple[frozenset[str], ...] = (
    frozenset({"add", "create", "make", "write", "save", "remember", "insert", "store"}),
    frozenset({"delete", "remove", "erase", "drop", "discard", "trash", "destroy", "purge"}),
    frozenset({"update", "edit", "change", "modify", "rename", "amend", "replace"}),
    frozenset({"send", "email", "mail", "forward", "reply", "notify"}),
    frozenset({"list", "show", "find", "search", "fetch", "lookup", "view"}),
    frozenset({"run", "execute", "start", "launch", "trigger"}),
    frozenset({"cancel", "stop", "abort"}),
    frozenset({"pay", "transfer", "refund", "charge"}),
    frozenset({"book", "reserve", "schedule", "reschedule"}),
)
"""Words of one kind of action: a person asking for ``notes.delete`` may say "remove"."""

_MIN_TEXT_VALUE = 3
"""Shortest string argument value that counts as the person naming the call's subject."""


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def action_words(tool: Tool) -> set[str]:
    """The words that ask for ``tool``'s action: its last name part, every part of its name
    or title of a kind in :data:`ACTION_WORDS`, and the other words of those kinds."""
    parts = re.split(r"[._-]", tool.name.lower())
    wanted = {parts[-1]} | _words(" ".join(parts[1:])) | _words(tool.title)
    found = {parts[-1]} if parts[-1] else set()
    for kind in ACTION_WORDS:
        if kind & wanted:
            found |= kind
    return found


def _arg_values(args: Any) -> list[str]:
    """The scalar values of ``args`` (nested too), as lowercase text."""
    if isinstance(args, dict):
        return [v for value in args.values() for v in _arg_values(value)]
    if isinstance(args, list):
        return [v for value in args for v in _arg_values(value)]
    if isinstance(args, bool) or args is None:
        return []
    return [str(args).strip().lower()]


def asks_again(text: str, tool: Tool, args: Any = None) -> bool:
    """Return whether a user message asks for ``tool`` (or this call of it) again.

    Args:
        text: The user message.
        tool: The tool of the declined call.
        args: The declined call's arguments (None: the tool alone).

    Returns:
        True when the message names the tool (name, title), a word of its action's kind, or
        a value of ``args`` (a number as a whole word, a text of three characters or more).
    """
    lowered = text.lower()
    if any(
        needle and needle in lowered
        for needle in (tool.name.lower(), tool.provider_name.lower(), tool.title.lower())
    ):
        return True
    words = _words(lowered)
    if action_words(tool) & words:
        return True
    for value in _arg_values(args):
        if value.isdigit() and value in words:
            return True
        if len(value) >= _MIN_TEXT_VALUE and not value.isdigit() and value in lowered:
            return True
    return False


_DECLINED = select(ToolCall.id, ToolCall.message_id, ToolCall.proposed_args).where(
    ToolCall.conversation_id == bindparam("cid"),
    ToolCall.name == bindparam("tool"),
    col(ToolCall.status).in_(DECLINED_STATUSES),
)
"""Prebuilt: every ``ASK`` proposal of a model step reads it (with Core: three columns, no
objects loaded). Unordered so it reads only the conversation's declined calls on
``(conversation_id, status)`` (an ORDER BY would lead SQLite to walk all of its calls in
order); the few rows are sorted in Python."""


def declined_before(session: Session, conversation_id: str, tool: Tool, args: Any) -> str | None:
    """Return the earlier declined call identical to this proposal, unless the guard was reset.

    Args:
        session: Open session.
        conversation_id: The conversation.
        tool: The proposed tool.
        args: The proposed args (a dict that passed validation).

    Returns:
        The id of the latest matching ``rejected``/``expired`` call, unless a later user
        message asks for it again (:func:`asks_again`); else None.
    """
    params = {"cid": conversation_id, "tool": tool.name}
    declined = sorted(
        execute(session, _DECLINED, params).rows,
        key=lambda call: call.message_id,
        reverse=True,
    )
    wanted = canonical_args(args)
    match = next((c for c in declined if canonical_args(c.proposed_args) == wanted), None)
    if match is None:
        return None
    later_user_messages = session.exec(
        select(Message.content).where(
            Message.conversation_id == conversation_id,
            Message.role == MessageRole.user,
            col(Message.id) > match.message_id,
        )
    ).all()
    if any(asks_again(content, tool, match.proposed_args) for content in later_user_messages):
        return None
    return str(match.id)


def rejected_in_session(
    session: Session,
    conversation_id: str,
    tool: Tool,
    args: Any,
    *,
    mcp_session: str | None,
    client_name: str,
    since: datetime,
) -> ToolCall | None:
    """Return the MCP call the person rejected that this MCP call repeats, if it counts.

    Args:
        session: Open session.
        conversation_id: The person's record of MCP calls.
        tool: The proposed tool.
        args: The proposed args (a dict that passed validation).
        mcp_session: The caller's ``Mcp-Session-Id`` (None: a 2026-era client).
        client_name: The caller's name (what stands for the session when it has none).
        since: Rejections decided before this (aware UTC) no longer count.

    Returns:
        The latest identical call rejected by a person (not by this guard) in the same
        session (or, without one, by the same client with no session) since ``since``.
    """
    same_caller = (
        ToolCall.mcp_session == mcp_session
        if mcp_session is not None
        else (col(ToolCall.mcp_session).is_(None) & (ToolCall.client_name == client_name))
    )
    rejected = session.exec(
        select(ToolCall)
        .where(
            ToolCall.conversation_id == conversation_id,
            ToolCall.name == tool.name,
            ToolCall.status == ToolCallStatus.rejected,
            or_(col(ToolCall.error_code).is_(None), col(ToolCall.error_code) != REPEAT_ERROR_CODE),
            same_caller,
        )
        .order_by(col(ToolCall.message_id).desc())
    ).all()
    wanted = canonical_args(args)
    return next(
        (
            c
            for c in rejected
            if canonical_args(c.proposed_args) == wanted
            and as_utc(c.decided_at or c.finished_at or c.created_at) >= since
        ),
        None,
    )


def repeat_text(tool: Tool) -> str:
    """Tool message text for a call closed by the guard."""
    return (
        "Not asked again: the person already declined this exact call "
        f"({tool.display_name} with the same arguments) earlier in this conversation. Do not "
        "propose it again unless they ask for it; tell them what you would need instead."
    )


def outside_repeat_text(tool: Tool) -> str:
    """Tool message text for an MCP call closed by the guard."""
    return (
        f"Not asked again: the person rejected this exact call ({tool.name} with the same "
        "arguments) a short while ago. Do not call it again unless they ask for it; tell "
        "them what you would need instead."
    )


def run_repeats(session: Session, run_id: str) -> int:
    """Return how many calls of the run the guard closed (flushed rows included)."""
    return int(
        session.exec(
            select(func.count())
            .select_from(ToolCall)
            .where(ToolCall.run_id == run_id, ToolCall.error_code == REPEAT_ERROR_CODE)
        ).one()
    )


def check_repeats(repeats: int) -> None:
    """Raise ``repeated_rejected_call`` once a run has closed two calls by the guard.

    Args:
        repeats: What :func:`run_repeats` counted.

    Raises:
        InterlockError: ``repeated_rejected_call``, which ends the run as failed.
    """
    if repeats >= MAX_REPEATS_PER_RUN:
        raise InterlockError(
            "The run was stopped: the assistant kept proposing a call the person had already "
            "declined. Ask for it again in your own words if you do want it.",
            code="repeated_rejected_call",
        )
