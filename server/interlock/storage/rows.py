"""Write-only rows inserted through prebuilt Core statements (the hot paths' ``session.add``).

A row the transaction only writes (it is never changed or re-read through the session) costs
less CPU inserted with a Core ``INSERT`` than flushed by the unit of work. Same row as the
ORM writes: every column the object holds, ``None`` left to the column's default as the ORM
does (JSON columns store JSON ``null``, as the ORM does), and an autoincrement key set on the
object. The object stays outside the session (transient).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, insert, inspect
from sqlalchemy.orm import Session
from sqlmodel import SQLModel

_PLANS: dict[type[Any], _Plan] = {}


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
        keys = mapper.primary_key
        self.autoincrement: str | None = None
        if len(keys) == 1 and keys[0] is table.autoincrement_column:
            self.autoincrement = mapper.get_property_by_column(keys[0]).key


def insert_rows(session: Session, rows: list[Any]) -> None:
    """Insert ``rows`` (objects of table models) in order, in ``session``'s transaction.

    Objects already added to the session and not flushed yet are flushed first, so rows
    keep the order in which the transaction wrote them (autoincrement keys included).

    Args:
        session: Open session.
        rows: New objects, not added to any session; each one's autoincrement key (if its
            model has one) is set from the database.
    """
    if session.new:
        session.flush()
    connection = session.connection()
    for row in rows:
        plan = _PLANS.get(type(row))
        if plan is None:
            plan = _PLANS[type(row)] = _Plan(type(row))
        values: dict[str, Any] = {}
        for attribute, key, evaluate_none in plan.columns:
            value = getattr(row, attribute)
            if value is not None or evaluate_none:
                values[key] = value
        result = connection.execute(plan.statement, values)
        if plan.autoincrement is not None and getattr(row, plan.autoincrement) is None:
            inserted = result.inserted_primary_key
            assert inserted is not None
            setattr(row, plan.autoincrement, inserted[0])
