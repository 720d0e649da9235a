"""The ``@tool`` decorator: declare a tool next to its handler."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from interlock.errors import plain_message
from interlock.tools.base import (
    ArgsCheck,
    CallCheck,
    ConfirmationFn,
    Execution,
    FieldError,
    Handler,
    Permission,
    Tool,
    ToolAnnotations,
)
from interlock.tools.registry import ToolRegistrationError
from interlock.tools.schema import SchemaRuleError, model_schema

EMPTY_ARGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}
"""The input schema of a tool declared with neither ``input_schema`` nor ``args_model``."""


def tool(
    *,
    name: str,
    title: str,
    description: str,
    input_schema: dict[str, Any] | None = None,
    args_model: type[BaseModel] | None = None,
    output_schema: dict[str, Any] | None = None,
    permission: Permission = Permission.ASK,
    write: bool = False,
    annotations: ToolAnnotations = ToolAnnotations(),
    timeout_s: float | None = None,
    card: str | None = None,
    check_args: ArgsCheck | None = None,
    check: CallCheck | None = None,
    confirmation: ConfirmationFn | None = None,
    execution: Execution = "server",
    modal: bool = False,
    approval_timeout_s: float | None = None,
    require_approver: bool = False,
    approvals_required: int = 1,
    tags: Sequence[str] = (),
) -> Callable[[Handler], Tool]:
    """Turn ``handler(args: dict, ctx: ToolContext)`` (sync or async) into a :class:`Tool`.

    The decorated name is bound to the :class:`Tool`, not the function; the function stays
    reachable as ``tool.handler``. Registration rules are applied later, by
    :meth:`interlock.tools.ToolRegistry.register`.

    Args:
        name: Tool name, e.g. ``notes.add`` (see ``TOOL_NAME_RE`` in the registry).
        title: Short human title for cards.
        description: What the tool does, for the model.
        input_schema: JSON Schema of the arguments (copied). Give this or ``args_model``;
            with neither the tool takes no arguments (:data:`EMPTY_ARGS_SCHEMA`).
        args_model: A pydantic model of the arguments. Its schema is derived with
            ``model_json_schema()`` and every ``$ref`` inlined
            (:func:`interlock.tools.schema.model_schema`); the model's own validation
            (field validators included) then runs as part of ``check_args``, its errors
            reported with pydantic's error type as ``rule``. The handler still gets a dict.
        output_schema: JSON Schema of ``ToolResult.data`` (copied), checked after each call.
        permission: ``ASK`` pauses for a person's decision, ``ALLOW`` runs at once, ``DENY``
            is never offered to the model (an employee override may still allow it).
        write: True when the tool changes data.
        annotations: Behaviour hints (read-only, destructive, idempotent, open-world); a hint
            left None is derived from ``write`` (:class:`~interlock.tools.base.ToolHints`).
        timeout_s: Seconds before the call fails with ``timeout``; None uses the registry's.
        card: Client card hint (``approval``, ``choice``), None picks by tool name.
        check_args: Cross-field checks, ``check_args(args) -> list[FieldError]``, run after the
            schema passed (after the model's validation, when ``args_model`` is given).
        check: ``check(args, ctx)`` raising :class:`~interlock.tools.ToolError` for rules a
            schema cannot express (sync or async); run before any card and again before the
            handler.
        confirmation: ``confirmation(args, ctx) -> Confirmation`` (sync or async): how the
            call reads on its card (title, one-sentence summary, action label, detail,
            previous text).
        execution: ``server``, or ``frontend`` for a tool the person's browser runs (the
            decorated function is then never called; give it a docstring only).
        modal: The card asks to be reviewed in a modal.
        approval_timeout_s: Seconds an ``ASK`` call waits for a decision before it expires;
            None uses the employee's or the server's setting.
        require_approver: Only an approver (not the conversation's owner) may approve.
        approvals_required: Distinct people who must approve, 1 to 5.
        tags: Labels for filtering MCP listings (``TAG_RE``); a skill's tool also gets the
            skill's ``tags``.

    Returns:
        A decorator returning the :class:`Tool`.

    Raises:
        ToolRegistrationError: When both ``input_schema`` and ``args_model`` are given, the
            model's schema cannot be derived or inlined (a recursive model), or ``tags`` is a
            single string.
    """
    if input_schema is not None and args_model is not None:
        raise ToolRegistrationError("give input_schema or args_model, not both", tool_name=name)
    if isinstance(tags, str):
        raise ToolRegistrationError(f"tags must be a list of strings, got {tags!r}", tool_name=name)
    checks = check_args
    if args_model is not None:
        try:
            schema = model_schema(args_model)
        except SchemaRuleError as exc:
            raise ToolRegistrationError(f"args_model {exc}", tool_name=name) from None
        checks = _model_check(args_model, check_args)
    elif input_schema is not None:
        schema = copy.deepcopy(input_schema)
    else:
        schema = copy.deepcopy(EMPTY_ARGS_SCHEMA)

    def decorate(handler: Handler) -> Tool:
        return Tool(
            name=name,
            title=title,
            description=description,
            input_schema=schema,
            handler=handler,
            output_schema=copy.deepcopy(output_schema),
            permission=permission,
            write=write,
            annotations=annotations,
            timeout_s=timeout_s,
            card=card,
            check_args=checks,
            check=check,
            confirmation=confirmation,
            execution=execution,
            modal=modal,
            approval_timeout_s=approval_timeout_s,
            require_approver=require_approver,
            approvals_required=approvals_required,
            tags=tuple(tags),
        )

    return decorate


def _model_check(model: type[BaseModel], then: ArgsCheck | None) -> ArgsCheck:
    """Return a check that validates args with ``model`` (JSON mode), then runs ``then``."""

    def check(args: dict[str, Any]) -> list[FieldError]:
        try:
            model.model_validate_json(json.dumps(args))
        except ValidationError as exc:
            return [
                FieldError(
                    path=list(err["loc"]), message=plain_message(err["msg"]), rule=err["type"]
                )
                for err in exc.errors(include_url=False)
            ]
        return then(args) if then is not None else []

    return check
