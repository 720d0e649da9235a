"""Interlock's waiting tool calls as AG-UI interrupts, and AG-UI resume entries as decisions.

A run that pauses ends with ``RUN_FINISHED`` whose outcome is ``interrupt``: one
:class:`~ag_ui.core.Interrupt` per call waiting for the person, its ``id`` and ``toolCallId``
both the Interlock tool call id. Its ``responseSchema`` is the JSON Schema of the answer a
client sends back as that entry's ``payload`` in ``RunAgentInput.resume``; it is the body of
``POST /api/tool-calls/{id}/decision``, read and checked as that endpoint does (an approve or
edit may carry ``remember``, "don't ask again", where the call allows it):

* ``{"type": "approve"}`` runs the call as proposed;
* ``{"type": "edit", "args": {...}}`` runs ``args`` (the tool's input JSON Schema) instead;
* ``{"type": "reject", "message"?: "why"}`` runs nothing and tells the model why;
* ``{"type": "respond", "message": "answer"}`` answers a question tool (``ask.*``); for any
  other tool it answers instead of running it (the call closes "Answered, not run").

Which decisions a call takes is the HTTP API's rule
(:func:`interlock.engine.decision_checks.decision_types`): a question offers respond and
reject; a call needing several approvals offers no edit; one needing an approver
(``require_approver``) offers its owner no approve or edit. A
frontend tool call (``execution="frontend"``, waiting for the app to run it) is an interrupt
with reason ``interlock:client_result``, answered by the body of
``POST /api/tool-calls/{id}/result`` (``{"text", "data"?}`` or ``{"error": {...}}``).
A resume entry with status ``cancelled`` rejects the call without a reason (a frontend call:
fails it with ``cancelled``). The protocol's rules come from the AG-UI interrupts page
(docs/concepts/interrupts.mdx in ag-ui-protocol/ag-ui).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry
from pydantic import ValidationError

from interlock.engine import DecisionIn
from interlock.engine.client_results import MAX_ERROR_MESSAGE_CHARS, ClientResultIn
from interlock.engine.decision_checks import check_remember, check_shape
from interlock.engine.decision_checks import decision_types as engine_decision_types
from interlock.engine.decisions import MAX_DECISION_MESSAGE_CHARS
from interlock.errors import BadRequest, pydantic_field_errors
from interlock.permissions.shapes import RememberIn
from interlock.storage import ToolCallStatus
from interlock.storage.views import ToolCallOut
from interlock.tools import TOOL_ERROR_CODES, Tool, is_question
from interlock.tools.schema.rules import SCHEMA_LIST_VALUED, SCHEMA_MAP_VALUED, SCHEMA_VALUED

TOOL_CALL_REASON = "tool_call"
CLIENT_RESULT_REASON = "interlock:client_result"
METADATA_KEY = "interlock"

_ANY_ARGS: dict[str, Any] = {"type": "object"}


def decision_types(call: ToolCallOut, tool: Tool | None) -> list[str]:
    """The decisions the conversation's owner (the AG-UI caller) may send for ``call``, in
    the order a card offers them: the HTTP API's rule
    (:func:`interlock.engine.decision_checks.decision_types`)."""
    return engine_decision_types(call, tool, owner=True)


def _remember_schema() -> dict[str, Any]:
    """The JSON Schema of a decision's ``remember`` (:class:`RememberIn`'s own)."""
    schema = RememberIn.model_json_schema()
    schema.pop("title", None)
    schema["description"] = (
        "Don't ask again: a grant for this tool in this conversation or for this employee."
    )
    return schema


def _branch(
    kind: str, args_schema: dict[str, Any], *, question: bool = True, remember: bool = False
) -> dict[str, Any]:
    """The JSON Schema of one decision ``kind``; ``args_schema`` is an edit's ``args``;
    ``question``: the call asks the person something (its ``respond`` is the answer, not an
    answer instead of running it); ``remember``: an approve or edit may carry ``remember``."""
    properties: dict[str, Any] = {"type": {"const": kind}}
    required = ["type"]
    if remember and kind in ("approve", "edit"):
        properties["remember"] = _remember_schema()
    if kind == "edit":
        properties["args"] = {
            **args_schema,
            "description": "The arguments to run instead: a full replacement, not merged.",
        }
        required.append("args")
    elif kind == "reject":
        properties["message"] = {
            "type": "string",
            "maxLength": MAX_DECISION_MESSAGE_CHARS,
            "description": "Why the person declined (optional); the model reads it.",
        }
    elif kind == "respond":
        properties["message"] = {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_DECISION_MESSAGE_CHARS,
            "pattern": r"\S",
            "description": "The person's answer."
            if question
            else "The person's answer instead of running it; the model reads it.",
        }
        required.append("message")
    titles = {
        "approve": "Approve: run it as proposed",
        "edit": "Edit: run it with these arguments",
        "reject": "Reject: do not run it",
        "respond": "Answer the question" if question else "Answer instead: do not run it",
    }
    return {
        "title": titles[kind],
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def response_schema(
    call: ToolCallOut, tool: Tool | None, *, args_schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON Schema of a resume ``payload`` for ``call``.

    Args:
        call: The waiting call.
        tool: Its tool, None when no longer registered (then no edit is offered).
        args_schema: The schema of an edit's ``args``; the tool's input schema when omitted.
    """
    if call.status == ToolCallStatus.awaiting_client:
        return _client_result_schema()
    args = args_schema if args_schema is not None else (tool.input_schema if tool else _ANY_ARGS)
    kinds = decision_types(call, tool)
    question = is_question(tool)
    remember = not (call.require_approver or call.approvals_required > 1)  # check_remember
    return {
        "type": "object",
        "description": "The person's decision on this tool call.",
        "oneOf": [
            _branch(
                kind,
                _embedded(args, f"/oneOf/{index}/properties/args"),
                question=question,
                remember=remember,
            )
            for index, kind in enumerate(kinds)
        ],
    }


