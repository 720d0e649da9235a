"""Runs: starting them from a message or a resume, driving the graph, ending them once.

A conversation has at most one active run, claimed with a compare-and-set on
``conversations.active_run_id``; every run ends with exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Coroutine, Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from sqlmodel import Session

from interlock.audit import SYSTEM_DECIDER
from interlock.employees import DEFAULT_EMPLOYEE, Employee, EmployeeDirectory
from interlock.engine.cancels import CANCEL_WAIT_S, cancel_run
from interlock.engine.commands import CommandClaim
from interlock.engine.deletion import DELETED_VERB
from interlock.engine.driving import drive
from interlock.engine.expiry import Deadlines, ExpirySweeper
from interlock.engine.graph import GraphDeps, Start, build_graphs
from interlock.engine.late import LateResults
from interlock.engine.leases import Leases
from interlock.engine.messages import store_message
from interlock.engine.outside import OutsideCalls
from interlock.engine.resumes import (
    claim_resume,
    claim_resumes_in,
    resume_after_close,
    resume_latest,
)
from interlock.engine.terminals import end_run
from interlock.errors import InterlockError, NotFound
from interlock.models import close_chat_model, create_chat_model
from interlock.settings import Settings
from interlock.skills import SkillCatalog
from interlock.storage import (
    Conversation,
    Database,
    RunStatus,
)
from interlock.storage.db_calls import defer_to_caller
from interlock.storage.lookup import by_id
from interlock.streaming import EventBus
from interlock.tools import ToolRegistry

log = logging.getLogger(__name__)


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
        self.late = LateResults()
        """Tools still running after their run was cancelled (``engine.late``)."""
        self.graphs = build_graphs(
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
                late=self.late,
            )
        )
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._ended_early: set[str] = set()
        self._abandoned: set[str] = set()
        self.worker_id = bus.origin
        """This server process's id (``workers.id``, ``runs.owner_id``)."""
        self.leases = Leases(self, settings.run_lease_s)
        self.outside = OutsideCalls(self)
        """Tool calls proposed from outside a chat (MCP clients)."""
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
        conversation = by_id(session, Conversation, conversation_id)
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
        return await self.db.run_transaction(
            store_message, self, user_id, conversation_id, content, claim
        )

    def use_running_loop(self) -> None:
        """Start runs claimed on database threads on the running loop (call on it)."""
        self._loop = asyncio.get_running_loop()

    def schedule_resume(self, conversation_id: str, message_id: int, user_id: str) -> None:
        """Call :meth:`resume_if_decided` in a task of its own (after the caller's answer)."""
        self.in_background(self.resume_if_decided(conversation_id, message_id, user_id))

    def in_background(self, work: Coroutine[Any, Any, Any], name: str | None = None) -> None:
        """Run ``work`` in a task of its own; :meth:`aclose` cancels it, :meth:`wait_idle`
        waits for it."""
        task = asyncio.create_task(work, name=name)
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
        return await self.db.run_transaction(
            self.claim_resume, conversation_id, message_id, user_id
        )

    def claim_resume(self, conversation_id: str, message_id: int, user_id: str) -> str | None:
        """Start a resume run if every call of ``message_id`` is decided (``engine.resumes``).

        A blocking call (database thread); the run's task starts on the event loop.

        Returns:
            The new run's id (``run.started`` stored), or None.
        """
        return claim_resume(self, conversation_id, message_id, user_id)

    def resume_after_close(self, conversation_id: str, message_id: int) -> str | None:
        """Resume the owner's run once a call of ``message_id`` was closed by the server.

        A blocking call (database thread).

        Returns:
            The new run's id, or None (calls still wait, or a run is active).
        """
        return resume_after_close(self, conversation_id, message_id)

    def claim_resumes_in(
        self, session: Session, closed: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], str]:
        """Claim in ``session``'s transaction the resume runs of the messages whose calls it
        closed (``(conversation_id, message_id)``): :func:`~interlock.engine.resumes.claim_resumes_in`.
        """
        return claim_resumes_in(self, session, closed)

    def resume_latest(self, conversation_id: str, user_id: str) -> str | None:
        """Resume the conversation's latest assistant message if nothing of it waits any more."""
        return resume_latest(self, conversation_id, user_id)

    def spawn_soon(
        self, run_id: str, conversation_id: str, user_id: str, start: Start = "tools"
    ) -> None:
        """Start the run's task on the event loop; called right after the claim's commit.

        Called from a database thread, so the run starts even when the request that claimed
        it is cancelled meanwhile (the client left). Inside ``db.run`` the task starts when
        that call returns (:func:`~interlock.storage.db_calls.defer_to_caller`: one wake-up of the
        loop, and it still starts when the caller was cancelled). ``start``: ``model`` for a
        new message whose calls are all closed, else ``tools`` (it goes on to the model when
        nothing is open).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            spawn = functools.partial(self._spawn, run_id, conversation_id, user_id, start)
            if defer_to_caller(spawn):
                return  # started with the claiming db.run's result (run even if cancelled)
            assert self._loop is not None, "no event loop to run on"
            self._loop.call_soon_threadsafe(spawn)
        else:
            self._spawn(run_id, conversation_id, user_id, start)

    def start_task(self, run_id: str, conversation_id: str, user_id: str) -> None:
        """Start the task driving ``run_id`` (claimed and committed) on the running loop."""
        self._spawn(run_id, conversation_id, user_id, "tools")

    def _spawn(self, run_id: str, conversation_id: str, user_id: str, start: Start) -> None:
        if run_id in self._ended_early:  # cancelled between its claim and its task's start
            self._ended_early.discard(run_id)
            return
        task = asyncio.create_task(
            drive(self, run_id, conversation_id, user_id, start), name=f"run {run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))

    # -- driving and ending --------------------------------------------------------------
    def left_to_others(self, run_id: str) -> bool:
        """Whether the cancelled task of ``run_id`` must write nothing: the server is
        stopping (another worker or the next start takes the run over), or another worker
        already took it over."""
        if run_id in self._abandoned:
            self._abandoned.discard(run_id)
            return True
        return self._closing

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
        """Write the run's one terminal event and release the conversation (``engine.terminals``).

        A blocking call (database thread): async code runs it with ``db.run``.
        """
        end_run(
            self,
            run_id,
            conversation_id,
            status,
            error=error,
            reason=reason,
            keep_interrupted=keep_interrupted,
            decider=decider,
        )

    async def cancel(self, user_id: str, conversation_id: str) -> str | None:
        """Cancel the active run, or close the calls a paused run waits on (``engine.cancels``).

        Returns:
            The id of the run cancelled, or None when there was nothing to cancel.

        Raises:
            NotFound: Not the caller's conversation.
        """
        self._loop = asyncio.get_running_loop()
        return await cancel_run(self, user_id, conversation_id)

    # -- tasks of this process -----------------------------------------------------------
    def task_of(self, run_id: str) -> asyncio.Task[None] | None:
        """The task driving ``run_id`` in this process, if any."""
        return self._tasks.get(run_id)

    def local_runs(self) -> list[str]:
        """Ids of the runs this process drives."""
        return list(self._tasks)

    def forbid_start(self, run_id: str) -> None:
        """``run_id`` was ended between its claim and its task's start: never start it."""
        self._ended_early.add(run_id)

    def cancel_local(self, run_id: str) -> None:
        """Cancel the task of ``run_id`` (it ends the run as cancelled), if it runs here."""
        task = self._tasks.get(run_id)
        if task is not None:
            task.cancel()

    def abandon(self, run_id: str) -> None:
        """Stop the task of ``run_id`` without writing anything: another worker took it over."""
        task = self._tasks.get(run_id)
        if task is not None:
            self._abandoned.add(run_id)
            task.cancel()

    def on_control(self, verb: str, argument: str) -> None:
        """Handle a control message from another server process (PostgreSQL ``NOTIFY``).

        ``cancel <run_id>``: cancel the run's task when this process drives it; ``abandon
        <run_id>``: another worker took the run over, stop its task here without writing;
        ``conversation_deleted <conversation_id>``: end its streams here.
        """
        if verb == "cancel":
            self.cancel_local(argument)
        elif verb == "abandon":
            self.abandon(argument)
        elif verb == DELETED_VERB:
            self.bus.end_conversation(argument)

    # -- start and stop ------------------------------------------------------------------
    async def recover(self) -> None:
        """Register this worker and repair stopped workers' runs (``engine.leases``).

        Start-up recovery is the first sweep; the heartbeat then renews this worker's lease
        and sweeps again in the background. Calls whose deadline passed while the server was
        down are closed by the expiry sweeper's first sweep, which starts here and runs while
        the server already answers: a thousand overdue calls must not hold up the start, and
        a decision arriving first still meets ``expired`` (``engine.decisions`` closes an
        overdue call itself, exactly once).
        """
        self._loop = asyncio.get_running_loop()
        self.bus.bind_loop(self._loop)
        await self.leases.start()
        self.sweeper.start()

    async def aclose(self) -> None:
        """Stop run tasks at shutdown (bounded wait) and leave: another worker, or the next
        start, takes the runs over."""
        self._closing = True
        await self.sweeper.aclose()
        tasks = list(self._tasks.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CANCEL_WAIT_S)
        await self.late.aclose(CANCEL_WAIT_S)
        await self.leases.stop()
        for model in {id(m): m for m in [self.model, *self._models.values()]}.values():
            await close_chat_model(model)

    async def wait_idle(self, timeout_s: float = 30.0) -> None:
        """Wait until no run task (nor scheduled resume) is left, at most ``timeout_s``.

        For tests and benchmarks.
        """
        async with asyncio.timeout(timeout_s):
            while self._tasks or self._background:
                await asyncio.wait([*self._tasks.values(), *self._background])
