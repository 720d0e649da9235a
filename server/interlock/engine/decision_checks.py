"""Checks of a decision body before it is applied: its shape, then its content vs the tool.

:func:`check_shape` needs only the body (an edit carries ``args``, a respond a ``message``,
an approve or edit no ``message``, only approvals are remembered); :func:`check_offered` holds the decision to the ones the call
takes (:func:`decision_types`, the rule AG-UI follows too); :func:`check_content` needs the
call and its tool (edited args match the tool's JSON Schema, an answer passes
``check_response``).
Both raise the HTTP errors of :mod:`interlock.errors`; :mod:`interlock.engine.decisions`
applies a decision that passed them.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field, field_validator, model_validator

from interlock.errors import BadRequest, Conflict, Forbidden
from interlock.json_words import JSON_ERRORS
from interlock.permissions.shapes import RememberIn
from interlock.request_body import RequestBody
from interlock.storage import DecisionType, ToolCall
from interlock.text import check_storable, no_control_characters
from interlock.tools import FieldError, Tool, is_question
from interlock.tools.schema import args_refused, control_character_errors

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

__all__ = [
    "MAX_DECISION_MESSAGE_CHARS",
    "DecisionIn",
    "check_content",
    "check_offered",
    "check_remember",
    "check_shape",
    "decision_types",
    "response_errors",
]

MAX_DECISION_MESSAGE_CHARS = 8_000

log = logging.getLogger(__name__)


class DecisionIn(RequestBody):
    """A person's decision.

    Attributes:
        type: ``approve`` runs the proposal; ``edit`` runs ``args`` instead; ``reject`` tells
            the model the person declined (``message`` is the reason); ``respond`` makes
            ``message`` the result without running the tool.
        args: The edited arguments (``edit`` only), checked against the tool's schema.
        message: Reason (``reject``) or answer text (``respond``); refused on ``approve``
            and ``edit`` (422 ``invalid_request``), where nothing would keep or show it.
        remember: "Don't ask again" (approve and edit only; rejects are never remembered):
            a grant for this tool in this conversation or for this employee, made in the
            same transaction as the decision.
    """

    type: Literal["approve", "edit", "reject", "respond"]
    args: dict[str, Any] | None = None
    message: str | None = Field(default=None, max_length=MAX_DECISION_MESSAGE_CHARS)
    remember: RememberIn | None = None

    _no_controls = field_validator("message", mode="before")(no_control_characters)

    @model_validator(mode="after")
    def _storable(self) -> DecisionIn:
        check_storable({"args": self.args, "message": self.message})
        return self


class _Decidable(Protocol):
    """What :func:`decision_types` reads of a call (a stored row or its view)."""

    @property
    def require_approver(self) -> bool: ...
    @property
    def approvals_required(self) -> int: ...


def decision_types(call: _Decidable, tool: Tool | None, *, owner: bool = True) -> list[str]:
    """The decisions ``call`` takes from its owner (or, ``owner=False``, from an approver),
    in the order a card offers them: the one rule that the HTTP API (:func:`check_offered`)
    and AG-UI (an interrupt's ``responseSchema``, a resume) both follow.

    * A question (a tool with ``check_response``) is answered (``respond``) or rejected.
    * Any other call is approved, edited, rejected, or answered instead of run
      (``respond``: the call closes without running, "Answered, not run", and the model's
      tool message says so, :func:`~interlock.engine.tool_texts.answer_text`).
    * Its owner neither approves nor edits a call needing an approver (``require_approver``).
    * A call needing several approvals is not edited (each person approves the same
      arguments), nor is one whose tool is not registered (its arguments cannot be checked).

    Returns:
        Decision types (``approve``, ``edit``, ``reject``, ``respond``).
    """
    if is_question(tool):
        return [DecisionType.respond.value, DecisionType.reject.value]
    kinds: list[str] = []
    if not (owner and call.require_approver):
        kinds.append(DecisionType.approve.value)
        if tool is not None and call.approvals_required <= 1:
            kinds.append(DecisionType.edit.value)
    return [*kinds, DecisionType.reject.value, DecisionType.respond.value]


def check_offered(engine: Engine, call: ToolCall, body: DecisionIn, *, owner: bool) -> None:
    """Refuse a decision :func:`decision_types` does not offer, with the reason's stable code.

    Raises:
        BadRequest: ``invalid_request`` (approving or editing a question),
            ``edit_needs_one_approval`` (an edit of a call needing several people's
            approvals, ``details.approvals_required``).
        Forbidden: ``approver_required`` (the owner approving a call needing an approver).
        Conflict: ``tool_not_ready`` or ``not_found`` (an edit while the tool is missing).
    """
    tool = engine.registry.get(call.name)
    if body.type in decision_types(call, tool, owner=owner):
        return
    if is_question(tool):
        raise BadRequest(
            "This is a question: answer it with respond, or reject it.",
            code="invalid_request",
        )
    if owner and call.require_approver:
        raise Forbidden(
            "This action needs an approver's approval: you cannot approve your own call, "
            "but you can reject it.",
            code="approver_required",
        )
    if call.approvals_required > 1:
        # Each of the people approves the same arguments: an edit would change what the
        # earlier ones approved, so such a call is approved as proposed or rejected.
        raise BadRequest(
            f"This call needs {call.approvals_required} people's approvals, so it cannot be "
            "edited: approve it as proposed, or reject it with a reason.",
            code="edit_needs_one_approval",
            details={"approvals_required": call.approvals_required},
        )
    if engine.registry.expects(call.name):
        raise Conflict(
            "The tool's MCP server is still connecting, so edited arguments cannot be "
            "checked yet: try again in a moment (approving as proposed waits for it).",
            code="tool_not_ready",
        )
    raise Conflict("This tool is no longer available.", code="not_found")


def check_content(engine: Engine, call: ToolCall, body: DecisionIn) -> None:
    """Check a decision's content against the call and its tool (once
    :func:`check_offered` passed).

    Raises:
        BadRequest: ``invalid_args`` (edited args or an answer that do not fit).
    """
    if body.type == DecisionType.edit:
        tool = engine.registry.get(call.name)
        assert tool is not None  # check_offered: no edit without the tool
        errors = engine.registry.validate_args(tool, body.args)
        if errors:
            raise args_refused("The edit cannot be saved:", tool.input_schema, errors)
    if body.type == DecisionType.respond:
        tool = engine.registry.get(call.name)
        errors = response_errors(tool, call.proposed_args, body.message or "")
        if errors:
            raise BadRequest(
                "The answer does not fit the question.",
                code="invalid_args",
                details={"errors": [e.as_dict() for e in errors]},
            )


def check_shape(body: DecisionIn) -> None:
    if body.type == DecisionType.edit and body.args is None:
        raise BadRequest(
            "An edit needs the changed details: send them with it.",
            code="invalid_args",
            details={
                "errors": [{"path": [], "message": "Is required for an edit.", "rule": "required"}]
            },
        )
    if body.type != DecisionType.edit and body.args is not None:
        raise BadRequest(
            "Only an edit can change the details: to approve, reject or answer, leave them "
            "as they are.",
            code="invalid_request",
        )
    if body.message is not None and body.type in (DecisionType.approve, DecisionType.edit):
        # Kept nowhere a person reads it and never told to the model: refused, not dropped.
        raise BadRequest(
            "Only turning a call down (the reason) or answering it carries a message: approve "
            "or change the details without one.",
            code="invalid_request",
        )
    if body.type == DecisionType.respond and not (body.message and body.message.strip()):
        raise BadRequest(
            "An answer needs a message: write what you want to say.", code="invalid_request"
        )
    if body.remember is not None and body.type not in (DecisionType.approve, DecisionType.edit):
        raise BadRequest(
            "Only an approval can be remembered; rejects and answers are never remembered.",
            code="cannot_remember",
        )


def check_remember(call: _Decidable, body: DecisionIn, *, owner: bool) -> None:
    """Refuse ``remember`` on a decision it cannot go with, naming the reason (the tool's own
    rules, :func:`interlock.permissions.grants.create_grant`, are checked when the grant is
    made).

    Raises:
        BadRequest: ``cannot_remember`` when an approver decides (a grant is the owner's own
            choice), or the call needs an approver or several approvals.
    """
    if body.remember is None:
        return
    if not owner:
        reason = "only the conversation's owner can choose not to be asked again"
    elif call.require_approver:
        reason = "it needs an approver's approval each time"
    elif call.approvals_required > 1:
        reason = f"it needs {call.approvals_required} people's approvals each time"
    else:
        return
    raise BadRequest(
        f"“Don't ask again” is not available for this call: {reason}.",
        code="cannot_remember",
    )


def response_errors(tool: Tool | None, args: Any, message: str) -> list[FieldError]:
    """Run ``tool.check_response(args, message)``; a check that raises refuses the answer.

    An answer in JSON (a form's values) is also refused when a value holds a control character
    once decoded (``"\\u001b"`` in the JSON text): the message's own check sees only the
    escape's letters.
    """
    if tool is None or tool.check_response is None:
        return []
    try:
        decoded = json.loads(message)
    except JSON_ERRORS:
        decoded = None
    hidden = control_character_errors(decoded) if isinstance(decoded, dict | list) else []
    if hidden:
        return hidden
    try:
        return list(tool.check_response(args if isinstance(args, dict) else {}, message))
    except Exception as exc:
        log.exception("check_response of tool %r raised", tool.name)
        return [
            FieldError(
                path=[],
                message=f"The answer could not be checked ({type(exc).__name__}).",
                rule="check_response",
            )
        ]
