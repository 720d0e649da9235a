"""Wire shapes of grants and switches: request bodies and answers."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from interlock.permissions.grants import MAX_GRANT_DAYS
from interlock.request_body import RequestBody
from interlock.storage.times import UtcTime
from interlock.text import check_storable


class RememberIn(RequestBody):
    """ "Don't ask again", sent with an approve or edit decision.

    Attributes:
        scope: ``conversation``: this tool in this conversation; ``employee``: this tool in
            all of the person's conversations with this employee.
        exact_args: Only calls with exactly the args that ran this time (the edited args for
            an edit).
        days: How long the grant lasts, 1 to 30; the server's default
            (``INTERLOCK_GRANT_DAYS``, 7) when omitted.
    """

    scope: Literal["conversation", "employee"]
    exact_args: bool = False
    days: int | None = Field(default=None, ge=1, le=MAX_GRANT_DAYS)


class GrantIn(RequestBody):
    """A grant made directly (``POST /api/grants``), not from a decision.

    Attributes:
        tool: Registered tool name.
        scope: ``conversation`` (needs ``conversation_id``) or ``employee`` (needs
            ``employee`` and takes no ``conversation_id``); anything else is refused
            (422 ``invalid_scope``).
        conversation_id: One of the caller's conversations (conversation scope only).
        employee: Employee slug (for conversation scope, optional and must be the
            conversation's).
        args: Only calls with exactly these args (checked against the tool's schema).
        days: Lasts this many days (1 to 30) ...
        expires_at: ... or until this time (server clock, at most 30 days ahead). Neither:
            the server's default (``INTERLOCK_GRANT_DAYS``).
    """

    tool: str = Field(min_length=1, max_length=200)
    scope: Literal["conversation", "employee"]
    conversation_id: str | None = Field(default=None, max_length=64)
    employee: str | None = Field(default=None, max_length=100)
    args: dict[str, Any] | None = None
    days: int | None = Field(default=None, ge=1, le=MAX_GRANT_DAYS)
    expires_at: UtcTime | None = None

    @model_validator(mode="after")
    def _consistent(self) -> GrantIn:
        check_storable({"tool": self.tool, "args": self.args})
        if self.days is not None and self.expires_at is not None:
            raise ValueError("give days or expires_at, not both")
        return self


class GrantOut(BaseModel):
    """A live grant, as the Permissions page lists it.

    ``args`` None means any args. ``void_reason`` says why the grant no longer covers calls
    (the tool changed, or is no longer asked); None while it does.
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    tool: str
    tool_title: str
    employee: str
    employee_name: str
    scope: Literal["conversation", "employee"]
    conversation_id: str | None = None
    conversation_title: str | None = None
    args: dict[str, Any] | None = None
    uses: int
    last_used_at: datetime | None = None
    created_at: datetime
    expires_at: datetime
    source_call_id: str | None = None
    void_reason: str | None = None


class ActionsIn(RequestBody):
    """Turn the "AI actions" switch on (for ``INTERLOCK_ACTIONS_GRANT_DAYS``) or off."""

    on: bool


class ActionsOut(BaseModel):
    """One employee's "AI actions" switch for the caller.

    Attributes:
        on: Write tools may run (each at its usual level).
        on_until: End of the current period; None when off.
        lapsed_at: When the last period ran out, if it ran out rather than being turned off.
        changed_by: ``default`` (started by the first message), ``person``, or ``none``.
        grant_days: How long turning it on lasts, in days.
        cancelled_calls: Ids of the waiting write calls closed by turning it off (PUT only).
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    employee: str
    employee_name: str
    on: bool
    on_until: datetime | None = None
    lapsed_at: datetime | None = None
    changed_by: Literal["default", "person", "none"]
    changed_at: datetime | None = None
    grant_days: int
    cancelled_calls: list[str] = []
