"""Schema migrations, run with Alembic configured in code (there is no ``alembic.ini``).

The revisions live inside the package (``interlock/storage/migrations/versions``), so an
installed Interlock can migrate its database on its own: ``interlock serve`` and
``interlock db upgrade`` call :func:`upgrade`, which does nothing when the database is current.

To add a revision after changing :mod:`interlock.storage.models`::

    interlock db revision -m "add a column" --url sqlite:///./var/scratch.db

autogenerates one against that (migrated) database; review it before committing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import inspect, text
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

from interlock.storage.db import Database

if TYPE_CHECKING:  # Alembic loads only when there is something to migrate (start-up time)
    from alembic.autogenerate.api import AutogenContext
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "alembic_version"

_REVISION_RE = re.compile(r'^revision(?:: str)? = "([^"]+)"$', re.MULTILINE)
_DOWN_REVISION_RE = re.compile(r'^down_revision(?:: [^=]+)? = (None|"[^"]*")$', re.MULTILINE)


def alembic_config(database_url: str | None = None) -> Config:
    """Return an Alembic configuration pointing at Interlock's migrations.

    Args:
        database_url: Database the commands run against; set as an attribute, not as an ini
            option, so that a ``%`` in a password needs no escaping.

    Returns:
        A configuration usable with :mod:`alembic.command`.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Revision files are named like ``0002_add_a_column.py`` (``%%`` escapes configparser).
    config.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    if database_url is not None:
        config.attributes["database_url"] = database_url
    return config


def render_item(
    type_: str, obj: Any, autogen_context: AutogenContext | None
) -> str | Literal[False]:
    """Render sqlmodel's column types as the plain SQLAlchemy types they stand for.

    Args:
        type_: Kind of object being rendered (``"type"`` for column types).
        obj: The object itself.
        autogen_context: Alembic's rendering context (unused).

    Returns:
        The Python source for the type, or ``False`` for Alembic's default rendering.
    """
    if type_ == "type" and isinstance(obj, AutoString):
        length = getattr(obj.impl, "length", None)
        return f"sa.String(length={length})" if length is not None else "sa.String()"
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def head_revision() -> str:
    """Return the newest revision id among the migration scripts."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError(f"No migration revisions found in {MIGRATIONS_DIR}")
    return head


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database at ``database_url`` up to ``revision``; a no-op when it is there.

    Args:
        database_url: SQLAlchemy URL (SQLite or PostgreSQL), as in ``Settings.database_url``.
        revision: Target revision; the newest by default.
    """
    database = Database(database_url)
    try:
        if revision == "head" and is_current(database):
            return  # one cheap read; Alembic (a tenth of a second to import) is not needed
        from alembic import command

        with database.engine.begin() as connection:
            config = alembic_config(database_url)
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        database.dispose()


def script_head() -> str | None:
    """Return the newest revision read from the scripts' text, without Alembic.

    Every script states ``revision = "<id>"`` and ``down_revision = ...`` (the template and
    the house rule: the id is the file's stem). The head is the one revision no other revises.

    Returns:
        The head's id, or None when the scripts do not say it plainly (a script in another
        shape, or several heads): the caller then asks Alembic.
    """
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        if path.name == "__init__.py":
            continue
        source = path.read_text(encoding="utf-8")
        found = _REVISION_RE.search(source)
        down = _DOWN_REVISION_RE.search(source)
        if found is None or down is None:
            return None
        revisions.add(found.group(1))
        if down.group(1) != "None":
            revised.add(down.group(1).strip('"'))
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def is_current(database: Database) -> bool:
    """Whether ``database`` is at the scripts' head: one read of ``alembic_version``.

    False when it was never migrated, is behind (or elsewhere), or the head is not plain
    (:func:`script_head`): :func:`upgrade` then runs Alembic, which decides.
    """
    head = script_head()
    if head is None:
        return False
    with database.engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return False
        stamped = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    return [row[0] for row in stamped] == [head]


def current_revision(database_url: str) -> str | None:
    """Return the database's revision id, or ``None`` when it was never migrated.

    Args:
        database_url: SQLAlchemy URL (SQLite or PostgreSQL).
    """
    from alembic.runtime.migration import MigrationContext

    database = Database(database_url)
    try:
        with database.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        database.dispose()


def revision(database_url: str, message: str, *, autogenerate: bool = True) -> Path:
    """Write a new revision script, autogenerated from the difference with the models.

    Args:
        database_url: A database at the current head, which the models are compared with.
        message: Short description, also used in the file name.
        autogenerate: Compare the models with the database; ``False`` writes an empty script.

    Returns:
        Path of the new script.
    """
    from alembic import command
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    numbered = [int(head) for head in heads if head.isdigit()]
    rev_id = f"{max(numbered, default=0) + 1:04d}"
    database = Database(database_url)
    try:
        with database.engine.begin() as connection:
            config = alembic_config(database_url)
            config.attributes["connection"] = connection
            script = command.revision(
                config, message=message, autogenerate=autogenerate, rev_id=rev_id
            )
    finally:
        database.dispose()
    if script is None or isinstance(script, list):  # pragma: no cover - one head, one script
        raise RuntimeError("Alembic wrote no single revision script")
    path = Path(script.path)
    _tidy(path)
    return path


def _tidy(path: Path) -> None:
    """Format a new revision with ruff when it is installed (a development dependency)."""
    for args in (["check", "--fix", "--quiet"], ["format", "--quiet"]):
        try:
            subprocess.run([sys.executable, "-m", "ruff", *args, str(path)], check=False)
        except OSError:  # pragma: no cover - no ruff: leave the file as Alembic wrote it
            return
