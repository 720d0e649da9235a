"""Remote MCP servers added by admins, kept in ``mcp_servers`` (synchronous; run these through
``await db.run(...)``)."""

from __future__ import annotations

from sqlmodel import select

from interlock.settings import McpServerSpec
from interlock.storage import Database, McpServerRecord
from interlock.storage.models import utcnow


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


def save_server(db: Database, name: str, spec: McpServerSpec, user_id: str) -> None:
    """Create or replace the stored server ``name``."""
    with db.session() as session:
        record = session.get(McpServerRecord, name)
        data = spec.model_dump(mode="json", exclude_defaults=True)
        if record is None:
            record = McpServerRecord(name=name, spec=data, created_by=user_id)
        else:
            record.spec, record.updated_at = data, utcnow()
        session.add(record)
        session.commit()


def delete_server(db: Database, name: str) -> bool:
    """Delete the stored server ``name``; False when there was none."""
    with db.session() as session:
        record = session.get(McpServerRecord, name)
        if record is None:
            return False
        session.delete(record)
        session.commit()
        return True
