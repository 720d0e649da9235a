"""The turn graph: model -> tools -> model ..., with Interlock's tables as the only history.

The LangGraph state carries ids and a step count, nothing else: every node reads what it
needs from storage and writes its results there, with the events that report them, in one
transaction. A pause is therefore just stored rows (calls ``interrupted`` without a
decision); resuming is a new invocation that starts at the tools node, which also makes a
pause survive a server restart without a checkpointer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk
from langgraph.graph import END, START, StateGraph
from sqlalchemy import update
from sqlmodel import Session, col, select

from interlock.employees import Employee
from interlock.engine.history import load_history, to_model_messages
from interlock.engine.records import close_call, error_text, rejected_text, view
from interlock.errors import InterlockError
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
from interlock.storage.models import utcnow
from interlock.storage.views import message_out
from interlock.streaming import EventBus
from interlock.streaming.events import (
    MessageCompleted,
    MessageDelta,
    ToolCallCreated,
    ToolCallInterrupted,
    ToolCallRunning,
)
from interlock.tools import Permission, Tool, ToolContext, ToolError, ToolRegistry


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
    model: BaseChatModel
    max_steps: int
    employee_of: Any  # Callable[[str], Employee]


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


def latest_assistant_calls(session: Session, conversation_id: str) -> list[ToolCall]:
    """Return the tool calls of the conversation's latest assistant message, in call order."""
    message_id = session.exec(
        select(Message.id)
        .where(Message.conversation_id == conversation_id, Message.role == MessageRole.assistant)
        .order_by(col(Message.id).desc())
        .limit(1)
    ).first()
    if message_id is None:
        return []
    return list(
        session.exec(
            select(ToolCall).where(ToolCall.message_id == message_id).order_by(col(ToolCall.index))
        ).all()
    )


