"""The employee directory: built-ins merged with the admins' records in the database.

A built-in employee can be overridden (its record gets ``builtin=True``), disabled and reset,
never deleted. Every write is checked against the skills and tools the server knows and the
users and groups in the database, so an employee never names a skill, tool or approver that
does not exist (422 ``unknown_reference`` with the names).

The admins' records are cached per process. With several server processes on PostgreSQL,
every write also sends ``employees <slug>`` on ``interlock_control`` in its transaction, and
each other process drops its cache on it (:meth:`EmployeeDirectory.forget`), so an employee
created, changed (a tool now ``DENY``), disabled or deleted through one worker holds on all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from interlock.employees.spec import (
    ALL_SKILLS,
    GROUP_PREFIX,
    Employee,
    EmployeeFields,
    unsatisfiable_rules,
)
from interlock.errors import BadRequest, Conflict, NotFound, pydantic_field_errors
from interlock.storage import Database, EmployeeRecord
from interlock.storage.groups import existing_groups
from interlock.storage.models import utcnow
from interlock.storage.users import existing_user_names
from interlock.streaming.listener import CONTROL_CHANNEL
from interlock.text import one_line

_FIELDS = tuple(EmployeeFields.model_fields)

EMPLOYEES_VERB = "employees"
"""Control message verb (``employees <slug>``): an employee changed in another process."""


class EmployeeDirectory:
    """Reads and writes AI employees.

    Args:
        db: Storage of admin records.
        builtin: Built-in employees by slug.
        known_skills: Returns the names of the skills the server knows (loaded or failed).
        known_tools: Returns the registered tools' titles by name.
        question_tools: Returns the registered question tools (``ask.*``, answered by the
            person) as ``{name: display name}``: they always ask, so ``ALLOW`` is refused.
    """

    def __init__(
        self,
        db: Database,
        builtin: dict[str, Employee],
        known_skills: Callable[[], Iterable[str]],
        known_tools: Callable[[], Mapping[str, str]],
        question_tools: Callable[[], dict[str, str]] = dict,
    ) -> None:
        self._db = db
        self._builtin = builtin
        # Read on every model call: cached, and dropped on every write through this directory.
        self._records: dict[str, EmployeeRecord] | None = None
        self._generation = 0  # bumped by forget(): a load begun before it is not cached
        self._known_skills = known_skills
        self._known_tools = known_tools
        self._question_tools = question_tools

    def get(self, slug: str) -> Employee | None:
        """Return the employee ``slug`` (the admin's override when there is one), or None."""
        record = self._load().get(slug)
        if record is not None:
            return _from_record(record)
        return self._builtin.get(slug)

    def forget(self) -> None:
        """Drop the cached records: another server process changed an employee."""
        self._generation += 1
        self._records = None

    def _announce(self, session: Session, slug: str) -> None:
        """On PostgreSQL, tell the other server processes (committed with the change)."""
        if not self._db.is_sqlite:
            session.exec(select(func.pg_notify(CONTROL_CHANNEL, f"{EMPLOYEES_VERB} {slug}")))

    def _load(self) -> dict[str, EmployeeRecord]:
        records = self._records
        if records is None:
            generation = self._generation
            with self._db.session() as session:
                records = {r.slug: r for r in session.exec(select(EmployeeRecord)).all()}
            if generation == self._generation:  # else forgotten meanwhile: may predate it
                self._records = records
        return records

    def require(self, slug: str) -> Employee:
        """Like :meth:`get`.

        Raises:
            NotFound: No such employee.
        """
        employee = self.get(slug)
        if employee is None:
            raise NotFound(f"No employee {slug!r}.")
        return employee

    def named(self, slug: str) -> Employee:
        """Like :meth:`get`, for an employee a request body names (a path names one with
        :meth:`require`: 404).

        Raises:
            BadRequest: ``unknown_reference`` with ``details.employees`` (``[slug]``): the
                code of every unknown name in a body (skills, tools, approvers, employees).
        """
        employee = self.get(slug)
        if employee is None:
            raise BadRequest(
                f"There is no employee {one_line(slug, 80)!r}: check the name.",
                code="unknown_reference",
                details={"employees": [slug]},
            )
        return employee

    def list(self, *, include_disabled: bool = False) -> list[Employee]:
        """Built-ins first (in shipped order), then admin-made employees by name."""
        records = self._load()
        merged = [
            _from_record(records[slug]) if slug in records else employee
            for slug, employee in self._builtin.items()
        ]
        merged += sorted(
            (_from_record(r) for slug, r in records.items() if slug not in self._builtin),
            key=lambda e: e.name.lower(),
        )
        return [e for e in merged if include_disabled or not e.disabled]

    def create(self, slug: str, fields: EmployeeFields) -> Employee:
        """Create an employee.

        Raises:
            Conflict: ``employee_exists`` when the slug is taken (built-in or not).
            BadRequest: ``unknown_reference`` for unknown skills, tools, users or groups; bad slug.
        """
        employee = _validated(slug, fields.model_dump(), builtin=False)
        _refuse_unsatisfiable(employee, self._known_tools())
        self._check_references(employee)
        self._refuse_allowed_questions(employee)
        if slug in self._builtin:
            raise Conflict(f"The employee {slug!r} exists.", code="employee_exists")
        with self._db.session() as session:
            session.add(_to_record(employee))
            try:
                session.flush()
                self._announce(session, slug)
                session.commit()
                self._records = None
            except IntegrityError:
                raise Conflict(f"The employee {slug!r} exists.", code="employee_exists") from None
        return employee

    def update(self, slug: str, changes: dict[str, Any]) -> Employee:
        """Apply ``changes`` (a subset of the fields); a built-in gets an override record.

        Raises:
            NotFound: No such employee.
            BadRequest: Invalid fields; ``unknown_reference`` for unknown skills, tools or
                approvers.
        """
        current = self.require(slug)
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise BadRequest(f"Unknown fields: {', '.join(sorted(unknown))}.")
        merged = {**current.model_dump(include=set(_FIELDS)), **changes}
        employee = _validated(slug, merged, builtin=current.builtin)
        if {"approvers", "tool_approvals"} & set(changes):
            # a rule stored before the check blocks no edit
            _refuse_unsatisfiable(employee, self._known_tools())
        self._check_references(employee, current)
        self._refuse_allowed_questions(employee, current)
        with self._db.session() as session:
            record = session.get(EmployeeRecord, slug)
            if record is None:
                session.add(_to_record(employee))
            else:
                for name, value in employee.model_dump(include=set(_FIELDS)).items():
                    setattr(record, name, value)
                record.updated_at = utcnow()
                session.add(record)
            self._announce(session, slug)
            session.commit()
        self._records = None
        return employee

    def delete(self, slug: str) -> None:
        """Delete an admin-made employee; its conversations stay readable.

        Raises:
            NotFound: No such employee.
            Conflict: ``builtin_employee`` for a built-in (disable or reset it instead).
        """
        self.require(slug)
        if slug in self._builtin:
            raise Conflict(
                "Built-in employees cannot be deleted; disable or reset them.",
                code="builtin_employee",
            )
        self._drop_record(slug)

    def reset(self, slug: str) -> Employee:
        """Drop the admins' override of a built-in employee.

        Raises:
            NotFound: No such built-in employee.
        """
        if slug not in self._builtin:
            raise NotFound(f"No built-in employee {slug!r}.")
        self._drop_record(slug)
        return self._builtin[slug]

    def _drop_record(self, slug: str) -> None:
        """Delete the stored record of ``slug`` (an employee or a built-in's override), if any,
        and tell the other workers."""
        with self._db.session() as session:
            record = session.get(EmployeeRecord, slug)
            if record is not None:
                session.delete(record)
                self._announce(session, slug)
                session.commit()
        self._records = None

    def _refuse_allowed_questions(self, employee: Employee, before: Employee | None = None) -> None:
        """Refuse ``ALLOW`` for a question tool: it always asks (without the person there is
        no answer). An ``ALLOW`` stored before this check (in ``before``) blocks no edit.

        Raises:
            BadRequest: ``question_always_asks``, ``details`` ``{"tools": [names]}``.
        """
        questions = self._question_tools()
        kept = before.tool_overrides if before else {}
        allowed = sorted(
            name
            for name, permission in employee.tool_overrides.items()
            if permission == "ALLOW" and name in questions and kept.get(name) != "ALLOW"
        )
        if allowed:
            named = " and ".join(questions[name] for name in allowed)
            verb = "asks" if len(allowed) == 1 else "ask"
            raise BadRequest(
                f"{named} always {verb} the person, so it cannot be set to Allow: "
                "choose Ask or Deny.",
                code="question_always_asks",
                details={"tools": allowed},
            )

    def _check_references(self, employee: Employee, before: Employee | None = None) -> None:
        """Refuse an employee naming skills, tools, users or groups that do not exist.

        Approvers are checked when added (not in ``before``): a user or group that went away
        later does not block unrelated edits.

        Raises:
            BadRequest: ``unknown_reference``, with ``details`` ``{"skills", "tools",
                "users", "groups"}`` (lists of the unknown names; groups without ``group:``).
        """
        skills = set(self._known_skills())
        tools = set(self._known_tools())
        named = set(employee.pinned_skills) | (set(employee.available_skills) - {ALL_SKILLS})
        bad_skills = sorted(named - skills)
        bad_tools = sorted((set(employee.tool_overrides) | set(employee.tool_approvals)) - tools)
        bad_users, bad_groups = _unknown_approvers(
            self._db, set(employee.approvers) - set(before.approvers if before else ())
        )
        if bad_skills or bad_tools or bad_users or bad_groups:
            parts = []
            if bad_skills:
                parts.append(f"unknown skills: {', '.join(bad_skills)}")
            if bad_tools:
                parts.append(f"unknown tools: {', '.join(bad_tools)}")
            if bad_users:
                parts.append(
                    f"unknown users as approvers: {', '.join(bad_users)} (check the spelling, "
                    "or create the user first with `interlock users create NAME`)"
                )
            if bad_groups:
                parts.append(
                    f"unknown groups as approvers: {', '.join(bad_groups)} (a group exists once "
                    "it has a member: create the group first with "
                    f"`interlock groups add {bad_groups[0]} USER`)"
                )
            raise BadRequest(
                f"The employee names {'; '.join(parts)}.",
                code="unknown_reference",
                details={
                    "skills": bad_skills,
                    "tools": bad_tools,
                    "users": bad_users,
                    "groups": bad_groups,
                },
            )


def _unknown_approvers(db: Database, approvers: set[str]) -> tuple[list[str], list[str]]:
    """Return ``(unknown user names, unknown group names)`` among ``approvers``, sorted."""
    users = {a for a in approvers if not a.startswith(GROUP_PREFIX)}
    groups = {a.removeprefix(GROUP_PREFIX) for a in approvers if a.startswith(GROUP_PREFIX)}
    bad_users = sorted(users - existing_user_names(db, users))
    bad_groups = sorted(groups - existing_groups(db, groups))
    return bad_users, bad_groups


def _validated(slug: str, data: dict[str, Any], *, builtin: bool) -> Employee:
    try:
        employee = Employee(slug=slug, builtin=builtin, **data)
    except ValueError as exc:
        errors: list[dict[str, Any]] = list(getattr(exc, "errors", list)())
        raise BadRequest(
            "The employee is not valid.",
            code="invalid_request",
            details={"errors": pydantic_field_errors(errors)},
        ) from None
    if not one_line(employee.name, len(employee.name)):
        raise BadRequest(
            "The employee is not valid.",
            code="invalid_request",
            details={
                "errors": [
                    {
                        "path": ["name"],
                        "message": "The name needs at least one visible character.",
                        "rule": "blank",
                    }
                ]
            },
        )
    return employee


def _refuse_unsatisfiable(employee: Employee, tool_titles: Mapping[str, str]) -> None:
    """Refuse approval rules no conversation could meet (:func:`unsatisfiable_rules`), naming
    each tool by its title (``tool_titles``, by name).

    Raises:
        BadRequest: ``invalid_request``, the rules in ``details.errors`` (rule
            ``unsatisfiable``).
    """
    errors = unsatisfiable_rules(employee, tool_titles)
    if errors:
        raise BadRequest(
            " ".join(str(e["message"]) for e in errors),
            code="invalid_request",
            details={"errors": errors},
        )


def _from_record(record: EmployeeRecord) -> Employee:
    return Employee(
        slug=record.slug,
        builtin=record.builtin,
        **{name: getattr(record, name) for name in _FIELDS},
    )


def _to_record(employee: Employee) -> EmployeeRecord:
    data = employee.model_dump(include=set(_FIELDS))
    return EmployeeRecord(slug=employee.slug, builtin=employee.builtin, **data)
