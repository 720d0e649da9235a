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
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple, Protocol, TypedDict, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.prompt_values import ChatPromptValue
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from sqlalchemy import and_, bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session

from interlock.employees import Employee
from interlock.engine.answers import ENDED, AnswerStore
from interlock.engine.binding import BoundModels
from interlock.engine.calls import CallExecutor
from interlock.engine.decided_calls import DecidedCall, latest_assistant_calls_decided
from interlock.engine.expiry import Deadlines
from interlock.engine.history import HistoryCache, without_cut_reply
from interlock.engine.late import LateResults, late_calls_note, read_late_calls
from interlock.engine.preflight import prepare_calls
from interlock.engine.proposals import message_text, read_proposals
from interlock.engine.turn import SkillsLoaded, TurnPlan, plan_turn
from interlock.errors import InterlockError
from interlock.permissions import actions_on
from interlock.permissions.switch import on_from_columns
from interlock.skills import SkillCatalog
from interlock.storage import (
    ActionSwitch,
    Conversation,
    Database,
    Decision,
    DecisionType,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.read_soon import Soon, read_soon
from interlock.store import read_undone_calls, undone_calls_note
from interlock.streaming import EventBus
from interlock.streaming.deltas import DeltaBuffer
from interlock.tools import ToolRegistry

Start = Literal["model", "tools"]
Outcome = Literal["continue", "model", "paused", "completed"]


class Turn(NamedTuple):
    """A run's ids and counters, the graph's one state value (the history lives in storage).

    ``outcome``: ``continue`` (to the tools node), ``model`` (every proposed call is already
    closed: straight back to the model), ``paused`` or ``completed``. ``ended``: the last step
    already wrote the run's terminal event in its own transaction.
    """

    run_id: str
    conversation_id: str
    user_id: str
    steps: int = 0
    outcome: Outcome = "continue"
    ended: bool = False


class TurnState(TypedDict):
    """Graph state: the :class:`Turn`, under one key. LangGraph keeps a channel per key and
    reads, writes and copies each one at every step: one key instead of six saves about a
    tenth of its work per invocation."""

    turn: Turn


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
    late: LateResults = field(default_factory=LateResults)
    """Tools still running after their run was cancelled (:mod:`interlock.engine.late`)."""


def build_graphs(deps: GraphDeps) -> dict[Start, Any]:
    """The turn graph, compiled once per first node at its first use: ``model`` for a new
    message, ``tools`` for a resume (which goes on to the model when nothing is open). Invoke
    with a :class:`TurnState`; no checkpointer is used.

    Compiled when first wanted, not at start-up: a restarted server's first answer is often a
    resume, which never needs the ``model`` start (about 11,000 Python calls to compile).
    """
    return _Graphs(_Nodes(deps))


class _Graphs(dict[Start, Any]):
    """The compiled graphs by first node, each compiled on first lookup (event loop only)."""

    def __init__(self, nodes: _Nodes) -> None:
        super().__init__()
        self._nodes = nodes

    def __missing__(self, start: Start) -> Any:
        nodes = self._nodes
        graph = StateGraph(TurnState)
        # Each node names the next one itself (a ``Command``), and the first node is a plain
        # edge: a routing function would run as a step of its own (about a fifth of
        # LangGraph's work per node).
        graph.add_node("model", nodes.model, destinations=("tools", "model", END))
        graph.add_node("tools", nodes.tools, destinations=("model", END))
        graph.add_edge(START, start)
        compiled = self[start] = graph.compile()
        return compiled


class _Nodes:
    def __init__(self, deps: GraphDeps) -> None:
        self.d = deps
        self.history = HistoryCache(deps.registry)
        self.calls = CallExecutor(deps.db, deps.bus, deps.registry, deps.late)
        self.bound = BoundModels(deps.registry)
        self.answers = AnswerStore(deps)

    # -- model ---------------------------------------------------------------------------
    async def model(self, state: TurnState) -> Command[str]:
        d = self.d
        turn = state["turn"]
        if turn.steps >= d.max_steps:
            raise InterlockError(
                f"The assistant stopped after {d.max_steps} steps without finishing. Ask again, "
                "perhaps in smaller parts.",
                code="step_limit",
            )
        conversation_id, run_id = turn.conversation_id, turn.run_id
        employee, plan, history = await d.db.run(self._model_input, conversation_id)
        model = d.model_for(employee)
        bound = self.bound.bind(model, plan.offered)

        # Chunks are merged once at the end: merging them one by one is quadratic.
        chunks: list[AIMessageChunk] = []
        deltas = DeltaBuffer(d.bus, conversation_id, run_id, d.delta_window_s)
        try:
            # Handed over as a prompt value: the model then takes the list as it is instead
            # of converting every message of the history again (work that grew with it).
            prompt = ChatPromptValue.model_construct(messages=history)
            async for chunk in bound.astream(prompt):
                if not isinstance(chunk, AIMessageChunk):
                    continue
                chunks.append(chunk)
                deltas.add(message_text(chunk.content))
                if chunk.chunk_position == "last":
                    # Whole: what is not written yet goes with the answer (LangChain's
                    # end-of-stream callbacks still take a few turns of the loop).
                    deltas.hold()
        except asyncio.CancelledError:
            # Stopped mid-answer: keep the text the person already saw (tool calls dropped).
            await deltas.flush()
            partial = _text_of(chunks)
            if partial.strip():
                await d.db.run(self.answers.store, turn, partial, [], plan, employee, end=False)
            raise
        # The last piece of text is written with the answer itself (one transaction).
        tail = await deltas.drain()

        text = _text_of(chunks)
        proposals = read_proposals(chunks)
        try:
            prepared = await prepare_calls(
                d.registry,
                plan,
                proposals,
                user_id=turn.user_id,
                conversation_id=conversation_id,
                db=d.db,
                from_model=True,
            )
        except asyncio.CancelledError:
            if tail:
                await d.db.run(d.bus.publish_many, conversation_id, tail)
            if text.strip():
                await d.db.run(self.answers.store, turn, text, [], plan, employee, end=False)
            raise
        outcome = await d.db.run(
            self.answers.store, turn, text, prepared, plan, employee, tail=tail
        )
        # With tool calls the model answers again, even when every call already failed its
        # checks: it must see those error tool messages.
        update = {
            "turn": turn._replace(
                steps=turn.steps + 1, outcome=cast("Outcome", outcome), ended=outcome in ENDED
            )
        }
        goto = "tools" if outcome == "continue" else "model" if outcome == "model" else END
        return Command(update=update, goto=goto)

    def _model_input(self, conversation_id: str) -> tuple[Employee, TurnPlan, list[BaseMessage]]:
        """Read what a model step needs: the employee, the turn's plan and the history.

        A blocking call (database thread).
        """
        d = self.d
        with d.db.session() as session:
            # Every read queued first: on PostgreSQL they go out in one round trip.
            facts = read_soon(session, _CONVERSATION_FACTS, {"cid": conversation_id})
            undone = read_undone_calls(session, conversation_id)
            late = read_late_calls(session, conversation_id)
            reads = self.history.read(session, conversation_id)
            conversation, employee, on = _conversation_facts(session, facts, d)
            plan = plan_turn(conversation, employee, d.catalog, d.registry, actions_on=on)
            note = undone_calls_note(session, d.registry, conversation_id, undone)
            note += late_calls_note(d.registry, late)
            history = self.history.model_messages(
                session, conversation_id, plan.system_prompt + note, reads
            )
        return employee, plan, without_cut_reply(history)

    # -- tools ---------------------------------------------------------------------------
    async def tools(self, state: TurnState) -> Command[str]:
        turn = state["turn"]
        run_id, user_id = turn.run_id, turn.user_id
        employee, calls, on, claimed = await self.d.db.run(
            self._tools_input, turn.conversation_id, run_id
        )
        waiting = False
        for call, decision, decided_by in calls:
            if call.id == claimed:  # claimed with the read: it runs now
                args = _args_to_run(call, decision)
                waiting |= await self.calls.execute(
                    run_id,
                    user_id,
                    employee,
                    call,
                    args,
                    decision=decision,
                    decided_by=decided_by,
                    claimed=True,
                )
            elif call.status == ToolCallStatus.pending:
                waiting |= await self.calls.execute(
                    run_id, user_id, employee, call, call.proposed_args, actions_on=on, fenced=True
                )
            elif call.status == ToolCallStatus.awaiting_client:
                waiting = True
            elif call.status == ToolCallStatus.interrupted:
                if decision is None:
                    waiting = True
                elif decision.type in (DecisionType.approve, DecisionType.edit):
                    waiting |= await self.calls.execute(
                        run_id,
                        user_id,
                        employee,
                        call,
                        _args_to_run(call, decision),
                        actions_on=on,
                        decision=decision,
                        decided_by=decided_by,
                        fenced=True,
                    )
                else:
                    await self.d.db.run(self.calls.close_decided, run_id, call, decision, True)
        if waiting:
            return Command(update={"turn": turn._replace(outcome="paused")}, goto=END)
        return Command(update={"turn": turn._replace(outcome="continue")}, goto="model")

    def _tools_input(
        self, conversation_id: str, run_id: str
    ) -> tuple[Employee, list[DecidedCall], bool, str | None]:
        """Read the latest assistant message's calls with their decisions and deciders' names
        (one statement) and the owner's "AI actions" switch for the employee; claim the first
        call to act on in the same transaction when it is one to run and needs no ``check``
        (database thread).

        Returns:
            ``(employee, calls with their decisions, switch on, id of the call claimed or
            None)``.
        """
        with self.d.db.session() as session:
            facts = read_soon(session, _CONVERSATION_FACTS, {"cid": conversation_id})
            calls = latest_assistant_calls_decided(session, conversation_id)  # with the facts
            _conversation, employee, on = _conversation_facts(session, facts, self.d)
            if not calls:
                return employee, [], False, None
            first = _first_to_act_on(calls)
            claimed = None
            if first is not None:
                call, decision, decided_by = first
                args = _args_to_run(call, decision)
                if self.calls.claim_in(
                    session, run_id, call, args, employee, on, decision, decided_by
                ):
                    self.d.bus.commit(session)
                    claimed = call.id
        return employee, calls, on, claimed


class _ConversationFacts(SkillsLoaded, Protocol):
    """What a step reads of its conversation (a row of :data:`_CONVERSATION_FACTS`)."""

    @property
    def owner_id(self) -> str: ...

    @property
    def employee(self) -> str: ...

    @property
    def switch_changed_by(self) -> str | None: ...

    @property
    def switch_on_until(self) -> datetime | None: ...


_conversations = Conversation.__table__  # type: ignore[attr-defined]
_switches = ActionSwitch.__table__  # type: ignore[attr-defined]
_CONVERSATION_FACTS = (
    sa_select(
        _conversations.c.owner_id,
        _conversations.c.employee,
        _conversations.c.loaded_skills,
        _switches.c.changed_by.label("switch_changed_by"),
        _switches.c.on_until.label("switch_on_until"),
    )
    .select_from(
        _conversations.outerjoin(
            _switches,
            and_(
                _switches.c.user_id == _conversations.c.owner_id,
                _switches.c.employee == _conversations.c.employee,
            ),
        )
    )
    .where(_conversations.c.id == bindparam("cid"))
)
"""Prebuilt: every model and tools step reads these fields (a Core select: a row, not a
loaded conversation), with the owner's "AI actions" switch for the employee."""


def _conversation_facts(
    session: Session, facts: Soon, deps: GraphDeps
) -> tuple[_ConversationFacts, Employee, bool]:
    """The owner, employee and loaded skills of the conversation (which exists: its run holds
    it) as ``facts`` (:data:`_CONVERSATION_FACTS`, queued) read them, its employee, and whether
    the owner's "AI actions" are on for that employee."""
    row = facts.result().first()
    assert row is not None
    read = cast(_ConversationFacts, row)
    employee = deps.employee_of(read.employee)
    if employee.slug == read.employee:
        on = on_from_columns(read.switch_changed_by, read.switch_on_until)
    else:  # the employee no longer exists: the default one stands in, with its own switch
        on = actions_on(session, read.owner_id, employee.slug)
    return read, employee, on


def _args_to_run(call: ToolCall, decision: Decision | None) -> Any:
    """The person's edit, else the proposal."""
    if decision is not None and decision.type == DecisionType.edit:
        return decision.args
    return call.proposed_args


def _first_to_act_on(calls: list[DecidedCall]) -> DecidedCall | None:
    """The first call the tools node acts on, when that act is running it; else None."""
    for decided in calls:
        call, decision = decided.call, decided.decision
        if call.status == ToolCallStatus.pending:
            return decided
        if call.status == ToolCallStatus.interrupted and decision is not None:
            runs = decision.type in (DecisionType.approve, DecisionType.edit)
            return decided if runs else None
    return None


def _text_of(chunks: list[AIMessageChunk]) -> str:
    """The text of a model's streamed answer (:func:`message_text` of the merged chunks).

    Text chunks (string contents, as most providers stream) are joined: what merging them
    gives (``merge_content`` concatenates strings), without building the merged message,
    which parses every tool call's arguments again (LangChain's ``astream`` already merged
    the chunks once, for its callbacks). Content blocks are merged as LangChain merges them.
    """
    if not chunks:
        return ""
    if all(isinstance(chunk.content, str) for chunk in chunks):
        return message_text("".join(cast(str, chunk.content) for chunk in chunks))
    # Merged in one pass (``a + b + c`` copies the text each time).
    return message_text(add_ai_message_chunks(chunks[0], *chunks[1:]).content)
