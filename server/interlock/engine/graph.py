"""The turn graph: model -> tools -> model ..., with Interlock's tables as the only history.

The LangGraph state carries ids and a step count, nothing else: every node reads what it
needs from storage and writes its results there, with the events that report them, in one
transaction. A pause is therefore just stored rows (calls ``interrupted`` without a
decision); resuming is a new invocation that starts at the tools node, which also makes a
pause survive a server restart without a checkpointer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langgraph.graph import END, START, StateGraph
from sqlmodel import Session, col, select

from interlock.audit import ALLOW_DECIDER, REPEAT_DECIDER, Channel, Outcome, record_outcome
from interlock.employees import Employee
from interlock.engine.binding import BoundModels
from interlock.engine.calls import CallExecutor
from interlock.engine.expiry import Deadlines
from interlock.engine.grants import apply_grant
from interlock.engine.history import HistoryCache
from interlock.engine.loop_guard import (
    REPEAT_ERROR_CODE,
    check_repeats,
    declined_before,
    repeat_text,
    run_repeats,
)
from interlock.engine.preflight import Prepared, prepare_calls
from interlock.engine.proposals import message_text, read_proposals
from interlock.engine.records import (
    close_call,
    error_text,
    latest_assistant_calls,
    view,
)
from interlock.engine.turn import TurnPlan, plan_turn
from interlock.errors import InterlockError
from interlock.permissions import actions_on
from interlock.skills import SkillCatalog
from interlock.storage import (
    Conversation,
    Database,
    Decision,
    DecisionType,
    Message,
    MessageRole,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.views import message_out
from interlock.store import undone_calls_note
from interlock.streaming import EventBus
from interlock.streaming.deltas import DeltaBuffer
from interlock.streaming.events import (
    MessageCompleted,
    ToolCallCreated,
)
from interlock.tools import Permission, Tool, ToolRegistry


class TurnState(TypedDict):
    """Graph state: ids and counters only (the history lives in storage)."""

    run_id: str
    conversation_id: str
    user_id: str
    steps: int
    outcome: Literal["continue", "paused", "completed"]


@dataclass
class GraphDeps:
    """What the nodes need; built once per engine."""

    db: Database
    bus: EventBus
    registry: ToolRegistry
    catalog: SkillCatalog
    max_steps: int
    delta_window_s: float
    employee_of: Callable[[str], Employee]
    model_for: Callable[[Employee], BaseChatModel]
    deadlines: Deadlines


def build_graph(deps: GraphDeps) -> Any:
    """Compile the turn graph. Invoke with a :class:`TurnState`; no checkpointer is used."""
    nodes = _Nodes(deps)
    graph = StateGraph(TurnState)
    graph.add_node("model", nodes.model)
    graph.add_node("tools", nodes.tools)
    graph.add_conditional_edges(START, nodes.route_start, {"model": "model", "tools": "tools"})
    graph.add_conditional_edges("model", nodes.after_model, {"tools": "tools", END: END})
    graph.add_conditional_edges("tools", nodes.after_tools, {"model": "model", END: END})
    return graph.compile()


class _Nodes:
    def __init__(self, deps: GraphDeps) -> None:
        self.d = deps
        self.history = HistoryCache(deps.registry)
        self.calls = CallExecutor(deps.db, deps.bus, deps.registry)
        self.bound = BoundModels(deps.registry)

    # -- routing -------------------------------------------------------------------------
    async def route_start(self, state: TurnState) -> str:
        return await self.d.db.run(self._start_at, state["conversation_id"])

    def _start_at(self, conversation_id: str) -> str:
        """``tools`` when the latest assistant message has open calls, else ``model``."""
        with self.d.db.session() as session:
            calls = latest_assistant_calls(session, conversation_id)
        open_calls = [
            c
            for c in calls
            if c.status
            in (ToolCallStatus.pending, ToolCallStatus.interrupted, ToolCallStatus.awaiting_client)
        ]
        return "tools" if open_calls else "model"

    def after_model(self, state: TurnState) -> str:
        return "tools" if state["outcome"] == "continue" else END

    def after_tools(self, state: TurnState) -> str:
        return "model" if state["outcome"] == "continue" else END

    # -- model ---------------------------------------------------------------------------
    async def model(self, state: TurnState) -> dict[str, Any]:
        d = self.d
        if state["steps"] >= d.max_steps:
            raise InterlockError(
                f"The run stopped after {d.max_steps} model calls (max_steps_per_turn).",
                code="step_limit",
            )
        conversation_id, run_id = state["conversation_id"], state["run_id"]
        employee, plan, history = await d.db.run(self._model_input, conversation_id)
        model = d.model_for(employee)
        bound = self.bound.bind(model, plan.offered)

        # Chunks are merged once at the end: merging them one by one is quadratic.
        chunks: list[AIMessageChunk] = []
        deltas = DeltaBuffer(d.bus, conversation_id, run_id, d.delta_window_s)
        try:
            async for chunk in bound.astream(history):
                if not isinstance(chunk, AIMessageChunk):
                    continue
                chunks.append(chunk)
                deltas.add(message_text(chunk.content))
        except asyncio.CancelledError:
            # Stopped mid-answer: keep the text the person already saw (tool calls dropped).
            await deltas.flush()
            partial = message_text(_merged(chunks).content) if chunks else ""
            if partial.strip():
                await d.db.run(self._store_answer, state, partial, [], plan, employee)
            raise
        await deltas.flush()

        aggregate = _merged(chunks) if chunks else None
        text = message_text(aggregate.content) if aggregate else ""
        proposals = read_proposals(chunks)
        try:
            prepared = await prepare_calls(
                d.registry,
                plan,
                proposals,
                user_id=state["user_id"],
                conversation_id=conversation_id,
                db=d.db,
                from_model=True,
            )
        except asyncio.CancelledError:
            if text.strip():
                await d.db.run(self._store_answer, state, text, [], plan, employee)
            raise
        await d.db.run(self._store_answer, state, text, prepared, plan, employee)
        # With tool calls the tools node runs next, even when every call already failed its
        # checks: the model must see those error tool messages and answer again.
        return {"steps": state["steps"] + 1, "outcome": "continue" if proposals else "completed"}

    def _model_input(self, conversation_id: str) -> tuple[Employee, TurnPlan, list[BaseMessage]]:
        """Read what a model step needs: the employee, the turn's plan and the history.

        A blocking call (database thread).
        """
        d = self.d
        with d.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            employee = d.employee_of(conversation.employee)
            on = actions_on(session, conversation.owner_id, employee.slug)
            plan = plan_turn(conversation, employee, d.catalog, d.registry, actions_on=on)
            prompt = plan.system_prompt + undone_calls_note(session, d.registry, conversation_id)
            history = self.history.model_messages(session, conversation_id, prompt)
        return employee, plan, history

    def _store_answer(
        self,
        state: TurnState,
        text: str,
        prepared: list[Prepared],
        plan: TurnPlan,
        employee: Employee,
    ) -> None:
        """Store the assistant message and its calls, failing refused ones at once.

        A blocking call (database thread), one transaction.

        Raises:
            InterlockError: ``repeated_rejected_call`` once the run's second call was closed by
                the loop guard (after the answer is stored).
        """
        d = self.d
        conversation_id, run_id = state["conversation_id"], state["run_id"]
        with d.db.session() as session:
            message = Message(
                conversation_id=conversation_id,
                run_id=run_id,
                role=MessageRole.assistant,
                content=text,
            )
            session.add(message)
            session.flush()
            assert message.id is not None
            calls: list[tuple[ToolCall, Prepared]] = []
            repeated = False
            for index, item in enumerate(prepared):
                tool, proposal = item.tool, item.proposal
                call = ToolCall(
                    id=item.call_id,
                    conversation_id=conversation_id,
                    message_id=message.id,
                    run_id=run_id,
                    index=index,
                    name=_stored_name(d.registry, tool, proposal.name),
                    permission=str(plan.permissions[tool.name]) if tool else "ASK",
                    proposed_args=proposal.args,
                    raw_args=proposal.raw_args if proposal.args is None else None,
                )
                session.add(call)
                if item.problem is None and tool is not None:
                    apply_grant(
                        session,
                        call,
                        tool,
                        str(plan.permissions[tool.name]),
                        user_id=state["user_id"],
                        employee=employee,
                    )
                calls.append((call, item))
            session.flush()
            # New calls: no decision can exist yet (saves a query per call).
            views = [view(session, d.registry, call, None) for call, _ in calls]
            d.bus.stage(
                session,
                conversation_id,
                MessageCompleted(run_id=run_id, message=message_out(message, views)),
            )
            for call_view in views:
                d.bus.stage(
                    session, conversation_id, ToolCallCreated(run_id=run_id, tool_call=call_view)
                )
            for call, item in calls:
                tool = item.tool
                if item.problem is not None:
                    close_call(
                        session,
                        d.bus,
                        d.registry,
                        call,
                        status=ToolCallStatus.failed,
                        text=error_text(item.code, item.problem, item.hint),
                        result_data={"errors": item.field_errors} if item.field_errors else None,
                        error_code=item.code,
                        error_message=item.problem,
                    )
                elif (
                    tool is not None
                    and plan.permissions[tool.name] == Permission.ASK
                    and call.grant_id is None
                    and declined_before(session, conversation_id, tool, call.proposed_args)
                ):
                    self._close_repeat(session, run_id, call, tool)
                    repeated = True
                elif tool is not None and plan.permissions[tool.name] == Permission.ALLOW:
                    record_outcome(
                        session,
                        call=call,
                        decider=ALLOW_DECIDER,
                        channel=Channel.system,
                        outcome=Outcome.allowed,
                        reason=None,
                        proposed_args=call.proposed_args,
                        executed_args=call.proposed_args,
                    )
                elif (
                    tool is not None
                    and plan.permissions[tool.name] == Permission.ASK
                    and call.grant_id is None
                ):
                    call.confirmation = item.confirmation
                    d.deadlines.interrupt(session, d.bus, d.registry, call, employee, run_id)
            # Only a step that closed a repeat can reach the limit: count only then.
            repeats = run_repeats(session, run_id) if repeated else 0
            d.bus.commit(session)
        check_repeats(repeats)

    def _close_repeat(self, session: Session, run_id: str, call: ToolCall, tool: Tool) -> None:
        """Close a call the person already declined as ``rejected`` by ``policy:repeat``."""
        reason = "the person already declined this exact call earlier in the conversation"
        record_outcome(
            session,
            call=call,
            decider=REPEAT_DECIDER,
            channel=Channel.system,
            outcome=Outcome.rejected,
            reason=reason,
            proposed_args=call.proposed_args,
            executed_args=None,
        )
        close_call(
            session,
            self.d.bus,
            self.d.registry,
            call,
            status=ToolCallStatus.rejected,
            text=repeat_text(tool),
            error_code=REPEAT_ERROR_CODE,
            error_message=f"Not asked again: {reason}.",
            run_id=run_id,
        )

    # -- tools ---------------------------------------------------------------------------
    async def tools(self, state: TurnState) -> dict[str, Any]:
        employee, calls, decisions = await self.d.db.run(
            self._tools_input, state["conversation_id"]
        )
        waiting = False
        run_id, user_id = state["run_id"], state["user_id"]
        for call in calls:
            decision = decisions.get(call.id)
            if call.status == ToolCallStatus.pending:
                waiting |= await self.calls.execute(
                    run_id, user_id, employee, call, call.proposed_args
                )
            elif call.status == ToolCallStatus.awaiting_client:
                waiting = True
            elif call.status == ToolCallStatus.interrupted:
                if decision is None:
                    waiting = True
                elif decision.type in (DecisionType.approve, DecisionType.edit):
                    args = (
                        decision.args if decision.type == DecisionType.edit else call.proposed_args
                    )
                    waiting |= await self.calls.execute(run_id, user_id, employee, call, args)
                else:
                    await self.d.db.run(self.calls.close_decided, run_id, call, decision)
        return {"outcome": "paused" if waiting else "continue"}

    def _tools_input(
        self, conversation_id: str
    ) -> tuple[Employee, list[ToolCall], dict[str, Decision]]:
        """Read the latest assistant message's calls and their decisions (database thread)."""
        with self.d.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            employee = self.d.employee_of(conversation.employee)
            calls = latest_assistant_calls(session, conversation_id)
            decisions = {
                dec.tool_call_id: dec
                for dec in session.exec(
                    select(Decision).where(col(Decision.tool_call_id).in_([c.id for c in calls]))
                ).all()
            }
        return employee, calls, decisions


def _merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """Merge a model's streamed chunks in one pass (``a + b + c`` copies the text each time)."""
    return add_ai_message_chunks(chunks[0], *chunks[1:])


def _stored_name(registry: ToolRegistry, tool: Tool | None, provider_name: str) -> str:
    """The registry name of a proposed call (also for tools not offered), else as proposed."""
    known = tool or registry.by_provider_name(provider_name)
    return known.name if known else provider_name
