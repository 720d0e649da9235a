"""Before a proposed call is stored: validation, the tool's ``check`` and its confirmation.

A proposal that fails here is stored ``failed`` with an error tool message for the model and
never shows a card. For ``ASK`` calls the tool's ``confirmation(args, ctx)`` is computed now
and stored with the call, so the card reads the same after a reload.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from interlock.engine.commands import ResolvedCommand
from interlock.engine.proposals import Proposal, field_hint, field_sentences
from interlock.engine.turn import LOAD_SKILL, TurnPlan
from interlock.errors import BadRequest
from interlock.permissions import is_action
from interlock.storage import Database
from interlock.storage.models import new_id
from interlock.tools import Permission, Tool, ToolContext, ToolError, ToolRegistry
from interlock.tools.hooks import make_confirmation, run_check


@dataclass
class Prepared:
    """A proposal with everything decided before it is stored.

    Attributes:
        proposal: What the model proposed.
        tool: The offered tool it names, or None.
        call_id: The id the stored call gets (known before, so ``check`` sees it).
        problem: Why the call fails without a card; None when it goes ahead.
        code: The tool error code of ``problem``.
        hint: Extra text for the model's error tool message.
        field_errors: ``[{"path", "message", "rule"}]`` for schema failures.
        shown: The error the person reads on the call (stored as its ``error_message``):
            the field failures in words for schema failures, else ``problem``.
        confirmation: The stored confirmation of an ``ASK`` call, or None.
    """

    proposal: Proposal
    tool: Tool | None
    call_id: str = field(default_factory=lambda: new_id("call"))
    problem: str | None = None
    code: str = ""
    hint: str | None = None
    field_errors: list[dict[str, Any]] = field(default_factory=list)
    shown: str | None = None
    confirmation: dict[str, Any] | None = None


async def prepare_calls(
    registry: ToolRegistry,
    plan: TurnPlan,
    proposals: list[Proposal],
    *,
    user_id: str,
    conversation_id: str,
    db: Database,
    from_model: bool = False,
) -> list[Prepared]:
    """Validate each proposal, then run the tool's ``check`` and (``ASK``) ``confirmation``.

    Args:
        registry: The tools.
        plan: The turn's plan (offered tools, permissions).
        proposals: The proposed calls; with ``from_model`` their args may be rewritten.
        user_id: The conversation's owner.
        conversation_id: The conversation.
        db: The database.
        from_model: The proposals come from the chat model: its arguments are read as the
            tool's schema means them first (:meth:`ToolRegistry.model_args`: with strict tool
            calling, a ``null`` for an optional field is absent). False for calls from
            outside (MCP clients), whose arguments are taken as they are.

    Returns:
        One :class:`Prepared` per proposal, in order.
    """
    offered = {t.provider_name: t for t in plan.offered}
    out: list[Prepared] = []
    for proposal in proposals:
        tool = offered.get(proposal.name)
        if tool is not None and from_model:
            proposal.args = registry.model_args(tool, proposal.args)
        item = Prepared(proposal=proposal, tool=tool)
        out.append(item)
        problem, code, errors = validate_proposal(registry, proposal, tool, plan)
        if problem is not None:
            item.problem, item.code, item.field_errors = problem, code, errors
            item.hint = field_hint(errors)
            schema = tool.input_schema if tool is not None else None
            item.shown = field_sentences(errors, schema) or problem
            continue
        assert tool is not None and isinstance(proposal.args, dict)
        # Checks and confirmations run before any approval: they may read, never write.
        context = ToolContext(
            user_id=user_id,
            conversation_id=conversation_id,
            tool_call_id=item.call_id,
            db=db,
            writable=False,
            tool_name=tool.name,
        )
        timeout = tool.timeout_s if tool.timeout_s is not None else registry.default_timeout_s
        try:
            await run_check(tool, proposal.args, context, timeout)
            if plan.permissions[tool.name] == Permission.ASK:
                item.confirmation = await make_confirmation(tool, proposal.args, context, timeout)
        except ToolError as exc:
            item.problem, item.code, item.hint = exc.message, exc.code, exc.hint
            item.shown = exc.message
    return out


async def prepare_command(
    registry: ToolRegistry,
    command: ResolvedCommand,
    permission: str,
    *,
    user_id: str,
    conversation_id: str,
    db: Database,
) -> ResolvedCommand:
    """Run a slash command's ``check`` and (``ASK``) ``confirmation`` before it is proposed.

    Returns:
        The command with its confirmation.

    Raises:
        BadRequest: The check refused the call (422, the tool error's code and message), or
            the confirmation failed.
    """
    tool = command.tool
    context = ToolContext(
        user_id=user_id,
        conversation_id=conversation_id,
        tool_call_id=command.call_id,
        db=db,
        writable=False,
        tool_name=tool.name,
    )
    timeout = tool.timeout_s if tool.timeout_s is not None else registry.default_timeout_s
    try:
        await run_check(tool, command.args, context, timeout)
        if permission != "ASK":
            return command
        confirmation = await make_confirmation(tool, command.args, context, timeout)
    except ToolError as exc:
        raise BadRequest(f"/{command.command}: {exc.message}", code=exc.code) from None
    return replace(command, confirmation=confirmation)


def validate_proposal(
    registry: ToolRegistry, proposal: Proposal, tool: Tool | None, plan: TurnPlan
) -> tuple[str | None, str, list[dict[str, Any]]]:
    """Return ``(problem, error code, field errors)``; problem None means the call is fine."""
    if tool is None:
        known = registry.by_provider_name(proposal.name)
        if known is not None and known.name in plan.denied:
            if not plan.actions_on and is_action(known):
                return (
                    f"The tool {known.display_name} is not allowed: the person has AI actions "
                    "turned off for you (they can turn them on under Permissions).",
                    "permission_denied",
                    [],
                )
            return f"The tool {known.display_name} is not allowed here.", "permission_denied", []
        down = known.unavailable_reason() if known is not None else None
        if down is not None:
            return down, "upstream_error", []  # its MCP server is down: not offered now
        if known is not None and known.skill is not None:
            return (
                f"The tool {known.display_name} belongs to the skill {known.skill!r}, "
                "which is not loaded (call load_skill first).",
                "not_found",
                [],
            )
        return f"Unknown tool {proposal.name!r}: it is not offered here.", "not_found", []
    if proposal.args is None:
        return f"The arguments are not valid JSON: {proposal.parse_error}", "invalid_args", []
    if not isinstance(proposal.args, dict):
        return "The arguments must be a JSON object.", "invalid_args", []
    errors = [e.as_dict() for e in registry.validate_args(tool, proposal.args)]
    if errors:
        return "The arguments do not match the tool's input schema.", "invalid_args", errors
    if tool.name == LOAD_SKILL:
        wanted = proposal.args.get("name")
        if wanted not in plan.loadable_skills and wanted not in plan.active_skills:
            return f"No skill {wanted!r} can be loaded here.", "not_found", []
    return None, "", []