class _Nodes:
    def __init__(self, deps: GraphDeps) -> None:
        self.d = deps

    # -- routing -------------------------------------------------------------------------
    def route_start(self, state: TurnState) -> str:
        with self.d.db.session() as session:
            calls = latest_assistant_calls(session, state["conversation_id"])
        open_calls = [
            c for c in calls if c.status in (ToolCallStatus.pending, ToolCallStatus.interrupted)
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
        with d.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            employee: Employee = d.employee_of(conversation.employee)
            messages, calls = load_history(session, conversation_id)
        history = to_model_messages(messages, calls, d.registry, employee.system_prompt)
        offered = d.registry.tools()
        bound = d.model.bind_tools(d.registry.provider_specs(offered)) if offered else d.model

        aggregate: AIMessageChunk | None = None
        async for chunk in bound.astream(history):
            if not isinstance(chunk, AIMessageChunk):
                continue
            aggregate = chunk if aggregate is None else aggregate + chunk
            delta = _text(chunk.content)
            if delta:
                d.bus.publish(conversation_id, MessageDelta(run_id=run_id, delta=delta))

        text = _text(aggregate.content) if aggregate else ""
        proposals = _proposals(aggregate)
        self._store_answer(state, text, proposals, offered)
        # With tool calls the tools node runs next, even when every call already failed its
        # checks: the model must see those error tool messages and answer again.
        return {"steps": state["steps"] + 1, "outcome": "continue" if proposals else "completed"}

    def _store_answer(
        self, state: TurnState, text: str, proposals: list[_Proposal], offered: list[Tool]
    ) -> None:
        """Store the assistant message and its calls, failing malformed ones at once."""
        d = self.d
        offered_by_provider = {t.provider_name: t for t in offered}
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
            calls: list[tuple[ToolCall, Tool | None, str | None, list[dict[str, Any]]]] = []
            for index, proposal in enumerate(proposals):
                tool = offered_by_provider.get(proposal.name)
                call = ToolCall(
                    conversation_id=conversation_id,
                    message_id=message.id,
                    run_id=run_id,
                    index=index,
                    name=tool.name if tool else proposal.name,
                    permission=str(tool.permission) if tool else "ASK",
                    proposed_args=proposal.args,
                    raw_args=proposal.raw_args if proposal.args is None else None,
                )
                session.add(call)
                problem, field_errors = self._check(proposal, tool)
                calls.append((call, tool, problem, field_errors))
            session.flush()
            views = [view(session, d.registry, call) for call, *_ in calls]
            d.bus.stage(
                session,
                conversation_id,
                MessageCompleted(run_id=run_id, message=message_out(message, views)),
            )
            for call_view in views:
                d.bus.stage(
                    session, conversation_id, ToolCallCreated(run_id=run_id, tool_call=call_view)
                )
            for call, tool, problem, field_errors in calls:
                if problem is not None:
                    code = "not_found" if tool is None else "invalid_args"
                    close_call(
                        session,
                        d.bus,
                        d.registry,
                        call,
                        status=ToolCallStatus.failed,
                        text=error_text(code, problem, _hint(field_errors)),
                        result_data={"errors": field_errors} if field_errors else None,
                        error_code=code,
                        error_message=problem,
                    )
                elif tool is not None and tool.permission == Permission.ASK:
                    call.status = ToolCallStatus.interrupted
                    session.add(call)
                    session.flush()
                    d.bus.stage(
                        session,
                        conversation_id,
                        ToolCallInterrupted(
                            run_id=run_id, tool_call=view(session, d.registry, call)
                        ),
                    )
            d.bus.commit(session)

    def _check(
        self, proposal: _Proposal, tool: Tool | None
    ) -> tuple[str | None, list[dict[str, Any]]]:
        if tool is None:
            return f"Unknown tool {proposal.name!r}: it is not offered in this conversation.", []
        if proposal.args is None:
            return f"The arguments are not valid JSON: {proposal.parse_error}", []
        if not isinstance(proposal.args, dict):
            return "The arguments must be a JSON object.", []
        errors = [e.as_dict() for e in self.d.registry.validate_args(tool, proposal.args)]
        if errors:
            return "The arguments do not match the tool's input schema.", errors
        return None, []

    # -- tools ---------------------------------------------------------------------------
    async def tools(self, state: TurnState) -> dict[str, Any]:
        d = self.d
        with d.db.session() as session:
            calls = latest_assistant_calls(session, state["conversation_id"])
            decisions = {
                dec.tool_call_id: dec
                for dec in session.exec(
                    select(Decision).where(col(Decision.tool_call_id).in_([c.id for c in calls]))
                ).all()
            }
        waiting = False
        for call in calls:
            decision = decisions.get(call.id)
            if call.status == ToolCallStatus.pending:
                await self._execute(state, call, call.proposed_args)
            elif call.status == ToolCallStatus.interrupted:
                if decision is None:
                    waiting = True
                elif decision.type in (DecisionType.approve, DecisionType.edit):
                    args = (
                        decision.args if decision.type == DecisionType.edit else call.proposed_args
                    )
                    await self._execute(state, call, args)
                else:
                    self._close_decided(call, decision)
        return {"outcome": "paused" if waiting else "continue"}

    def _close_decided(self, call: ToolCall, decision: Decision) -> None:
        d = self.d
        with d.db.session() as session:
            fresh = session.get(ToolCall, call.id)
            if fresh is None or fresh.status != ToolCallStatus.interrupted:
                return
            if decision.type == DecisionType.reject:
                close_call(
                    session,
                    d.bus,
                    d.registry,
                    fresh,
                    status=ToolCallStatus.rejected,
                    text=rejected_text(decision.message),
                    error_code="rejected",
                    error_message=decision.message or "Rejected by the person.",
                )
            else:  # respond: the person's text is the result; the tool does not run
                close_call(
                    session,
                    d.bus,
                    d.registry,
                    fresh,
                    status=ToolCallStatus.succeeded,
                    text=decision.message or "",
                )
            d.bus.commit(session)

    async def _execute(self, state: TurnState, call: ToolCall, args: Any) -> None:
        """Run ``call`` once: claim it with a compare-and-set, run it, store the outcome."""
        d = self.d
        tool = d.registry.get(call.name)
        with d.db.session() as session:
            claimed = session.exec(  # type: ignore[call-overload]
                update(ToolCall)
                .where(
                    col(ToolCall.id) == call.id,
                    col(ToolCall.status).in_([ToolCallStatus.pending, ToolCallStatus.interrupted]),
                )
                .values(status=ToolCallStatus.running, executed_args=args, started_at=utcnow())
            ).rowcount
            if claimed != 1:
                session.rollback()
                return
            fresh = session.get(ToolCall, call.id)
            assert fresh is not None
            session.refresh(fresh)
            d.bus.stage(
                session,
                call.conversation_id,
                ToolCallRunning(run_id=state["run_id"], tool_call=view(session, d.registry, fresh)),
            )
            d.bus.commit(session)

        outcome: dict[str, Any]
        if tool is None:
            outcome = _failure(
                ToolError("not_found", f"The tool {call.name!r} is no longer registered.")
            )
        else:
            context = ToolContext(
                user_id=state["user_id"],
                conversation_id=call.conversation_id,
                tool_call_id=call.id,
                db=d.db,
            )
            try:
                result = await d.registry.execute(tool, args, context)
            except ToolError as exc:
                outcome = _failure(exc)
            else:
                outcome = {
                    "status": ToolCallStatus.succeeded,
                    "text": result.text,
                    "result_data": result.data,
                }
        with d.db.session() as session:
            fresh = session.get(ToolCall, call.id)
            assert fresh is not None
            if fresh.status != ToolCallStatus.running:  # cancelled meanwhile
                return
            close_call(session, d.bus, d.registry, fresh, **outcome)
            d.bus.commit(session)


@dataclass
class _Proposal:
    name: str
    args: Any
    raw_args: str
    parse_error: str | None = None


def _proposals(aggregate: AIMessageChunk | None) -> list[_Proposal]:
    """Read tool calls from the streamed message; args JSON is parsed here, not trusted."""
    if aggregate is None:
        return []
    proposals: list[_Proposal] = []
    for chunk in aggregate.tool_call_chunks:
        raw = chunk.get("args") or ""
        name = chunk.get("name") or ""
        try:
            args: Any = json.loads(raw) if raw.strip() else {}
            error = None
        except json.JSONDecodeError as exc:
            args, error = None, str(exc)
        proposals.append(_Proposal(name=name, args=args, raw_args=raw, parse_error=error))
    if not proposals:
        for tool_call in aggregate.tool_calls:
            proposals.append(
                _Proposal(
                    name=tool_call["name"],
                    args=tool_call["args"],
                    raw_args=json.dumps(tool_call["args"]),
                )
            )
    return proposals


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def _hint(field_errors: list[dict[str, Any]]) -> str | None:
    if not field_errors:
        return None
    return "; ".join(
        f"{'/'.join(map(str, e['path'])) or '(root)'}: {e['message']}" for e in field_errors
    )


def _failure(exc: ToolError) -> dict[str, Any]:
    return {
        "status": ToolCallStatus.failed,
        "text": error_text(exc.code, exc.message, exc.hint),
        "error_code": exc.code,
        "error_message": exc.message,
    }
