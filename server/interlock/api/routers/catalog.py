"""What the server offers: tools, health, the caller."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel

from interlock import __version__
from interlock.api.deps import CurrentUser, ServicesDep, SettingsDep
from interlock.models import describe_model

router = APIRouter(prefix="/api", tags=["catalog"])


# The hints a tool declares (undeclared: false). Cards read ``destructive`` from here; MCP
# clients get ``Tool.hints()`` (defaults derived from ``write``). No docstring: it would
# change the committed OpenAPI document.
class ToolAnnotationsOut(BaseModel):
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


class ToolOut(BaseModel):
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
    """Registered tools with their JSON Schemas and permissions."""
    return [
        ToolOut(
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
        )
        for t in services.registry.tools()
    ]
