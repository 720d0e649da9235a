"""The partial unique index of MCP records, built from the models on both backends.

Its PostgreSQL ``WHERE`` is added when a PostgreSQL database is opened (a SQLite server never
loads SQLAlchemy's PostgreSQL dialect); tables made from the models must still have it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from interlock.storage import Conversation, Database


def test_tables_made_from_the_models_keep_one_mcp_record_per_person_and_employee(
    empty_db_url: str,
) -> None:
    db = Database(empty_db_url)
    try:
        SQLModel.metadata.create_all(db.engine)
        with db.session() as session:  # chats: as many as one likes
            session.add(Conversation(owner_id="ann", employee="helper"))
            session.add(Conversation(owner_id="ann", employee="helper"))
            session.add(Conversation(owner_id="ann", employee="helper", channel="mcp"))
            session.commit()
        with db.session() as session, pytest.raises(IntegrityError):
            session.add(Conversation(owner_id="ann", employee="helper", channel="mcp"))
            session.commit()
    finally:
        db.dispose()


def test_a_sqlite_server_does_not_load_the_postgresql_dialect() -> None:
    code = (
        "import sys\n"
        "from interlock.api.app import create_app\n"
        "from interlock.storage import Database\n"
        "Database('sqlite://').dispose()\n"
        "print('sqlalchemy.dialects.postgresql' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
