"""Before a proposed call is stored: validation, the tool's ``check`` and its confirmation.

A proposal that fails here is stored ``failed`` with an error tool message for the model and
never shows a card. Its ``problem`` is written for the person (stored as the call's error, shown
on it, and said back by the offline model); what only the model needs (the failed rules by
argument name, what to call first) is its ``hint``, after " Hint: " in the tool message.

For ``ASK`` calls the tool's ``confirmation(args, ctx)`` is computed now and stored with the
call (the routes reading waiting cards describe them again: :mod:`interlock.engine.current_cards`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from interlock.engine.commands import ResolvedCommand
from interlock.engine.proposals import Proposal, field_hint
from interlock.engine.turn import LOAD_SKILL, TurnPlan
from interlock.errors import BadRequest
from interlock.permissions import is_action
from interlock.storage import Database
from interlock.storage.models import new_id
from interlock.tools import Permission, Tool, ToolContext, ToolError, ToolRegistry
from interlock.tools.hooks import make_confirmation, run_check
from interlock.tools.schema import field_sentences


@dataclass
class Prepared:
    """A proposal with everything decided before it is stored.

    Attributes:
        proposal: What the model proposed.
        tool: The offered tool it names, or None.
        call_id: The id the stored call gets (known before, so ``check`` sees it).
        problem: Why the call fails without a card, in the person's words (stored as its
            ``error_message``); None when it goes ahead.
        code: The tool error code of ``problem``.
        hint: Extra text for the model only, after ``problem`` in its error tool message.
        field_errors: ``[{"path", "message", "rule"}]`` for schema failures.
        confirmation: The stored confirmation of an ``ASK`` call, or None.
    """

    proposal: Proposal
    tool: Tool | None
    call_id: str = field(default_factory=lambda: new_id("call"))
    problem: str | None = None
    code: str = ""
    hint: str | None = None
    field_errors: list[dict[str, Any]] = field(default_factory=list)
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
        refusal = validate_proposal(registry, proposal, tool, plan)
        if refusal is not None:
            item.problem, item.code, item.hint, item.field_errors = refusal
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


Refusal = tuple[str, str, str | None, list[dict[str, Any]]]
"""Why a proposal fails: ``(problem for the person, error code, hint for the model or None,
field errors)``."""

_UNREADABLE = "The details of this request could not be read, so nothing was done."


def validate_proposal(
    registry: ToolRegistry, proposal: Proposal, tool: Tool | None, plan: TurnPlan
) -> Refusal | None:
    """Return why ``proposal`` fails before any card (see :data:`Refusal`), or None."""
    if tool is None:
        return _not_offered(registry, proposal, plan)
    if proposal.args is None:
        hint = f"The arguments are not valid JSON ({proposal.parse_error}); send one JSON object."
        return _UNREADABLE, "invalid_args", hint, []
    if not isinstance(proposal.args, dict):
        return _UNREADABLE, "invalid_args", "The arguments must be a JSON object.", []
    errors = [e.as_dict() for e in registry.validate_args(tool, proposal.args)]
    if errors:
        shown = field_sentences(errors, tool.input_schema) or _UNREADABLE
        return shown, "invalid_args", field_hint(errors), errors
    if tool.name == LOAD_SKILL:
        wanted = proposal.args.get("name")
        if wanted not in plan.loadable_skills and wanted not in plan.active_skills:
            return f"No skill {wanted!r} can be loaded here.", "not_found", None, []
    return None


def _not_offered(registry: ToolRegistry, proposal: Proposal, plan: TurnPlan) -> Refusal:
    """Why a call of a tool the turn does not offer fails."""
    known = registry.by_provider_name(proposal.name)
    if known is not None and known.name in plan.denied:
        if not plan.actions_on and is_action(known):
            return (
                f"The tool {known.display_name} is not allowed: AI actions are turned off for "
                "this employee (they can be turned on under Permissions).",
                "permission_denied",
                None,
                [],
            )
        return f"The tool {known.display_name} is not allowed here.", "permission_denied", None, []
    down = known.unavailable_reason() if known is not None else None
    if down is not None:
        return down, "upstream_error", None, []  # its MCP server is down: not offered now
    if known is not None and known.skill is not None:
        return (
            f"The tool {known.display_name} is not available yet.",
            "not_found",
            f"It belongs to the skill {known.skill!r}, which is not loaded: call load_skill first.",
            [],
        )
    return (
        f"There is no tool {proposal.name!r} here.",
        "not_found",
        "Call only the tools you are offered.",
        [],
    )
