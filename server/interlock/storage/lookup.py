"""Rows by primary key through prebuilt statements (the hot paths' ``session.get``).

``session.get`` builds its query anew on every call that misses the identity map, which costs
more CPU than SQLite running it; these statements are built once per model. Same result: the
object of the session's identity map when the row is loaded already (not refreshed), else the
row loaded, else None.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import bindparam
from sqlmodel import Session, SQLModel, select

M = TypeVar("M", bound=SQLModel)

_BY_ID: dict[tuple[type[Any], bool], Any] = {}


def by_id(session: Session, model: type[M], row_id: Any, *, reload: bool = False) -> M | None:
    """Return the ``model`` row whose ``id`` is ``row_id``, or None.

    Args:
        session: Open session.
        model: A table model with a single-column primary key named ``id``.
        row_id: The key.
        reload: Refresh the object of the identity map from the row (``session.get``'s
            ``populate_existing``), e.g. after a Core UPDATE of the row in this session.
    """
    statement = _BY_ID.get((model, reload))
    if statement is None:
        statement = select(model).where(
            model.id == bindparam("row_id")  # type: ignore[attr-defined]
        )
        if reload:
            statement = statement.execution_options(populate_existing=True)
        _BY_ID[(model, reload)] = statement
    found: M | None = session.exec(statement, params={"row_id": row_id}).first()
    return found
