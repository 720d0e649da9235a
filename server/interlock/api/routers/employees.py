"""AI employees: everyone reads them; admins create, edit, disable, reset and delete them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Response, status
from pydantic import BaseModel, ConfigDict, Field, field_validator

from interlock.api.deps import AdminUser, CurrentUser, EngineDep, ServicesDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.services import Services
from interlock.audit import Channel
from interlock.employees import Employee, EmployeeFields, ToolApprovalRule, ToolPermission
from interlock.engine.employee_deletion import delete_employee as remove_employee
from interlock.errors import BadRequest, NotFound
from interlock.request_body import RequestBody
from interlock.text import no_control_characters, one_line_name

router = APIRouter(prefix="/api/employees", tags=["employees"], responses=ERROR_RESPONSES)


class EmployeeOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    slug: str
    name: str
    avatar: str
    title: str
    about: str
    greeting: str
    starter_prompts: list[str]
    builtin: bool
    disabled: bool
    model: str | None
    pinned_skills: list[str]
    available_skills: list[str]
    tool_overrides: dict[str, ToolPermission]
    system_prompt: str
    approvers: list[str]
    approval_timeout_s: float | None
    tool_approvals: dict[str, ToolApprovalRule]


_TEXTS = ("name", "avatar", "title", "about", "system_prompt", "greeting", "starter_prompts")
"""The fields an admin types: no control character but tab and line breaks in them (an
employee stored before with one still loads)."""

_NAMES = {"name": "An employee's name", "title": "An employee's title"}
"""Names people read as one line (as user names): a bidi override, a zero-width space, a tab
or a double space is refused, not silently dropped (an employee stored before still loads)."""


class EmployeeCreate(EmployeeFields):
    """A new employee: a unique ``slug`` plus the fields."""

    slug: str = Field(min_length=1, max_length=63)

    # Before-validators run last first: a control character is named as such.
    _one_line = field_validator(*_NAMES, mode="before")(one_line_name(_NAMES))
    _no_controls = field_validator(*_TEXTS, mode="before")(no_control_characters)


class EmployeePatch(RequestBody):
    """Fields to change; omitted fields stay. ``tool_overrides`` replaces the whole map."""

    name: str | None = None
    avatar: str | None = None
    title: str | None = None
    about: str | None = None
    system_prompt: str | None = None
    model: str | None = None
    pinned_skills: list[str] | None = None
    available_skills: list[str] | None = None
    tool_overrides: dict[str, ToolPermission] | None = None
    greeting: str | None = None
    starter_prompts: list[str] | None = None
    disabled: bool | None = None
    approvers: list[str] | None = None
    approval_timeout_s: float | None = None
    tool_approvals: dict[str, ToolApprovalRule] | None = None

    # Before-validators run last first: a control character is named as such.
    _one_line = field_validator(*_NAMES, mode="before")(one_line_name(_NAMES))
    _no_controls = field_validator(*_TEXTS, mode="before")(no_control_characters)


class SlashCommandOut(BaseModel):
    skill: str
    command: str
    title: str
    description: str
    tool: str


def _out(employee: Employee, *, admin: bool) -> EmployeeOut:
    data = employee.model_dump()
    if not admin:  # members see what the person-facing page shows, not the prompt
        data["system_prompt"] = ""
    return EmployeeOut(**data)


@router.get("")
def list_employees(
    user: CurrentUser,
    services: ServicesDep,
    include_disabled: Annotated[bool, Query()] = False,
) -> list[EmployeeOut]:
    """Employees one can start a conversation with (admins may include disabled ones)."""
    admin = user.role == "admin"
    employees = services.employees.list(include_disabled=include_disabled and admin)
    return [_out(e, admin=admin) for e in employees]


@router.get("/{slug}")
def get_employee(slug: str, user: CurrentUser, services: ServicesDep) -> EmployeeOut:
    """One employee."""
    employee = services.employees.require(slug)
    if employee.disabled and user.role != "admin":
        raise NotFound(f"No employee {slug!r}.")
    return _out(employee, admin=user.role == "admin")


@router.post("", status_code=status.HTTP_201_CREATED)
def create_employee(body: EmployeeCreate, _admin: AdminUser, services: ServicesDep) -> EmployeeOut:
    """Create an employee (admins). 409 ``employee_exists``; 422 ``unknown_reference`` for
    unknown skills, tools or approvers (users, groups), ``question_always_asks`` for ``ALLOW``
    on a question tool (``ask.*``)."""
    fields = EmployeeFields(**body.model_dump(exclude={"slug"}))
    return _out(services.employees.create(body.slug, fields), admin=True)


@router.patch("/{slug}")
def update_employee(
    slug: str, body: EmployeePatch, _admin: AdminUser, services: ServicesDep
) -> EmployeeOut:
    """Change some fields (admins); a built-in employee gets an override.

    ``model: null`` means the server's model; other fields sent as null are left unchanged.
    422 ``question_always_asks`` for ``ALLOW`` newly set on a question tool (``ask.*``).
    """
    changes = body.model_dump(exclude_unset=True)
    changes = {
        k: v for k, v in changes.items() if v is not None or k in ("model", "approval_timeout_s")
    }
    if not changes:
        raise BadRequest("Send at least one field to change.")
    return _out(services.employees.update(slug, changes), admin=True)


@router.delete("/{slug}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_employee(
    slug: str,
    admin: AdminUser,
    engine: EngineDep,
    x_interlock_client: Annotated[str | None, Header()] = None,
) -> Response:
    """Delete an admin-made employee (admins). 409 ``builtin_employee`` for a built-in.

    Its calls still waiting for a decision close as ``cancelled`` (the reason says it was
    deleted); afterwards nothing of it runs (messages and decisions: 409 ``employee_deleted``).
    """
    channel = Channel.web if x_interlock_client == "web" else Channel.api
    await engine.db.run(remove_employee, engine, admin.id, slug, channel)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{slug}/reset")
def reset_employee(slug: str, _admin: AdminUser, services: ServicesDep) -> EmployeeOut:
    """Drop the admins' changes to a built-in employee (admins)."""
    return _out(services.employees.reset(slug), admin=True)


@router.get("/{slug}/commands")
def list_commands(slug: str, user: CurrentUser, services: ServicesDep) -> list[SlashCommandOut]:
    """Slash commands available to this employee (the composer's ``/`` menu)."""
    employee = services.employees.require(slug)
    if employee.disabled and user.role != "admin":
        raise NotFound(f"No employee {slug!r}.")
    return [
        SlashCommandOut(
            skill=skill.name,
            command=command.command,
            title=command.title,
            description=command.description,
            tool=command.tool,
        )
        for skill, command in services.catalog.commands()
        if employee.may_load(skill.name)
        and employee.tool_overrides.get(command.tool) != "DENY"
        and _available(services, command.tool)
    ]


def _available(services: Services, tool_name: str) -> bool:
    """False while the tool cannot run (its remote MCP server is down): not in the menu."""
    tool = services.registry.get(tool_name)
    return tool is None or tool.unavailable_reason() is None
