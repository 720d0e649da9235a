"""Runs: starting them from a message or a resume, driving the graph, ending them once.

A conversation has at most one active run, claimed with a compare-and-set on
``conversations.active_run_id``; every run ends with exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.language_models import BaseChatModel
from sqlalchemy import update
from sqlmodel import Session, col, select

from interlock.audit import SYSTEM_DECIDER
from interlock.employees import DEFAULT_EMPLOYEE, Employee, EmployeeDirectory
from interlock.engine.commands import CommandClaim, propose_command, resolve_command
from interlock.engine.expiry import Deadlines, ExpirySweeper, expire_due
from interlock.engine.graph import GraphDeps, TurnState, build_graph
from interlock.engine.preflight import prepare_command
from interlock.engine.records import (
    cancel_open_calls,
    latest_assistant_calls,
    waiting_for_person,
)
from interlock.engine.recovery import recover_runs
from interlock.engine.turn import effective_permission
from interlock.errors import Conflict, InterlockError, NotFound, error_body
from interlock.models import create_chat_model
from interlock.permissions import start_switch
from interlock.settings import Settings
from interlock.skills import SkillCatalog
from interlock.storage import (
    Conversation,
    Database,
    Decision,
    Message,
    MessageRole,
    Run,
    RunStatus,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.models import utcnow
from interlock.storage.views import message_out
from interlock.streaming import EventBus
from interlock.streaming.events import (
    MessageCompleted,
    RunCancelled,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
)
from interlock.tools import ToolRegistry

log = logging.getLogger(__name__)

CANCEL_WAIT_S = 10.0
NEW_MESSAGE_REASON = "the person sent a new message before deciding"


class Engine:
    """Owns runs: the graph, the tasks driving it and their bookkeeping.

    Args:
        settings: Server settings.
        db: Storage.
        bus: Event bus.
        registry: Tool registry.
        catalog: Loaded skills.
        employees: The employee directory.
        model: The server's chat model (LangChain); employees naming a model get their own.
    """

    def __init__(
        self,
        settings: Settings,
        db: Database,
        bus: EventBus,
        registry: ToolRegistry,
        catalog: SkillCatalog,
        employees: EmployeeDirectory,
        model: BaseChatModel,
    ) -> None:
        self.settings = settings
        self.db = db
        self.bus = bus
        self.registry = registry
        self.catalog = catalog
        self.employees = employees
        self.model = model
        self._models: dict[str, BaseChatModel] = {}
        self.deadlines = Deadlines(settings)
        self.sweeper = ExpirySweeper(self, settings.approval_sweep_interval_s)
        self._graph = build_graph(
            GraphDeps(
                db=db,
                bus=bus,
                registry=registry,
                catalog=catalog,
                max_steps=settings.max_steps_per_turn,
                delta_window_s=settings.delta_window_s,
                employee_of=self.employee_of,
                model_for=self.model_for,
                deadlines=self.deadlines,
            )
        )
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._ended_early: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False

    def employee_of(self, slug: str) -> Employee:
        """Return the employee ``slug``; the default one if it no longer exists."""
        return self.employees.get(slug) or self.employees.require(DEFAULT_EMPLOYEE)

    def model_for(self, employee: Employee) -> BaseChatModel:
        """Return the employee's own model (``provider:model``), or the server's."""
        if not employee.model:
            return self.model
        if employee.model not in self._models:
            settings = self.settings.model_copy(update={"model": employee.model})
            self._models[employee.model] = create_chat_model(settings)
        return self._models[employee.model]

    # -- starting runs -------------------------------------------------------------------
    def owned_conversation(
        self, session: Session, user_id: str, conversation_id: str
    ) -> Conversation:
        """Return the conversation if ``user_id`` owns it.

        Raises:
            NotFound: Unknown, or owned by someone else (never revealed).
        """
        conversation = session.get(Conversation, conversation_id)
        if conversation is None or conversation.owner_id != user_id:
            raise NotFound("No such conversation.")
        return conversation

    def last_event_seq(self, user_id: str, conversation_id: str) -> int:
        """Return the conversation's last event sequence (a blocking call).

        Raises:
            NotFound: Not the caller's conversation.
        """
        with self.db.session() as session:
            return self.owned_conversation(session, user_id, conversation_id).last_event_seq

    async def post_message(
        self,
        user_id: str,
        conversation_id: str,
        content: str,
        claim: CommandClaim | None = None,
    ) -> tuple[str, int]:
        """Store a user message and start a run answering it.

        Open calls of the conversation are closed as ``cancelled`` first, each with a tool
        message, so the history keeps the providers' ordering rules. A slash command
        (``/notes buy milk``) is resolved on the server and its tool call is proposed
        directly, through the same permission gate as the model's calls.

        Returns:
            ``(run_id, message_id)``.

        Raises:
            NotFound: Not the caller's conversation.
            Conflict: ``run_active`` while another run is active; ``employee_disabled``;
                ``employee_deleted``.
            BadRequest: A slash command that cannot run (see ``resolve_command``).
            DatabaseBusy: A lock was not had in time; nothing was written.
        """
        self._loop = asyncio.get_running_loop()
        return await self.db.run(self._store_message, user_id, conversation_id, content, claim)

    def _store_message(
        self, user_id: str, conversation_id: str, content: str, claim: CommandClaim | None
    ) -> tuple[str, int]:
        """The transaction of :meth:`post_message` (database thread); starts the run's task."""
        with self.db.session() as session:
            conversation = self.owned_conversation(session, user_id, conversation_id)
            if self.employees.get(conversation.employee) is None:
                raise Conflict(
                    "This conversation's employee was deleted; start a new conversation.",
                    code="employee_deleted",
                )
            employee = self.employee_of(conversation.employee)
            if employee.disabled:
                raise Conflict(
                    f"{employee.name} is disabled; start a conversation with someone else.",
                    code="employee_disabled",
                )
            switch = start_switch(
                session, user_id, employee.slug, days=self.settings.actions_grant_days
            )
            command = resolve_command(
                content, claim, employee, self.catalog, self.registry, actions_on=switch.on
            )
            if command is not None:
                # The tool's check and confirmation may be async: run them on the event loop
                # (this is a database thread; the loop waits for it without blocking).
                assert self._loop is not None
                command = asyncio.run_coroutine_threadsafe(
                    prepare_command(
                        self.registry,
                        command,
                        effective_permission(command.tool, employee, actions_on=switch.on),
                        user_id=user_id,
                        conversation_id=conversation_id,
                        db=self.db,
                    ),
                    self._loop,
                ).result()
            run = Run(conversation_id=conversation_id, trigger="message")
            if not self._claim(session, conversation_id, run.id):
                raise Conflict(
                    "A run is active in this conversation; wait for it or cancel it.",
                    code="run_active",
                )
            self.bus.stage(session, conversation_id, RunStarted(run_id=run.id, trigger="message"))
            cancel_open_calls(
                session,
                self.bus,
                self.registry,
                conversation_id,
                NEW_MESSAGE_REASON,
                run.id,
                decider=user_id,
            )
            session.add(run)
            message = Message(
                conversation_id=conversation_id,
                run_id=run.id,
                role=MessageRole.user,
                content=content,
            )
            session.add(message)
            if conversation.title == "New conversation":
                conversation.title = " ".join(content.split())[:60] or conversation.title
            conversation.updated_at = utcnow()
            session.add(conversation)
            session.flush()
            assert message.id is not None
            self.bus.stage(
                session,
                conversation_id,
                MessageCompleted(run_id=run.id, message=message_out(message)),
            )
            if command is not None:
                propose_command(
                    session,
                    self.bus,
                    self.registry,
                    self.deadlines,
                    conversation,
                    employee,
                    run.id,
                    command,
                    actions_on=switch.on,
                )
            self.bus.commit(session)
        self._spawn_soon(run.id, conversation_id, user_id)
        return run.id, message.id

    def schedule_resume(self, conversation_id: str, message_id: int, user_id: str) -> None:
        """Call :meth:`resume_if_decided` in a task of its own (after the caller's answer)."""
        task = asyncio.create_task(self.resume_if_decided(conversation_id, message_id, user_id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def resume_if_decided(
        self, conversation_id: str, message_id: int, user_id: str
    ) -> str | None:
        """Start a resume run when no call of ``message_id`` waits any more (for a decision,
        or for the browser's result).

        Returns:
            The new run's id, or None when calls still wait or another run holds the claim.
        """
        self._loop = asyncio.get_running_loop()
        return await self.db.run(self.claim_resume, conversation_id, message_id, user_id)

    def claim_resume(self, conversation_id: str, message_id: int, user_id: str) -> str | None:
        """Start a resume run if every call of ``message_id`` is decided.

        A blocking call (database thread); the run's task starts on the event loop.

        Returns:
            The new run's id (``run.started`` stored), or None.
        """
        with self.db.session() as session:
            waiting = session.exec(
                select(ToolCall.id)
                .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
                .where(
                    ToolCall.message_id == message_id,
                    waiting_for_person(),
                )
            ).first()
            if waiting is not None:
                return None
            run = Run(conversation_id=conversation_id, trigger="resume")
            if not self._claim(session, conversation_id, run.id):
                return None
            session.add(run)
            self.bus.stage(session, conversation_id, RunStarted(run_id=run.id, trigger="resume"))
            self.bus.commit(session)
        self._spawn_soon(run.id, conversation_id, user_id)
        return run.id

    def resume_after_close(self, conversation_id: str, message_id: int) -> str | None:
        """Resume the owner's run once a call of ``message_id`` was closed by the server.

        A blocking call (database thread).

        Returns:
            The new run's id, or None (calls still wait, or a run is active).
        """
        with self.db.session() as session:
            conversation = session.get(Conversation, conversation_id)
            if conversation is None:
                return None
            owner_id = conversation.owner_id
        return self.claim_resume(conversation_id, message_id, owner_id)

    def _resume_latest(self, conversation_id: str, user_id: str) -> str | None:
        """Resume the conversation's latest assistant message if nothing of it waits any more."""
        with self.db.session() as session:
            calls = latest_assistant_calls(session, conversation_id)
        if not calls:
            return None
        return self.claim_resume(conversation_id, calls[0].message_id, user_id)

    def _claim(self, session: Session, conversation_id: str, run_id: str) -> bool:
        result = session.exec(  # type: ignore[call-overload]
            update(Conversation)
            .where(
                col(Conversation.id) == conversation_id, col(Conversation.active_run_id).is_(None)
            )
            .values(active_run_id=run_id)
        )
        return bool(result.rowcount == 1)

    def _spawn_soon(self, run_id: str, conversation_id: str, user_id: str) -> None:
        """Start the run's task on the event loop; called right after the claim's commit.

        Called from a database thread, so the run starts even when the request that claimed
        it is cancelled meanwhile (the client left).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            assert self._loop is not None, "no event loop to run on"
            self._loop.call_soon_threadsafe(self._spawn, run_id, conversation_id, user_id)
        else:
            self._spawn(run_id, conversation_id, user_id)

    def _spawn(self, run_id: str, conversation_id: str, user_id: str) -> None:
        if run_id in self._ended_early:  # cancelled between its claim and its task's start
            self._ended_early.discard(run_id)
            return
        task = asyncio.create_task(
            self._drive(run_id, conversation_id, user_id), name=f"run {run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))

    # -- driving and ending --------------------------------------------------------------
    async def _drive(self, run_id: str, conversation_id: str, user_id: str) -> None:
        state: TurnState = {
            "run_id": run_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "steps": 0,
            "outcome": "continue",
        }
        recursion_limit = 2 * self.settings.max_steps_per_turn + 4
        try:
            final = await self._graph.ainvoke(state, config={"recursion_limit": recursion_limit})
        except asyncio.CancelledError:
            if self._closing:  # shutdown: leave the run for recover() at the next start
                return
            await self.db.run(
                self.end_run,
                run_id,
                conversation_id,
                RunStatus.cancelled,
                reason="cancelled by the person",
            )
            return
        except InterlockError as exc:
            await self.db.run(self.end_run, run_id, conversation_id, RunStatus.failed, error=exc)
            return
        except Exception as exc:  # a model or provider failure: report it, keep the server up
            log.exception("run %s failed", run_id)
            error = InterlockError(  # provider text may hold internals: logged above only
                f"The model call failed ({type(exc).__name__}); the server log has the details.",
                code="model_error",
            )
            await self.db.run(self.end_run, run_id, conversation_id, RunStatus.failed, error=error)
            return
        status = RunStatus.paused if final["outcome"] == "paused" else RunStatus.completed
        await self.db.run(self.end_run, run_id, conversation_id, status)
        if status == RunStatus.paused and not self._closing:
            # A decision or an expiry may have landed after the tools node looked and before
            # the pause was written (its own resume found this run active): go on now.
            await self.db.run(self._resume_latest, conversation_id, user_id)

    def end_run(
        self,
        run_id: str,
        conversation_id: str,
        status: RunStatus,
        *,
        error: InterlockError | None = None,
        reason: str = "",
        keep_interrupted: bool = False,
        decider: str = SYSTEM_DECIDER,
    ) -> None:
        """Write the run's one terminal event and release the conversation.

        A blocking call (database thread): async code runs it with ``db.run``. ``decider`` is
        who ended it (a user id for a person's cancel), for the audit records of the calls it
        closes.
        """
        with self.db.session() as session:
            run = session.get(Run, run_id)
            if run is None or run.status != RunStatus.running:
                return
            terminal: Any
            if status == RunStatus.paused:
                pending = [
                    c.id
                    for c in latest_assistant_calls(session, conversation_id)
                    if c.status in (ToolCallStatus.interrupted, ToolCallStatus.awaiting_client)
                ]
                terminal = RunPaused(run_id=run_id, pending=pending)
            elif status == RunStatus.completed:
                terminal = RunCompleted(run_id=run_id)
            else:
                if not keep_interrupted:
                    cancel_open_calls(
                        session,
                        self.bus,
                        self.registry,
                        conversation_id,
                        "the run was cancelled"
                        if status == RunStatus.cancelled
                        else "the run failed",
                        run_id,
                        decider=decider,
                    )
                if status == RunStatus.cancelled:
                    terminal = RunCancelled(run_id=run_id, reason=reason)
                else:
                    assert error is not None
                    terminal = RunFailed(run_id=run_id, error=error_body(error)["error"])
                    run.error_code, run.error_message = error.code, error.message
            run.status = status
            run.finished_at = utcnow()
            session.add(run)
            session.exec(  # type: ignore[call-overload]
                update(Conversation)
                .where(
                    col(Conversation.id) == conversation_id,
                    col(Conversation.active_run_id) == run_id,
                )
                .values(active_run_id=None, updated_at=utcnow())
            )
            self.bus.stage(session, conversation_id, terminal)
            self.bus.commit(session)

    async def cancel(self, user_id: str, conversation_id: str) -> str | None:
        """Cancel the active run, or close the calls a paused run waits on.

        Returns:
            The id of the run cancelled, or None when there was nothing to cancel.

        Raises:
            NotFound: Not the caller's conversation.
        """
        self._loop = asyncio.get_running_loop()
        active = await self.db.run(self._active_run, user_id, conversation_id)
        if active is not None:
            task = self._tasks.get(active)
            if task is not None:
                task.cancel()
                await asyncio.wait({task}, timeout=CANCEL_WAIT_S)
            else:  # claimed, its task not started yet: it must not start after this
                self._ended_early.add(active)
            # Ends the run unless its task already did: also covers a task cancelled before
            # its first step (its body never ran) and a task lost to a crash.
            await self.db.run(
                self.end_run,
                active,
                conversation_id,
                RunStatus.cancelled,
                reason="cancelled by the person",
                decider=user_id,
            )
            return active
        return await self.db.run(self._cancel_pause, user_id, conversation_id)

    def _active_run(self, user_id: str, conversation_id: str) -> str | None:
        with self.db.session() as session:
            return self.owned_conversation(session, user_id, conversation_id).active_run_id

    def _cancel_pause(self, user_id: str, conversation_id: str) -> str | None:
        with self.db.session() as session:
            calls = latest_assistant_calls(session, conversation_id)
            closed = cancel_open_calls(
                session,
                self.bus,
                self.registry,
                conversation_id,
                "cancelled by the person",
                decider=user_id,
            )
            self.bus.commit(session)
        return calls[0].run_id if closed and calls else None

    def on_control(self, verb: str, argument: str) -> None:
        """Handle a control message from another server process (PostgreSQL ``NOTIFY``).

        ``cancel <run_id>``: cancel the run's task when this process drives it.
        """
        if verb == "cancel":
            task = self._tasks.get(argument)
            if task is not None:
                task.cancel()

    # -- restart -------------------------------------------------------------------------
    async def recover(self) -> list[str]:
        """Repair runs that were active when the server stopped (see ``engine.recovery``).

        Returns:
            The ids of the resume runs started.
        """
        self._loop = asyncio.get_running_loop()
        self.bus.bind_loop(self._loop)
        candidates = await self.db.run(recover_runs, self)
        resumed: list[str] = []
        for conversation_id, message_id, owner_id in candidates:
            run_id = await self.resume_if_decided(conversation_id, message_id, owner_id)
            if run_id:
                resumed.append(run_id)
        # Calls whose deadline passed while the server was down are closed before serving.
        await self.db.run(expire_due, self)
        self.sweeper.start()
        return resumed

    async def aclose(self) -> None:
        """Stop run tasks at shutdown (bounded wait); :meth:`recover` repairs them at the next start."""
        self._closing = True
        await self.sweeper.aclose()
        tasks = list(self._tasks.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CANCEL_WAIT_S)

    async def wait_idle(self, timeout_s: float = 30.0) -> None:
        """Wait until no run task (nor scheduled resume) is left, at most ``timeout_s``.

        For tests and benchmarks.
        """
        async with asyncio.timeout(timeout_s):
            while self._tasks or self._background:
                await asyncio.wait([*self._tasks.values(), *self._background])
