"""Tool calls proposed from outside a chat (MCP clients), through the chat's own gate.

An outside caller names a tool and its args directly; there is no model and no run. Each such
call is stored in the person's record conversation for the employee (``channel = "mcp"``, one
per person and employee, made on first use) as an assistant message with that one call, and
goes through exactly the pieces a model's call goes through: validation, the tool's ``check``
and ``confirmation`` (:func:`interlock.engine.preflight.prepare_calls`), the permission levels
of the employee and the person's "AI actions" switch (:func:`interlock.engine.turn.plan_turn`),
"don't ask again" grants, the loop guard (scoped to the caller's MCP session and
``mcp_repeat_window_s``: :func:`interlock.engine.loop_guard.rejected_in_session`), the approval rule and deadline
(:class:`interlock.engine.expiry.Deadlines`), the audit log, and running once
(:class:`interlock.engine.calls.CallExecutor`).

Who runs a decided call: the person's decision resumes the message as for a chat
(:meth:`Engine.claim_resume`), which for a record conversation runs the decided calls here
(:meth:`OutsideCalls.settle`) instead of starting a model run. The caller waiting for the
result only reads the call's outcome, so a decision taken on another worker, or after the
caller left, still runs the call exactly once (the compare-and-set claim of ``CallExecutor``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from interlock.audit import (
    ALLOW_DECIDER,
    REPEAT_DECIDER,
    Channel,
    Outcome,
)
from interlock.employees import Employee
from interlock.engine.grants import apply_grant
from interlock.engine.loop_guard import (
    REPEAT_ERROR_CODE,
    outside_repeat_text,
    rejected_in_session,
)
from interlock.engine.outside_runs import OutsideRuns, record_automatic
from interlock.engine.preflight import Prepared, prepare_calls
from interlock.engine.proposals import Proposal
from interlock.engine.records import close_call, view
from interlock.engine.tool_texts import error_text
from interlock.engine.turn import LOAD_SKILL, TurnPlan, plan_turn
from interlock.errors import Conflict, InterlockError
from interlock.permissions import start_switch
from interlock.storage import (
    Conversation,
    Message,
    MessageRole,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.models import new_id, utcnow
from interlock.storage.views import ToolCallOut, message_out
from interlock.streaming.events import MessageCompleted, ToolCallCreated
from interlock.tools import Permission, Tool

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

MCP_CHANNEL = "mcp"
"""``conversations.channel`` of a person's record of MCP calls through one employee."""
RECORD_TITLE = "MCP calls"
FINAL_STATUSES = frozenset(
    {
        ToolCallStatus.succeeded,
        ToolCallStatus.failed,
        ToolCallStatus.rejected,
        ToolCallStatus.cancelled,
        ToolCallStatus.expired,
    }
)


class _RecordGone(Exception):
    """The record conversation a call was to be stored in was deleted (by its person)."""


@dataclass(frozen=True)
class Placed:
    """A stored outside call right after the gate.

    Attributes:
        call: Its wire shape (``pending``: runs now; ``interrupted``: waits for a decision;
            ``failed`` / ``rejected``: refused, with ``error``).
        conversation_id: The record conversation it is in.
    """

    call: ToolCallOut
    conversation_id: str


