"""Resuming a paused conversation: a new run once nothing of its latest message waits."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, or_, update
from sqlalchemy.sql import Executable
from sqlmodel import Session, col, select

from interlock.engine.outside import is_record
from interlock.engine.records import latest_assistant_calls, waiting_for_person
from interlock.storage import Conversation, Decision, Message, MessageRole, Run, ToolCall
from interlock.storage.rows import defer_rows, new_row
from interlock.storage.write_behind import Params, Sent, defer, send
from interlock.streaming.events import RunStarted

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

_conversations = Conversation.__table__  # type: ignore[attr-defined]
CLAIM = (
    update(_conversations)
    .where(
        _conversations.c.id == bindparam("conversation_id"),
        _conversations.c.active_run_id.is_(None),
    )
    .values(active_run_id=bindparam("run_id"))
)
"""Claims a free conversation for ``run_id`` (compare-and-set; a Core statement: the ORM's
bulk UPDATE costs several times more on this hot path)."""
_UNCLAIM = (
    update(_conversations)
    .where(
        _conversations.c.id == bindparam("conversation_id"),
        _conversations.c.active_run_id == bindparam("run_id"),
    )
    .values(active_run_id=None)
)
"""Undoes a claim made earlier in the same transaction (a Core statement)."""


def claim_conversation(
    session: Session, conversation_id: str, run_id: str, *reads: tuple[Executable, Params]
) -> tuple[bool, list[Sent]]:
    """Claim the conversation for ``run_id``: the one way a run becomes its active run.

    A compare-and-set on the conversation's active run, sent with the transaction's queued
    writes and ``reads`` in one round trip (:func:`~interlock.storage.write_behind.send`).
    On PostgreSQL a successful claim keeps the conversation's row locked until the caller's
    transaction ends.

    Args:
        session: The caller's session (its transaction).
        conversation_id: The conversation.
        run_id: The new run (its row is the caller's to write).
        reads: ``(statement, parameters)`` pairs run right after the claim, so they see the
            conversation held (a failed claim holds nothing).

    Returns:
        Whether the conversation was claimed (False: another run is active, or the
        conversation is gone), and what each of ``reads`` returned.
    """
    claimed, *rest = send(
        session, (CLAIM, {"conversation_id": conversation_id, "run_id": run_id}), *reads
    )
    return claimed.rowcount == 1, rest


def claim_resume(engine: Engine, conversation_id: str, message_id: int, user_id: str) -> str | None:
    """Start a resume run if no call of ``message_id`` waits for its person any more.

    One transaction: the check, the claim (compare-and-set on the conversation) and
    ``run.started``; the run's task then starts at the tools node. A database thread.

    Several paths ask (the decision, the lease sweep, an expiry); one resume answers the
    message, and a request arriving after it (the conversation has a later message: the
    model's answer, or the person's next message) starts nothing.

    Returns:
        The new run's id, or None (calls still wait, or a run is active).
    """
    with engine.db.session() as session:
        if is_record(session, conversation_id):
            if not _waiting(session, message_id):
                # MCP calls: no model answers; the decided calls run (engine.outside).
                engine.outside.settle_soon(conversation_id, message_id)
            return None
        run = Run(conversation_id=conversation_id, trigger="resume", owner_id=engine.worker_id)
        # Checked after the claim, in its transaction: holding the conversation (and, on
        # SQLite, the write lock), no run can answer the message between these reads and the
        # commit. Read before the claim, a resume run ending in between went unseen and the
        # model answered twice.
        claimed, (busy,) = claim_conversation(
            session, conversation_id, run.id, _waiting_or_answered(conversation_id, message_id)
        )
        if not claimed or busy.scalar():
            session.rollback()
            return None
        session.add(run)
        engine.bus.stage(session, conversation_id, RunStarted(run_id=run.id, trigger="resume"))
        engine.bus.commit(session)
    engine.spawn_soon(run.id, conversation_id, user_id, start="tools")
    return run.id


def claim_resume_in(
    engine: Engine,
    session: Session,
    conversation_id: str,
    message_id: int,
    others_wait: bool | None = None,
) -> str | None:
    """Claim the resume run in the caller's transaction (a decision's), when nothing of
    ``message_id`` waits any more and nothing answered it yet; ``run.started`` is staged.

    The caller commits, then starts the run's task (``engine.spawn_soon``): the person sees
    the run start with the decision itself. For chat conversations only (a record of MCP
    calls settles otherwise). The same checks as :func:`claim_resume`, after the claim (sent
    with it in one round trip: :func:`claim_conversation`); when they fail
    the claim is undone in the transaction and the caller's own writes stay.

    Args:
        engine: The engine.
        session: The caller's session (its transaction).
        conversation_id: The conversation.
        message_id: The assistant message whose calls were decided.
        others_wait: Whether another call of the message still waits for its person, when
            the caller read it in this transaction already (else it is read here).

    Returns:
        The new run's id, or None (the caller resumes later, as without this).
    """
    if others_wait is None:
        others_wait = _waiting(session, message_id)
    claim = resume_claim(engine, conversation_id, message_id, others_wait)
    if claim is None:
        return None
    run, statements = claim
    claimed, busy = send(session, *statements)
    return settle_resume_claim(engine, session, run, claimed, busy)


def claim_resumes_in(
    engine: Engine, session: Session, closed: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], str]:
    """Claim, in the caller's transaction, the resume run of each chat conversation whose
    calls the caller closed there, when nothing of the message waits any more.

    The calls' close and the run's claim (``run.started`` staged) commit together, so no
    reader sees the conversation in between: nothing waiting, nothing running and no answer
    yet, which read as idle while a message sent then was refused (409 ``run_active``).

    Args:
        engine: The engine.
        session: The caller's session (its transaction, the calls closed in it).
        closed: ``(conversation_id, message_id)`` of the messages whose calls were closed.

    Returns:
        The run claimed by ``(conversation_id, message_id)``. The caller commits, then starts
        each (``engine.spawn_soon``) and resumes the others later as before (a record of MCP
        calls, or a message with calls still waiting).
    """
    claimed: dict[tuple[str, int], str] = {}
    for conversation_id, message_id in sorted(set(closed)):
        if is_record(session, conversation_id):
            continue
        run_id = claim_resume_in(engine, session, conversation_id, message_id)
        if run_id is not None:
            claimed[(conversation_id, message_id)] = run_id
    return claimed


def resume_claim(
    engine: Engine, conversation_id: str, message_id: int, others_wait: bool
) -> tuple[Run, list[tuple[Executable, Params]]] | None:
    """The statements of :func:`claim_resume_in`, for a caller that sends them itself with
    other statements of its transaction (:func:`~interlock.storage.write_behind.send`): the
    claim, then the read of whether anything of ``message_id`` waits or answered it.

    Args:
        engine: The engine.
        conversation_id: The conversation.
        message_id: The assistant message whose calls were decided.
        others_wait: Whether another call of the message still waits for its person (read
            in the caller's transaction).

    Returns:
        The resume run (not written yet) and the two ``(statement, parameters)`` pairs, to be
        sent in this order and their results passed to :func:`settle_resume_claim`; None
        when ``others_wait`` (nothing to claim).
    """
    if others_wait:  # cheap first: another call of the message waits
        return None
    run = new_row(Run, conversation_id=conversation_id, trigger="resume", owner_id=engine.worker_id)
    claim = (CLAIM, {"conversation_id": conversation_id, "run_id": run.id})
    return run, [claim, _waiting_or_answered(conversation_id, message_id)]


def settle_resume_claim(
    engine: Engine, session: Session, run: Run, claimed: Sent, busy: Sent
) -> str | None:
    """Finish a claim of :func:`resume_claim` from what its statements returned: the run is
    written with the transaction's ``COMMIT`` and ``run.started`` staged, or a claim that
    found the message waiting or answered is undone (the caller's own writes stay).

    Returns:
        The new run's id, or None (the caller resumes later, as without the claim).
    """
    if claimed.rowcount != 1:
        return None
    if busy.scalar():  # read once the claim held the conversation: see claim_resume
        defer(session, _UNCLAIM, {"conversation_id": run.conversation_id, "run_id": run.id})
        return None
    defer_rows(session, [run])  # sent with the events, at the commit (PostgreSQL)
    engine.bus.stage(session, run.conversation_id, RunStarted(run_id=run.id, trigger="resume"))
    return run.id


def resume_after_close(engine: Engine, conversation_id: str, message_id: int) -> str | None:
    """:func:`claim_resume` for the conversation's owner (a call closed by the server)."""
    with engine.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        if conversation is None:
            return None
        owner_id = conversation.owner_id
    return claim_resume(engine, conversation_id, message_id, owner_id)


def resume_latest(engine: Engine, conversation_id: str, user_id: str) -> str | None:
    """:func:`claim_resume` for the conversation's latest assistant message."""
    with engine.db.session() as session:
        calls = latest_assistant_calls(session, conversation_id)
    if not calls:
        return None
    return claim_resume(engine, conversation_id, calls[0].message_id, user_id)


# Prebuilt: every resume reads both (building a statement costs more than running it).
_WAITING = (
    select(ToolCall.id)
    .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
    .where(ToolCall.message_id == bindparam("mid"), waiting_for_person())
    .limit(1)
)
_LATER_MESSAGE = (
    select(Message.id)
    .where(
        Message.conversation_id == bindparam("cid"),
        col(Message.id) > bindparam("mid"),
        Message.role != MessageRole.tool,
    )
    .limit(1)
)


_WAITING_OR_ANSWERED = select(or_(_WAITING.exists(), _LATER_MESSAGE.exists()))
"""Both checks made after a claim, in one statement (prebuilt)."""


def _waiting(session: Session, message_id: int) -> bool:
    """Whether a call of ``message_id`` still waits for its person."""
    return session.exec(_WAITING, params={"mid": message_id}).first() is not None


def _waiting_or_answered(conversation_id: str, message_id: int) -> tuple[Executable, Params]:
    """The read, made after the claim, of whether a call of ``message_id`` still waits for its
    person, or the conversation has a message after ``message_id`` (its tool messages aside:
    the model's answer, or the person's next message): one boolean."""
    return _WAITING_OR_ANSWERED, {"cid": conversation_id, "mid": message_id}
