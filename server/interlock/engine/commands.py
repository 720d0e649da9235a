"""Slash commands: ``/notes buy milk`` runs a skill's bound tool directly.

The server parses the text and re-resolves the command against the skills the
conversation's employee may use; the client's claim (skill and command it picked from the
menu) is only checked, never trusted. Nothing is stored when resolution fails.

A command word is read case-insensitively (``/Notes`` and ``/NOTES`` are ``/notes``: phones
capitalise the first letter), so every ``/word`` at the start of a message is a command: one
that does not exist or that this employee lacks is refused with a message naming the commands
it has, never sent to the model as text. Text whose first word is not a command word
(``/etc/hosts``, ``/ x``, ``/1``) is an ordinary message.

What is a command is decided on the text as it reads (:func:`interlock.text.plain_form`:
NFKC, invisible characters dropped): a word that only looks like a command (``/notes``
followed by an invisible U+202E, ``/NOTES`` in fullwidth letters, ``/nötes``) is refused like an
unknown command (``slash_command_unknown``), saying what to type instead; it never runs a
command and never reaches the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import Field
from sqlmodel import Session

from interlock.audit import record_allowed
from interlock.employees import Employee
from interlock.engine.command_words import QUERY, fill_args, lookalike_command, parse_command
from interlock.engine.expiry import Deadlines
from interlock.engine.grants import apply_grant
from interlock.engine.records import view
from interlock.errors import BadRequest, Forbidden
from interlock.permissions import effective_permission, is_action
from interlock.request_body import RequestBody
from interlock.skills import SkillCatalog
from interlock.storage import Conversation, Message, MessageRole, ToolCall
from interlock.storage.models import new_id
from interlock.storage.views import message_out
from interlock.streaming import EventBus
from interlock.streaming.events import MessageCompleted, ToolCallCreated
from interlock.tools import FieldError, Tool, ToolRegistry
from interlock.tools.schema import field_label


class CommandClaim(RequestBody):
    """The command the client says the person picked from the menu."""

    skill: str = Field(min_length=1, max_length=100)
    command: str = Field(min_length=1, max_length=32)


@dataclass(frozen=True)
class ResolvedCommand:
    """A command ready to run: the skill, the tool and the filled, validated args."""

    skill: str
    command: str
    tool: Tool
    args: dict[str, Any]
    call_id: str = field(default_factory=lambda: new_id("call"))
    confirmation: dict[str, Any] | None = None  # set by ``engine.preflight.prepare_command``


def resolve_command(
    content: str,
    claim: CommandClaim | None,
    employee: Employee,
    catalog: SkillCatalog,
    registry: ToolRegistry,
    *,
    actions_on: bool = True,
) -> ResolvedCommand | None:
    """Resolve ``content`` to a command, or None for an ordinary message.

    ``actions_on`` is the person's "AI actions" switch for the employee (off denies its
    write tools).

    Raises:
        BadRequest: ``slash_command_unknown``, ``slash_command_ambiguous`` (``details.candidates``),
            ``slash_command_unavailable``, or ``invalid_args`` (``details.errors``) when the
            filled args break the tool's schema.
        Forbidden: ``permission_denied`` when the bound tool is denied (by the tool, the
            employee, or the "AI actions" switch).
    """
    parsed = parse_command(content)
    if parsed is None:
        lookalike = lookalike_command(content)
        if lookalike is not None:
            word, invisible = lookalike
            names = _command_names(catalog, registry, employee, actions_on)
            raise BadRequest(
                _lookalike_text(word, invisible, employee, names)
                if word in names
                else _missing_text(word, employee, names),
                code="slash_command_unknown",
            )
        if claim is not None:
            raise BadRequest("A command needs text starting with /<command>.")
        return None
    name, query = parsed
    matches = catalog.commands_named(name)
    usable = [(s, c) for s, c in matches if s.status == "loaded" and employee.may_load(s.name)]
    allowed = [
        (s, c) for s, c in usable if _permission(registry, c.tool, employee, actions_on) != "DENY"
    ]
    if claim is None and usable and not allowed:
        raise Forbidden(
            _denied_text(f"/{name} runs a tool", employee, actions_on, usable, registry)
        )
    if claim is None:
        usable = allowed  # a denied command is not a candidate, as in the menu
    if claim is not None:
        if claim.command.lower() != name:
            raise BadRequest(
                f"The text runs /{name}, not /{claim.command}.", code="slash_command_mismatch"
            )
        chosen = [(s, c) for s, c in usable if s.name == claim.skill]
        if not chosen:
            raise BadRequest(
                f"{employee.name} has no command /{name} from the skill “{claim.skill}”, so "
                "nothing was run. Pick a command from the menu again, or write your request "
                "as a message.",
                code="slash_command_unavailable",
            )
    elif not usable:
        # One sentence for both, as the composer says it (it cannot tell them apart): the
        # command another employee has is no more this one's than a made-up one.
        names = _command_names(catalog, registry, employee, actions_on)
        missing = _missing_text(name, employee, names)
        code = "slash_command_unavailable" if matches else "slash_command_unknown"
        raise BadRequest(missing, code=code)
    elif len(usable) > 1:
        candidates = [{"skill": s.name, "command": c.command, "title": c.title} for s, c in usable]
        raise BadRequest(
            f"/{name} is offered by several skills: "
            + ", ".join(f"{c['skill']} ({c['title']})" for c in candidates)
            + ". Pick one from the menu.",
            code="slash_command_ambiguous",
            details={"candidates": candidates},
        )
    else:
        chosen = usable
    skill, command = chosen[0]
    tool = registry.get(command.tool)
    if tool is None:
        raise BadRequest(f"/{name} is bound to a missing tool.", code="slash_command_unavailable")
    down = tool.unavailable_reason()
    if down is not None:
        raise BadRequest(f"/{name} cannot run now. {down}", code="slash_command_unavailable")
    if effective_permission(tool, employee, actions_on=actions_on) == "DENY":
        raise Forbidden(
            _denied_text(f"The tool {tool.display_name}", employee, actions_on, chosen, registry)
        )
    args = fill_args(command.args, query)
    errors = registry.validate_args(tool, args)
    if errors:
        raise BadRequest(
            _problems_in_words(name, tool, command.args, errors),
            code="invalid_args",
            details={"errors": [e.as_dict() for e in errors]},
        )
    return ResolvedCommand(skill=skill.name, command=name, tool=tool, args=args)


def _problems_in_words(
    name: str, tool: Tool, template: dict[str, Any] | None, errors: list[FieldError]
) -> str:
    """Say what is wrong with a command's input, one sentence per problem, for the person.

    Args:
        name: The command (``notes``).
        tool: Its bound tool (field titles from its input schema).
        template: The command's args template (which fields the typed text fills).
        errors: The failed rules of the filled args (not empty).

    Returns:
        For example ``/notes needs some text.``, ``The text after /notes must have at most
        2000 characters.``; a field the skill fills itself (not from the text) is named as the
        skill's mistake.
    """
    from_text = _fields_from_text(template)
    said: dict[str, str] = {}
    for e in errors:
        key = str(e.path[0]) if e.path else ""
        message = e.message.rstrip(".")
        if key in from_text:
            if e.rule == "required" or message in ("Must not be empty", "Must not be blank"):
                sentence = f"/{name} needs some text."
            elif message.startswith("Must "):
                sentence = f"The text after /{name} must {message[5:]}."
            else:
                sentence = f"/{name} cannot use this text: {message}."
        else:
            label = field_label(tool.input_schema, [key]) if key else ""
            where = f" ({label})" if label else ""
            sentence = (
                f"/{name} cannot run: its skill gives the tool input it refuses{where}: "
                f"{message[:1].lower()}{message[1:]}. Tell an admin."
            )
        said.setdefault(key, sentence)
    return " ".join(dict.fromkeys(said.values()))


def _fields_from_text(template: dict[str, Any] | None) -> set[str]:
    """The top-level args a command fills from the typed text (``{query}``)."""
    if template is None:
        return {"query"}
    return {key for key, value in template.items() if QUERY in repr(value)}


def propose_command(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    deadlines: Deadlines,
    conversation: Conversation,
    employee: Employee,
    run_id: str,
    command: ResolvedCommand,
    *,
    actions_on: bool = True,
) -> None:
    """Stage an assistant message proposing the command's one tool call.

    The call goes through the permission gate like a model's: ``ASK`` pauses as
    ``interrupted``, ``ALLOW`` stays ``pending`` for the run to execute. The command's skill
    becomes loaded in the conversation, so the model can follow up with its tools. A live
    grant ("don't ask again") covering the call lets it run without a card.
    """
    message = Message(
        conversation_id=conversation.id, run_id=run_id, role=MessageRole.assistant, content=""
    )
    session.add(message)
    session.flush()
    assert message.id is not None
    permission = effective_permission(command.tool, employee, actions_on=actions_on)
    call = ToolCall(
        id=command.call_id,
        conversation_id=conversation.id,
        message_id=message.id,
        run_id=run_id,
        index=0,
        name=command.tool.name,
        permission=permission,
        proposed_args=command.args,
    )
    session.add(call)
    apply_grant(
        session,
        call,
        command.tool,
        permission,
        user_id=conversation.owner_id,
        employee=employee,
    )
    if (
        command.skill not in conversation.loaded_skills
        and command.skill not in employee.pinned_skills
    ):
        conversation.loaded_skills = [*conversation.loaded_skills, command.skill]
        session.add(conversation)
    session.flush()
    created = view(session, registry, call)
    bus.stage(
        session,
        conversation.id,
        MessageCompleted(run_id=run_id, message=message_out(message, [created])),
    )
    bus.stage(session, conversation.id, ToolCallCreated(run_id=run_id, tool_call=created))
    if permission == "ALLOW":
        record_allowed(session, call)
    if permission == "ASK" and call.grant_id is None:
        call.confirmation = command.confirmation
        deadlines.interrupt(session, bus, registry, call, employee, run_id)


def _command_names(
    catalog: SkillCatalog, registry: ToolRegistry, employee: Employee, actions_on: bool
) -> list[str]:
    """The commands this employee has (its menu), sorted."""
    return sorted(
        {
            c.command
            for s, c in catalog.commands()
            if employee.may_load(s.name)
            and _permission(registry, c.tool, employee, actions_on) != "DENY"
        }
    )


def _missing_text(name: str, employee: Employee, names: list[str]) -> str:
    """The refusal of a command this employee does not have, saying what the person can do
    instead: ``Scout has no command /help. You can use /notes or /suggest, or write your
    request as a message.`` (the web client's composer says the same, ``messageChecks.ts``)."""
    lead = f"{employee.name} has no command /{name}"
    if not names:
        return f"{lead}; write your request as a message instead."
    listed = [f"/{n}" for n in names]
    either = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]
    return f"{lead}. You can use {either}, or write your request as a message."


