"""Reading the audit log: filters, pages (newest first), CSV export, and words for people.

Admins see every record; members see the records of their own conversations, the ones they
decided, and the others of the calls they decided (every approval of a call needing several).
Every function here is synchronous (run it off the event loop).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy import or_
from sqlmodel import Session, col, func, select

from interlock.audit.chain import (
    ALLOW_DECIDER,
    CLI_DECIDER,
    REPEAT_DECIDER,
    SYSTEM_DECIDER,
    TIMEOUT_DECIDER,
    Kind,
)
from interlock.errors import BadRequest
from interlock.storage import AuditRecord, Database, Role, ToolCall, User
from interlock.storage.users import user_named
from interlock.tools import ToolRegistry

MAX_PAGE = 200
EXPORT_BATCH = 500
CSV_COLUMNS = (
    "seq",
    "created_at",
    "tool",
    "employee",
    "outcome",
    "decided_by",
    "decider",
    "channel",
    "reason",
    "proposed_args",
    "executed_args",
    "waited_ms",
    "tool_call_id",
    "conversation_id",
    "owner",
    "hash",
    "client",
    "kind",
)


@dataclass(frozen=True)
class AuditFilter:
    """What to list. ``None`` fields do not filter.

    Attributes:
        tool: Tool name (``notes.add``).
        employee: Employee slug.
        user: A user id: records that user took part in (:func:`took_part`).
        outcome: ``approved``, ``approval``, ``edited``, ``picked``, ``rejected``,
            ``responded``, ``allowed``, ``expired``, ``cancelled`` or ``finished_late``.
        since: Records at or after this time (inclusive).
        until: Records before this time (exclusive).
    """

    tool: str | None = None
    employee: str | None = None
    user: str | None = None
    outcome: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class AuditRecordOut(BaseModel):
    """One audit record as a client sees it, with names written for people.

    ``decider_is_person``: ``decider`` is a user's id (``decided_by`` their name), not a policy,
    the timeout, Interlock or the command line.

    ``client_name`` names the MCP client that requested the call ("Claude Desktop", from its
    ``clientInfo``; read from the call), null for a call a model proposed in a chat.

    ``kind`` ``token``: an access token created or revoked (``outcome`` ``created`` or
    ``revoked``): ``tool_call_id`` is the token's id, ``reason`` its name, ``owner_*`` its
    owner, ``tool_title`` "MCP token"; ``conversation_id``, ``employee`` and ``tool`` are empty.
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    seq: int
    created_at: datetime
    kind: Literal["tool_call", "token"]
    tool_call_id: str
    conversation_id: str
    employee: str
    tool: str
    tool_title: str
    owner_id: str
    owner_name: str
    decider: str
    decided_by: str
    decider_is_person: bool
    channel: str
    outcome: str
    reason: str | None = None
    proposed_args: Any = None
    executed_args: Any = None
    waited_ms: int
    hash: str
    client_name: str | None = None


class AuditPage(BaseModel):
    """A page of records, newest first; pass ``next_before`` as ``before`` for the next page."""

    records: list[AuditRecordOut]
    total: int
    next_before: int | None = None


def took_part(user_id: str) -> Any:
    """The condition of the records ``user_id`` took part in: of their conversations, decided
    by them, or about a call they decided (an approver of a call needing several approvals
    sees the other approvals and its outcome, not only their own ``approval`` record)."""
    decided = (
        select(AuditRecord.tool_call_id)
        .where(col(AuditRecord.decider) == user_id, col(AuditRecord.kind) == Kind.tool_call)
        .scalar_subquery()
    )
    return or_(
        col(AuditRecord.owner_id) == user_id,
        col(AuditRecord.decider) == user_id,
        (col(AuditRecord.kind) == Kind.tool_call) & col(AuditRecord.tool_call_id).in_(decided),
    )


def visible(query: Any, viewer: User, flt: AuditFilter) -> Any:
    """Return ``query`` narrowed to what ``viewer`` may see and ``flt`` asks for."""
    if viewer.role != Role.admin:
        query = query.where(took_part(viewer.id))
    if flt.tool:
        query = query.where(AuditRecord.tool == flt.tool)
    if flt.employee:
        query = query.where(AuditRecord.employee == flt.employee)
    if flt.user:
        query = query.where(took_part(flt.user))
    if flt.outcome:
        query = query.where(AuditRecord.outcome == flt.outcome)
    if flt.since is not None:
        query = query.where(col(AuditRecord.created_at) >= flt.since)
    if flt.until is not None:
        query = query.where(col(AuditRecord.created_at) < flt.until)
    return query


def audit_page(
    db: Database,
    registry: ToolRegistry,
    viewer: User,
    flt: AuditFilter,
    *,
    limit: int = 50,
    before: int | None = None,
) -> AuditPage:
    """Return one page of records matching ``flt`` that ``viewer`` may see, newest first.

    Args:
        db: The database.
        registry: For tool titles.
        viewer: Who asks (admins see everything).
        flt: Filters.
        limit: Page size, 1 to :data:`MAX_PAGE`.
        before: Only records with ``seq`` below this (the previous page's ``next_before``).
    """
    limit = max(1, min(limit, MAX_PAGE))
    with db.session() as session:
        total = session.exec(
            visible(select(func.count()).select_from(AuditRecord), viewer, flt)
        ).one()
        query = visible(select(AuditRecord), viewer, flt)
        if before is not None:
            query = query.where(col(AuditRecord.seq) < before)
        rows = list(
            session.exec(query.order_by(col(AuditRecord.seq).desc()).limit(limit + 1)).all()
        )
        more = len(rows) > limit
        rows = rows[:limit]
        names = _user_names(session, rows)
        clients = _client_names(session, rows)
    return AuditPage(
        records=[record_out(r, registry, names, clients) for r in rows],
        total=int(total),
        next_before=rows[-1].seq if more and rows else None,
    )


