"""Remote MCP servers added by admins, kept in ``mcp_servers`` (synchronous; run these through
``await db.run(...)``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import select

from interlock.settings import McpServerSpec
from interlock.storage import Database, McpServerRecord
from interlock.storage.models import utcnow
from interlock.streaming.listener import CONTROL_CHANNEL


def load_servers(db: Database) -> dict[str, McpServerSpec]:
    """Every stored server, by name; a record that no longer parses is skipped (logged by
    the caller through its absence)."""
    with db.session() as session:
        records = session.exec(select(McpServerRecord)).all()
    out: dict[str, McpServerSpec] = {}
    for record in records:
        try:
            out[record.name] = McpServerSpec.model_validate(record.spec)
        except ValueError:
            continue
    return out


def load_server(db: Database, name: str) -> McpServerSpec | None:
    """The stored server ``name``, or None (none, or no longer valid)."""
    with db.session() as session:
        record = session.get(McpServerRecord, name)
    if record is None:
        return None
    try:
        return McpServerSpec.model_validate(record.spec)
    except ValueError:
        return None


def _announce(session: Any, db: Database, notice: str | None) -> None:
    """On PostgreSQL, tell the other server processes (committed with the change)."""
    if notice is not None and not db.is_sqlite:
        session.exec(select(func.pg_notify(CONTROL_CHANNEL, notice)))


def save_server(
    db: Database, name: str, spec: McpServerSpec, user_id: str, notice: str | None = None
) -> None:
    """Create or replace the stored server ``name``; ``notice`` is sent to the other server
    processes (``NOTIFY interlock_control``) in the same transaction."""
    with db.session() as session:
        record = session.get(McpServerRecord, name)
        data = spec.model_dump(mode="json", exclude_defaults=True)
        if record is None:
            record = McpServerRecord(name=name, spec=data, created_by=user_id)
        else:
            record.spec, record.updated_at = data, utcnow()
        session.add(record)
        _announce(session, db, notice)
        session.commit()


def delete_server(db: Database, name: str, notice: str | None = None) -> bool:
    """Delete the stored server ``name``; False when there was none. ``notice`` as in
    :func:`save_server`."""
    with db.session() as session:
        record = session.get(McpServerRecord, name)
        if record is None:
            return False
        session.delete(record)
        _announce(session, db, notice)
        session.commit()
        return True