class OutsideCalls(OutsideRuns):
    """Places, runs and closes tool calls proposed from outside a chat.

    Args:
        engine: The engine (storage, bus, registry, employees, deadlines).
    """

    # -- what a caller may use -------------------------------------------------------------
    def plan(self, user_id: str, employee: Employee) -> TurnPlan:
        """The tools ``user_id`` may call through ``employee`` and their levels (database thread).

        Every skill the employee may use counts as loaded (an outside caller cannot load
        skills); ``load_skill`` and tools run by a browser (``execution="frontend"``) are left
        out. The first use starts the person's "AI actions" period, as a first message does.
        """
        engine = self.engine
        with engine.db.session() as session:
            switch = start_switch(
                session, user_id, employee.slug, days=engine.settings.actions_grant_days
            )
            session.commit()
        usable = [s.name for s in engine.catalog.loaded() if employee.may_load(s.name)]
        scratch = Conversation(owner_id=user_id, employee=employee.slug, loaded_skills=usable)
        plan = plan_turn(scratch, employee, engine.catalog, engine.registry, actions_on=switch.on)
        plan.offered = [
            t for t in plan.offered if t.name != LOAD_SKILL and t.execution != "frontend"
        ]
        return plan

    # -- placing a call --------------------------------------------------------------------
    async def place(
        self,
        *,
        user_id: str,
        employee: Employee,
        client_name: str,
        tool_name: str,
        args: Any,
        mcp_session: str | None = None,
    ) -> Placed:
        """Store a call of ``tool_name`` with ``args`` through the gate.

        Args:
            user_id: The person the caller acts for (owner of the record conversation).
            employee: The employee whose tools and rules apply.
            client_name: The MCP client's name, shown on the card.
            tool_name: The Interlock tool name (unknown names are stored ``failed``).
            args: The args as sent.
            mcp_session: The caller's ``Mcp-Session-Id`` (None: a 2026-era client), the
                loop guard's scope.

        Raises:
            Conflict: ``employee_disabled``.
        """
        engine = self.engine
        if employee.disabled:
            raise Conflict(f"{employee.name} is disabled; nothing runs.", code="employee_disabled")
        plan = await engine.db.run(self.plan, user_id, employee)
        conversation_id = await engine.db.run(self._record_conversation, user_id, employee)
        try:
            return await self._place_in(
                plan, employee, user_id, conversation_id, client_name, tool_name, args, mcp_session
            )
        except _RecordGone:
            # The person deleted the record conversation meanwhile: a new one records it.
            conversation_id = await engine.db.run(self._record_conversation, user_id, employee)
            return await self._place_in(
                plan, employee, user_id, conversation_id, client_name, tool_name, args, mcp_session
            )

    async def _place_in(
        self,
        plan: TurnPlan,
        employee: Employee,
        user_id: str,
        conversation_id: str,
        client_name: str,
        tool_name: str,
        args: Any,
        mcp_session: str | None,
    ) -> Placed:
        """:meth:`place` in the record conversation ``conversation_id``.

        Raises:
            _RecordGone: That conversation was deleted before the call was stored.
        """
        engine = self.engine
        known = engine.registry.get(tool_name)
        proposal = Proposal(
            name=known.provider_name if known is not None else tool_name,
            args=args,
            raw_args="",
        )
        if (
            known is not None
            and known.name not in plan.denied
            and all(t.name != known.name for t in plan.offered)
        ):
            # Not a tool for outside callers (load_skill, a tool the person's browser runs).
            prepared = Prepared(
                proposal=proposal,
                tool=None,
                problem=f"The tool {known.name!r} is not offered to MCP clients.",
                code="not_found",
            )
        else:
            [prepared] = await prepare_calls(
                engine.registry,
                plan,
                [proposal],
                user_id=user_id,
                conversation_id=conversation_id,
                db=engine.db,
            )
        out = await engine.db.run(
            self._store,
            plan,
            prepared,
            user_id,
            employee,
            conversation_id,
            (client_name, mcp_session),
            tool_name,
        )
        return Placed(call=out, conversation_id=conversation_id)

    def _record_conversation(self, user_id: str, employee: Employee) -> str:
        """The id of the person's record conversation for ``employee``, made on first use.

        One per person and employee (a partial unique index): of two first calls racing, the
        later insert fails and reads the one that won.
        """
        for _attempt in range(2):
            with self.engine.db.session() as session:
                found = session.exec(
                    select(Conversation.id).where(
                        Conversation.owner_id == user_id,
                        Conversation.employee == employee.slug,
                        Conversation.channel == MCP_CHANNEL,
                    )
                ).first()
                if found is not None:
                    return found
                conversation = Conversation(
                    owner_id=user_id,
                    employee=employee.slug,
                    title=RECORD_TITLE,
                    channel=MCP_CHANNEL,
                )
                session.add(conversation)
                try:
                    session.commit()
                except IntegrityError:
                    session.rollback()
                    continue
                return conversation.id
        raise InterlockError("The record of MCP calls could not be made.", code="internal")

    def _store(
        self,
        plan: TurnPlan,
        item: Prepared,
        user_id: str,
        employee: Employee,
        conversation_id: str,
        caller: tuple[str, str | None],
        tool_name: str,
    ) -> ToolCallOut:
        """Store the message and its call and apply the gate's outcome (one transaction)."""
        engine = self.engine
        bus, registry = engine.bus, engine.registry
        tool = item.tool
        client_name, mcp_session = caller
        run_id = new_id("mcp")
        args = item.proposal.args
        with engine.db.session() as session:
            # Locked (PostgreSQL) until the commit, as the UPDATE of its updated_at below locks
            # it (FOR NO KEY UPDATE: parallel calls queue here instead of deadlocking on two
            # share locks' upgrade): a delete of the record conversation either waits for this
            # call (and deletes it with the rest) or came first.
            conversation = session.get(
                Conversation, conversation_id, with_for_update={"key_share": True}
            )
            if conversation is None:
                raise _RecordGone(conversation_id)
            message = Message(
                conversation_id=conversation_id,
                run_id=run_id,
                role=MessageRole.assistant,
                content="",
            )
            session.add(message)
            session.flush()
            assert message.id is not None
            permission = plan.permissions.get(tool.name) if tool is not None else None
            call = ToolCall(
                id=item.call_id,
                conversation_id=conversation_id,
                message_id=message.id,
                run_id=run_id,
                name=tool.name if tool is not None else tool_name,
                permission=str(permission or "ASK"),
                proposed_args=args,
                client_name=client_name,
                mcp_session=mcp_session,
            )
            session.add(call)
            if item.problem is None and tool is not None and permission is not None:
                apply_grant(
                    session,
                    call,
                    tool,
                    str(permission),
                    user_id=user_id,
                    employee=employee,
                    channel=Channel.mcp,
                )
            conversation.updated_at = utcnow()
            session.add(conversation)
            session.flush()
            created = view(session, registry, call, None)
            bus.stage(
                session,
                conversation_id,
                MessageCompleted(run_id=run_id, message=message_out(message, [created])),
            )
            bus.stage(session, conversation_id, ToolCallCreated(run_id=run_id, tool_call=created))
            if item.problem is not None or tool is None:
                close_call(
                    session,
                    bus,
                    registry,
                    call,
                    status=ToolCallStatus.failed,
                    text=error_text(item.code, item.problem or "", item.hint),
                    result_data={"errors": item.field_errors} if item.field_errors else None,
                    error_code=item.code,
                    error_message=item.problem,
                )
            elif permission == Permission.ALLOW:
                record_automatic(session, call, ALLOW_DECIDER, Outcome.allowed, None, executed=True)
            elif call.grant_id is None and self._repeats(session, call, tool):
                self._close_repeat(session, call, tool)
            elif call.grant_id is None:
                call.confirmation = item.confirmation
                engine.deadlines.interrupt(
                    session,
                    bus,
                    registry,
                    call,
                    employee,
                    run_id,
                    max_timeout_s=engine.settings.mcp_approval_timeout_s,
                )
            out = view(session, registry, call)
            bus.commit(session)
        return out

    def _repeats(self, session: Session, call: ToolCall, tool: Tool) -> bool:
        """Whether the loop guard refuses ``call`` (see :func:`rejected_in_session`)."""
        window_s = self.engine.settings.mcp_repeat_window_s
        if window_s <= 0:
            return False
        earlier = rejected_in_session(
            session,
            call.conversation_id,
            tool,
            call.proposed_args,
            mcp_session=call.mcp_session,
            client_name=call.client_name or "",
            since=self.engine.deadlines.now() - timedelta(seconds=window_s),
        )
        return earlier is not None

    def _close_repeat(self, session: Session, call: ToolCall, tool: Tool) -> None:
        """The loop guard: the person rejected this exact call a short while ago."""
        reason = "the person rejected this exact call a short while ago"
        record_automatic(session, call, REPEAT_DECIDER, Outcome.rejected, reason, executed=False)
        close_call(
            session,
            self.engine.bus,
            self.engine.registry,
            call,
            status=ToolCallStatus.rejected,
            text=outside_repeat_text(tool),
            error_code=REPEAT_ERROR_CODE,
            error_message=f"Not asked again: {reason}.",
        )


def is_record(session: Session, conversation_id: str) -> bool:
    """Whether ``conversation_id`` is a record of outside calls (no model runs in it)."""
    conversation = session.get(Conversation, conversation_id)
    return conversation is not None and conversation.channel == MCP_CHANNEL