def export_csv(
    db: Database, registry: ToolRegistry, viewer: User, flt: AuditFilter
) -> Iterator[str]:
    """Yield the CSV export (header first, then every matching record, oldest first).

    A text cell a spreadsheet would run as a formula gets a ``'`` first (:func:`spreadsheet_safe`).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    def write(cells: tuple[Any, ...]) -> None:
        writer.writerow([spreadsheet_safe(cell) for cell in cells])

    writer.writerow(CSV_COLUMNS)
    yield flush()
    after = 0
    while True:
        with db.session() as session:
            rows = list(
                session.exec(
                    visible(select(AuditRecord), viewer, flt)
                    .where(col(AuditRecord.seq) > after)
                    .order_by(col(AuditRecord.seq))
                    .limit(EXPORT_BATCH)
                ).all()
            )
            names = _user_names(session, rows)
            clients = _client_names(session, rows)
        if not rows:
            return
        for row in rows:
            out = record_out(row, registry, names, clients)
            write(
                (
                    out.seq,
                    out.created_at.isoformat(),
                    out.tool,
                    out.employee,
                    out.outcome,
                    out.decided_by,
                    out.decider,
                    out.channel,
                    out.reason or "",
                    _json_cell(out.proposed_args),
                    _json_cell(out.executed_args),
                    out.waited_ms,
                    out.tool_call_id,
                    out.conversation_id,
                    out.owner_name,
                    out.hash,
                    out.client_name or "",
                    out.kind,
                )
            )
        yield flush()
        after = rows[-1].seq


UNKNOWN_USER = (
    "No user has the id or name “{}”. Choose a person from the list, or give a user's id or name."
)


def filter_user(db: Database, text: str) -> str:
    """Return the id of the user ``text`` names, by id or else by name (the ``user`` filter).

    Raises:
        BadRequest: ``unknown_user`` when no user has that id or name.
    """
    with db.session() as session:
        if session.get(User, text) is not None:
            return text
        user = user_named(session, text.strip())  # regardless of case, as approvers
    if user is None:
        raise BadRequest(UNKNOWN_USER.format(text), code="unknown_user", details={"user": text})
    return user.id


def decider_words(decider: str, names: dict[str, str]) -> str:
    """Return who decided, for people: a user's name, or what policy acted."""
    if decider == ALLOW_DECIDER:
        return "Allowed by the tool's permission"
    if decider == REPEAT_DECIDER:
        return "Loop guard (already declined)"
    if decider == TIMEOUT_DECIDER:
        return "Not decided in time"
    if decider == SYSTEM_DECIDER:
        return "Interlock"
    if decider == CLI_DECIDER:
        return "Command line (interlock tokens)"
    if decider.startswith("policy:"):
        return "Remembered approval"
    return names.get(decider, "Unknown person")


def record_out(
    record: AuditRecord,
    registry: ToolRegistry,
    names: dict[str, str],
    clients: dict[str, str] | None = None,
) -> AuditRecordOut:
    """Build the wire shape of ``record``; ``names`` maps user ids to names, ``clients`` call
    ids to the MCP client that requested them."""
    token = record.kind == Kind.token
    tool = None if token else registry.get(record.tool)
    return AuditRecordOut(
        seq=record.seq,
        created_at=record.created_at,
        kind="token" if token else "tool_call",
        tool_call_id=record.tool_call_id,
        conversation_id=record.conversation_id,
        employee=record.employee,
        tool=record.tool,
        tool_title="MCP token" if token else (tool.title if tool else record.tool),
        owner_id=record.owner_id,
        owner_name=names.get(record.owner_id, "Unknown person"),
        decider=record.decider,
        decided_by=decider_words(record.decider, names),
        decider_is_person=record.decider in names,
        channel=record.channel,
        outcome=record.outcome,
        reason=record.reason,
        proposed_args=record.proposed_args,
        executed_args=record.executed_args,
        waited_ms=record.waited_ms,
        hash=record.hash,
        client_name=(clients or {}).get(record.tool_call_id),
    )


def _user_names(session: Session, rows: list[AuditRecord]) -> dict[str, str]:
    ids = {r.owner_id for r in rows} | {
        r.decider for r in rows if not r.decider.startswith("policy:")
    }
    if not ids:
        return {}
    users = session.exec(select(User.id, User.name).where(col(User.id).in_(sorted(ids)))).all()
    return {user_id: name for user_id, name in users}


def _client_names(session: Session, rows: list[AuditRecord]) -> dict[str, str]:
    """Call id -> MCP client name, for the calls of ``rows`` an MCP client made."""
    ids = sorted({r.tool_call_id for r in rows if r.kind == Kind.tool_call})
    if not ids:
        return {}
    found = session.exec(
        select(ToolCall.id, ToolCall.client_name).where(
            col(ToolCall.id).in_(ids), col(ToolCall.client_name).is_not(None)
        )
    ).all()
    return {call_id: name for call_id, name in found if name is not None}


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection)."""


def spreadsheet_safe(cell: Any) -> Any:
    """Return ``cell``, with a ``'`` before a text that a spreadsheet would run as a formula.

    A reason a person typed (``=HYPERLINK(...)``), an MCP client's name or a user name reaches
    whoever opens the export in a spreadsheet; the quote makes it shown as the text it is.
    Numbers and other texts are returned unchanged.
    """
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def _json_cell(value: Any) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)
