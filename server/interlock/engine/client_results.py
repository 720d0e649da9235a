"""Results of frontend tool calls, posted by the person's browser (``POST /result``).

A result is untrusted input. The server re-checks everything: size (413
``payload_too_large``), ownership (404), that the call is a frontend call (409
``not_frontend``) still ``awaiting_client`` (409 ``not_awaiting_result`` with
``details.status``), and the ``data`` against the tool's ``output_schema`` (422
``invalid_output`` with ``details.errors``; the call keeps waiting). Nothing is written unless
every check passed. The call is closed with a compare-and-set from ``awaiting_client``, in the
same transaction as its tool message and ``tool_call.completed``, so of two racing posts
exactly one wins; then the run resumes when nothing else of that message waits.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field, model_validator
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from interlock.engine.records import close_call, view
from interlock.engine.runner import Engine
from interlock.engine.tool_texts import error_text
from interlock.errors import BadRequest, Conflict, NotFound, PayloadTooLarge
from interlock.request_body import RequestBody
from interlock.storage import Conversation, ToolCall, ToolCallStatus
from interlock.storage.views import ToolCallOut
from interlock.text import check_storable, clean_json
from interlock.tools import TOOL_ERROR_CODES, ToolResult
from interlock.tools.execution import cap_data
from interlock.tools.schema import field_sentences

log = logging.getLogger(__name__)

MAX_ERROR_MESSAGE_CHARS = 2_000


class ClientErrorIn(RequestBody):
    """A failure reported by the browser: a tool error code and an English sentence."""

    code: str = Field(max_length=64)
    message: str = Field(min_length=1, max_length=MAX_ERROR_MESSAGE_CHARS)


class ClientResultIn(RequestBody):
    """The browser's result: ``{"text", "data"?}`` on success, or ``{"error": {"code",
    "message"}}`` (``code`` one of the tool error codes)."""

    text: str | None = None
    data: Any = None
    error: ClientErrorIn | None = None

    @model_validator(mode="after")
    def _one_outcome(self) -> ClientResultIn:
        if (self.text is None) == (self.error is None):
            raise ValueError("give either text (and data) or error")
        if self.error is not None and self.data is not None:
            raise ValueError("an error carries no data")
        if self.error is not None and self.error.code not in TOOL_ERROR_CODES:
            raise ValueError(
                f"error.code must be a tool error code ({', '.join(sorted(TOOL_ERROR_CODES))})"
            )
        check_storable({"text": self.text, "error": self.error and self.error.message})
        return self


async def submit_result(
    engine: Engine, user_id: str, tool_call_id: str, body: ClientResultIn, size: int
) -> ToolCallOut:
    """Close an ``awaiting_client`` call with the browser's result; resume the run.

    Args:
        engine: The engine.
        user_id: The caller.
        tool_call_id: The call named in the URL.
        body: The parsed result.
        size: The request body's size in bytes.

    Returns:
        The closed call.

    Raises:
        PayloadTooLarge: ``size`` over ``max_client_result_bytes``.
        NotFound: Unknown call, or not the caller's.
        Conflict: ``not_frontend``; ``not_awaiting_result`` with ``details.status``.
        BadRequest: ``invalid_output`` with ``details.errors`` (the call keeps waiting).
    """
    limit = engine.settings.max_client_result_bytes
    if size > limit:
        raise PayloadTooLarge(f"The result is {size:,} bytes; the limit is {limit:,}.")
    engine.use_running_loop()  # the run it resumes starts from the database thread
    out, resume = await engine.db.run_transaction(_record, engine, user_id, tool_call_id, body)
    if resume is not None:
        # Not resumed with the result (a call still waits, a run is active, or an MCP
        # record): look again in a task of its own, after the answer.
        engine.schedule_resume(*resume)
    return out


def _record(
    engine: Engine, user_id: str, tool_call_id: str, body: ClientResultIn
) -> tuple[ToolCallOut, tuple[str, int, str] | None]:
    """The checks and the transaction of :func:`submit_result` (database thread).

    Returns:
        ``(call view, (conversation_id, message_id, owner_id))`` for the caller to resume
        later; None in place of the second once resumed here (the run claimed with the
        result, ``run.started`` committed with it).
    """
    with engine.db.session() as session:
        call = session.get(ToolCall, tool_call_id)
        conversation = session.get(Conversation, call.conversation_id) if call else None
        if call is None or conversation is None or conversation.owner_id != user_id:
            log.info("result refused (not_found): tool call %s, user %s", tool_call_id, user_id)
            raise NotFound("No such tool call.")
        tool = engine.registry.get(call.name)
        if call.status != ToolCallStatus.awaiting_client and (
            tool is None or tool.execution != "frontend"
        ):
            raise Conflict(
                "This tool call does not run in the browser.",
                code="not_frontend",
                details={"status": call.status},
            )
        if call.status != ToolCallStatus.awaiting_client:
            raise _not_awaiting(call.status)
        outcome: dict[str, Any]
        if body.error is not None:
            outcome = {
                "status": ToolCallStatus.failed,
                "text": error_text(body.error.code, body.error.message),
                "error_code": body.error.code,
                "error_message": body.error.message,
            }
        else:
            assert body.text is not None
            data = clean_json(body.data)
            if tool is not None:
                errors = engine.registry.output_errors(tool, data)
                if errors:
                    listed = [e.as_dict() for e in errors]
                    raise BadRequest(
                        f"The browser's answer for {tool.title} is not in the form the tool "
                        f"expects: {field_sentences(listed, tool.output_schema)}",
                        code="invalid_output",
                        details={"errors": listed},
                    )
            text = body.text
            cut = engine.registry.cut_text(text)
            # The browser's data gets the same cap as a server tool's (dropped, with a note).
            capped = cap_data(ToolResult(text=cut, data=data), engine.registry.max_result_chars)
            outcome = {
                "status": ToolCallStatus.succeeded,
                "text": capped.text,
                "result_data": capped.data,
                "full_text": text if cut != text else None,
            }
        closed = session.exec(  # type: ignore[call-overload]
            update(ToolCall)
            .where(
                col(ToolCall.id) == call.id,
                col(ToolCall.status) == ToolCallStatus.awaiting_client,
            )
            .values(status=outcome["status"])
        ).rowcount
        if closed != 1:
            session.rollback()
            raise _not_awaiting(_status_now(engine, tool_call_id))
        session.refresh(call)
        close_call(session, engine.bus, engine.registry, call, **outcome)
        # The run resumes with the result (one commit): never idle in between.
        where = (call.conversation_id, call.message_id)
        started = engine.claim_resumes_in(session, [where])
        try:
            engine.bus.commit(session)
        except IntegrityError:  # another post closed it first (unique tool message)
            session.rollback()
            raise _not_awaiting(_status_now(engine, tool_call_id)) from None
        for run_id in started.values():
            engine.spawn_soon(run_id, where[0], conversation.owner_id, start="tools")
        out = view(session, engine.registry, call)
        return out, (*where, conversation.owner_id) if not started else None


def _status_now(engine: Engine, tool_call_id: str) -> str:
    with engine.db.session() as session:
        call = session.get(ToolCall, tool_call_id)
        return str(call.status) if call else "unknown"


def _not_awaiting(status: str) -> Conflict:
    return Conflict(
        "This tool call is not waiting for a result from the browser.",
        code="not_awaiting_result",
        details={"status": status},
    )
