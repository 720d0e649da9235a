"""Checks of a decision body before it is applied: its shape, then its content vs the tool.

:func:`check_shape` needs only the body (an edit carries ``args``, a respond a ``message``,
only approvals are remembered); :func:`check_content` needs the call and its tool (a question
is answered with respond, a call needing several approvals is not edited, edited args match
the tool's JSON Schema, an answer passes ``check_response``).
Both raise the HTTP errors of :mod:`interlock.errors`; :mod:`interlock.engine.decisions`
applies a decision that passed them.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator, model_validator

from interlock.errors import BadRequest, Conflict
from interlock.permissions.shapes import RememberIn
from interlock.request_body import RequestBody
from interlock.storage import DecisionType, ToolCall
from interlock.text import check_storable, no_control_characters
from interlock.tools import FieldError, Tool
from interlock.tools.schema import args_refused, control_character_errors

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

__all__ = [
    "MAX_DECISION_MESSAGE_CHARS",
    "DecisionIn",
    "check_content",
    "check_shape",
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
        message: Reason (``reject``) or answer text (``respond``).
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


def check_content(engine: Engine, call: ToolCall, body: DecisionIn) -> None:
    """Check a decision's content against the call and its tool.

    Raises:
        BadRequest: ``invalid_request`` (approving or editing a question),
            ``edit_needs_one_approval`` (an edit of a call needing several people's
            approvals), ``invalid_args`` (edited args or an answer that do not fit).
        Conflict: ``tool_not_ready`` or ``not_found`` (an edit while the tool is missing).
    """
    question = engine.registry.get(call.name)
    if (
        question is not None
        and question.check_response is not None
        and body.type in (DecisionType.approve, DecisionType.edit)
    ):
        raise BadRequest(
            "This is a question: answer it with respond, or reject it.",
            code="invalid_request",
        )
    if body.type == DecisionType.edit and call.approvals_required > 1:
        # Each of the people approves the same arguments: an edit would change what the
        # earlier ones approved, so such a call is approved as proposed or rejected.
        raise BadRequest(
            f"This call needs {call.approvals_required} people's approvals, so it cannot be "
            "edited: approve it as proposed, or reject it with a reason.",
            code="edit_needs_one_approval",
            details={"approvals_required": call.approvals_required},
        )
    if body.type == DecisionType.edit:
        tool = engine.registry.get(call.name)
        if tool is None and engine.registry.expects(call.name):
            raise Conflict(
                "The tool's MCP server is still connecting, so edited arguments cannot be "
                "checked yet: try again in a moment (approving as proposed waits for it).",
                code="tool_not_ready",
            )
        if tool is None:
            raise Conflict("This tool is no longer available.", code="not_found")
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
            "An edit needs the changed details (args).",
            code="invalid_args",
            details={
                "errors": [{"path": [], "message": "args is required for edit", "rule": "required"}]
            },
        )
    if body.type != DecisionType.edit and body.args is not None:
        raise BadRequest(
            "Only an edit carries changed details (args); approve or reject without them.",
            code="invalid_request",
        )
    if body.type == DecisionType.respond and not (body.message and body.message.strip()):
        raise BadRequest("A respond decision needs a message.", code="invalid_request")
    if body.remember is not None and body.type not in (DecisionType.approve, DecisionType.edit):
        raise BadRequest(
            "Only an approval can be remembered; rejects and answers are never remembered.",
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
    except ValueError:
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