def _lookalike_text(word: str, invisible: bool, employee: Employee, names: list[str]) -> str:
    """The refusal of a word that only looks like one of the employee's commands: ``Scout has
    no command written like that: it looks like /notes but holds an invisible character. Type
    /notes in plain letters to run it, or write your request as a message.`` (the composer
    says the same, ``messageChecks.ts``). The word as typed is never quoted: an invisible
    bidi override in it would reorder the sentence."""
    how = "holds an invisible character" if invisible else "is written in look-alike characters"
    return (
        f"{employee.name} has no command written like that: it looks like /{word} but {how}. "
        f"Type /{word} in plain letters to run it, or write your request as a message."
    )


def _permission(registry: ToolRegistry, name: str, employee: Employee, actions_on: bool) -> str:
    tool = registry.get(name)
    if tool is None:
        return employee.tool_overrides.get(name, "ASK")
    return effective_permission(tool, employee, actions_on=actions_on)


def _denied_text(
    subject: str,
    employee: Employee,
    actions_on: bool,
    candidates: list[Any],
    registry: ToolRegistry,
) -> str:
    """Why a command's tool is denied, for the person."""
    tools = [registry.get(c.tool) for _s, c in candidates]
    if not actions_on and any(t is not None and is_action(t) for t in tools):
        return (
            f"{subject} that changes things, and AI actions for {employee.name} are off. "
            "Turn them on under Permissions."
        )
    return f"{subject} that is not allowed for this employee."
