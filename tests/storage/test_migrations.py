"""Migrations: they build exactly the tables of the models, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

import interlock.storage.models  # noqa: F401  (registers the tables)
from interlock.storage import Database, migrate


def _schema(url: str) -> dict[str, Any]:
    """Return tables, columns (name, type, nullable) and indexes of the database at ``url``."""
    database = Database(url)
    try:
        inspector = sa.inspect(database.engine)
        return {
            table: {
                "columns": [
                    (c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)
                ],
                "indexes": sorted(
                    (i["name"] or "", tuple(i["column_names"]), bool(i["unique"]))
                    for i in inspector.get_indexes(table)
                ),
            }
            for table in sorted(inspector.get_table_names())
        }
    finally:
        database.dispose()


def _diff(url: str, metadata: sa.MetaData) -> list[Any]:
    """Return Alembic's autogenerate differences between the database and ``metadata``."""
    database = Database(url)
    try:
        with database.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, metadata))
    finally:
        database.dispose()


def test_fresh_database_has_no_revision(empty_db_url: str) -> None:
    assert migrate.current_revision(empty_db_url) is None


def test_upgrade_creates_every_table_and_column_of_the_models(empty_db_url: str) -> None:
    migrate.upgrade(empty_db_url)

    schema = _schema(empty_db_url)
    expected_tables = set(SQLModel.metadata.tables)
    assert set(schema) == expected_tables | {"alembic_version"}
    for name, table in SQLModel.metadata.tables.items():
        columns = [column[0] for column in schema[name]["columns"]]
        assert sorted(columns) == sorted(table.columns.keys()), name
        nullable = {column[0]: column[2] for column in schema[name]["columns"]}
        for column in table.columns:
            assert nullable[column.name] == column.nullable, f"{name}.{column.name}"


def test_models_match_the_migrations_exactly(empty_db_url: str) -> None:
    """A model change without a new revision fails here (types, indexes, constraints too)."""
    migrate.upgrade(empty_db_url)

    assert _diff(empty_db_url, SQLModel.metadata) == []


def test_a_model_change_without_a_migration_is_caught(empty_db_url: str) -> None:
    migrate.upgrade(empty_db_url)
    changed = sa.MetaData()
    for table in SQLModel.metadata.tables.values():
        table.to_metadata(changed)
    changed.tables["users"].append_column(sa.Column("email", sa.String(200), nullable=True))

    diff = _diff(empty_db_url, changed)

    assert [entry[0] for entry in diff] == ["add_column"]


def test_upgrade_twice_is_a_no_op(empty_db_url: str) -> None:
    migrate.upgrade(empty_db_url)
    before = _schema(empty_db_url)

    migrate.upgrade(empty_db_url)

    assert _schema(empty_db_url) == before
    assert migrate.current_revision(empty_db_url) == migrate.head_revision()


def test_the_head_read_from_the_scripts_is_alembics_head() -> None:
    assert migrate.script_head() == migrate.head_revision()


def test_a_current_database_is_told_apart_by_one_read(empty_db_url: str) -> None:
    database = Database(empty_db_url)
    try:
        assert not migrate.is_current(database)  # never migrated
        migrate.upgrade(empty_db_url, "0008")
        assert not migrate.is_current(database)  # behind: upgrade runs Alembic
        migrate.upgrade(empty_db_url)
        assert migrate.is_current(database)
        assert migrate.current_revision(empty_db_url) == migrate.head_revision()
    finally:
        database.dispose()


def test_upgrading_a_current_database_does_not_load_alembic(db_url: str) -> None:
    """`interlock serve` checks the schema at every start: a current one costs one read."""
    script = (
        "import sys\n"
        "from interlock.storage import migrate\n"
        f"migrate.upgrade({db_url!r})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_upgrade_keeps_existing_rows_and_moves_notes_into_the_store(empty_db_url: str) -> None:
    migrate.upgrade(empty_db_url, "0008")
    database = Database(empty_db_url)
    try:
        with database.engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO notes (id, owner_id, text, created_at) "
                    "VALUES (7, 'user_1', 'keep me', CURRENT_TIMESTAMP)"
                )
            )
        migrate.upgrade(empty_db_url)
        with database.engine.connect() as connection:
            rows = connection.execute(
                sa.text("SELECT id, owner_id, namespace, key, present FROM store_entries")
            ).all()
        assert [tuple(r) for r in rows] == [(7, "user_1", "notes", "7", True)]
        # New entries get ids past the moved notes (PostgreSQL's sequence was moved on).
        with database.engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO store_entries (owner_id, namespace, key, present, created_at, "
                    "updated_at) VALUES ('user_1', 'notes', 'x', true, CURRENT_TIMESTAMP, "
                    "CURRENT_TIMESTAMP)"
                )
            )
            new_id = connection.execute(
                sa.text("SELECT id FROM store_entries WHERE key = 'x'")
            ).scalar_one()
    finally:
        database.dispose()
    assert new_id == 8


def test_downgrade_to_base_then_upgrade_again(db_url: str) -> None:
    database = Database(db_url)
    try:
        with database.engine.begin() as connection:
            _run(connection, db_url, "downgrade", "base")
    finally:
        database.dispose()
    assert set(_schema(db_url)) == {"alembic_version"}
    assert migrate.current_revision(db_url) is None

    migrate.upgrade(db_url)

    assert _diff(db_url, SQLModel.metadata) == []


def _run(connection: Connection, url: str, name: str, revision: str) -> None:
    config = migrate.alembic_config(url)
    config.attributes["connection"] = connection
    getattr(command, name)(config, revision)


