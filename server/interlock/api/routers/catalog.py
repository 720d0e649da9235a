"""What the server offers: tools, health, the caller."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from interlock import __version__
from interlock.api.deps import CurrentUser, ServicesDep, SettingsDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.models import describe_model
from interlock.tools import Tool

router = APIRouter(prefix="/api", tags=["catalog"], responses=ERROR_RESPONSES)


# The hints a tool declares (undeclared: false). Cards read ``destructive`` from here; MCP
# clients get ``Tool.hints()`` (defaults derived from ``write``). No docstring: it would
# change the committed OpenAPI document.
class ToolAnnotationsOut(BaseModel):
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


# ``available`` is False while the tool cannot run (its remote MCP server is down); ``reason``
# then says why, as a sentence for the person (as ``RemoteToolOut`` of /api/mcp-servers).
class ToolOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    permission: str
    write: bool
    annotations: ToolAnnotationsOut
    card: str | None
    skill: str | None
    execution: Literal["server", "frontend"]
    modal: bool
    available: bool = True
    reason: str | None = None


class ModelOut(BaseModel):
    name: str
    offline: bool


class HealthOut(BaseModel):
    status: str
    version: str
    model: ModelOut


class MeOut(BaseModel):
    id: str
    name: str
    role: Literal["admin", "member"]


@router.get("/health")
async def health(settings: SettingsDep) -> HealthOut:
    """Liveness, version and which model answers (``offline`` for the built-in one).

    Touches no database and runs on the event loop, so it answers while the database waits.
    """
    return HealthOut(status="ok", version=__version__, model=ModelOut(**describe_model(settings)))


@router.get("/me")
def me(user: CurrentUser) -> MeOut:
    """The caller."""
    return MeOut(id=user.id, name=user.name, role=user.role)  # type: ignore[arg-type]


@router.get("/tools")
def list_tools(_user: CurrentUser, services: ServicesDep) -> list[ToolOut]:
    """Registered tools with their JSON Schemas and permissions; a tool that cannot run now
    (its remote MCP server is down) is listed with ``available`` false and the reason."""
    return [_tool_out(t) for t in services.registry.tools()]


def _tool_out(t: Tool) -> ToolOut:
    reason = t.unavailable_reason()
    return ToolOut(
        name=t.name,
        title=t.title,
        description=t.description,
        input_schema=t.input_schema,
        output_schema=t.output_schema,
        permission=str(t.permission),
        write=t.write,
        annotations=ToolAnnotationsOut(
            **{key: value is True for key, value in asdict(t.annotations).items()}
        ),
        card=t.card,
        skill=t.skill,
        execution=t.execution,
        modal=t.modal,
        available=reason is None,
        reason=reason,
    )
