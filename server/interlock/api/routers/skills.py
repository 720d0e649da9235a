"""Skills: what loaded, what failed and why."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from interlock.api.deps import CurrentUser, ServicesDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.skills import skill_out

router = APIRouter(prefix="/api/skills", tags=["skills"], responses=ERROR_RESPONSES)


class SkillCommandOut(BaseModel):
    command: str
    title: str
    description: str
    tool: str


class SkillOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    name: str
    description: str
    version: str | None = None
    tags: list[str] = []
    status: Literal["loaded", "failed"]
    error: str | None = None
    tools: list[str] = []
    commands: list[SkillCommandOut] = []
    path: str | None = None


@router.get("")
def list_skills(user: CurrentUser, services: ServicesDep) -> list[SkillOut]:
    """Every skill folder found: loaded ones with their tools and commands, failed ones with why.

    Why a skill failed and where it lives on the server are shown to admins only.
    """
    skills = [SkillOut.model_validate(skill_out(s)) for s in services.catalog.all]
    if user.role != "admin":
        for skill in skills:
            skill.path = None
            if skill.error is not None:
                skill.error = "This skill failed to load; an admin can see why."
    return skills
