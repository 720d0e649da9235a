"""The reads a model step makes of a conversation's tool calls use an index led by the
conversation (migration 0017), so they touch only the rows they return (SQLite's plan)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from interlock.engine.history import _CALL_ROWS_AFTER, _CALLS_AFTER
from interlock.engine.loop_guard import _DECLINED
from interlock.engine.open_calls import _OPEN_CALLS
from interlock.storage.migrate import upgrade
from interlock.store.undo import _UNDONE_CALLS


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sa.Engine]:
    """A migrated SQLite database (no rows: the plan comes from the indexes alone)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('plan') / 'interlock.db'}"
    upgrade(url)
    engine = sa.create_engine(url)
    yield engine
    engine.dispose()


def _plan(engine: sa.Engine, statement: Any, params: dict[str, object]) -> str:
    sql = statement.params(**params).compile(
        dialect=engine.dialect, compile_kwargs={"literal_binds": True}
    )
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").all()
    return " | ".join(str(row[-1]) for row in rows)


@pytest.mark.parametrize(
    ("statement", "params", "index"),
    [
        (_OPEN_CALLS, {"conversation_id": "c"}, "ix_tool_calls_conversation_id_status"),
        (_DECLINED, {"cid": "c", "tool": "notes.add"}, "ix_tool_calls_conversation_id_status"),
        (_UNDONE_CALLS, {"cid": "c"}, "ix_tool_calls_conversation_id_undo_state"),
        (_CALLS_AFTER, {"cid": "c", "after": 7}, "ix_tool_calls_conversation_id_message_id_index"),
        (
            _CALL_ROWS_AFTER,
            {"cid": "c", "after": 7},
            "ix_tool_calls_conversation_id_message_id_index",
        ),
    ],
)
def test_a_steps_read_of_a_conversations_calls_searches_both_columns(
    engine: sa.Engine, statement: Any, params: dict[str, object], index: str
) -> None:
    plan = _plan(engine, statement, params)
    assert f"USING INDEX {index} (conversation_id=? AND " in plan, plan
