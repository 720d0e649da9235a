"""Audit records: one per decision or automatic outcome, and one per access token created or
revoked (:func:`record_token_event`), chained by SHA-256.

:func:`record_outcome` stages a record on the session that writes the outcome; the record is
numbered, chained and inserted just before that session commits, so it is written in the same
transaction as the outcome (a rollback drops both). Chaining at commit time keeps the audit
lock short: on PostgreSQL a transaction-scoped advisory lock serialises the appends, and the
database numbers and hashes the records itself, in statements sent in one round trip with the
lock and (when nothing is written after the records) the ``COMMIT``, so the lock's holder never
waits on its own process (:mod:`interlock.audit.pg_chain`); SQLite has a single writer already,
and Python chains its records.

Each record's ``hash`` is ``sha256(prev_hash + "\\n" + canonical JSON of its fields)`` (hex), the
first record's ``prev_hash`` is 64 zeros. :func:`verify_chain` recomputes every hash, so an edited,
inserted or deleted row is found. ``kind`` is covered only when it is not ``tool_call``, so the
records written before it existed keep their hashes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from interlock.audit.pg_chain import GENESIS_HASH as GENESIS_HASH
from interlock.audit.pg_chain import append_in_database
from interlock.storage import AccessToken, AuditRecord, Conversation, ToolCall
from interlock.storage.models import utcnow
from interlock.storage.rows import insert_rows, new_row

_PENDING_KEY = "interlock.audit.pending"


class Outcome(StrEnum):
    """What happened to a tool call, as the audit log names it.

    ``allowed`` is an automatic run: decider ``policy:allow`` (the tool's permission is ALLOW) or
    ``policy:<grant id>`` (a remembered approval). ``rejected`` by ``policy:repeat`` is the loop
    guard; ``expired`` is decided by ``timeout``. ``approval`` is one person's approval of a call
    that needs several, given while more were still needed (the last one is ``approved``).
    ``picked`` is an ``edit`` that only picks one of the call's own ``options`` as its
    ``option`` (a click on a choice card of suggestions; :func:`is_pick`), not a change of the
    call. ``finished_late`` is a call stopped (recorded ``cancelled``) or timed out while its tool
    ran, whose tool returned after all: the reason says what really happened.
    """

    approved = "approved"
    approval = "approval"
    edited = "edited"
    picked = "picked"
    rejected = "rejected"
    responded = "responded"
    allowed = "allowed"
    expired = "expired"
    cancelled = "cancelled"
    finished_late = "finished_late"


class Channel(StrEnum):
    """Where a decision came from; ``system`` for outcomes no person caused, ``cli`` for the
    ``interlock`` command."""

    web = "web"
    api = "api"
    mcp = "mcp"
    ag_ui = "ag-ui"
    system = "system"
    cli = "cli"


class Kind(StrEnum):
    """What a record is about."""

    tool_call = "tool_call"
    token = "token"


class TokenOutcome(StrEnum):
    """What happened to an access token."""

    created = "created"
    revoked = "revoked"


ALLOW_DECIDER = "policy:allow"
REPEAT_DECIDER = "policy:repeat"
TIMEOUT_DECIDER = "timeout"
SYSTEM_DECIDER = "system"
CLI_DECIDER = "cli"
"""The decider of what an operator did with the ``interlock`` command."""


def record_outcome(
    session: Session,
    *,
    call: ToolCall,
    decider: str,
    channel: str,
    outcome: str,
    reason: str | None,
    proposed_args: Any,
    executed_args: Any,
) -> AuditRecord:
    """Stage the audit record of an outcome on ``session``; it is written when the session commits.

    Args:
        session: The session writing the outcome itself (same transaction).
        call: The tool call decided.
        decider: A user id, ``policy:<grant id>``, ``policy:allow``, ``policy:repeat``,
            ``timeout`` or ``system``.
        channel: ``web``, ``api``, ``mcp``, ``ag-ui`` or ``system`` (see :class:`Channel`).
        outcome: One of :class:`Outcome`.
        reason: Why (a reject's reason, a cancel's reason), or None.
        proposed_args: The model's arguments (JSON).
        executed_args: The arguments the tool runs with (JSON), None when it does not run.

    Returns:
        The staged record (``seq`` and ``hash`` are set at commit).
    """
    conversation = session.get(Conversation, call.conversation_id)
    now = utcnow()
    created = _as_utc(call.created_at) if call.created_at else now
    record = new_row(
        AuditRecord,
        seq=0,
        created_at=now,
        tool_call_id=call.id,
        conversation_id=call.conversation_id,
        employee=conversation.employee if conversation else "",
        tool=call.name,
        owner_id=conversation.owner_id if conversation else "",
        decider=decider,
        channel=channel,
        outcome=str(outcome),
        reason=reason,
        proposed_args=proposed_args,
        executed_args=executed_args,
        waited_ms=max(0, int((now - created).total_seconds() * 1000)),
        prev_hash="",
        hash="",
    )
    session.info.setdefault(_PENDING_KEY, []).append(record)
    return record


def record_allowed(
    session: Session,
    call: ToolCall,
    *,
    decider: str = ALLOW_DECIDER,
    channel: str = Channel.system,
) -> AuditRecord:
    """Stage the record of a call that runs without asking (outcome ``allowed``, executed with
    its proposed args): by its ALLOW permission (the defaults) or a grant
    (``policy:<grant id>``, the channel of the call). See :func:`record_outcome`."""
    return record_outcome(
        session,
        call=call,
        decider=decider,
        channel=channel,
        outcome=Outcome.allowed,
        reason=None,
        proposed_args=call.proposed_args,
        executed_args=call.proposed_args,
    )


def record_token_event(
    session: Session, token: AccessToken, *, decider: str, channel: str, outcome: str
) -> AuditRecord:
    """Stage the audit record of an access token created or revoked on ``session`` (written
    when it commits, in the same transaction as the token's change).

    Args:
        session: The session writing the token's row.
        token: The token (its id, name and owner are recorded; never the token itself).
        decider: Who did it: a user id, or :data:`CLI_DECIDER`.
        channel: ``web``, ``api`` or ``cli`` (see :class:`Channel`).
        outcome: ``created`` or ``revoked`` (see :class:`TokenOutcome`).

    Returns:
        The staged record (``seq`` and ``hash`` are set at commit).
    """
    record = AuditRecord(
        seq=0,
        created_at=utcnow(),
        kind=Kind.token,
        tool_call_id=token.id,
        conversation_id="",
        employee="",
        tool="",
        owner_id=token.user_id,
        decider=decider,
        channel=channel,
        outcome=str(outcome),
        reason=token.name,
        prev_hash="",
        hash="",
    )
    session.info.setdefault(_PENDING_KEY, []).append(record)
    return record


def record_payload(record: AuditRecord) -> dict[str, Any]:
    """Return the fields of ``record`` covered by its hash (everything but ``hash``; ``kind``
    only when it is not ``tool_call``)."""
    kind = {} if record.kind == Kind.tool_call else {"kind": record.kind}
    return {
        **kind,
        "seq": record.seq,
        "created_at": _as_utc(record.created_at).isoformat(timespec="microseconds"),
        "tool_call_id": record.tool_call_id,
        "conversation_id": record.conversation_id,
        "employee": record.employee,
        "tool": record.tool,
        "owner_id": record.owner_id,
        "decider": record.decider,
        "channel": record.channel,
        "outcome": record.outcome,
        "reason": record.reason,
        "proposed_args": record.proposed_args,
        "executed_args": record.executed_args,
        "waited_ms": record.waited_ms,
    }


_TAIL = select(AuditRecord.seq, AuditRecord.hash).order_by(col(AuditRecord.seq).desc()).limit(1)
"""The chain's last record (prebuilt: read by every decision's transaction)."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""A value's canonical JSON (what ``json.dumps`` with these options returns)."""


def record_hash(prev_hash: str, payload: dict[str, Any]) -> str:
    """Return the hex SHA-256 of ``prev_hash`` and the canonical JSON of ``payload``."""
    return hashlib.sha256(f"{prev_hash}\n{_CANONICAL(payload)}".encode()).hexdigest()


def canonical_around_seq(payload: dict[str, Any]) -> tuple[str, str]:
    """Split the canonical JSON of ``payload`` around the value of its ``seq``.

    Returns:
        ``(before, after)``: ``before + str(seq) + after`` is the canonical JSON that
        :func:`record_hash` hashes, whatever ``seq`` is (keys are sorted, so ``seq``'s place
        does not depend on its value; a ``"seq"`` key inside the arguments is not this one).
    """
    items = sorted(payload.items())
    at = [key for key, _ in items].index("seq")
    fields = [f"{_CANONICAL(key)}:{_CANONICAL(value)}" for key, value in items]
    before, after = ",".join(fields[:at]), ",".join(fields[at + 1 :])
    return "{" + before + ("," if before else "") + '"seq":', ("," if after else "") + after + "}"


@dataclass
class ChainReport:
    """Result of :func:`verify_chain`.

    Attributes:
        records: How many records were checked.
        ok: True when every hash and link matches.
        first_bad_seq: The first record that does not match (None when ok).
        problem: What is wrong with it, in words.
    """

    records: int
    ok: bool
    first_bad_seq: int | None = None
    problem: str | None = None
    head_hash: str = GENESIS_HASH

    @property
    def head(self) -> str:
        """The chain's head as ``<records>:<hash of the last record>``: kept outside the
        database, it shows a later verify that no record up to it was removed
        (:func:`interlock.audit.head.check_head`)."""
        return f"{self.records}:{self.head_hash}"


def verify_chain(session: Session, batch: int = 1000) -> ChainReport:
    """Recompute the whole chain in ``seq`` order, ``batch`` rows at a time.

    Returns:
        A :class:`ChainReport`; the first broken link stops the check.
    """
    prev_hash, expected_seq, count = GENESIS_HASH, 1, 0
    for record in _iter_records(session, batch):
        count += 1
        if record.seq != expected_seq:
            return ChainReport(
                count, False, record.seq, f"record {expected_seq} is missing (found {record.seq})"
            )
        if record.prev_hash != prev_hash:
            return ChainReport(
                count, False, record.seq, "its link to the previous record does not match"
            )
        if record_hash(prev_hash, record_payload(record)) != record.hash:
            return ChainReport(
                count, False, record.seq, "its contents were changed after it was written"
            )
        prev_hash, expected_seq = record.hash, expected_seq + 1
    return ChainReport(count, True, head_hash=prev_hash)


def _iter_records(session: Session, batch: int) -> Iterator[AuditRecord]:
    after = 0
    while True:
        rows = session.exec(
            select(AuditRecord)
            .where(col(AuditRecord.seq) > after)
            .order_by(col(AuditRecord.seq))
            .limit(batch)
        ).all()
        if not rows:
            return
        yield from rows
        after = rows[-1].seq
        session.expunge_all()


def _as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _append_pending(session: OrmSession) -> None:
    """Number, chain and insert the records staged on ``session`` (runs before its commit)."""
    pending: list[AuditRecord] = session.info.pop(_PENDING_KEY, [])
    if not pending:
        return
    # Write the outcome first: on SQLite this takes the write lock, so the tail read below is
    # the latest; PostgreSQL appends under the chain's lock (held until commit), see pg_chain.
    session.flush()
    if session.get_bind().dialect.name == "postgresql":
        parts = [(record, *canonical_around_seq(record_payload(record))) for record in pending]
        append_in_database(session, parts, commit=_last_write(session))
        return
    tail = session.connection().execute(_TAIL).first()  # Core: no ORM work for two columns
    seq, prev_hash = (tail[0], tail[1]) if tail else (0, GENESIS_HASH)
    for record in pending:
        seq += 1
        record.seq = seq
        record.prev_hash = prev_hash
        record.hash = record_hash(prev_hash, record_payload(record))
        prev_hash = record.hash
    insert_rows(session, pending)


def _last_write(session: OrmSession) -> bool:
    """Whether the audit records are the last thing ``session``'s commit writes, so their round
    trip may carry the ``COMMIT`` too: the session owns its connection's transaction (bound to
    an engine, not inside a savepoint), nothing is left to flush, and no other ``before_commit``
    listener runs after this one."""
    return (
        isinstance(session.bind, Engine)
        and not session.in_nested_transaction()
        and not (session.new or session.dirty or session.deleted)
        and list(session.dispatch.before_commit)[-1] is _append_pending
    )


def _drop_pending(session: OrmSession, *_: Any) -> None:
    session.info.pop(_PENDING_KEY, None)


event.listen(OrmSession, "before_commit", _append_pending)
event.listen(OrmSession, "after_rollback", _drop_pending)
