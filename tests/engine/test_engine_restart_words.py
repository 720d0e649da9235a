"""What a stopped server leaves reads as the other stops do (a cancel, a new message).

A call caught running: "Stopped while running (the server stopped): it may have happened. It
was not run again." (was "the server process running this call stopped; its outcome is
unknown and it was not retried"); one not started yet says so in a sentence; the run's
``run.failed`` says "The server stopped while the employee was working on this." (was "The
server process running this stopped during the run.").
"""

from __future__ import annotations

from sqlmodel import select

from interlock.engine.recovery import recover_runs
from interlock.settings import Settings
from interlock.storage import Conversation, Message, MessageRole, Run, ToolCall
from interlock.storage.models import utcnow
from support.live import live_server
from support.sse import collect


async def test_a_stopped_servers_calls_and_run_read_like_any_other_stop(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings) as server:
        conversation_id = await server.new_conversation()
        with server.services.db.session() as session:
            run = Run(conversation_id=conversation_id, trigger="message", owner_id="gone")
            session.add(run)
            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            conversation.active_run_id = run.id
            session.add(conversation)
            message = Message(
                conversation_id=conversation_id,
                run_id=run.id,
                role=MessageRole.assistant,
                content="",
            )
            session.add(message)
            session.flush()
            assert message.id is not None
            for index, status in enumerate(("running", "pending")):
                session.add(
                    ToolCall(
                        id=f"call_{status}",
                        conversation_id=conversation_id,
                        message_id=message.id,
                        run_id=run.id,
                        index=index,
                        name="notes.add",
                        permission="ALLOW",
                        proposed_args={"text": "x"},
                        executed_args={"text": "x"} if status == "running" else None,
                        status=status,
                        started_at=utcnow() if status == "running" else None,
                    )
                )
            session.commit()
            run_id = run.id

        engine = server.services.engine
        found = await engine.db.run(recover_runs, engine, {engine.worker_id})
        assert found.repaired == [run_id]

        with server.services.db.session() as session:
            calls = {c.id: c for c in session.exec(select(ToolCall)).all()}
            tool_texts = [
                m.content
                for m in session.exec(select(Message).where(Message.role == MessageRole.tool))
            ]
        stopped = "Stopped while running (the server stopped): it may have happened. It was not run again."
        assert (calls["call_running"].error_code, calls["call_running"].error_message) == (
            "outcome_unknown",
            stopped,
        )
        assert (calls["call_pending"].error_code, calls["call_pending"].error_message) == (
            "internal",
            "The server stopped before this started, and it was not started later.",
        )
        assert (
            f"Error [outcome_unknown]: {stopped} Hint: Check whether it took effect before "
            "doing it again."
        ) in tool_texts
        log = await collect(
            server.client,
            conversation_id,
            until=lambda log: any(t == "run.failed" for t in log.types),
        )
        [failed] = log.of("run.failed")
        assert failed["error"] == {
            "code": "server_restarted",
            "message": "The server stopped while the employee was working on this.",
        }