def test_revisions_use_plain_sqlalchemy_types() -> None:
    """Revision scripts never import sqlmodel: its types are rendered as SQLAlchemy's."""
    scripts = sorted((migrate.MIGRATIONS_DIR / "versions").glob("[0-9]*.py"))
    assert scripts, "no revision scripts found"
    for script in scripts:
        assert "sqlmodel" not in script.read_text(encoding="utf-8"), script.name


def test_revision_ids_fit_alembics_version_column() -> None:
    """PostgreSQL refuses a revision id over 32 characters (``alembic_version.version_num``);
    SQLite would not notice."""
    from alembic.script import ScriptDirectory

    revisions = list(ScriptDirectory.from_config(migrate.alembic_config()).walk_revisions())
    assert len(revisions) >= 17
    too_long = [r.revision for r in revisions if len(r.revision) > 32]
    assert too_long == []


@pytest.mark.parametrize(
    ("column_type", "rendered"),
    [
        (AutoString(length=64), "sa.String(length=64)"),
        (AutoString(), "sa.String()"),
        (UTCDateTime(), "sa.DateTime(timezone=True)"),
        (sa.JSON(), False),
    ],
)
def test_autogenerate_renders_sqlmodel_types(column_type: Any, rendered: str | bool) -> None:
    assert migrate.render_item("type", column_type, None) == rendered


def test_upgrade_folds_duplicate_mcp_records_into_the_oldest(empty_db_url: str) -> None:
    migrate.upgrade(empty_db_url, "0011_mcp_servers")
    database = Database(empty_db_url)
    try:
        with database.engine.begin() as connection:
            for conversation_id, created in (
                ("conv_old", "2026-01-01"),
                ("conv_new", "2026-01-02"),
            ):
                connection.execute(
                    sa.text(
                        "INSERT INTO conversations (id, owner_id, employee, title, active_run_id, "
                        "last_event_seq, loaded_skills, channel, created_at, updated_at) VALUES "
                        "(:id, 'user_1', 'assistant', 'MCP calls', NULL, 0, '[]', 'mcp', "
                        ":created, :created)"
                    ),
                    {"id": conversation_id, "created": created},
                )
                connection.execute(
                    sa.text(
                        "INSERT INTO messages (conversation_id, run_id, role, content, created_at) "
                        "VALUES (:id, 'mcp_1', 'assistant', '', :created)"
                    ),
                    {"id": conversation_id, "created": created},
                )
        migrate.upgrade(empty_db_url)
        with database.engine.begin() as connection:
            kept = connection.execute(sa.text("SELECT id FROM conversations")).scalars().all()
            moved = (
                connection.execute(sa.text("SELECT DISTINCT conversation_id FROM messages"))
                .scalars()
                .all()
            )
        assert kept == ["conv_old"] and moved == ["conv_old"]
    finally:
        database.dispose()


def test_upgrade_backfills_folded_user_names_and_indexes_them_unique(empty_db_url: str) -> None:
    """0023: every user gets its folded name, except a later one of names stored before the
    rule that differ only in case (the oldest keeps it, so that name still finds the oldest);
    then the unique index refuses another spelling of a taken name."""
    migrate.upgrade(empty_db_url, "0022_finished_late_after")
    database = Database(empty_db_url)
    try:
        with database.engine.begin() as connection:
            for user_id, name, created in (
                ("user_new", "ANN", "2026-01-02"),
                ("user_old", "ann", "2026-01-01"),
                ("user_bob", "Straße", "2026-01-03"),
            ):
                connection.execute(
                    sa.text(
                        "INSERT INTO users (id, name, role, token_hash, created_at) "
                        "VALUES (:id, :name, 'member', NULL, :created)"
                    ),
                    {"id": user_id, "name": name, "created": created},
                )
        migrate.upgrade(empty_db_url)
        with database.engine.connect() as connection:
            rows = connection.execute(
                sa.text("SELECT id, folded_name FROM users ORDER BY id")
            ).all()
        assert [tuple(r) for r in rows] == [
            ("user_bob", "strasse"),
            ("user_new", None),
            ("user_old", "ann"),
        ]
        with pytest.raises(sa.exc.IntegrityError), database.engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO users (id, name, folded_name, role, created_at) "
                    "VALUES ('user_x', 'STRASSE', 'strasse', 'member', CURRENT_TIMESTAMP)"
                )
            )
    finally:
        database.dispose()


def test_upgrade_numbers_existing_store_entries_by_their_keys(empty_db_url: str) -> None:
    """0024: an entry whose key is a number keeps it as its ``seq`` (notes keep their numbers,
    so history and undo labels still name them); other keys get none; then a second entry of
    the same person and namespace with a taken number is refused."""
    migrate.upgrade(empty_db_url, "0023_users_folded_name")
    database = Database(empty_db_url)
    try:
        with database.engine.begin() as connection:
            for entry_id, owner, key in ((5, "ann", "5"), (6, "ann", "title"), (7, "bob", "07")):
                connection.execute(
                    sa.text(
                        "INSERT INTO store_entries (id, owner_id, namespace, key, value, present,"
                        " created_at, updated_at) VALUES (:id, :owner, 'notes', :key, NULL, "
                        "1 = 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    ),
                    {"id": entry_id, "owner": owner, "key": key},
                )
        migrate.upgrade(empty_db_url)
        with database.engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT id, seq FROM store_entries ORDER BY id"))
            assert [tuple(r) for r in rows] == [(5, 5), (6, None), (7, None)]
        with pytest.raises(sa.exc.IntegrityError), database.engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO store_entries (owner_id, namespace, key, seq, value, present,"
                    " created_at, updated_at) VALUES ('ann', 'notes', 'x', 5, NULL, 1 = 1,"
                    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                )
            )
    finally:
        database.dispose()
