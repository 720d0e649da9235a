"""What an AI employee is: the fields users see, the prompt the model gets, and its tool rules."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from interlock.approvals.rules import (
    ToolApprovalRule,
    approval_timeout_problem,
    unsatisfiable_rule_problem,
)
from interlock.models import check_model_spec
from interlock.text import check_storable, is_blank, one_line
from interlock.tools.schema.labels import field_label

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
ALL_SKILLS = "*"
"""In ``available_skills``: every loaded skill may be loaded by this employee."""

ToolPermission = Literal["ALLOW", "ASK", "DENY"]

APPROVER_RE = re.compile(r"^(group:)?[^\s:][^\n\r]{0,199}$")
GROUP_PREFIX = "group:"


BUILTIN_FILE = Path(__file__).with_name("builtin.yaml")
DEFAULT_EMPLOYEE = "assistant"


class EmployeeFields(BaseModel):
    """Fields an admin sets. Lists and strings have sizes a page can show.

    Attributes:
        name: Display name.
        avatar: An emoji or short text shown as the avatar.
        title: Job title shown to users.
        about: What the employee does, shown to users.
        system_prompt: Instructions the model gets first in every turn.
        model: ``provider:model`` or None for the server's model.
        pinned_skills: Skills always active (their instructions and tools are always in).
        available_skills: Skills the model may load with ``load_skill``; ``"*"`` means all.
        tool_overrides: ``{tool name: ALLOW|ASK|DENY}`` for any tool, built-in or not.
        greeting: First line shown in a new conversation.
        starter_prompts: Suggested first messages, shown as buttons that send them; blank ones
            (nothing visible, so nothing to send) are left out.
        disabled: Hidden from users; no new messages in its conversations.
        approvers: People who may decide calls in anyone's conversation with this employee,
            besides the conversation's owner: user names, or ``group:<name>`` for a group.
        approval_timeout_s: Seconds a call waits for a decision before it expires, for tools
            that declare none; None uses the server's ``INTERLOCK_APPROVAL_TIMEOUT_S``.
        tool_approvals: ``{tool name: ToolApprovalRule}`` overriding tools' own rules.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1, max_length=200)
    avatar: str = Field(default="", max_length=200)
    title: str = Field(default="", max_length=200)
    about: str = Field(default="", max_length=2_000)
    system_prompt: str = Field(default="", max_length=20_000)
    model: str | None = Field(default=None, max_length=200)
    pinned_skills: list[str] = Field(default_factory=list, max_length=100)
    available_skills: list[str] = Field(default_factory=list, max_length=100)
    tool_overrides: dict[str, ToolPermission] = Field(default_factory=dict, max_length=500)
    greeting: str = Field(default="", max_length=2_000)
    starter_prompts: list[str] = Field(default_factory=list, max_length=10)
    disabled: bool = False
    approvers: list[str] = Field(default_factory=list, max_length=100)
    approval_timeout_s: float | None = None
    tool_approvals: dict[str, ToolApprovalRule] = Field(default_factory=dict, max_length=500)

    @field_validator("title")
    @classmethod
    def _title_line(cls, value: str) -> str:
        check_storable(value)  # NUL or a lone surrogate: refused, not made a space
        return one_line(value, len(value))  # as the name's, below; may be empty

    @field_validator("name")
    @classmethod
    def _name_line(cls, value: str) -> str:
        # Shown as one line (headers, the sidebar, cards): line breaks and tabs become
        # spaces, invisible format characters (bidi overrides, zero-width spaces) are
        # dropped (the API refuses such a name: this is for one stored or written in a
        # file before). Nothing visible: kept as sent, and a name
        # like that is refused where an employee is saved (directory), while one stored
        # before still loads.
        check_storable(value)  # NUL or a lone surrogate: refused, not made a space
        return one_line(value, len(value)) or value

    @field_validator("starter_prompts")
    @classmethod
    def _starter_prompts(cls, value: list[str]) -> list[str]:
        # A blank prompt would be an empty button whose message the server refuses; dropped
        # rather than refused, so an employee stored with one still loads.
        return [prompt for prompt in value if not is_blank(prompt)]

    @field_validator("approvers")
    @classmethod
    def _approvers(cls, value: list[str]) -> list[str]:
        for entry in value:
            if not APPROVER_RE.match(entry) or entry == GROUP_PREFIX:
                raise ValueError(f"approvers: {entry!r} is neither a user name nor 'group:<name>'")
        return list(dict.fromkeys(value))

    @field_validator("approval_timeout_s", mode="before")
    @classmethod
    def _approval_timeout(cls, value: object) -> object:
        problem = approval_timeout_problem(value)
        if problem:
            raise ValueError(problem)
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("model")
    @classmethod
    def _model_format(cls, value: str | None) -> str | None:
        if value:
            # ValueError names the expected form or providers
            check_model_spec(
                value, name="The model", otherwise="Leave it empty to use the server's model."
            )
        return value or None

    @model_validator(mode="after")
    def _storable(self) -> EmployeeFields:
        check_storable(self.model_dump())
        return self


