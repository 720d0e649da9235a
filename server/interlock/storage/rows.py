"""New rows built and inserted with less CPU than the ORM spends (the hot paths' ``session.add``).

A row the transaction only writes (it is never changed or re-read through the session) costs
less CPU inserted with a prebuilt Core ``INSERT`` (compiled once per set of columns,
:mod:`~interlock.storage.compiled`) than flushed by the unit of work. Same row as the
ORM writes: every column the object holds, ``None`` left to the column's default as the ORM
does (JSON columns store JSON ``null``, as the ORM does), and an autoincrement key set on the
object. The object stays outside the session (transient).

:func:`new_row` builds the object itself as a table model's constructor does (the same
attribute values, defaults included) without its per-attribute instrumented ``setattr`` and
default lookups, which cost more than the statement that writes the row.

:func:`defer_rows` queues the same ``INSERT`` as :func:`insert_rows` to go out with the
transaction's next round trip on PostgreSQL (:mod:`~interlock.storage.write_behind`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar, cast

from sqlalchemy import Table, insert, inspect
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable
from sqlmodel import SQLModel

from interlock.storage.write_behind import Sent, defer, execute

M = TypeVar("M", bound=SQLModel)

_PLANS: dict[type[Any], _Plan] = {}
_IMMUTABLE = (type(None), bool, int, float, str, Enum)


class _Plan:
    """A model's INSERT and how to read its values from an object (built once per model)."""

    def __init__(self, model: type[SQLModel]) -> None:
        mapper = inspect(model)
        table = mapper.local_table
        assert isinstance(table, Table)
        self.statement = insert(table)
        # (attribute, column key, whether None is written as a value rather than left out)
        self.columns: list[tuple[str, str, bool]] = [
            (prop.key, prop.columns[0].key, prop.columns[0].type.should_evaluate_none)
            for prop in mapper.column_attrs
        ]
        self.manager = mapper.class_manager
        self.fields = frozenset(model.model_fields)
        # (field, default value, maker) per optional field: the value when it is immutable,
        # else what makes it anew for every object (as pydantic does): the default factory
        # itself when it takes no argument (pydantic's ``get_default`` inspects its signature
        # at every call to find out), else the field's ``get_default``.
        self.defaults: list[tuple[str, Any, Callable[[], Any] | None]] = []
        for name, field in model.model_fields.items():
            if field.is_required():
                continue
            factory = field.default_factory
            if factory is None and isinstance(field.default, _IMMUTABLE):
                self.defaults.append((name, field.default, None))
            elif factory is not None and not field.default_factory_takes_validated_data:
                self.defaults.append((name, None, cast("Callable[[], Any]", factory)))
            else:
                self.defaults.append(
                    (name, None, functools.partial(field.get_default, call_default_factory=True))
                )
        keys = mapper.primary_key
        self.autoincrement: str | None = None
        column = table.autoincrement_column
        if len(keys) == 1 and column is not None and keys[0] is column:
            self.autoincrement = mapper.get_property_by_column(column).key


def _plan(model: type[Any]) -> _Plan:
    plan = _PLANS.get(model)
    if plan is None:
        plan = _PLANS[model] = _Plan(model)
    return plan


def new_row(model: type[M], **values: Any) -> M:
    """Return a new (transient) object of table model ``model``, as ``model(**values)`` does.

    Same attribute values as the constructor gives (defaults and default factories for the
    fields not given, the values given as they are: table models do not validate), the
    given fields as the pydantic fields set; the object can be added to a session or
    inserted with :func:`insert_rows`.

    Raises:
        TypeError: A name in ``values`` is not a field of ``model``.
    """
    plan = _plan(model)
    unknown = values.keys() - plan.fields
    if unknown:
        raise TypeError(f"{model.__name__} has no field(s) {sorted(unknown)}")
    row: M = plan.manager.new_instance()
    attributes = row.__dict__
    for name, default, make in plan.defaults:
        if name not in values:
            attributes[name] = default if make is None else make()
    attributes.update(values)
    object.__setattr__(row, "__pydantic_fields_set__", set(values))
    return row


def insert_rows(session: Session, rows: list[Any]) -> None:
    """Insert ``rows`` (objects of table models) in order, in ``session``'s transaction.

    Objects already added to the session and not flushed yet are flushed first, so rows
    keep the order in which the transaction wrote them (autoincrement keys included). On
    PostgreSQL, writes queued by :func:`~interlock.storage.write_behind.defer` go out with
    the first row, in the same round trip.

    Args:
        session: Open session.
        rows: New objects, not added to any session; each one's autoincrement key (if its
            model has one) is set from the database.
    """
    if session.new:
        session.flush()
    for row in rows:
        plan, values = _plan_and_values(row)
        key = execute(session, plan.statement, values).key
        if plan.autoincrement is not None and getattr(row, plan.autoincrement) is None:
            assert key is not None
            setattr(row, plan.autoincrement, key)


def defer_rows(session: Session, rows: list[Any]) -> None:
    """:func:`insert_rows` for rows whose insert nobody waits for: on PostgreSQL they go out
    with the transaction's next round trip (:func:`~interlock.storage.write_behind.defer`).

    Args:
        session: Open session.
        rows: New objects whose keys are all set (nothing is read back).

    Raises:
        sqlalchemy.exc.DBAPIError: From the round trip the rows go out with (a unique
            violation among them), as SQLAlchemy raises it; never here on PostgreSQL.
    """
    if session.new:
        session.flush()
    for row in rows:
        defer(session, *insert_statement(row))


def insert_statement(row: Any) -> tuple[Executable, dict[str, Any]]:
    """The ``INSERT`` of :func:`insert_rows` for ``row``, whose keys are all set, and its
    values: a pair for :func:`~interlock.storage.write_behind.send`."""
    plan, values = _plan_and_values(row)
    assert plan.autoincrement is None or getattr(row, plan.autoincrement) is not None
    return plan.statement, values


def new_row_insert(row: Any) -> tuple[Executable, dict[str, Any]]:
    """The ``INSERT`` of :func:`insert_rows` for ``row``, whose autoincrement key (if its
    model has one) the database generates: a pair for
    :func:`~interlock.storage.write_behind.send`; pass what it returned to :func:`set_key`."""
    plan, values = _plan_and_values(row)
    return plan.statement, values


def set_key(row: Any, sent: Sent) -> None:
    """Set ``row``'s autoincrement key from what its :func:`new_row_insert` returned."""
    plan = _plan(type(row))
    if plan.autoincrement is not None and getattr(row, plan.autoincrement) is None:
        assert sent.key is not None
        setattr(row, plan.autoincrement, sent.key)


def _plan_and_values(row: Any) -> tuple[_Plan, dict[str, Any]]:
    """The model's plan and the values ``row`` inserts (``None`` left to defaults)."""
    plan = _plan(type(row))
    values: dict[str, Any] = {}
    for attribute, key, evaluate_none in plan.columns:
        value = getattr(row, attribute)
        if value is not None or evaluate_none:
            values[key] = value
    return plan, values