def _client_result_schema() -> dict[str, Any]:
    """The JSON Schema of a frontend call's result: exactly what :class:`ClientResultIn`
    accepts (text and optional data, or an error with a tool error code), written out so a
    form library can render it (the model's own schema lets ``{}`` through to its validator).
    """
    error = {
        "type": "object",
        "properties": {
            "code": {"enum": sorted(TOOL_ERROR_CODES), "description": "A tool error code."},
            "message": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_ERROR_MESSAGE_CHARS,
                "description": "What went wrong, in a sentence for the person.",
            },
        },
        "required": ["code", "message"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "description": "What your app got running this tool call, or the error it met.",
        "oneOf": [
            {
                "title": "Result",
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The result, in words."},
                    "data": {"description": "The result as data (optional)."},
                },
                "required": ["text"],
                "additionalProperties": False,
            },
            {
                "title": "Error",
                "type": "object",
                "properties": {"error": error},
                "required": ["error"],
                "additionalProperties": False,
            },
        ],
    }


def _embedded(schema: Any, at: str) -> Any:
    """A copy of a tool's input schema that reads the same placed at JSON Pointer ``at``.

    Its local ``$ref`` (``#``, ``#/$defs/...``; the only kind the schema rules allow) are made
    to point under ``at``, and the root's ``$id`` and ``$schema`` are dropped (a nested ``$id``
    would start a new resource; ``$schema`` belongs to a resource's root only). Only schema
    positions are walked, so a ``const`` or ``default`` holding a ``$ref`` key is kept as is.
    """
    if not isinstance(schema, dict):
        return schema
    out = {key: value for key, value in schema.items() if key not in ("$id", "$schema")}
    return _refs_moved(out, at)


def _refs_moved(schema: Any, at: str) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    ref = out.get("$ref")
    if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
        out["$ref"] = f"#{at}{ref[1:]}"
    for key in SCHEMA_VALUED:
        if key in out:
            out[key] = _refs_moved(out[key], at)
    for key in SCHEMA_LIST_VALUED:
        if isinstance(out.get(key), list):
            out[key] = [_refs_moved(sub, at) for sub in out[key]]
    for key in SCHEMA_MAP_VALUED:
        if isinstance(out.get(key), dict):
            out[key] = {name: _refs_moved(sub, at) for name, sub in out[key].items()}
    return out


_OFFERED = {
    "approve": "approve it",
    "edit": "change it",
    "reject": "reject it",
    "respond": "answer instead",
}
"""A decision offered, in the words of an interrupt's sentence."""


def _readable(call: ToolCallOut, tool: Tool | None) -> str:
    """One sentence for the person: the call's confirmation, else its question or title."""
    if call.status == ToolCallStatus.awaiting_client:
        return f"{call.title}: your app runs this and sends back its result."
    args = call.proposed_args if isinstance(call.proposed_args, dict) else {}
    question = args.get("question")
    if call.confirmation is not None:
        said = call.confirmation.summary
    elif isinstance(question, str) and question.strip():
        said = question.strip()
    elif call.require_approver:
        said = call.title
    else:
        kinds = [_OFFERED[kind] for kind in decision_types(call, tool)]
        offered = ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else kinds[0]
        said = f"{call.title}: {offered}."
    if call.require_approver:
        return (
            f"{said.rstrip('.')} (an approver must approve it; you can reject it or answer "
            "instead)."
        )
    return said