class Employee(EmployeeFields):
    """An AI employee as stored or shipped: the fields plus ``slug`` and ``builtin``."""

    slug: str
    builtin: bool = False

    @field_validator("slug")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG_RE.match(value):
            raise ValueError(
                "The slug may use only lowercase letters, digits, '_' and '-', 1 to 63 "
                "characters, starting with a letter or digit."
            )
        return value

    def may_load(self, skill: str) -> bool:
        """True when ``skill`` is pinned or listed (or ``"*"``) in ``available_skills``."""
        return (
            skill in self.pinned_skills
            or skill in self.available_skills
            or ALL_SKILLS in self.available_skills
        )


RULE_LABELS: dict[str, str] = {
    key: field_label(ToolApprovalRule.model_json_schema(), [key])
    for key in ToolApprovalRule.model_fields
}
"""An approval rule's settings as people read them: the titles of its JSON Schema (as cards
label a tool's fields), else the key in words."""


def unsatisfiable_rules(
    employee: EmployeeFields, tool_titles: Mapping[str, str] | None = None
) -> list[dict[str, object]]:
    """The employee's approval rules no conversation could meet, as field errors.

    Not a validator of the model: an employee stored before this check still loads (and
    runs: its calls expire); it is applied where rules are written (creating an employee,
    changing its approvers or rules) and to the built-ins when they load.

    Args:
        employee: The employee's fields.
        tool_titles: The registered tools' titles by name; a tool missing here is named by
            its name (``'notes.add'``, as :attr:`Tool.display_name` does).

    Returns:
        ``[{"path": ["tool_approvals", tool], "message": ..., "rule": "unsatisfiable"}]``.
    """
    errors: list[dict[str, object]] = []
    for tool, rule in employee.tool_approvals.items():
        title = (tool_titles or {}).get(tool)
        problem = unsatisfiable_rule_problem(
            f"“{title}”" if title else f"'{tool}'",
            rule,
            employee.approvers,
            group_prefix=GROUP_PREFIX,
            labels=RULE_LABELS,
        )
        if problem is not None:
            errors.append(
                {"path": ["tool_approvals", tool], "message": problem, "rule": "unsatisfiable"}
            )
    return errors


def load_builtin(path: Path = BUILTIN_FILE) -> dict[str, Employee]:
    """Read the built-in employees shipped with the package.

    Raises:
        ValueError: The file breaks the rules (a packaging bug, caught by the tests).
    """
    # libyaml's parser when PyYAML has it: the same data, a tenth of the pure-Python one's CPU.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or []
    employees = [Employee(builtin=True, **item) for item in raw]
    for employee in employees:
        if problems := unsatisfiable_rules(employee):
            raise ValueError(f"{employee.slug}: {problems[0]['message']}")
    return {e.slug: e for e in employees}