def iso_utc(moment: datetime) -> str:
    """``2026-12-01T12:00:00.5Z``: ISO 8601 in UTC (stored naive times are UTC)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")


def interrupt_for(call: ToolCallOut, tool: Tool | None) -> Interrupt:
    """The AG-UI interrupt for a call waiting for the person (its id is the call's id).

    ``metadata.interlock`` carries what a card shows: tool name and title, the proposed
    args, the confirmation, approvals needed and given.
    """
    frontend = call.status == ToolCallStatus.awaiting_client
    return Interrupt(
        id=call.id,
        reason=CLIENT_RESULT_REASON if frontend else TOOL_CALL_REASON,
        message=_readable(call, tool),
        tool_call_id=call.id,
        response_schema=response_schema(call, tool),
        expires_at=iso_utc(call.expires_at) if call.expires_at and not frontend else None,
        metadata={
            METADATA_KEY: {
                "tool": call.name,
                "title": call.title,
                "proposedArgs": call.proposed_args,
                "confirmation": _confirmation(call),
                "write": call.write,
                "destructive": call.destructive,
                "approvalsRequired": call.approvals_required,
                "requireApprover": call.require_approver,
                "approvals": [a.user_name for a in call.approvals],
            }
        },
    )


def _confirmation(call: ToolCallOut) -> dict[str, Any] | None:
    """The call's card text (camelCase like the rest of the event), or None."""
    if call.confirmation is None:
        return None
    shown = call.confirmation
    return {
        "title": shown.title,
        "summary": shown.summary,
        "actionLabel": shown.action_label,
        "detail": shown.detail,
        "previous": shown.previous,
    }


def _invalid(entry: ResumeEntry, message: str, errors: list[dict[str, Any]]) -> BadRequest:
    return BadRequest(
        message,
        code="invalid_resume",
        details={"interrupt_id": entry.interrupt_id, "errors": errors},
    )


def decision_for(entry: ResumeEntry, call: ToolCallOut, tool: Tool | None) -> DecisionIn:
    """The Interlock decision a resume entry for a waiting (``interrupted``) call stands for.

    The payload is the body of ``POST /api/tool-calls/{id}/decision``, read and checked as
    that endpoint does (:class:`DecisionIn`, :func:`check_shape`, :func:`check_remember`, so
    ``remember`` is accepted with an approve or edit), held to the decisions the call offers
    its owner; edited args are checked against the tool by the caller, the grant's own rules
    when the decision is applied.

    Raises:
        BadRequest: ``invalid_resume`` with ``details.errors`` (``path``, ``message``,
            ``rule``) when the payload is no decision (in the decision endpoint's words) or
            one the call does not offer; ``cannot_remember`` as the endpoint refuses a
            ``remember``, with its words.
    """
    if entry.status == "cancelled":
        return DecisionIn(type="reject")
    payload = entry.payload
    kinds = decision_types(call, tool)
    kind = payload.get("type") if isinstance(payload, dict) else None
    if kind not in kinds:
        offered = ", ".join(kinds)
        raise _invalid(
            entry,
            f"The answer to “{call.title}” must be a decision: {offered}.",
            [{"path": ["type"], "message": f"type must be one of: {offered}", "rule": "enum"}],
        )
    try:
        decision = DecisionIn.model_validate(payload)
    except ValidationError as exc:  # an unknown field, a wrong type, text that cannot be stored
        raise _invalid(
            entry,
            f"The {kind} decision for “{call.title}” is not valid.",
            pydantic_field_errors(exc.errors()),
        ) from None
    try:
        check_shape(decision)
    except BadRequest as exc:  # a payload that fits no decision: AG-UI's invalid_resume
        if exc.code == "cannot_remember":
            raise
        errors = exc.details.get("errors") if isinstance(exc.details, dict) else None
        said = [{"path": [], "message": exc.message, "rule": "decision"}]
        raise _invalid(entry, exc.message, errors or said) from None
    check_remember(call, decision, owner=True)  # the AG-UI caller owns the conversation
    return decision


def client_result_for(entry: ResumeEntry, call: ToolCallOut) -> ClientResultIn:
    """The result a resume entry for a frontend call (``awaiting_client``) stands for.

    Raises:
        BadRequest: ``invalid_resume`` with ``details.errors`` for a payload that is not a
            result (``{"text", "data"?}`` or ``{"error": {"code", "message"}}``).
    """
    if entry.status == "cancelled":
        return ClientResultIn.model_validate(
            {"error": {"code": "cancelled", "message": "The person dismissed it in their app."}}
        )
    try:
        return ClientResultIn.model_validate(entry.payload)
    except ValidationError as exc:
        raise _invalid(
            entry,
            f"The result for “{call.title}” is not valid.",
            pydantic_field_errors(exc.errors()),
        ) from None
